import { BridgeError, CLIENT_ERROR_CODES, isBridgeError } from "./errors.js";
import { LocalFileError } from "./cli-images.js";
import { UsageError } from "./cli-params.js";
import { EXIT_CODES } from "./cli-usage.js";

/* How a client command ends: what it prints for a failure and the exit status it returns, and the interrupt. */

const CONNECTION_CODES: ReadonlySet<string> = new Set([
  CLIENT_ERROR_CODES.CONNECTION_FAILED,
  CLIENT_ERROR_CODES.CONNECTION_LOST,
  CLIENT_ERROR_CODES.CONNECTION_CLOSED,
]);

/**
 * Prints a command's failure (usage, local file, the bridge's error) and returns its exit status. A bad command
 * line is one line, not the whole usage; `unreachable` is said after a connection failure.
 */
export function report(error: unknown, err: { write(text: string): unknown }, json: boolean, unreachable?: string): number {
  if (error instanceof UsageError) {
    err.write(json ? `${JSON.stringify({ error: { code: "USAGE", message: error.message } })}\n` : `image-editor-bridge: ${error.message}\n`);
    return EXIT_CODES.USAGE;
  }
  if (error instanceof LocalFileError) {
    err.write(json ? `${JSON.stringify({ error: { code: "LOCAL_FILE", message: error.message } })}\n` : `image-editor-bridge: ${error.message}\n`);
    return EXIT_CODES.LOCAL_FILE;
  }
  // Errors of another copy of the package pass the brand check without being this class: read their fields.
  const failure: { code: string; message: string; details?: Record<string, unknown> | undefined } = isBridgeError(error)
    ? error
    : { code: "INTERNAL", message: (error as Error)?.message ?? String(error) };
  const wire = failure instanceof BridgeError ? failure.toJSON() : { code: failure.code, message: failure.message, details: failure.details };
  const hint = failure.code === CLIENT_ERROR_CODES.CONNECTION_FAILED ? unreachable : undefined;
  if (json) err.write(`${JSON.stringify({ error: wire, ...(hint === undefined ? {} : { hint }) })}\n`);
  else {
    const details = wire.details === undefined ? "" : `\n  details: ${JSON.stringify(wire.details)}`;
    err.write(`image-editor-bridge: ${wire.code}: ${wire.message}${details}\n${hint === undefined ? "" : `  ${hint}\n`}`);
  }
  return CONNECTION_CODES.has(failure.code) ? EXIT_CODES.UNAVAILABLE : EXIT_CODES.FAILED;
}

/** An AbortSignal that fires on SIGINT/SIGTERM while a command runs. */
export function processSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off("SIGINT", abort);
      process.off("SIGTERM", abort);
    },
  };
}
