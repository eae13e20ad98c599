/**
 * Channel compression: raw, RLE (PackBits, one byte count per row: 2 bytes, 4 in a PSB), ZIP, and ZIP with
 * prediction (each row delta-coded: bytes at 8 bits, 16-bit values at 16; at 32 bits the row's bytes are first
 * split into four planes, most significant first, then delta-coded as bytes). Samples are big-endian, rows
 * `ceil(width × depth / 8)` bytes. ZIP goes through node:zlib.
 */
import { deflateSync, inflateSync } from "node:zlib";
import { psdFormatError } from "./binary.js";
import type { PsdSection } from "./binary.js";

/** How a channel's bytes are stored. */
export const COMPRESSION = { raw: 0, rle: 1, zip: 2, zipPrediction: 3 } as const;

/** Geometry of one channel: pixels and bits per sample; `psb` widens RLE row counts to 4 bytes. */
export interface ChannelShape {
  readonly width: number;
  readonly height: number;
  readonly depth: number;
  readonly psb: boolean;
}

/** Bytes per row of a channel. */
export const rowBytes = (width: number, depth: number): number => Math.ceil((width * depth) / 8);

/** Unpacks one PackBits row from `src[at…end)` into `out` (a short or overlong row is cut or left zero). */
function unpackRow(src: Uint8Array, at: number, end: number, out: Uint8Array): void {
  let o = 0;
  while (at < end && o < out.length) {
    const n = src[at++]!;
    if (n < 128) {
      const count = Math.min(n + 1, out.length - o, end - at);
      out.set(src.subarray(at, at + count), o);
      o += count;
      at += n + 1;
    } else if (n > 128) {
      const count = Math.min(257 - n, out.length - o);
      out.fill(src[at++] ?? 0, o, o + count);
      o += count;
    }
  }
}

/** PackBits of one row, appended to `out` from `at`; answers the new end. `out` must hold `row.length * 1.01 + 2`. */
function packRow(row: Uint8Array, out: Uint8Array, at: number): number {
  let i = 0;
  const n = row.length;
  while (i < n) {
    // A run of 3 or more equal bytes is worth a repeat packet.
    let run = 1;
    while (i + run < n && run < 128 && row[i + run] === row[i]) run++;
    if (run >= 3) {
      out[at++] = 257 - run;
      out[at++] = row[i]!;
      i += run;
      continue;
    }
    const start = i;
    while (i < n && i - start < 128) {
      if (i + 2 < n && row[i] === row[i + 1] && row[i] === row[i + 2]) break;
      i++;
    }
    out[at++] = i - start - 1;
    out.set(row.subarray(start, i), at);
    at += i - start;
  }
  return at;
}

/** RLE rows of `rows` channels stacked in `raw`: the counts table, then the packed rows. */
export function packRows(raw: Uint8Array, rows: number, bytesPerRow: number, psb: boolean): Uint8Array {
  const countBytes = psb ? 4 : 2;
  const out = new Uint8Array(rows * countBytes + rows * (bytesPerRow + Math.ceil(bytesPerRow / 128)) + 1);
  const view = new DataView(out.buffer);
  let at = rows * countBytes;
  for (let y = 0; y < rows; y++) {
    const end = packRow(raw.subarray(y * bytesPerRow, (y + 1) * bytesPerRow), out, at);
    if (psb) view.setUint32(y * 4, end - at);
    else view.setUint16(y * 2, end - at);
    at = end;
  }
  return out.subarray(0, at);
}

/** Unpacks `rows` RLE rows (counts table first) into `rows × bytesPerRow` bytes. */
export function unpackRows(data: Uint8Array, rows: number, bytesPerRow: number, psb: boolean, section: PsdSection): Uint8Array {
  const countBytes = psb ? 4 : 2;
  if (data.length < rows * countBytes) throw psdFormatError(`RLE data of ${data.length} bytes is shorter than its ${rows} row counts`, section, data.byteOffset);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const out = new Uint8Array(rows * bytesPerRow);
  let at = rows * countBytes;
  for (let y = 0; y < rows; y++) {
    const count = psb ? view.getUint32(y * 4) : view.getUint16(y * 2);
    const end = Math.min(data.length, at + count);
    unpackRow(data, at, end, out.subarray(y * bytesPerRow, (y + 1) * bytesPerRow));
    at = end;
  }
  return out;
}

