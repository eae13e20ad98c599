/**
 * Pixel conversions between a file's mode and what the editor holds (8-bit RGB or grayscale planes), with the
 * stated conversions of `color.ts`. Planes are whole channels of one layer (or of the merged image).
 */
import { bitmapToGray, cmykToRgb, labToRgb, rgbToCmyk, rgbToGray, rgbToLab, toByte } from "./color.js";
import { rowBytes } from "./channels.js";
import { COLOR_MODE } from "./modes.js";
import type { PsdSourceMode } from "./modes.js";
import type { Plane } from "./samples.js";
import { byteWriter, emptyPlane, unitReader, unitWriter } from "./samples.js";

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
  const read = unitReader(mode.depth, true);
  if (mode.colorMode === COLOR_MODE.cmyk || mode.colorMode === COLOR_MODE.lab) {
    const rgb = [0, 0, 0];
    const [p0, p1, p2, p3] = [at(0), at(1), at(2), mode.colorMode === COLOR_MODE.cmyk ? at(3) : at(0)];
    for (let i = 0; i < count; i++) {
      if (mode.colorMode === COLOR_MODE.cmyk) cmykToRgb(read(p0, i), read(p1, i), read(p2, i), read(p3, i), rgb);
      else labToRgb(read(p0, i), read(p1, i), read(p2, i), rgb);
      out[0]![i] = rgb[0]!;
      out[1]![i] = rgb[1]!;
      out[2]![i] = rgb[2]!;
    }
    return out;
  }
  // RGB, grayscale, duotone: channel for channel.
  for (let c = 0; c < mode.opensAs; c++) {
    const from = at(c);
    const to = out[c]!;
    for (let i = 0; i < count; i++) to[i] = toByte(read(from, i));
  }
  return out;
}

/** A transparency or mask plane as 8 bits (linear at every depth: no transfer curve); at 8 bits, the plane itself. */
export function alphaToEditor(source: Plane, depth: number, count: number): Uint8Array {
  if (depth === 8) return source.bytes.subarray(0, count);
  const read = unitReader(depth, false);
  const out = new Uint8Array(count);
  for (let i = 0; i < count; i++) out[i] = toByte(read(source, i));
  return out;
}

/** An 8-bit transparency or mask plane at the file's depth. */
export function alphaToSource(source: Uint8Array, depth: number): Uint8Array {
  if (depth === 8) return source;
  const write = byteWriter(depth, false);
  const out = emptyPlane(source.length, depth);
  for (let i = 0; i < source.length; i++) write(out, i, source[i]!);
  return out.bytes;
}

/** The palette index nearest an RGB colour (squared distance), remembered per colour. */
function nearestIndex(palette: Uint8Array, colors: number, cache: Map<number, number>, r: number, g: number, b: number): number {
  const key = (r << 16) | (g << 8) | b;
  const known = cache.get(key);
  if (known !== undefined) return known;
  let best = 0;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (let i = 0; i < colors; i++) {
    const dr = palette[i]! - r;
    const dg = palette[256 + i]! - g;
    const db = palette[512 + i]! - b;
    const distance = dr * dr + dg * dg + db * db;
    if (distance < bestDistance) {
      bestDistance = distance;
      best = i;
      if (distance === 0) break;
    }
  }
  cache.set(key, best);
  return best;
}

/**
 * 8-bit RGB planes (what ag-psd wrote) as the source's colour planes at its depth: `colorChannels` raw planes
 * (a bitmap plane is packed, 1 = black). `alpha` (8-bit) picks an indexed file's transparent index where it is 0.
 */
export function colorToSource(mode: PsdSourceMode, rgb: readonly Uint8Array[], width: number, height: number, alpha?: Uint8Array): Uint8Array[] {
  const count = width * height;
  const [r, g, b] = [rgb[0]!, rgb[1] ?? rgb[0]!, rgb[2] ?? rgb[0]!];
  if (mode.colorMode === COLOR_MODE.bitmap) {
    const stride = rowBytes(width, 1);
    const bits = new Uint8Array(stride * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        if (rgbToGray(r[i]!, g[i]!, b[i]!) < 128) bits[y * stride + (x >> 3)]! |= 0x80 >> (x & 7);
      }
    }
    return [bits];
  }
  if (mode.colorMode === COLOR_MODE.indexed) {
    const indices = new Uint8Array(count);
    const cache = new Map<number, number>();
    const colors = Math.min(256, mode.paletteColors ?? 256);
    for (let i = 0; i < count; i++) {
      indices[i] = alpha && alpha[i] === 0 && mode.transparentIndex !== undefined ? mode.transparentIndex : nearestIndex(mode.colorModeData, colors, cache, r[i]!, g[i]!, b[i]!);
    }
    return [indices];
  }
  const out = Array.from({ length: mode.colorChannels }, () => emptyPlane(count, mode.depth));
  if (mode.colorMode === COLOR_MODE.cmyk || mode.colorMode === COLOR_MODE.lab) {
    const write = unitWriter(mode.depth);
    const units = [0, 0, 0, 0];
    for (let i = 0; i < count; i++) {
      if (mode.colorMode === COLOR_MODE.cmyk) rgbToCmyk(r[i]!, g[i]!, b[i]!, units);
      else rgbToLab(r[i]!, g[i]!, b[i]!, units);
      for (let c = 0; c < out.length; c++) write(out[c]!, i, units[c]!);
    }
    return out.map((p) => p.bytes);
  }
  const write = byteWriter(mode.depth, true);
  if (mode.colorChannels === 1) {
    for (let i = 0; i < count; i++) write(out[0]!, i, rgbToGray(r[i]!, g[i]!, b[i]!));
  } else {
    for (let c = 0; c < 3; c++) {
      const from = [r, g, b][c]!;
      for (let i = 0; i < count; i++) write(out[c]!, i, from[i]!);
    }
  }
  return out.map((p) => p.bytes);
}
