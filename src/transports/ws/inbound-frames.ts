import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import { BridgeError } from "../../protocol/index.js";
import type { InboundBudget, InboundTicket } from "../inbound.js";
import { pauseReading, resumeReading } from "./pauses.js";

/*
 * Counts a WebSocket's incoming messages against the bridge's inbound budget. `ws` buffers a frame inside its
 * receiver until it is whole, so the count is taken from the raw socket, ahead of `ws`: each frame's header gives
 * its length before its payload is read. A message that reaches `inboundSmallBytes` reserves its size there (a
 * fragmented one reserves the most it may still grow to, up to `maxPayloadBytes`); when that does not fit, the
 * socket stops being read until it does. Bytes are released once the message is emitted and its handler has run.
 * What a waiting socket holds beyond its count is the one read that carried the header (at most 64 KiB).
 *
 * The same watcher makes one socket yield the thread: a client pipelining small frames fills the kernel's buffer
 * with megabytes of them, and Node reads a socket's buffer in up to 32 reads of 64 KiB before it looks at any other
 * socket, so `ws` would parse and the bridge answer some 40,000 frames in one go while every other client waits.
 * After `clientFramesPerTurn` frames the socket stops being read until the event loop has gone round once
 * (`setImmediate`): other sockets, timers and `/health` get their turn. The read that holds more is cut at the next
 * frame boundary: `ws` gets the part before it, and the rest goes back to the front of the socket's buffer
 * (`unshift`), to be handed on when the socket is read again. The watcher therefore stands in front of the socket's
 * `data` event itself (its `emit`), not beside `ws` as one more listener: a listener sees the whole read.
 *
 * A text message announced past `maxTextFrameBytes` is refused there, from its header: `refuseText` answers the
 * client (on the request's id when the payload's first bytes, in the same read, show it), and the socket's bytes
 * are read and dropped from then on (never buffered by `ws`, never parsed) until the client closes, so the close
 * frame and the answer reach it instead of a reset.
 */

/** One message seen on the wire and not yet emitted by `ws`. */
interface Message {
  /** Payload bytes announced so far (all its frames' headers). */
  seen: number;
  /** Bytes counted as small (while the message stayed below `inboundSmallBytes`). */
  small: number;
  /** Its reservation once it became large. */
  ticket: InboundTicket | undefined;
  /** A text message (JSON), bounded by `maxTextFrameBytes`. */
  text: boolean;
}

/** What the watcher is told: the size limits, and how to answer a text message refused for its size. */
export interface InboundFrameRules {
  readonly maxPayloadBytes: number;
  readonly maxTextFrameBytes: number;
  /** Frames one socket may have read before it yields the thread for a turn of the event loop. */
  readonly framesPerTurn: number;
  /** Answers the client (an `error` event) and starts the close (1009); the watcher then drops what follows. */
  readonly refuseText: (ws: WebSocket, bytes: number, requestId: string | number | undefined) => void;
}

/**
 * One socket's watcher: a frame header is read byte by byte into plain numbers (no buffer of its own), its two
 * listeners are bound once, and one small function stands in front of the socket's `emit`. Every idle socket holds one.
 */
class InboundWatcher {
  /** Bytes of the current frame header read so far (0 between frames). */
  private headerLength = 0;
  /** The header's first two bytes (FIN and opcode; MASK and 7-bit length). */
  private b0 = 0;
  private b1 = 0;
  /** Extended length read so far (16 or 64 bits, big-endian). */
  private extended = 0;
  /** Payload bytes of the current frame still to come. */
  private payloadLeft = 0;
  /** Messages announced and not yet emitted, oldest first: `ws` emits them in this order. */
  private readonly messages: Message[] = [];
  /** Reservations this socket waits for; it is paused while there are any. */
  private waiting = 0;
  /** A frame `ws` will refuse (bad opcode, too large): it closes the socket, so counting stops. */
  private stopped = false;
  /** The frame's mask key (client frames are masked), as one 32-bit number: to read the start of a refused message. */
  private maskKey = 0;
  /** Set by `onHeader` when the message is to be refused: its size, read by `onData` with the payload's start. */
  private refusing: number | undefined;
  /** The refused frame is the message's first: its payload starts with the request, id first as clients write it. */
  private refusingFirst = false;
  /**
   * The socket's `data` listeners (`ws`'s) as they were when a message was refused in the middle of a read: that
   * read still goes to them (the frames before the refused one are answered), then nothing more does.
   */
  private handOff: Array<(chunk: Buffer) => void> | undefined;
  /** Frames announced since the socket last yielded. */
  private framesThisTurn = 0;
  /** The socket's own `emit`, which hands bytes to `ws`. */
  private readonly emit: Duplex["emit"];

