// The reference side of the PSD fidelity measurement: the composite Photoshop stored in a file (the merged image
// data section), decoded to 8-bit straight RGBA by the stated conversions of colour.js. Written from the file
// format's description alone, independent of the editor and of ag-psd.
import { inflateSync } from "node:zlib";
import { clamp01, cmykStoredToRgb, from16, fromBitmapBit, fromFloatAlpha, fromFloatColour, labStoredToRgb, MAX_16 } from "./colour.js";
import { Cursor, layerCount, readOutline, readResources } from "./sections.js";

/** Colour channels per mode before any alpha or spot channel (multichannel: every channel is an ink). */
const COLOUR_CHANNELS = { bitmap: 1, grayscale: 1, indexed: 1, rgb: 3, cmyk: 4, duotone: 1, lab: 3 };
const COMPRESSION = { 0: "raw", 1: "rle", 2: "zip", 3: "zip-prediction" };
/** Image resources read here: 1047 transparency index (indexed), 1053 alpha identifiers, 1057 version info. */
const RESOURCE = { transparencyIndex: 1047, alphaIdentifiers: 1053, versionInfo: 1057 };

/**
 * Decodes a PSD/PSB's stored composite. Transparent composites are stored matted on white (each colour sample is
 * `a·c + (1−a)·white`, white being no ink in CMYK); the matte is removed so the result is straight RGBA.
 * `notes` says what was approximated or ignored (spot channels, the multichannel inks…).
 * @throws Error naming the section and byte where the file stops making sense.
 */
export function decodeMerged(bytes) {
  const o = readOutline(bytes);
  const resources = readResources(bytes, o);
  const notes = [];
  const colourChannels = o.colourMode === "multichannel" ? o.channels : COLOUR_CHANNELS[o.colourMode];
  if (colourChannels === undefined) throw new Error(`colour mode ${o.mode} is not one the format defines (byte 24)`);
  if (![1, 8, 16, 32].includes(o.depth)) throw new Error(`depth ${o.depth} is not 1, 8, 16 or 32 (byte 22)`);
  const alphaIndex = transparencyChannel(bytes, o, resources, colourChannels);
  const extra = o.channels - colourChannels - (alphaIndex === undefined ? 0 : 1);
  if (extra > 0) notes.push(`${extra} alpha or spot channel(s) not composited`);
  const { planes, compression } = readPlanes(bytes, o);
  const floats = o.depth === 32 ? planes.map(bigEndianFloats) : undefined;
  const pixels = o.width * o.height;
  const rgba = new Uint8ClampedArray(pixels * 4);
  const sample = sampleReader(o.depth, o.width, planes, floats);
  const labMiddle = o.depth === 16 ? 32768 / MAX_16 : 128 / 255;
  const mode = o.colourMode;
  const grayscale = mode === "grayscale" || mode === "duotone" || mode === "bitmap" || (mode === "multichannel" && o.channels < 3);
  const palette = mode === "indexed" ? o.colourModeData : undefined;
  const transparentIndex = mode === "indexed" ? resources.get(RESOURCE.transparencyIndex) : undefined;
  if (mode === "duotone") notes.push("duotone shown as its grayscale channel (inks not applied)");
  if (mode === "multichannel") notes.push(o.channels >= 3 ? "multichannel read as the inks cyan, magenta, yellow of its first three channels" : "multichannel read as its first channel in gray");
  const gray = mode === "grayscale" || mode === "duotone" || (mode === "multichannel" && o.channels < 3);
  // White is no ink in every channel, except Lab's a and b, whose white is their middle (128 of 255).
  const unit = (ch, i, a) => unmatte(sample.unit(ch, i), a, mode === "lab" && ch > 0 ? labMiddle : 1);
  for (let i = 0; i < pixels; i++) {
    const a = alphaIndex === undefined ? 1 : clamp01(sample.unit(alphaIndex, i));
    let r;
    let g;
    let b;
    // No array or function made per pixel: this loop is most of the decoding.
    if (mode === "rgb") {
      r = sample.to8(unit(0, i, a));
      g = sample.to8(unit(1, i, a));
      b = sample.to8(unit(2, i, a));
    } else if (gray) r = g = b = sample.to8(unit(0, i, a));
    else if (mode === "bitmap") r = g = b = fromBitmapBit(sample.bit(i));
    else if (mode === "indexed") {
      const index = planes[0][i];
      [r, g, b] = [palette[index] ?? 0, palette[256 + index] ?? 0, palette[512 + index] ?? 0];
    } else if (mode === "cmyk") [r, g, b] = cmykStoredToRgb(unit(0, i, a), unit(1, i, a), unit(2, i, a), unit(3, i, a));
    else if (mode === "multichannel") [r, g, b] = cmykStoredToRgb(unit(0, i, a), unit(1, i, a), unit(2, i, a), 1);
    else [r, g, b] = labStoredToRgb(unit(0, i, a), unit(1, i, a), unit(2, i, a));
    let alpha = o.depth === 32 ? fromFloatAlpha(a) : Math.round(a * 255);
    if (transparentIndex !== undefined && transparentIndex.length >= 2 && planes[0][i] === ((transparentIndex[0] << 8) | transparentIndex[1])) alpha = 0;
    rgba[i * 4] = r;
    rgba[i * 4 + 1] = g;
    rgba[i * 4 + 2] = b;
    rgba[i * 4 + 3] = alpha;
  }
  const versionInfo = resources.get(RESOURCE.versionInfo);
  const hasRealMergedData = versionInfo && versionInfo.length >= 5 ? versionInfo[4] !== 0 : undefined;
  if (hasRealMergedData === false) notes.push("the file says its merged image is not a real composite");
  return {
    width: o.width,
    height: o.height,
    rgba,
    grayscale,
    colourMode: mode,
    depth: o.depth,
    version: o.psb ? "psb" : "psd",
    channels: o.channels,
    compression,
    hasAlpha: alphaIndex !== undefined,
    hasRealMergedData,
    notes,
  };
}

