import type { Logger } from "../logger.js";
import { BridgeError, isBridgeError } from "../protocol/index.js";

/** Codes a plugin may throw on a plain object: upper-case, bounded. */
const CODE_PATTERN = /^[A-Z][A-Z0-9_]{1,63}$/;

/** Why a call failed, as the plugin reported it; anything without a code becomes INTERNAL without internals. */
export function toPluginError(error: unknown, pluginId: string, where: string, log: Logger): BridgeError {
  if (isBridgeError(error)) {
    if (error.pluginId !== undefined) return error;
    return new BridgeError(error.code, error.message, {
      ...(error.details === undefined ? {} : { details: error.details }),
      ...(error.retryable === undefined ? {} : { retryable: error.retryable }),
      source: error.source ?? "plugin",
      pluginId,
    });
  }
  const shaped = error as { code?: unknown; message?: unknown; details?: unknown; retryable?: unknown; status?: unknown } | null;
  if (typeof shaped === "object" && shaped !== null && typeof shaped.code === "string" && CODE_PATTERN.test(shaped.code)) {
    let details =
      typeof shaped.details === "object" && shaped.details !== null ? { ...(shaped.details as Record<string, unknown>) } : undefined;
    if (typeof shaped.status === "number") details = { ...details, httpStatus: shaped.status };
    return new BridgeError(shaped.code, typeof shaped.message === "string" ? shaped.message : shaped.code, {
      ...(details === undefined ? {} : { details }),
      ...(typeof shaped.retryable === "boolean" ? { retryable: shaped.retryable } : {}),
      source: "plugin",
      pluginId,
    });
  }
  log.error({ err: error, where }, "plugin code failed with an uncoded error");
  return new BridgeError("INTERNAL", `Plugin "${pluginId}" failed in ${where}`, { source: "plugin", pluginId });
}

/** A readable reason from anything thrown. */
export function reasonOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  return String(error);
}
