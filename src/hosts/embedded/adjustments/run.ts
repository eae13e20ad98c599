/*
 * The pixel loop every adjustment shares: straight RGBA in, a new raster out, alpha copied untouched. Tables are
 * one read per channel; colour functions go through a small direct-mapped cache keyed by the 24-bit colour, so
 * flat areas and limited palettes (most real layers) cost one lookup instead of one colour-space round trip.
 */
import { emptyRaster, type Raster } from "../raster.js";
import { ROW_BAND, RowBands, type RowWork } from "../work.js";
import type { ColorProgram } from "./program.js";

/** Entries of the colour cache: 64 Ki colours, 512 KiB, a miss rate near zero on flat artwork. */
const COLOR_CACHE_ENTRIES = 1 << 16;

/** Runs a compiled adjustment over every pixel of `pixels`, reporting rows to `work` every {@link ROW_BAND}. */
export function runProgram(program: ColorProgram, pixels: Raster, work?: RowWork): Raster {
  const out = emptyRaster(pixels.width, pixels.height);
  runInto(program, pixels, out, work);
  return out;
}

/**
 * Runs a compiled adjustment over the pixels of `pixels` that have any alpha, changing them where they are: what
 * an adjustment layer at full strength does to the picture below it (pixels without alpha keep their colour, as
 * they do when the adjusted copy is drawn source-atop them).
 */
export function runProgramInPlace(program: ColorProgram, pixels: Raster, work?: RowWork): void {
  runInto(program, pixels, pixels, work);
}

/** The loop of both: into a new raster every pixel, in place only those with alpha. */
function runInto(program: ColorProgram, pixels: Raster, out: Raster, work: RowWork | undefined): void {
  const inPlace = out === pixels;
  const src = new Uint8Array(pixels.data.buffer, pixels.data.byteOffset, pixels.data.length);
  const dst = new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.length);
  const rowBytes = pixels.width * 4;
  const pixel = program.kind === "color" ? cachedColor(program.fn) : undefined;
  const tables = program.kind === "tables" ? program.tables : undefined;
  const bands = new RowBands(work);
  for (let y = 0; y < pixels.height; y++) {
    bands.next();
    const end = (y + 1) * rowBytes;
    if (inPlace) {
      if (tables) {
        const [tr, tg, tb] = tables;
        for (let i = y * rowBytes; i < end; i += 4) {
          if (src[i + 3] === 0) continue;
          dst[i] = tr[src[i] as number] as number;
          dst[i + 1] = tg[src[i + 1] as number] as number;
          dst[i + 2] = tb[src[i + 2] as number] as number;
        }
      } else if (pixel) {
        for (let i = y * rowBytes; i < end; i += 4) {
          if (src[i + 3] === 0) continue;
          const rgb = pixel((src[i] as number) << 16 | (src[i + 1] as number) << 8 | (src[i + 2] as number));
          dst[i] = rgb >>> 16;
          dst[i + 1] = (rgb >>> 8) & 255;
          dst[i + 2] = rgb & 255;
        }
      }
    } else if (tables) {
      const [tr, tg, tb] = tables;
      for (let i = y * rowBytes; i < end; i += 4) {
        dst[i] = tr[src[i] as number] as number;
        dst[i + 1] = tg[src[i + 1] as number] as number;
        dst[i + 2] = tb[src[i + 2] as number] as number;
        dst[i + 3] = src[i + 3] as number;
      }
    } else if (pixel) {
      for (let i = y * rowBytes; i < end; i += 4) {
        const rgb = pixel((src[i] as number) << 16 | (src[i + 1] as number) << 8 | (src[i + 2] as number));
        dst[i] = rgb >>> 16;
        dst[i + 1] = (rgb >>> 8) & 255;
        dst[i + 2] = rgb & 255;
        dst[i + 3] = src[i + 3] as number;
      }
    }
  }
  bands.end(pixels.height);
}

/** A colour function over packed `0xRRGGBB` colours, rounded and clamped, behind the direct-mapped cache. */
function cachedColor(fn: (r: number, g: number, b: number, out: Float64Array) => void): (rgb: number) => number {
  const keys = new Int32Array(COLOR_CACHE_ENTRIES).fill(-1);
  const values = new Int32Array(COLOR_CACHE_ENTRIES);
  const out = new Float64Array(3);
  const byte = (v: number): number => (v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v));
  return (rgb) => {
    // Mixing the high byte into the slot keeps colours that differ only in red from sharing one.
    const slot = (rgb ^ (rgb >>> 12)) & (COLOR_CACHE_ENTRIES - 1);
    if (keys[slot] === rgb) return values[slot] as number;
    fn(rgb >>> 16, (rgb >>> 8) & 255, rgb & 255, out);
    const value = (byte(out[0] as number) << 16) | (byte(out[1] as number) << 8) | byte(out[2] as number);
    keys[slot] = rgb;
    values[slot] = value;
    return value;
  };
}
