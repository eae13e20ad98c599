/**
 * Big-endian reading and writing for the PSD byte layer. Reads are bounds-checked and fail with the section and
 * byte offset they were at, so a damaged file is named, never half-read.
 */
import { BridgeError } from "../../../protocol/errors.js";

/** The parts of a PSD file, as errors name them. */
export type PsdSection =
  | "header"
  | "colour mode data"
  | "image resources"
  | "layer and mask information"
  | "layer records"
  | "channel image data"
  | "additional layer information"
  | "image data";

/** A damaged or unsupported file: `BAD_REQUEST` with `details: { reason, section, offset }`. */
export function psdFormatError(reason: string, section: PsdSection, offset: number): BridgeError {
  return new BridgeError("BAD_REQUEST", `PSD file could not be read: ${reason} (${section}, byte ${offset})`, {
    details: { reason, section, offset },
  });
}

/** A cursor over a file's bytes that refuses to read past `end`. Sub-arrays share the file's memory. */
export class ByteReader {
  private readonly view: DataView;

  constructor(
    readonly bytes: Uint8Array,
    public at: number,
    readonly end: number,
    public section: PsdSection,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Bytes left before `end`. */
  left(): number {
    return this.end - this.at;
  }

  private need(count: number, what: string): number {
    if (count < 0 || this.at + count > this.end) {
      throw psdFormatError(`${what} (${count} bytes) runs past the end of its section`, this.section, this.at);
    }
    const at = this.at;
    this.at += count;
    return at;
  }

  u8(): number {
    return this.view.getUint8(this.need(1, "a byte"));
  }

  u16(): number {
    return this.view.getUint16(this.need(2, "a 16-bit value"));
  }

  i16(): number {
    return this.view.getInt16(this.need(2, "a 16-bit value"));
  }

  u32(): number {
    return this.view.getUint32(this.need(4, "a 32-bit value"));
  }

  i32(): number {
    return this.view.getInt32(this.need(4, "a 32-bit value"));
  }

  /** A length of 4 bytes, or 8 where the large document format (PSB) widens it. */
  length(wide: boolean): number {
    if (!wide) return this.u32();
    const at = this.need(8, "a 64-bit length");
    const value = this.view.getBigUint64(at);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw psdFormatError(`a length of ${value} bytes`, this.section, at);
    return Number(value);
  }

  /** Four ASCII characters (a signature or a key). */
  ascii4(): string {
    const at = this.need(4, "a signature");
    return String.fromCharCode(this.bytes[at]!, this.bytes[at + 1]!, this.bytes[at + 2]!, this.bytes[at + 3]!);
  }

  /** `count` bytes as a view into the file. */
  take(count: number, what = "a block"): Uint8Array {
    const at = this.need(count, what);
    return this.bytes.subarray(at, at + count);
  }

  skip(count: number, what = "a block"): void {
    this.need(count, what);
  }
}

/** Collects bytes in order; `toBytes` joins them once. */
export class ByteSink {
  private readonly parts: Uint8Array[] = [];
  size = 0;

  bytes(part: Uint8Array): this {
    if (part.length > 0) this.parts.push(part);
    this.size += part.length;
    return this;
  }

  u8(value: number): this {
    return this.bytes(Uint8Array.of(value & 0xff));
  }

  u16(value: number): this {
    const out = new Uint8Array(2);
    new DataView(out.buffer).setUint16(0, value);
    return this.bytes(out);
  }

  i16(value: number): this {
    const out = new Uint8Array(2);
    new DataView(out.buffer).setInt16(0, value);
    return this.bytes(out);
  }

  u32(value: number): this {
    const out = new Uint8Array(4);
    new DataView(out.buffer).setUint32(0, value);
    return this.bytes(out);
  }

  i32(value: number): this {
    const out = new Uint8Array(4);
    new DataView(out.buffer).setInt32(0, value);
    return this.bytes(out);
  }

  /** A 4-byte length, or 8 bytes in the large document format. */
  length(value: number, wide: boolean): this {
    if (!wide) return this.u32(value);
    const out = new Uint8Array(8);
    new DataView(out.buffer).setBigUint64(0, BigInt(value));
    return this.bytes(out);
  }

  ascii4(text: string): this {
    return this.bytes(Uint8Array.from(text.slice(0, 4).padEnd(4, " "), (c) => c.charCodeAt(0)));
  }

  /** Appends another sink's bytes. */
  sink(other: ByteSink): this {
    for (const part of other.parts) this.parts.push(part);
    this.size += other.size;
    return this;
  }

  /** Zero bytes up to the next multiple of `round` of `size - from`. */
  pad(from: number, round: number): this {
    const extra = (round - ((this.size - from) % round)) % round;
    return extra > 0 ? this.bytes(new Uint8Array(extra)) : this;
  }

  toBytes(): Uint8Array {
    return Buffer.concat(this.parts, this.size);
  }
}
