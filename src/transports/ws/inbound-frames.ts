import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import type { InboundBudget, InboundTicket } from "../inbound.js";
import { pauseReading, resumeReading } from "./pauses.js";

/*
 * Counts a WebSocket's incoming messages against the bridge's inbound budget. `ws` buffers a frame inside its
 * receiver until it is whole, so the count is taken from the raw socket, ahead of `ws`: each frame's header gives
 * its length before its payload is read. A message that reaches `inboundSmallBytes` reserves its size there (a
 * fragmented one reserves the most it may still grow to, up to `maxPayloadBytes`); when that does not fit, the
 * socket stops being read until it does. Bytes are released once the message is emitted and its handler has run.
 * What a waiting socket holds beyond its count is the one read that carried the header (at most 64 KiB).
 */

/** Longest client frame header: 2 bytes, 8 of extended length, 4 of mask. */
const MAX_HEADER_BYTES = 14;

/** One message seen on the wire and not yet emitted by `ws`. */
interface Message {
  /** Payload bytes announced so far (all its frames' headers). */
  seen: number;
  /** Bytes counted as small (while the message stayed below `inboundSmallBytes`). */
  small: number;
  /** Its reservation once it became large. */
  ticket: InboundTicket | undefined;
}

/**
 * Watches `socket` (the upgraded socket of `ws`) for the rest of its life. Call it right after `handleUpgrade`
 * handed the socket to `ws`, before any byte was read, so the watcher sees every byte first.
 */
export function watchInboundFrames(ws: WebSocket, socket: Duplex, budget: InboundBudget, owner: string, maxPayloadBytes: number): void {
  const header = Buffer.alloc(MAX_HEADER_BYTES);
  let headerLength = 0;
  /** Payload bytes of the current frame still to come. */
  let payloadLeft = 0;
  /** Messages announced and not yet emitted, oldest first: `ws` emits them in this order. */
  const messages: Message[] = [];
  /** Reservations this socket waits for; it is paused while there are any. */
  let waiting = 0;
  /** A frame `ws` will refuse (bad opcode, too large): it closes the socket, so counting stops. */
  let stopped = false;

  const granted = (): void => {
    waiting--;
    if (waiting === 0) resumeReading(ws, "inbound");
  };
  const release = (message: Message): void => {
    budget.discharge(message.small);
    if (message.ticket === undefined) return;
    const wasWaiting = !message.ticket.granted && !message.ticket.done;
    budget.release(message.ticket);
    // Emitted before it was granted: its bytes all came in the read that announced it.
    if (wasWaiting) granted();
  };

  const onHeader = (fin: boolean, opcode: number, length: number): void => {
    if (opcode >= 8) return; // ping, pong, close: at most 125 bytes, never buffered as a message
    if (opcode === 1 || opcode === 2) messages.push({ seen: 0, small: 0, ticket: undefined });
    const message = messages.at(-1);
    if ((opcode !== 0 && opcode !== 1 && opcode !== 2) || message === undefined || message.seen + length > maxPayloadBytes) {
      stopped = true; // ws closes the socket for this frame (1002 or 1009); the close releases what is held
      return;
    }
    const seen = message.seen + length;
    message.seen = seen;
    if (message.ticket !== undefined || length === 0) return;
    if (seen < budget.smallBytes) {
      budget.charge(length);
      message.small += length;
      return;
    }
    // A fragmented message may grow up to maxPayloadBytes: reserve that, so it never waits halfway.
    const bytes = fin ? length : maxPayloadBytes - (seen - length);
    const ticket = budget.reserve(owner, bytes, granted);
    message.ticket = ticket;
    if (!ticket.granted) {
      waiting++;
      if (waiting === 1) pauseReading(ws, "inbound");
    }
  };

  const onData = (chunk: Buffer): void => {
    let at = 0;
    while (at < chunk.length && !stopped) {
      if (payloadLeft > 0) {
        const take = Math.min(payloadLeft, chunk.length - at);
        payloadLeft -= take;
        at += take;
        continue;
      }
      header[headerLength++] = chunk[at++]!;
      if (headerLength < 2) continue;
      const len7 = header[1]! & 0x7f;
      const extended = len7 === 126 ? 2 : len7 === 127 ? 8 : 0;
      const masked = (header[1]! & 0x80) !== 0;
      if (headerLength < 2 + extended + (masked ? 4 : 0)) continue;
      let length = len7;
      if (extended === 2) length = header.readUInt16BE(2);
      else if (extended === 8) length = Number(header.readBigUInt64BE(2));
      headerLength = 0;
      payloadLeft = length;
      onHeader((header[0]! & 0x80) !== 0, header[0]! & 0x0f, length);
    }
  };

  // Ahead of ws's own listener, so every frame is counted (and may pause the socket) before ws buffers it.
  socket.prependListener("data", onData);
  ws.on("message", () => {
    const message = messages.shift();
    // After the message's handlers have run: the frame's bytes are parsed by then.
    if (message !== undefined) queueMicrotask(() => release(message));
  });
  ws.once("close", () => {
    socket.off("data", onData);
    stopped = true;
    for (const message of messages.splice(0)) release(message);
    if (waiting > 0) {
      waiting = 0;
      resumeReading(ws, "inbound");
    }
  });
}