/** Removes the matte from a colour sample (0–1, stored sense) given its alpha (0–1) and the matte's value. */
function unmatte(v, a, white) {
  if (a >= 1) return v;
  if (a <= 0) return white;
  return clamp01((v - (1 - a) * white) / a);
}

/** A 32-bit plane's big-endian floats. */
function bigEndianFloats(plane) {
  const view = new DataView(plane.buffer, plane.byteOffset, plane.byteLength);
  const out = new Float32Array(plane.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4);
  return out;
}

/**
 * Which channel of the merged image is its transparency, if any: the first alpha channel when the file says so
 * (a negative layer count, or the "merged transparency" tagged blocks), or the channel whose alpha identifier is 0.
 */
function transparencyChannel(bytes, o, resources, colourChannels) {
  if (o.channels <= colourChannels || o.colourMode === "bitmap" || o.colourMode === "indexed") return undefined;
  const merged = ["Mtrn", "Mt16", "Mt32"].some((key) => o.globalKeys.has(key));
  if (merged || layerCount(bytes, o) < 0) return colourChannels;
  const ids = resources.get(RESOURCE.alphaIdentifiers);
  if (ids !== undefined) {
    const view = new DataView(ids.buffer, ids.byteOffset, ids.byteLength);
    const count = Math.floor(ids.length / 4);
    for (let k = 0; k < count; k++) if (view.getUint32(k * 4) === 0) return o.channels - count + k;
  }
  return undefined;
}

/**
 * Per-depth sample access over the planes: `unit(channel, pixel)` in 0–1 (stored sense; 32-bit unclamped),
 * `to8` back to a byte by the stated conversion, `bit` for 1-bit rows.
 */
function sampleReader(depth, width, planes, floats) {
  const rowBytes = Math.ceil((width * depth) / 8);
  if (depth === 1) return { bit: (i) => (planes[0][Math.floor(i / width) * rowBytes + ((i % width) >> 3)] >> (7 - ((i % width) & 7))) & 1 };
  if (depth === 8) return { unit: (ch, i) => planes[ch][i] / 255, to8: (u) => Math.round(u * 255) };
  if (depth === 16) return { unit: (ch, i) => ((planes[ch][i * 2] << 8) | planes[ch][i * 2 + 1]) / MAX_16, to8: (u) => from16(Math.round(u * MAX_16)) };
  return { unit: (ch, i) => floats[ch][i], to8: fromFloatColour };
}