  constructor(
    private readonly ws: WebSocket,
    private readonly socket: Duplex,
    private readonly budget: InboundBudget,
    private readonly owner: string,
    private readonly rules: InboundFrameRules,
  ) {
    // Ahead of ws's own listener, so every frame is counted (and may pause the socket) before ws buffers it, and a
    // read past this turn's share of frames can be cut before ws sees it.
    this.emit = socket.emit;
    const onData = this.onData;
    const emit = this.emit;
    // `arguments` rather than rest parameters: no array is gathered and spread again on every socket event.
    socket.emit = function (this: Duplex, event: string | symbol, chunk?: unknown): boolean {
      if (event === "data") {
        onData(chunk as Buffer);
        return true;
      }
      // biome-ignore lint/complexity/noArguments: passes the event's arguments on as they came, without copying them
      return emit.apply(this, arguments as unknown as Parameters<Duplex["emit"]>);
    };
    ws.on("message", this.onMessage);
    ws.on("close", this.onClose); // emitted once; `once` would wrap it per socket
  }

  private readonly granted = (): void => {
    this.waiting--;
    if (this.waiting === 0) resumeReading(this.ws, "inbound");
  };

  private release(message: Message): void {
    this.budget.discharge(message.small);
    if (message.ticket === undefined) return;
    const wasWaiting = !message.ticket.granted && !message.ticket.done;
    this.budget.release(message.ticket);
    // Emitted before it was granted: its bytes all came in the read that announced it.
    if (wasWaiting) this.granted();
  }

  private readonly nextTurn = (): void => {
    this.framesThisTurn = 0;
    resumeReading(this.ws, "turn");
  };

  private onHeader(fin: boolean, opcode: number, length: number): void {
    this.framesThisTurn++;
    if (opcode >= 8) return; // ping, pong, close: at most 125 bytes, never buffered as a message
    const messages = this.messages;
    if (opcode === 1 || opcode === 2) messages.push({ seen: 0, small: 0, ticket: undefined, text: opcode === 1 });
    const message = messages.at(-1);
    if ((opcode !== 0 && opcode !== 1 && opcode !== 2) || message === undefined || message.seen + length > this.rules.maxPayloadBytes) {
      this.stopped = true; // ws closes the socket for this frame (1002 or 1009); the close releases what is held
      return;
    }
    if (message.text && message.seen + length > this.rules.maxTextFrameBytes) {
      // Refused once `onData` has the payload's first bytes in hand, to answer on the request's id.
      this.refusing = message.seen + length;
      this.refusingFirst = opcode === 1;
      return;
    }
    const seen = message.seen + length;
    message.seen = seen;
    if (message.ticket !== undefined || length === 0) return;
    if (seen < this.budget.smallBytes) {
      this.budget.charge(length);
      message.small += length;
      return;
    }
    // A fragmented message may grow up to maxPayloadBytes: reserve that, so it never waits halfway.
    const bytes = fin ? length : (message.text ? this.rules.maxTextFrameBytes : this.rules.maxPayloadBytes) - (seen - length);
    const ticket = this.budget.reserve(this.owner, bytes, this.granted);
    message.ticket = ticket;
    if (!ticket.granted) {
      this.waiting++;
      if (this.waiting === 1) pauseReading(this.ws, "inbound");
    }
  }

