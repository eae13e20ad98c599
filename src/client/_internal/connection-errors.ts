import { BridgeError, CLIENT_ERROR_CODES, isBridgeError } from "../errors.js";
import { CLOSE_CODES } from "../../protocol/constants.js";

/* The errors a connection fails with: how it ended, what a pending request learns, why a first connect failed. */

/** After these a reconnect cannot help. */
const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([
  CLOSE_CODES.DISPOSE,
  CLOSE_CODES.TAKEN_OVER,
  CLOSE_CODES.PLUGIN_UNAVAILABLE,
  CLOSE_CODES.CLIENT_ATTACHED,
  CLOSE_CODES.EVICTED,
]);

/** Refusals (`error` events) that end the connection whatever close code follows: retrying gets the same answer. */
const FINAL_REFUSALS: ReadonlySet<string> = new Set(["CLIENT_ATTACHED"]);

/** Whether a close ends the connection for good (a reconnect would get the same answer). */
export function isFinalClose(code: number, refusal: BridgeError | undefined): boolean {
  return FINAL_CLOSE_CODES.has(code) || FINAL_REFUSALS.has(refusal?.code ?? "");
}

/** The socket closed and the connection will not come back. */
export function closedBy(code: number, reason: string): BridgeError {
  return new BridgeError(CLIENT_ERROR_CODES.CONNECTION_LOST, `The connection closed (${code}${reason ? ` ${reason}` : ""})`, {
    details: { closeCode: code, reason },
  });
}

/** Reconnecting ran out of attempts. */
export function gaveUp(attempts: number, lastCode: number): BridgeError {
  return new BridgeError(CLIENT_ERROR_CODES.CONNECTION_LOST, `Gave up reconnecting after ${attempts} attempts`, {
    details: { attempts, closeCode: lastCode },
  });
}

/** The app closed the connection. */
export function closedError(): BridgeError {
  return new BridgeError(CLIENT_ERROR_CODES.CONNECTION_CLOSED, "The connection was closed");
}

/** What a pending request fails with when its connection ends: the cause, with whether it may have run. */
export function requestError(cause: BridgeError, requestId: string | undefined, method: string, sent = false): BridgeError {
  const options: ConstructorParameters<typeof BridgeError>[2] = {
    method,
    retryable: cause.retryable,
    details: { ...cause.details, outcome: sent ? "unknown" : "not-sent" },
  };
  if (requestId !== undefined) options.requestId = requestId;
  return new BridgeError(cause.code, cause.message, options);
}

export function asBridgeError(error: unknown, message: string): BridgeError {
  return isBridgeError(error) ? error : new BridgeError("INTERNAL", message, { cause: error });
}

/**
 * Why a first connection failed, from what `probe` (the bridge's `/status`) answers: its refusal (e.g. 401), else
 * unreachable, else the close code.
 */
export async function connectFailure(url: string, code: number, reason: string, probe: () => Promise<unknown>): Promise<BridgeError> {
  const base = `Could not connect to ${url}`;
  try {
    await probe();
  } catch (error) {
    if (isBridgeError(error) && error.code !== CLIENT_ERROR_CODES.CONNECTION_FAILED) {
      return new BridgeError(error.code, `${base}: ${error.message}`, {
        retryable: error.retryable,
        details: { ...error.details, url, closeCode: code },
      });
    }
    return new BridgeError(CLIENT_ERROR_CODES.CONNECTION_FAILED, `${base}: the bridge is not reachable`, {
      retryable: true,
      details: { url, closeCode: code },
      cause: error,
    });
  }
  return new BridgeError(CLIENT_ERROR_CODES.CONNECTION_FAILED, `${base} (close ${code}${reason ? ` ${reason}` : ""})`, {
    retryable: true,
    details: { url, closeCode: code, reason },
  });
}
