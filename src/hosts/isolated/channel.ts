import type { Duplex } from "node:stream";
import { type BlobSpill, encodeFrame, FrameDecoder, type SpilledBlob } from "./framing.js";
import { isMessage } from "./protocol.js";
import { readSpilled } from "./spill.js";

/** What a channel reports. */
export interface ChannelHandlers<In> {
  message(message: In): void;
  /** The stream broke the framing (or a handler threw): the peer cannot be trusted any more. */
  error(error: Error): void;
  /** The other side went away (closed, died); called once. */
  close(): void;
}

/** Large blobs through shared memory (see `spill.ts`): the editor's side writes them, the bridge's side reads them. */
export interface ChannelSpill {
  /** Sending side: writes large blobs as files. */
  readonly writer?: BlobSpill | undefined;
  /** Receiving side: the folder the peer spills into; without it a spilled blob is a protocol error. */
  readonly dir?: string | undefined;
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

  /** Messages waiting for spilled blobs to be read, and every message after them: delivery keeps the sending order. */
  private backlog: Promise<void> | undefined;

  constructor(
    private readonly socket: Duplex,
    handlers: ChannelHandlers<In>,
    private readonly spill: ChannelSpill = {},
  ) {
    const decoder = new FrameDecoder((decoded, spilled) => {
      if (!isMessage<In>(decoded)) throw new Error("Corrupt frame: not a message");
      if (spilled.length === 0 && this.backlog === undefined) handlers.message(decoded);
      else this.deliverLater(decoded, spilled, handlers);
    }, spill.dir !== undefined);
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

  /** Reads the spilled blobs into the message, then delivers it after every message before it. */
  private deliverLater(message: In, spilled: readonly SpilledBlob[], handlers: ChannelHandlers<In>): void {
    const dir = this.spill.dir!;
    const read = Promise.all(spilled.map(async (blob) => ({ blob, bytes: await readSpilled(dir, blob.name, blob.bytes) })));
    // Handled below once the messages before it are delivered; until then a failure must not count as unhandled.
    read.catch(() => {});
    const done = (this.backlog ?? Promise.resolve())
      .then(() => read)
      .then(
        (loaded) => {
          if (this.closed) return;
          for (const { blob, bytes } of loaded) (blob.holder as Record<string, unknown>)[blob.key] = bytes;
          handlers.message(message);
        },
        (error: unknown) => {
          if (!this.closed) handlers.error(error instanceof Error ? error : new Error(String(error)));
        },
      )
      .finally(() => {
        if (this.backlog === done) this.backlog = undefined;
      });
    this.backlog = done;
  }

  /** Whether the channel can still send. */
  get open(): boolean {
    return !this.closed && !this.socket.destroyed;
  }

  /** Sends one message; dropped once the channel is closed. Blobs are written without being copied. */
  send(message: Out): void {
    if (!this.open) return;
    const { head, blobs } = encodeFrame(message, this.spill.writer);
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
