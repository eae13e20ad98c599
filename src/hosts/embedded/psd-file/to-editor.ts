/**
 * Pixels from a file's mode to what the editor holds (8-bit RGB or grayscale planes), by the stated conversions
 * of `color.ts`. Planes are whole channels of one layer (or of the merged image). The hot loops use integer forms
 * proven equal to the stated conversions on every input (see the tests).
 */
import { bitmapToGray, cmykToRgb, labToRgb, toByte } from "./color.js";
import { rowBytes } from "./channels.js";
import { COLOR_MODE } from "./modes.js";
import type { PsdSourceMode } from "./modes.js";
import type { Plane } from "./samples.js";
import { emptyPlane, unitReader } from "./samples.js";

/** The palette of an indexed file: 256 reds, then greens, then blues. */
const paletteOf = (mode: PsdSourceMode): Uint8Array => mode.colorModeData;

/**
 * The colour planes of a source (its colour channels, decoded; a missing one reads as zeros) as 8-bit planes in
 * what the file opens as: 3 (RGB) or 1 (grayscale). `alpha` (an 8-bit plane) is cleared where an indexed file's
 * transparent index is.
 */
export function colorToEditor(mode: PsdSourceMode, source: readonly (Plane | undefined)[], width: number, height: number, alpha?: Uint8Array): Uint8Array[] {
  const count = width * height;
  const out = Array.from({ length: mode.opensAs }, () => new Uint8Array(count));
  const at = (c: number): Plane => source[c] ?? emptyPlane(count, mode.depth);
  if (mode.colorMode === COLOR_MODE.bitmap) {
    const bits = at(0).bytes;
    const stride = rowBytes(width, 1);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) out[0]![y * width + x] = bitmapToGray((bits[y * stride + (x >> 3)]! >> (7 - (x & 7))) & 1);
    }
    return out;
  }
  if (mode.colorMode === COLOR_MODE.indexed) {
    const palette = paletteOf(mode);
    const indices = at(0).bytes;
    for (let i = 0; i < count; i++) {
      const index = indices[i]!;
      out[0]![i] = palette[index]!;
      out[1]![i] = palette[256 + index]!;
      out[2]![i] = palette[512 + index]!;
      if (alpha && index === mode.transparentIndex) alpha[i] = 0;
    }
    return out;
  }
  if (mode.colorMode === COLOR_MODE.cmyk && mode.depth === 8) {
    const [c, m, y, k] = [at(0).bytes, at(1).bytes, at(2).bytes, at(3).bytes];
    const [r, g, b] = [out[0]!, out[1]!, out[2]!];
    for (let i = 0; i < count; i++) {
      const black = k[i]!;
      r[i] = productByte(c[i]!, black);
      g[i] = productByte(m[i]!, black);
      b[i] = productByte(y[i]!, black);
    }
    return out;
  }
  const read = unitReader(mode.depth, true);
  if (mode.colorMode === COLOR_MODE.cmyk || mode.colorMode === COLOR_MODE.lab) {
    const rgb = [0, 0, 0];
    const [p0, p1, p2, p3] = [at(0), at(1), at(2), mode.colorMode === COLOR_MODE.cmyk ? at(3) : at(0)];
    const [r, g, b] = [out[0]!, out[1]!, out[2]!];
    const cmyk = mode.colorMode === COLOR_MODE.cmyk;
    for (let i = 0; i < count; i++) {
      if (cmyk) cmykToRgb(read(p0, i), read(p1, i), read(p2, i), read(p3, i), rgb);
      else labToRgb(read(p0, i), read(p1, i), read(p2, i), rgb);
      r[i] = rgb[0]!;
      g[i] = rgb[1]!;
      b[i] = rgb[2]!;
    }
    return out;
  }
  // RGB, grayscale, duotone: channel for channel.
  for (let c = 0; c < mode.opensAs; c++) {
    const from = at(c);
    const to = out[c]!;
    if (mode.depth === 8) to.set(from.bytes.subarray(0, count));
    else if (mode.depth === 16) for (let i = 0; i < count; i++) to[i] = sixteenToByte(from.bytes, i);
    else for (let i = 0; i < count; i++) to[i] = toByte(read(from, i));
  }
  return out;
}

/**
 * `from16` of the big-endian sample `i` in integer arithmetic: `round(v · 255 / 65535)` is
 * `floor((v · 255 + 32767) / 65535)` because 65535 is odd, so no sample falls on a half (equal on every value, tested).
 */
export function sixteenToByte(bytes: Uint8Array, i: number): number {
  const value = (bytes[i * 2]! << 8) | bytes[i * 2 + 1]!;
  return ((value * 255 + 32767) / 65535) | 0;
}

/**
 * `cmykToRgb` of two 8-bit stored samples in integer arithmetic: `round(255 · (c/255)(k/255))` is
 * `floor((c · k + 127) / 255)` (255 is odd: no product falls on a half; equal on every pair, tested).
 */
export function productByte(c: number, k: number): number {
  return ((c * k + 127) / 255) | 0;
}

/** A transparency or mask plane as 8 bits (linear at every depth: no transfer curve); at 8 bits, the plane itself. */
export function alphaToEditor(source: Plane, depth: number, count: number): Uint8Array {
  if (depth === 8) return source.bytes.subarray(0, count);
  const out = new Uint8Array(count);
  if (depth === 16) {
    for (let i = 0; i < count; i++) out[i] = sixteenToByte(source.bytes, i);
    return out;
  }
  const read = unitReader(depth, false);
  for (let i = 0; i < count; i++) out[i] = toByte(read(source, i));
  return out;
}