  /** Hands `ws` the frames before `at` and puts the rest back in the socket's buffer for the next turn. */
  private yieldTurn(chunk: Buffer, at: number): void {
    if (at > 0) this.emit.call(this.socket, "data", chunk.subarray(0, at));
    if (this.socket.destroyed) return;
    // Closing since (those frames made it close): the rest goes on at once, the peer's close frame may be in it.
    if (this.ws.readyState !== this.ws.OPEN) {
      this.emit.call(this.socket, "data", chunk.subarray(at));
      return;
    }
    pauseReading(this.ws, "turn");
    this.socket.unshift(chunk.subarray(at));
    setImmediate(this.nextTurn);
  }

  /**
   * A text message too large to take: answered, then every byte that follows is dropped unread by `ws` (the client
   * may still be sending the rest of it), and our side of the connection is ended once the close frame is out.
   */
  private refuse(bytes: number, start: Buffer): void {
    this.stopped = true;
    const { ws, socket } = this;
    this.rules.refuseText(ws, bytes, this.refusingFirst ? requestIdAtStart(start, this.maskKey, (this.b1 & 0x80) !== 0) : undefined);
    // `ws` would otherwise buffer the rest of the message, and the client's close frame only comes after it.
    this.handOff = socket.listeners("data") as Array<(chunk: Buffer) => void>;
    socket.removeAllListeners("data");
    socket.on("data", dropBytes);
    socket.end();
    socket.resume();
  }

  private readonly onData = (chunk: Buffer): void => {
    let at = 0;
    while (at < chunk.length && !this.stopped) {
      if (this.payloadLeft > 0) {
        const take = Math.min(this.payloadLeft, chunk.length - at);
        this.payloadLeft -= take;
        at += take;
        continue;
      }
      // A frame boundary past this turn's share (only while ws reads frames: a closing socket is drained at once).
      if (this.headerLength === 0 && this.framesThisTurn >= this.rules.framesPerTurn && this.ws.readyState === this.ws.OPEN) {
        this.yieldTurn(chunk, at);
        return;
      }
      const byte = chunk[at++]!;
      const n = this.headerLength++;
      if (n === 0) {
        this.b0 = byte;
        continue;
      }
      if (n === 1) this.b1 = byte;
      const len7 = this.b1 & 0x7f;
      const extendedBytes = len7 === 126 ? 2 : len7 === 127 ? 8 : 0;
      // Extended length bytes follow the first two, big-endian; the mask key after them is kept (a refused
      // message's start is read with it).
      if (n >= 2 && n < 2 + extendedBytes) this.extended = this.extended * 256 + byte;
      else if (n >= 2 + extendedBytes) this.maskKey = ((this.maskKey << 8) | byte) >>> 0;
      if (this.headerLength < 2 + extendedBytes + ((this.b1 & 0x80) !== 0 ? 4 : 0)) continue;
      const length = extendedBytes === 0 ? len7 : this.extended;
      this.headerLength = 0;
      this.extended = 0;
      this.payloadLeft = length;
      this.onHeader((this.b0 & 0x80) !== 0, this.b0 & 0x0f, length);
      if (this.refusing !== undefined) this.refuse(this.refusing, chunk.subarray(at, at + ID_PEEK_BYTES));
    }
    const handOff = this.handOff;
    if (handOff !== undefined) {
      this.handOff = undefined;
      for (const listener of handOff) listener.call(this.socket, chunk);
      return;
    }
    this.emit.call(this.socket, "data", chunk);
  };

  private readonly onMessage = (): void => {
    const message = this.messages.shift();
    if (message === undefined) return;
    // After the message's handlers have run: the frame's bytes are parsed by then, unless a handler handed them to
    // work that holds them longer (a parse on a worker thread), which keeps them counted until it settles.
    if (this.emitted.push(message) === 1) queueMicrotask(this.releaseEmitted);
  };

