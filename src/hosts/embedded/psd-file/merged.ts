/**
 * The merged image section: one compression word, then every channel's data one after the other (RLE: the row
 * counts of all channels first, then all packed rows). Channels are decoded one at a time, on demand.
 */
import { inflateSync } from "node:zlib";
import { psdFormatError } from "./binary.js";
import { COMPRESSION, packRows, rowBytes, unpackRows } from "./channels.js";
import type { ChannelShape } from "./channels.js";
import type { MergedImage } from "./sections.js";

/** Decodes channel `index` of a merged image holding `channels` channels of `shape`. */
export type MergedChannel = (index: number) => Uint8Array;

/**
 * A reader of a merged image's channels.
 * @throws BridgeError `BAD_REQUEST` (format error in "image data") for a short section or an unknown compression.
 */
export function mergedChannels(merged: MergedImage, shape: ChannelShape, channels: number): MergedChannel {
  const stride = rowBytes(shape.width, shape.depth);
  const size = stride * shape.height;
  const { data, compression } = merged;
  if (compression === COMPRESSION.raw) {
    if (data.length < size * channels) throw psdFormatError(`raw image data of ${data.length} bytes where ${size * channels} are needed`, "image data", data.byteOffset);
    return (index) => data.subarray(index * size, (index + 1) * size);
  }
  if (compression === COMPRESSION.rle) {
    const countBytes = shape.psb ? 4 : 2;
    const rows = channels * shape.height;
    if (data.length < rows * countBytes) throw psdFormatError(`RLE image data of ${data.length} bytes is shorter than its row counts`, "image data", data.byteOffset);
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    // Where each channel's packed rows start, after the shared table of counts.
    const starts: number[] = [rows * countBytes];
    for (let c = 0; c < channels; c++) {
      let length = 0;
      for (let y = 0; y < shape.height; y++) length += shape.psb ? view.getUint32((c * shape.height + y) * 4) : view.getUint16((c * shape.height + y) * 2);
      starts.push(starts[c]! + length);
    }
    return (index) => {
      // One channel as a stand-alone RLE block: its counts, then its rows.
      const counts = data.subarray(index * shape.height * countBytes, (index + 1) * shape.height * countBytes);
      const rowsData = data.subarray(starts[index]!, Math.min(data.length, starts[index + 1]!));
      const block = new Uint8Array(counts.length + rowsData.length);
      block.set(counts);
      block.set(rowsData, counts.length);
      return unpackRows(block, shape.height, stride, shape.psb, "image data");
    };
  }
  if (compression === COMPRESSION.zip || compression === COMPRESSION.zipPrediction) {
    // Photoshop does not write ZIP here; other writers may (without prediction, which would need per-row state).
    let raw: Uint8Array;
    try {
      // Synchronous in the editor's own process, as the rest of a PSD's reading (see `channels.ts`).
      raw = new Uint8Array(inflateSync(data, { maxOutputLength: size * channels }));
    } catch (cause) {
      throw psdFormatError(`ZIP image data does not inflate (${(cause as Error).message})`, "image data", data.byteOffset);
    }
    return (index) => raw.subarray(index * size, (index + 1) * size);
  }
  throw psdFormatError(`compression ${compression} is unknown`, "image data", data.byteOffset - 2);
}

/** A merged image of raw channel planes: RLE (counts of every channel first), or raw. */
export function encodeMerged(planes: readonly Uint8Array[], shape: ChannelShape, compression: number): MergedImage {
  const stride = rowBytes(shape.width, shape.depth);
  if (compression !== COMPRESSION.rle) {
    const data = new Uint8Array(planes.length * stride * shape.height);
    for (const [c, p] of planes.entries()) data.set(p.subarray(0, stride * shape.height), c * stride * shape.height);
    return { compression: COMPRESSION.raw, data };
  }
  const countBytes = shape.psb ? 4 : 2;
  const packed = planes.map((p) => packRows(p, shape.height, stride, shape.psb));
  const tableLength = shape.height * countBytes;
  const total = packed.reduce((sum, p) => sum + p.length, 0);
  const data = new Uint8Array(total);
  let counts = 0;
  let rows = planes.length * tableLength;
  for (const p of packed) {
    data.set(p.subarray(0, tableLength), counts);
    data.set(p.subarray(tableLength), rows);
    counts += tableLength;
    rows += p.length - tableLength;
  }
  return { compression: COMPRESSION.rle, data };
}
