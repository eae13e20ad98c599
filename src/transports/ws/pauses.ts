import type { WebSocket } from "ws";

/*
 * Reading a socket may be paused for more than one reason at once (a plugin's `onConnect` has not answered yet; a
 * large frame waits for inbound room; a large frame is being parsed on the JSON worker). `ws.resume()` for one reason must not resume a socket another still holds.
 */

/** Why a socket is not read. */
export type PauseReason = "admission" | "inbound" | "rate" | "turn" | "parse";

const held = new WeakMap<WebSocket, Set<PauseReason>>();

/** Stops reading `ws` for `reason` (no-op if it already is for that reason). */
export function pauseReading(ws: WebSocket, reason: PauseReason): void {
  let reasons = held.get(ws);
  if (reasons === undefined) {
    reasons = new Set();
    held.set(ws, reasons);
  }
  reasons.add(reason);
  ws.pause();
}

/** Lifts `reason`; the socket is read again once no reason is left. */
export function resumeReading(ws: WebSocket, reason: PauseReason): void {
  const reasons = held.get(ws);
  if (reasons === undefined || !reasons.delete(reason)) return;
  if (reasons.size === 0) ws.resume();
}