  /** Messages `ws` emitted whose handlers have run, released in the order they came (one microtask for a read's). */
  private readonly emitted: Message[] = [];

  private readonly releaseEmitted = (): void => {
    const emitted = this.emitted;
    for (let i = 0; i < emitted.length; i++) {
      const message = emitted[i]!;
      const held = holds.get(this.ws);
      if (held === undefined) {
        this.release(message);
        continue;
      }
      holds.delete(this.ws);
      const release = (): void => this.release(message);
      held.then(release, release);
    }
    emitted.length = 0;
  };

  private readonly onClose = (): void => {
    this.stopped = true;
    for (const message of this.messages.splice(0)) this.release(message);
    if (this.waiting > 0) {
      this.waiting = 0;
      resumeReading(this.ws, "inbound");
    }
  };
}

/**
 * The refusal of a text message over `maxTextFrameBytes`: it names binary parts, the way to send what made it large
 * (an image), since text frames carry JSON only.
 */
export function textFrameTooLarge(bytes: number, maxBytes: number): BridgeError {
  return new BridgeError(
    "PAYLOAD_TOO_LARGE",
    `A text message of ${bytes} bytes is over the ${maxBytes}-byte limit for JSON frames (maxTextFrameBytes); send images as binary parts: connect with ?binary=1, put { "binary": 0 } where the image goes and the bytes in a binary message after the request (the SDK does this by itself)`,
    { details: { limit: "maxTextFrameBytes", bytes, maxBytes, use: "binary parts" } },
  );
}

/** Bytes of a refused message's start looked at for its request id: `{"id":` and an id of up to 256 characters. */
const ID_PEEK_BYTES = 320;
/** A request that starts with its id, as the SDK writes it (a string id of 1–256 characters, or a safe integer). */
const LEADING_ID = /^\s*\{\s*"id"\s*:\s*(?:"((?:[^"\\]|\\.){1,256})"|(-?\d{1,16})\s*[,}])/;

/**
 * The request id a refused text message starts with, when the bytes at hand (unmasked with `maskKey`) show one:
 * the refusal is then its answer, and the caller's request fails instead of waiting for its deadline.
 */
function requestIdAtStart(start: Buffer, maskKey: number, masked: boolean): string | number | undefined {
  const bytes = Buffer.from(start);
  if (masked) for (let i = 0; i < bytes.length; i++) bytes[i]! ^= (maskKey >>> (8 * (3 - (i & 3)))) & 0xff;
  const match = LEADING_ID.exec(bytes.toString("latin1"));
  if (match === null) return undefined;
  if (match[2] !== undefined) {
    const id = Number(match[2]);
    return Number.isSafeInteger(id) ? id : undefined;
  }
  try {
    return JSON.parse(`"${match[1]}"`) as string;
  } catch {
    return undefined;
  }
}

/** Reads past a refused message: nothing is kept. */
function dropBytes(): void {}

/** Work a message's handler started that still holds the message's bytes, per socket (see {@link holdInboundUntil}). */
const holds = new WeakMap<WebSocket, Promise<unknown>>();

/**
 * Keeps the message being handled on `ws` counted against the inbound budget until `work` settles, instead of until
 * its handler returns. For work that holds the frame's text after the handler (a parse on a worker thread, which
 * copies it and builds the value there): without it, many sockets' large frames would all be in memory at once
 * while the budget counted none of them. Call it from the `message` handler itself.
 */
export function holdInboundUntil(ws: WebSocket, work: Promise<unknown>): void {
  holds.set(ws, work);
}

/**
 * Watches `socket` (the upgraded socket of `ws`) for the rest of its life. Call it right after `handleUpgrade`
 * handed the socket to `ws`, before any byte was read, so the watcher sees every byte first.
 */
export function watchInboundFrames(ws: WebSocket, socket: Duplex, budget: InboundBudget, owner: string, rules: InboundFrameRules): void {
  new InboundWatcher(ws, socket, budget, owner, rules);
}
