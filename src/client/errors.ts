import type { ErrorSource, ProtocolError } from "../protocol/errors.js";

/*
 * The client's one error class. It mirrors the protocol's `BridgeError` (same brand, so the protocol's
 * `isBridgeError` recognises it too) instead of extending it, so the client pulls no runtime code — and no zod —
 * into a browser bundle.
 */

const BRAND = Symbol.for("image-editor-bridge.BridgeError");

/**
 * Codes the client produces itself, besides the server's `ERROR_CODES`. None of them means the server saw or
 * refused the request; `details.outcome` says whether it may still have run.
 */
export const CLIENT_ERROR_CODES = {
  /** No answer within the request's `timeoutMs`. The server may still run it (`details.outcome: "unknown"`). */
  TIMEOUT: "TIMEOUT",
  /** The caller's `AbortSignal` fired. The server may still run a request already sent. */
  ABORTED: "ABORTED",
  /** The socket could not be opened, or the handshake did not complete. */
  CONNECTION_FAILED: "CONNECTION_FAILED",
  /** The answer can no longer arrive: the server started a new logical client, or reconnecting gave up. */
  CONNECTION_LOST: "CONNECTION_LOST",
  /** `close()` was called, or the connection ended for good. */
  CONNECTION_CLOSED: "CONNECTION_CLOSED",
  /** Too many requests waiting for the socket to reopen. */
  TOO_MANY_REQUESTS: "TOO_MANY_REQUESTS",
  /** A listener threw; the error is the `cause`. */
  LISTENER_FAILED: "LISTENER_FAILED",
} as const;
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[keyof typeof CLIENT_ERROR_CODES];

export interface BridgeErrorOptions {
  details?: Record<string, unknown>;
  retryable?: boolean;
  source?: ErrorSource;
  requestId?: string;
  method?: string;
  pluginId?: string;
  cause?: unknown;
}

/**
 * Every failure the client reports: a server's `ProtocolError` (same fields) or a local one
 * ({@link CLIENT_ERROR_CODES}). `retryable` tells whether sending the same request again may succeed.
 *
 * @example
 * try {
 *   await client.layer.getInfoById({ layerId: 7 });
 * } catch (error) {
 *   if (isBridgeError(error) && error.code === "LAYER_NOT_FOUND") console.log(error.details);
 * }
 */
export class BridgeError extends Error {
  readonly [BRAND] = true;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  readonly retryable: boolean;
  readonly source: ErrorSource | undefined;
  readonly requestId: string | undefined;
  readonly method: string | undefined;
  readonly pluginId: string | undefined;
  /**
   * How long the bridge asked to wait before sending again (its `details.retryAfterMs`), e.g. on TOO_MANY_REQUESTS
   * for the client's frame rate or a refused connection; undefined when it named no wait.
   */
  readonly retryAfterMs: number | undefined;

  constructor(code: string, message: string, options: BridgeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "BridgeError";
    this.code = code;
    this.details = options.details;
    this.retryable = options.retryable ?? false;
    this.source = options.source;
    this.requestId = options.requestId;
    this.method = options.method;
    this.pluginId = options.pluginId;
    const wait = options.details?.["retryAfterMs"];
    this.retryAfterMs = typeof wait === "number" && Number.isFinite(wait) && wait >= 0 ? wait : undefined;
  }

  /** Builds the error a server answered with. */
  static fromProtocolError(error: ProtocolError): BridgeError {
    const options: BridgeErrorOptions = { retryable: error.retryable ?? false };
    if (error.details !== undefined) options.details = error.details;
    if (error.source !== undefined) options.source = error.source;
    if (error.requestId !== undefined) options.requestId = error.requestId;
    if (error.method !== undefined) options.method = error.method;
    if (error.pluginId !== undefined) options.pluginId = error.pluginId;
    return new BridgeError(error.code, error.message, options);
  }

  /** The wire shape, e.g. for printing as JSON. */
  toJSON(): ProtocolError {
    const out: ProtocolError = { code: this.code, message: this.message, retryable: this.retryable };
    if (this.details !== undefined) out.details = this.details;
    if (this.source !== undefined) out.source = this.source;
    if (this.requestId !== undefined) out.requestId = this.requestId;
    if (this.method !== undefined) out.method = this.method;
    if (this.pluginId !== undefined) out.pluginId = this.pluginId;
    return out;
  }
}

/** Brand check: also true for the protocol's and the server's `BridgeError` (copies of the package may coexist). */
export function isBridgeError(value: unknown): value is BridgeError {
  return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}

/** Whether a value looks like a wire `ProtocolError` (checked by hand: no zod in the client bundle). */
export function looksLikeProtocolError(value: unknown): value is ProtocolError {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v["code"] === "string" && typeof v["message"] === "string";
}
