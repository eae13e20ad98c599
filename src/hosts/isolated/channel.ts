import type { Duplex } from "node:stream";
import { encodeFrame, FrameDecoder } from "./framing.js";
import { isMessage } from "./protocol.js";

/** What a channel reports. */
export interface ChannelHandlers<In> {
  message(message: In): void;
  /** The stream broke the framing (or a handler threw): the peer cannot be trusted any more. */
  error(error: Error): void;
  /** The other side went away (closed, died); called once. */
  close(): void;
}

/**
 * One end of the typed message channel over a stream socket (fd 3 between the bridge and its editor process, a
 * socket pair on POSIX). Frames are `framing.ts`'s; messages go out in order, blobs written as they are.
 *
 * @example
 * const channel = new Channel<ChildMessage, ParentMessage>(child.stdio[3] as Duplex, { message, error, close });
 * channel.send({ kind: "cancel", id: 7 });
 */
export class Channel<In extends { readonly kind: string }, Out> {
  private closed = false;
  /** Messages sent in one turn of the event loop leave in one write: many small calls cost one system call. */
  private corked = false;

  constructor(
    private readonly socket: Duplex,
    handlers: ChannelHandlers<In>,
  ) {
    const decoder = new FrameDecoder((decoded) => {
      if (!isMessage<In>(decoded)) throw new Error("Corrupt frame: not a message");
      handlers.message(decoded);
    });
    const close = (): void => {
      if (this.closed) return;
      this.closed = true;
      handlers.close();
    };
    socket.on("data", (chunk: Buffer) => {
      if (this.closed) return;
      try {
        decoder.push(chunk);
      } catch (error) {
        handlers.error(error instanceof Error ? error : new Error(String(error)));
      }
    });
    // A peer that dies resets the socket: the error is the close, not a fault of ours.
    socket.on("error", close);
    socket.on("end", close);
    socket.on("close", close);
  }

  /** Whether the channel can still send. */
  get open(): boolean {
    return !this.closed && !this.socket.destroyed;
  }

  /** Sends one message; dropped once the channel is closed. Blobs are written without being copied. */
  send(message: Out): void {
    if (!this.open) return;
    const { head, blobs } = encodeFrame(message);
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    this.socket.write(head);
    for (const blob of blobs) if (blob.byteLength > 0) this.socket.write(blob);
  }

  /** Closes our side; pending writes are flushed first. */
  end(callback?: () => void): void {
    if (this.socket.destroyed) {
      callback?.();
      return;
    }
    this.socket.end(callback);
  }

  /** Drops the socket at once. */
  destroy(): void {
    this.closed = true;
    this.socket.destroy();
  }
}
