import { createDecipheriv, type Decipher } from "node:crypto";
import { CIPHER, GENERATOR_IV, encryptPayload } from "./crypto.js";

/** Remote Connections content types. */
export const CONTENT = {
  ERROR: 1,
  JAVASCRIPT: 2,
  IMAGE: 3,
  PROFILE: 4,
  KEEPALIVE: 6,
  JAVASCRIPT_SHARED: 10,
} as const;

export const PROTOCOL_VERSION = 1;
/** Frame header: u32 length (counts status + payload) and i32 status. */
export const FRAME_HEADER_BYTES = 8;
/** Plaintext payload header: u32 version, u32 transaction id, u32 content type. */
export const PAYLOAD_HEADER_BYTES = 12;

/** One decoded message. `status ≠ 0` frames carry a plain, possibly empty body and no header. */
export interface Message {
  readonly status: number;
  readonly version: number;
  readonly id: number;
  readonly type: number;
  readonly body: Buffer;
}

/** Builds one frame; `key` null means the unencrypted pipe mode. */
export function encodeFrame(key: Buffer | null, id: number, type: number, body: Uint8Array): Buffer {
  const plain = Buffer.allocUnsafe(PAYLOAD_HEADER_BYTES + body.byteLength);
  plain.writeUInt32BE(PROTOCOL_VERSION, 0);
  plain.writeUInt32BE(id >>> 0, 4);
  plain.writeUInt32BE(type, 8);
  plain.set(body, PAYLOAD_HEADER_BYTES);
  const payload = key ? encryptPayload(key, plain) : plain;
  const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  header.writeUInt32BE(payload.byteLength + 4, 0);
  header.writeInt32BE(0, 4);
  return Buffer.concat([header, payload]);
}

/** Why the byte stream cannot be read further; the connection must close. */
export class FramingError extends Error {}

/**
 * Splits the byte stream into messages. The payload of each frame is decrypted as its bytes arrive into one
 * buffer sized from the length field, so a 400 MB pixmap is never held twice as ciphertext and plaintext
 * strings(generator-core's string path runs out of memory there).
 */
export class FrameDecoder {
  private header = Buffer.alloc(FRAME_HEADER_BYTES);
  private headerFill = 0;
  private payload: Buffer | undefined;
  private payloadFill = 0;
  private remaining = 0;
  private status = 0;
  private decipher: Decipher | undefined;

  constructor(
    private readonly key: Buffer | null,
    private readonly maxFrameBytes: number,
    private readonly onMessage: (message: Message) => void,
  ) {}

  /** Feeds bytes; throws {@link FramingError} on a malformed stream. */
  push(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.payload === undefined) {
        const take = Math.min(FRAME_HEADER_BYTES - this.headerFill, chunk.length - offset);
        chunk.copy(this.header, this.headerFill, offset, offset + take);
        this.headerFill += take;
        offset += take;
        if (this.headerFill < FRAME_HEADER_BYTES) return;
        this.startFrame();
        if (this.remaining === 0) this.finishFrame();
        continue;
      }
      const take = Math.min(this.remaining, chunk.length - offset);
      this.write(chunk.subarray(offset, offset + take));
      offset += take;
      this.remaining -= take;
      if (this.remaining === 0) this.finishFrame();
    }
  }

  private startFrame(): void {
    const length = this.header.readUInt32BE(0);
    this.status = this.header.readInt32BE(4);
    if (length < 4 || length > this.maxFrameBytes) {
      throw new FramingError(`frame length ${length} outside 4..${this.maxFrameBytes}`);
    }
    this.remaining = length - 4;
    this.payload = Buffer.allocUnsafe(this.remaining);
    this.payloadFill = 0;
    this.decipher = this.status === 0 && this.key ? createDecipheriv(CIPHER, this.key, GENERATOR_IV) : undefined;
  }

  private write(bytes: Buffer): void {
    const out = this.decipher ? this.decipher.update(bytes) : bytes;
    out.copy(this.payload!, this.payloadFill);
    this.payloadFill += out.length;
  }

  private finishFrame(): void {
    const payload = this.payload!;
    if (this.decipher) {
      let tail: Buffer;
      try {
        tail = this.decipher.final();
      } catch {
        throw new FramingError("payload does not decrypt with this password");
      }
      tail.copy(payload, this.payloadFill);
      this.payloadFill += tail.length;
    }
    const body = payload.subarray(0, this.payloadFill);
    this.payload = undefined;
    this.decipher = undefined;
    this.headerFill = 0;
    if (this.status !== 0) {
      this.onMessage({ status: this.status, version: 0, id: 0, type: 0, body });
      return;
    }
    if (body.length < PAYLOAD_HEADER_BYTES) throw new FramingError(`payload of ${body.length} bytes has no header`);
    this.onMessage({
      status: 0,
      version: body.readUInt32BE(0),
      id: body.readUInt32BE(4),
      type: body.readUInt32BE(8),
      body: body.subarray(PAYLOAD_HEADER_BYTES),
    });
  }
}
