import { BridgeError } from "../../protocol/index.js";

/** Photoshop cannot be reached or the link dropped: retryable, the host session reconnects. */
export function unavailable(message: string, details: Record<string, unknown> = {}): BridgeError {
  return new BridgeError("HOST_UNAVAILABLE", message, { details: { editor: "photoshop", ...details }, retryable: true });
}

/**
 * Photoshop refused the connection itself (non-zero status: wrong password, Remote Connections off or bad
 * settings). Retrying with the same settings cannot help, so it is not retryable.
 */
export function refused(status: number): BridgeError {
  return new BridgeError(
    "HOST_UNAVAILABLE",
    `Photoshop refused the connection (communication error ${status}): check the Remote Connections password and that Remote Connections are enabled`,
    { details: { editor: "photoshop", reason: "auth", status }, retryable: false },
  );
}

/** No answer within the call's deadline, or too many requests in flight: retryable. */
export function busy(message: string, details: Record<string, unknown> = {}): BridgeError {
  return new BridgeError("HOST_BUSY", message, { details: { editor: "photoshop", ...details }, retryable: true });
}

/** A script failed inside Photoshop (type-1 reply or a failed envelope without a known code). */
export function jsxFailed(message: string, details: Record<string, unknown> = {}): BridgeError {
  return new BridgeError("JSX_FAILED", message, { details: { editor: "photoshop", ...details } });
}
