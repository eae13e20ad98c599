/**
 * Channel compression: raw, RLE (PackBits, one byte count per row: 2 bytes, 4 in a PSB), ZIP, and ZIP with
 * prediction (each row delta-coded: bytes at 8 bits, 16-bit values at 16; at 32 bits the row's bytes are first
 * split into four planes, most significant first, then delta-coded as bytes). Samples are big-endian, rows
 * `ceil(width × depth / 8)` bytes. ZIP goes through node:zlib.
 *
 * Synchronous on purpose, zlib included: reading and writing a PSD is one synchronous pass (ag-psd's reader and
 * writer are too), and it runs in the embedded editor's own process (the bridge's default, `isolation: "process"`),
 * never on the thread that serves clients. Only the in-thread editor of tests and the plugin test kit
 * (`isolation: "inline"`) runs it beside its caller, where that is what was asked for.
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

/**
 * Unpacks one PackBits row from `src[at…end)` into `out[o…oEnd)` (a short row leaves zeros, an overlong one is
 * cut). Plain loops: a typed-array view per packet would cost more than the copy.
 */
function unpackRow(src: Uint8Array, at: number, end: number, out: Uint8Array, o: number, oEnd: number): void {
  while (at < end && o < oEnd) {
    const n = src[at++]!;
    if (n < 128) {
      const stop = Math.min(o + n + 1, oEnd);
      const from = at;
      while (o < stop && at < end) out[o++] = src[at++]!;
      at = from + n + 1;
    } else if (n > 128) {
      const value = src[at++] ?? 0;
      const stop = Math.min(o + 257 - n, oEnd);
      while (o < stop) out[o++] = value;
    }
  }
}

/** PackBits of `raw[start…end)`, appended to `out` from `at`; answers the new end. */
function packRow(raw: Uint8Array, start: number, end: number, out: Uint8Array, at: number): number {
  let i = start;
  while (i < end) {
    // A run of 3 or more equal bytes is worth a repeat packet.
    const value = raw[i]!;
    let run = 1;
    while (i + run < end && run < 128 && raw[i + run] === value) run++;
    if (run >= 3) {
      out[at++] = 257 - run;
      out[at++] = value;
      i += run;
      continue;
    }
    const from = i;
    while (i < end && i - from < 128) {
      if (i + 2 < end && raw[i] === raw[i + 1] && raw[i] === raw[i + 2]) break;
      i++;
    }
    out[at++] = i - from - 1;
    for (let k = from; k < i; k++) out[at++] = raw[k]!;
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
    const end = packRow(raw, y * bytesPerRow, (y + 1) * bytesPerRow, out, at);
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
    unpackRow(data, at, end, out, y * bytesPerRow, (y + 1) * bytesPerRow);
    at = end;
  }
  return out;
}

function unpredict(raw: Uint8Array, shape: ChannelShape): void {
  const { width, height, depth } = shape;
  const stride = rowBytes(width, depth);
  if (depth === 16) {
    for (let y = 0; y < height; y++) {
      let previous = 0;
      for (let at = y * stride, end = at + width * 2; at < end; at += 2) {
        previous = (((raw[at]! << 8) | raw[at + 1]!) + previous) & 0xffff;
        raw[at] = previous >> 8;
        raw[at + 1] = previous & 0xff;
      }
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
    for (let y = 0; y < height; y++) {
      let previous = 0;
      for (let at = y * stride, end = at + width * 2; at < end; at += 2) {
        const value = (raw[at]! << 8) | raw[at + 1]!;
        const delta = (value - previous) & 0xffff;
        out[at] = delta >> 8;
        out[at + 1] = delta & 0xff;
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
        // In the editor's process (see the file comment), capped at the channel's size.
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
  // In the editor's process, as a save's other steps (see the file comment).
  if (compression === COMPRESSION.zipPrediction) return new Uint8Array(deflateSync(predict(raw, shape)));
  if (compression === COMPRESSION.zip) return new Uint8Array(deflateSync(raw));
  return raw;
}
