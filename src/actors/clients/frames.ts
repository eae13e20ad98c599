/*
 * How a logical client's frames are written: events encoded once for all their subscribers, the frames kept for a
 * client without a socket, and image answers as JSON then binary messages.
 */
import type { SerializedEvent } from "../../methods/index.js";
import type { ClientSocket, OutboundFrame } from "./port.js";

/** `{"type":<type>,"seq":` per event type as UTF-8, made once: every subscriber's frame starts with it. */
const frameHeads = new Map<string, Buffer>();
/** Event types are the editors' and plugins' own names, a few dozen; past this many, heads are not kept. */
const MAX_FRAME_HEADS = 1_024;
/** `,"data":<json>}` of each event as UTF-8, made once for all its subscribers (an event is one object for all). */
const frameTails = new WeakMap<SerializedEvent, Buffer>();

/** The parts of an event's frame that are the same for every subscriber: before the `seq`, and after it. */
function frameEnds(event: SerializedEvent): { head: Buffer; tail: Buffer } {
  let head = frameHeads.get(event.type);
  if (head === undefined) {
    head = Buffer.from(`{"type":${JSON.stringify(event.type)},"seq":`);
    if (frameHeads.size < MAX_FRAME_HEADS) frameHeads.set(event.type, head);
  }
  let tail = frameTails.get(event);
  if (tail === undefined) {
    tail = Buffer.from(`,"data":${event.json}}`);
    frameTails.set(event, tail);
  }
  return { head, tail };
}

/**
 * An event's frame for one client: `{"type":…,"seq":<seq>,"data":…}` as UTF-8 bytes. Only the `seq` is the client's
 * own; the rest is encoded once per event and copied, so a delivery writes bytes that need no conversion.
 */
export function eventFrameBytes(event: SerializedEvent, seq: number): Buffer {
  const { head, tail } = frameEnds(event);
  return joinFrame(head, String(seq), tail);
}

function joinFrame(head: Buffer, digits: string, tail: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(head.length + digits.length + tail.length);
  head.copy(frame, 0);
  frame.write(digits, head.length, "latin1");
  tail.copy(frame, head.length + digits.length);
  return frame;
}

/**
 * An event's frame kept for a client without a socket: the event's encoded ends, shared with every other subscriber,
 * and the client's `seq`, made into one frame only when it is sent (on a resume). A preview owed to hundreds of
 * detached clients is held once, not copied once per client; each is still charged the frame's whole size against
 * the replay caps, so they bound the memory from above. The event's text itself is not kept, only its bytes.
 */
export class KeptEventFrame {
  /** The frame's size in bytes, as sent. */
  readonly byteLength: number;
  private readonly head: Buffer;
  private readonly tail: Buffer;
  private readonly digits: string;

  constructor(event: SerializedEvent, seq: number) {
    ({ head: this.head, tail: this.tail } = frameEnds(event));
    this.digits = String(seq);
    this.byteLength = this.head.length + this.digits.length + this.tail.length;
  }

  bytes(): Buffer {
    return joinFrame(this.head, this.digits, this.tail);
  }

  /** The frame's text, as a socket would receive it. */
  toString(): string {
    return this.bytes().toString();
  }
}

/** A frame a client writes now or keeps for a resume. */
export type KeptFrame = OutboundFrame | KeptEventFrame;

export function frameBytes(frame: KeptFrame): number {
  return typeof frame === "string" || Buffer.isBuffer(frame) ? Buffer.byteLength(frame) : frame.byteLength;
}

/**
 * Writes a frame to a socket. An image answer goes as its JSON and then its binary messages (part 0, 1, …), back to
 * back with nothing between them, on a socket that negotiated binary; as one JSON frame with data URIs on one that
 * did not (a resume without it). Returns how many WebSocket messages it wrote.
 */
export function sendFrame(socket: ClientSocket, frame: KeptFrame): number {
  if (typeof frame === "string" || Buffer.isBuffer(frame)) {
    socket.send(frame);
    return 1;
  }
  if (frame instanceof KeptEventFrame) {
    socket.send(frame.bytes());
    return 1;
  }
  if (!socket.binary) {
    socket.send(frame.textForm());
    return 1;
  }
  socket.send(frame.json);
  for (const part of frame.parts) socket.sendBinary(part.header, part.payload);
  return 1 + frame.parts.length;
}

/** How many WebSocket messages `frames` take on `socket` (the `replayed` count of a resume). */
export function messageCount(socket: ClientSocket, frames: readonly KeptFrame[]): number {
  return frames.reduce((count, frame) => count + (typeof frame === "string" || Buffer.isBuffer(frame) || frame instanceof KeptEventFrame || !socket.binary ? 1 : 1 + frame.parts.length), 0);
}