/** Each channel's bytes (rows of `ceil(width · depth / 8)` bytes), decompressed. */
function readPlanes(bytes, o) {
  const c = new Cursor(bytes, o.imageData);
  if (c.at + 2 > bytes.length) throw new Error(`the file has no merged image data (it ends at byte ${bytes.length})`);
  const method = c.u16("the merged image compression");
  const compression = COMPRESSION[method];
  if (compression === undefined) throw new Error(`merged image compression ${method} is not 0–3 (byte ${o.imageData})`);
  const rowBytes = Math.ceil((o.width * o.depth) / 8);
  const planeBytes = rowBytes * o.height;
  const total = planeBytes * o.channels;
  let data;
  if (compression === "raw") data = c.take(total, "the raw merged image");
  else if (compression === "rle") data = unpackRows(c, o, rowBytes);
  else {
    data = inflateSync(bytes.subarray(c.at));
    if (data.length < total) throw new Error(`the merged image inflates to ${data.length} bytes, ${total} expected (byte ${c.at})`);
    if (compression === "zip-prediction") undoPrediction(data, o, rowBytes);
  }
  const planes = [];
  for (let ch = 0; ch < o.channels; ch++) planes.push(data.subarray(ch * planeBytes, (ch + 1) * planeBytes));
  return { planes, compression };
}

/** PackBits rows: a count per row and channel (2 bytes, 4 in PSB), then the rows one after another. */
function unpackRows(c, o, rowBytes) {
  const rows = o.channels * o.height;
  const counts = new Array(rows);
  for (let r = 0; r < rows; r++) counts[r] = o.psb ? c.u32("an RLE row count") : c.u16("an RLE row count");
  const out = new Uint8Array(rowBytes * rows);
  for (let r = 0; r < rows; r++) {
    const start = c.at;
    const row = c.take(counts[r], `RLE row ${r}`);
    let at = r * rowBytes;
    const end = at + rowBytes;
    for (let i = 0; i < row.length && at < end; ) {
      const n = row[i++];
      if (n < 128) {
        const run = Math.min(n + 1, end - at, row.length - i);
        out.set(row.subarray(i, i + run), at);
        at += run;
        i += n + 1;
      } else if (n > 128) {
        if (i >= row.length) throw new Error(`RLE row ${r} stops inside a run (byte ${start + i})`);
        out.fill(row[i++], at, Math.min(end, at + 257 - n));
        at = Math.min(end, at + 257 - n);
      }
    }
  }
  return out;
}

/** Undoes ZIP prediction in place: deltas along each row (bytes, 16-bit words, or 32-bit floats split into byte planes). */
function undoPrediction(data, o, rowBytes) {
  const rows = o.channels * o.height;
  for (let r = 0; r < rows; r++) {
    const at = r * rowBytes;
    if (o.depth === 8) for (let i = 1; i < rowBytes; i++) data[at + i] = (data[at + i] + data[at + i - 1]) & 0xff;
    else if (o.depth === 16) {
      for (let i = 2; i < rowBytes; i += 2) {
        const v = (((data[at + i] << 8) | data[at + i + 1]) + ((data[at + i - 2] << 8) | data[at + i - 1])) & 0xffff;
        data[at + i] = v >> 8;
        data[at + i + 1] = v & 0xff;
      }
    } else if (o.depth === 32) {
      for (let i = 1; i < rowBytes; i++) data[at + i] = (data[at + i] + data[at + i - 1]) & 0xff;
      // A copy: inflateSync answers a Buffer, whose slice() would share the bytes being rewritten.
      const planesOfRow = Uint8Array.from(data.subarray(at, at + rowBytes));
      for (let x = 0; x < o.width; x++) for (let k = 0; k < 4; k++) data[at + x * 4 + k] = planesOfRow[k * o.width + x];
    }
  }
}
