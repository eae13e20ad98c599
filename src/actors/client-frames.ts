/*
 * How a logical client is named (never by its whole id: ids are bearer secrets) and how its frames are written.
 */
import type { BinaryImageResponse } from "../methods/index.js";

/** What a transport hands a logical client to write frames to. */
export interface ClientSocket {
  /** Sends one text frame (a string, or its UTF-8 bytes). */
  send(text: string | Buffer): void;
  /** Whether the connection negotiated `binary` (`?binary=1`): image answers may be written as binary messages. */
  readonly binary: boolean;
  /** Sends one binary message: `header` then `payload`, the payload not copied. */
  sendBinary(header: Uint8Array, payload: Uint8Array): void;
  /** Bytes accepted by `send` but not yet written to the network. */
  readonly bufferedAmount: number;
  close(code: number, reason: string): void;
}

/** Characters of a client id that lists, logs and metrics show: enough to tell clients apart, far too few to resume. */
export const CLIENT_ID_PREFIX_LENGTH = 8;

/** Server-issued ids are random UUIDs; any other mailbox lane (`http:…`, `plugin:…`) is not a client id. */
const CLIENT_ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The part of a client id that may be shown: ids are bearer secrets (whoever holds one can resume that client),
 * so lists and logs name a client by this prefix, which never resolves on resume.
 */
export function clientIdPrefix(id: string): string {
  return id.slice(0, CLIENT_ID_PREFIX_LENGTH);
}

/** How logs name a logical client: `client:<prefix>`. */
export function clientLogName(id: string): string {
  return `client:${clientIdPrefix(id)}`;
}

/** Whether a mailbox lane is a logical client's id (a bearer secret) rather than `http:…`, `plugin:…` and so on. */
export function isClientIdLane(lane: string): boolean {
  return CLIENT_ID_SHAPE.test(lane);
}

/** How logs name a mailbox lane: a client id becomes `client:<prefix>`; other lanes are not secret and stay. */
export function laneLogName(lane: string): string {
  return CLIENT_ID_SHAPE.test(lane) ? clientLogName(lane) : lane;
}

/** What a client writes: a text frame, or an image answer (its JSON, then its bytes as a binary message). */
export type OutboundFrame = string | Buffer | BinaryImageResponse;

/** `{"type":<type>,"seq":` per event type, serialized once: every subscriber's frame starts with it. */
const frameHeads = new Map<string, string>();
/** Event types are the editors' and plugins' own names, a few dozen; past this many, heads are not kept. */
const MAX_FRAME_HEADS = 1_024;

/** The start of an event frame of `type`, up to its `seq` (each client writes its own `seq` and the data after it). */
export function eventFrameHead(type: string): string {
  let head = frameHeads.get(type);
  if (head === undefined) {
    head = `{"type":${JSON.stringify(type)},"seq":`;
    if (frameHeads.size < MAX_FRAME_HEADS) frameHeads.set(type, head);
  }
  return head;
}

export function frameBytes(frame: OutboundFrame): number {
  return typeof frame === "string" || Buffer.isBuffer(frame) ? Buffer.byteLength(frame) : frame.byteLength;
}

/**
 * Writes a frame to a socket. An image answer goes as its JSON and then its binary message, back to back, on a
 * socket that negotiated binary; as one JSON frame with a data URI on one that did not (a resume without it).
 * Returns how many WebSocket messages it wrote.
 */
export function sendFrame(socket: ClientSocket, frame: OutboundFrame): number {
  if (typeof frame === "string" || Buffer.isBuffer(frame)) {
    socket.send(frame);
    return 1;
  }
  if (!socket.binary) {
    socket.send(frame.textForm());
    return 1;
  }
  socket.send(frame.json);
  socket.sendBinary(frame.header, frame.payload);
  return 2;
}

/** How many WebSocket messages `frames` take on `socket` (the `replayed` count of a resume). */
export function messageCount(socket: ClientSocket, frames: readonly OutboundFrame[]): number {
  return frames.reduce((count, frame) => count + (typeof frame === "string" || Buffer.isBuffer(frame) || !socket.binary ? 1 : 2), 0);
}

