import type { Writable } from "node:stream";
import type { WebSocket } from "ws";
import type { ClientSocket } from "../../actors/clients/port.js";
import type { AccessScope } from "../../protocol/index.js";

const TEXT = { binary: false } as const;
const BINARY_HEAD = { binary: true, fin: false } as const;
const BINARY_TAIL = { binary: true, fin: true } as const;

/** Sockets corked in this turn, uncorked together by one `process.nextTick` (an event to a thousand clients is one). */
let corkedThisTurn: WsClientSocket[] = [];

function uncorkAll(): void {
  const sockets = corkedThisTurn;
  corkedThisTurn = [];
  for (const socket of sockets) {
    socket.corked = false;
    try {
      socket.raw.uncork();
    } catch {
      // A socket that cannot flush must not leave the others corked: it is dropped (its client sees it close).
      socket.raw.destroy();
    }
  }
}

/**
 * A logical client's view of one accepted WebSocket. Every frame written to it in one turn of the event loop leaves
 * in one write: the first corks the TCP socket and the rest of the turn's frames (answers to requests that arrived in
 * one read, an event beside an answer) join it until `process.nextTick`, which runs once the turn's promise
 * callbacks are done. A server that writes each frame on its own pays a system call per frame; order is unchanged,
 * and nothing waits past the turn that wrote it.
 *
 * A class rather than an object of closures: thousands of idle sockets each hold one of these.
 */
export class WsClientSocket implements ClientSocket {
  /** The socket is corked until the end of this turn. */
  corked = false;

  constructor(
    private readonly ws: WebSocket,
    /** The upgraded TCP socket under `ws`. */
    readonly raw: Writable,
    /** Whether the connection negotiated `binary`. */
    readonly binary: boolean,
    /** What the token of the upgrade lets this socket's requests call. */
    readonly scope: AccessScope = "full",
  ) {}

  /** One text frame (a large image result comes as its UTF-8 bytes, never as a binary frame). */
  send(text: string | Buffer): void {
    this.cork();
    if (typeof text === "string") this.ws.send(text);
    else this.ws.send(text, TEXT);
  }

  /** One binary message in two fragments, header then payload, so the image is written as it is, never copied. */
  sendBinary(header: Uint8Array, payload: Uint8Array): void {
    this.cork();
    this.ws.send(header, BINARY_HEAD);
    this.ws.send(payload, BINARY_TAIL);
  }

  get bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  close(code: number, reason: string): void {
    this.ws.close(code, reason);
  }

  private cork(): void {
    if (this.corked || !this.raw.writable) return;
    this.corked = true;
    this.raw.cork();
    if (corkedThisTurn.push(this) === 1) process.nextTick(uncorkAll);
  }
}