function unpredict(raw: Uint8Array, shape: ChannelShape): void {
  const { width, height, depth } = shape;
  const stride = rowBytes(width, depth);
  if (depth === 16) {
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    for (let y = 0; y < height; y++) {
      for (let x = 1, at = y * stride + 2; x < width; x++, at += 2) view.setUint16(at, (view.getUint16(at) + view.getUint16(at - 2)) & 0xffff);
    }
    return;
  }
  for (let y = 0; y < height; y++) {
    const row = raw.subarray(y * stride, (y + 1) * stride);
    for (let i = 1; i < row.length; i++) row[i] = (row[i]! + row[i - 1]!) & 0xff;
    if (depth === 32) {
      // Planes (all first bytes, then all second bytes…) back to big-endian samples.
      const planes = new Uint8Array(row);
      for (let x = 0; x < width; x++) for (let b = 0; b < 4; b++) row[x * 4 + b] = planes[b * width + x]!;
    }
  }
}

function predict(raw: Uint8Array, shape: ChannelShape): Uint8Array {
  const { width, height, depth } = shape;
  const stride = rowBytes(width, depth);
  const out = new Uint8Array(raw.length);
  if (depth === 16) {
    const src = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const dst = new DataView(out.buffer);
    for (let y = 0; y < height; y++) {
      let previous = 0;
      for (let x = 0, at = y * stride; x < width; x++, at += 2) {
        const value = src.getUint16(at);
        dst.setUint16(at, (value - previous) & 0xffff);
        previous = value;
      }
    }
    return out;
  }
  for (let y = 0; y < height; y++) {
    const row = raw.subarray(y * stride, (y + 1) * stride);
    const target = out.subarray(y * stride, (y + 1) * stride);
    if (depth === 32) for (let x = 0; x < width; x++) for (let b = 0; b < 4; b++) target[b * width + x] = row[x * 4 + b]!;
    else target.set(row);
    for (let i = target.length - 1; i > 0; i--) target[i] = (target[i]! - target[i - 1]!) & 0xff;
  }
  return out;
}

/**
 * A channel's samples as raw big-endian rows.
 * @throws BridgeError `BAD_REQUEST` (a format error naming `section`) when the data is short or does not inflate.
 */
export function decodeChannel(compression: number, data: Uint8Array, shape: ChannelShape, section: PsdSection): Uint8Array {
  const stride = rowBytes(shape.width, shape.depth);
  const size = stride * shape.height;
  if (size === 0) return new Uint8Array(0);
  switch (compression) {
    case COMPRESSION.raw:
      if (data.length < size) throw psdFormatError(`raw channel data of ${data.length} bytes where ${size} are needed`, section, data.byteOffset);
      return data.subarray(0, size);
    case COMPRESSION.rle:
      return unpackRows(data, shape.height, stride, shape.psb, section);
    case COMPRESSION.zip:
    case COMPRESSION.zipPrediction: {
      let raw: Uint8Array;
      try {
        // Bounded by the size the header declares: a small deflate stream cannot balloon.
        raw = new Uint8Array(inflateSync(data, { maxOutputLength: size }));
      } catch (cause) {
        throw psdFormatError(`ZIP channel data does not inflate to ${size} bytes (${(cause as Error).message})`, section, data.byteOffset);
      }
      if (raw.length < size) throw psdFormatError(`ZIP channel data inflates to ${raw.length} bytes where ${size} are needed`, section, data.byteOffset);
      if (compression === COMPRESSION.zipPrediction) unpredict(raw, shape);
      return raw;
    }
    default:
      throw psdFormatError(`compression ${compression} is unknown`, section, data.byteOffset);
  }
}

/** Compresses raw big-endian rows with `compression` (raw, RLE or ZIP with prediction). */
export function encodeChannel(raw: Uint8Array, shape: ChannelShape, compression: number): Uint8Array {
  if (raw.length === 0) return raw;
  if (compression === COMPRESSION.rle) return packRows(raw, shape.height, rowBytes(shape.width, shape.depth), shape.psb);
  if (compression === COMPRESSION.zipPrediction) return new Uint8Array(deflateSync(predict(raw, shape)));
  if (compression === COMPRESSION.zip) return new Uint8Array(deflateSync(raw));
  return raw;
}
