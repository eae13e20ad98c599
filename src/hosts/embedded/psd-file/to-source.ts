/**
 * Pixels from the 8-bit RGB ag-psd writes back to a file's mode and depth, by the inverses of the stated
 * conversions of `color.ts`. The hot loops use integer forms proven equal to them on every input (see the tests).
 */
import { rgbToCmyk, rgbToGray, rgbToLab } from "./color.js";
import { rowBytes } from "./channels.js";
import { COLOR_MODE } from "./modes.js";
import type { PsdSourceMode } from "./modes.js";
import { byteWriter, emptyPlane, unitWriter } from "./samples.js";

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
  if (mode.depth === 8 && mode.colorMode === COLOR_MODE.rgb) return [r, g, b].map((p) => p.subarray(0, count));
  if (mode.depth === 16 && mode.colorMode === COLOR_MODE.rgb) return [r, g, b].map((p) => sixteenFromBytes(p, count));
  if (mode.depth === 8 && mode.colorMode === COLOR_MODE.cmyk) return cmykFromRgb8(r, g, b, count);
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

/** 8-bit values at 16 bits: `v · 257` is the byte twice. */
function sixteenFromBytes(plane: Uint8Array, count: number): Uint8Array {
  const out = new Uint8Array(count * 2);
  for (let i = 0; i < count; i++) {
    const value = plane[i]!;
    out[i * 2] = value;
    out[i * 2 + 1] = value;
  }
  return out;
}

/**
 * `rgbToCmyk` stored at 8 bits, in integer arithmetic: K is the brightest channel, and each of C, M, Y is
 * `v · 255 / K` rounded, halves up (255, no ink, where K is 0): `floor((v · 255 + ⌊K / 2⌋) / K)`. Every 8-bit RGB
 * colour comes back exactly through `cmykToRgb` (tested on every pair).
 */
export function inkByte(value: number, black: number): number {
  return black === 0 ? 255 : ((value * 255 + (black >> 1)) / black) | 0;
}

function cmykFromRgb8(r: Uint8Array, g: Uint8Array, b: Uint8Array, count: number): Uint8Array[] {
  const out = [new Uint8Array(count), new Uint8Array(count), new Uint8Array(count), new Uint8Array(count)];
  const [c, m, y, k] = out as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  for (let i = 0; i < count; i++) {
    const red = r[i]!;
    const green = g[i]!;
    const blue = b[i]!;
    const black = red > green ? (red > blue ? red : blue) : green > blue ? green : blue;
    k[i] = black;
    c[i] = inkByte(red, black);
    m[i] = inkByte(green, black);
    y[i] = inkByte(blue, black);
  }
  return out;
}
