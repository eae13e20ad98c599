/*
 * The fake's side of the Remote Connections wire, written apart from the bridge's client:
 * it accumulates whole frames before decrypting, uses the Adobe SDK's all-zero IV by default (the client uses
 * generator-core's), and echoes transaction ids exactly as it decrypted them.
 */
import { createCipheriv, createDecipheriv, pbkdf2Sync } from "node:crypto";

export const SDK_IV = Buffer.alloc(8);
export const GENERATOR_CORE_IV = Buffer.from([0, 0, 0, 0, 0x5d, 0x26, 0, 0]);

export function keyFor(password: string): Buffer {
  return pbkdf2Sync(password, "Adobe Photoshop", 1000, 24, "sha1");
}

export interface Inbound {
  id: number;
  type: number;
  version: number;
  body: Buffer;
  raw: Buffer;
}

export type Parsed = { kind: "message"; message: Inbound } | { kind: "bad-key" } | { kind: "bad-frame"; reason: string };

/** Accumulates bytes and yields complete frames. */
export class FrameSplitter {
  private buffered = Buffer.alloc(0);

  constructor(
    private readonly key: Buffer | null,
    private readonly iv: Buffer,
    private readonly maxBytes: number,
  ) {}

  feed(chunk: Buffer): Parsed[] {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    const out: Parsed[] = [];
    while (this.buffered.length >= 4) {
      const length = this.buffered.readUInt32BE(0);
      if (length < 4 || length > this.maxBytes) {
        out.push({ kind: "bad-frame", reason: `length ${length}` });
        this.buffered = Buffer.alloc(0);
        return out;
      }
      if (this.buffered.length < 4 + length) break;
      const raw = this.buffered.subarray(0, 4 + length);
      this.buffered = this.buffered.subarray(4 + length);
      const payload = raw.subarray(8);
      let plain: Buffer;
      if (this.key) {
        try {
          const d = createDecipheriv("des-ede3-cbc", this.key, this.iv);
          plain = Buffer.concat([d.update(payload), d.final()]);
        } catch {
          out.push({ kind: "bad-key" });
          return out;
        }
      } else {
        plain = payload;
      }
      out.push({
        kind: "message",
        message: { version: plain.readUInt32BE(0), id: plain.readUInt32BE(4), type: plain.readUInt32BE(8), body: plain.subarray(12), raw: Buffer.from(raw) },
      });
    }
    return out;
  }
}

export function frame(key: Buffer | null, iv: Buffer, id: number, type: number, body: Buffer, version = 1): Buffer {
  const plain = Buffer.concat([Buffer.alloc(12), body]);
  plain.writeUInt32BE(version, 0);
  plain.writeUInt32BE(id, 4);
  plain.writeUInt32BE(type, 8);
  let payload = plain;
  if (key) {
    const c = createCipheriv("des-ede3-cbc", key, iv);
    payload = Buffer.concat([c.update(plain), c.final()]);
  }
  const head = Buffer.alloc(8);
  head.writeUInt32BE(payload.length + 4, 0);
  return Buffer.concat([head, payload]);
}

/** A connection-level error frame: non-zero status, plain (empty) payload. */
export function statusFrame(status: number): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(4, 0);
  head.writeInt32BE(status, 4);
  return head;
}

/** IMAGE body: format 2, width, height, rowBytes, RGB mode, 4 channels A,R,G,B, 8 bits. */
export function pixmapBody(width: number, height: number, argbAt: (x: number, y: number) => [number, number, number, number], rowPadding: number): Buffer {
  const rowBytes = width * 4 + rowPadding;
  const body = Buffer.alloc(16 + rowBytes * height, 0xee);
  body[0] = 2;
  body.writeUInt32BE(width, 1);
  body.writeUInt32BE(height, 5);
  body.writeUInt32BE(rowBytes, 9);
  body[13] = 1;
  body[14] = 4;
  body[15] = 8;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [a, r, g, b] = argbAt(x, y);
      const p = 16 + y * rowBytes + x * 4;
      body[p] = a;
      body[p + 1] = r;
      body[p + 2] = g;
      body[p + 3] = b;
    }
  }
  return body;
}
