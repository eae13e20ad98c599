/**
 * Geometry of pixel planes (RGBA layers, one-byte masks): scaling through sharp (whose resize weights colours by
 * alpha, so transparent pixels never bleed their colour into an edge), quarter turns and mirrors that move every
 * pixel exactly, and any other affine map resampled here by inverse mapping (nearest, bilinear or bicubic, colours
 * weighted by alpha as premultiplied values). Sharp's own `affine` and `rotate` are not used for the last: they
 * place their output on a half-pixel grid they do not expose, so a layer would land up to a pixel off, and they do
 * not premultiply unless a resize runs in the same pipeline.
 */
import sharp from "sharp";
import type { ResampleMethod } from "../edits.js";
import { ROW_BAND } from "./work.js";

/** Pixels in rows: 4 bytes (straight RGBA) or 1 byte (a mask) per pixel. */
export interface Plane {
  readonly data: Uint8Array | Uint8ClampedArray;
  readonly width: number;
  readonly height: number;
  readonly channels: 1 | 4;
}

/** A 2×2 matrix `[a, b, c, d]`: `x' = a·x + b·y`, `y' = c·x + d·y`. */
export type Matrix = readonly [number, number, number, number];

/** sharp's resize kernel for each method (sharp maps them to its interpolators when enlarging). */
const KERNELS = { nearest: "nearest", bilinear: "linear", bicubic: "cubic" } as const;

/** A plane of the same kind with new pixels of `width × height`. */
function blank(like: Plane, width: number, height: number, fill = 0): Plane {
  const data = like.channels === 4 ? new Uint8ClampedArray(width * height * 4) : new Uint8Array(width * height);
  if (fill !== 0) data.fill(fill);
  return { data, width, height, channels: like.channels };
}

/** The plane resampled to exactly `width × height` (an RGBA plane weighted by alpha). */
export async function resizePlane(plane: Plane, width: number, height: number, method: ResampleMethod): Promise<Plane> {
  if (width === plane.width && height === plane.height) return plane;
  const input = Buffer.from(plane.data.buffer, plane.data.byteOffset, plane.data.byteLength);
  let pipeline = sharp(input, { raw: { width: plane.width, height: plane.height, channels: plane.channels }, limitInputPixels: false }).resize(width, height, {
    fit: "fill",
    kernel: KERNELS[method],
  });
  // One band stays one band (sharp would write sRGB).
  if (plane.channels === 1) pipeline = pipeline.toColourspace("b-w");
  const { data, info } = await pipeline
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.width !== width || info.height !== height || info.channels !== plane.channels) {
    throw new Error(`Resizing gave ${info.width}×${info.height}×${info.channels}, not ${width}×${height}×${plane.channels}`);
  }
  const bytes = plane.channels === 4 ? new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return { data: bytes, width, height, channels: plane.channels };
}

/** Whether a matrix only turns by quarter turns and mirrors (every entry −1, 0 or 1, one per row and column). */
export function isQuarterTurn(m: Matrix): boolean {
  const unit = (v: number): boolean => v === 1 || v === -1;
  return (unit(m[0]) && m[1] === 0 && m[2] === 0 && unit(m[3])) || (m[0] === 0 && unit(m[1]) && unit(m[2]) && m[3] === 0);
}

/**
 * The plane turned and mirrored by a quarter-turn matrix ({@link isQuarterTurn}), every pixel moved exactly: the
 * box `(0, 0, width, height)` maps to a box whose top-left corner becomes the result's `(0, 0)`.
 */
export function turnPlane(plane: Plane, m: Matrix, check: () => void): Plane {
  const { width: w, height: h, channels } = plane;
  const swap = m[0] === 0;
  const out = blank(plane, swap ? h : w, swap ? w : h);
  // Destination of pixel (i, j): the map of its centre less the box's new top-left corner, less half a pixel.
  const minX = Math.min(0, m[0] * w) + Math.min(0, m[1] * h);
  const minY = Math.min(0, m[2] * w) + Math.min(0, m[3] * h);
  const src = plane.data;
  const dst = out.data;
  const ow = out.width;
  for (let j = 0; j < h; j++) {
    if (j % ROW_BAND === 0) check();
    for (let i = 0; i < w; i++) {
      const x = m[0] * (i + 0.5) + m[1] * (j + 0.5) - minX - 0.5;
      const y = m[2] * (i + 0.5) + m[3] * (j + 0.5) - minY - 0.5;
      const s = (j * w + i) * channels;
      const d = (y * ow + x) * channels;
      dst[d] = src[s] as number;
      if (channels === 4) {
        dst[d + 1] = src[s + 1] as number;
        dst[d + 2] = src[s + 2] as number;
        dst[d + 3] = src[s + 3] as number;
      }
    }
  }
  return out;
}

/** Catmull-Rom weight (Keys' cubic with a = −0.5) at distance `t` (0–2). */
function cubic(t: number): number {
  const x = Math.abs(t);
  if (x < 1) return (1.5 * x - 2.5) * x * x + 1;
  if (x < 2) return ((-0.5 * x + 2.5) * x - 4) * x + 2;
  return 0;
}

/** Taps of each method per axis. */
const TAPS: Record<ResampleMethod, number> = { nearest: 1, bilinear: 2, bicubic: 4 };

/**
 * Steps per pixel at which the cubic's weights are tabulated: positions are rounded to 1/1024 px (far below what
 * 8-bit pixels show), and a whole-pixel position still weighs its own pixel alone.
 */
const CUBIC_STEPS = 1024;

/** The four Catmull-Rom weights at each step `k / CUBIC_STEPS` past the second tap, four by four. */
const CUBIC_TABLE = (() => {
  const table = new Float64Array((CUBIC_STEPS + 1) * 4);
  for (let k = 0; k <= CUBIC_STEPS; k++) {
    const f = k / CUBIC_STEPS;
    table.set([cubic(1 + f), cubic(f), cubic(1 - f), cubic(2 - f)], k * 4);
  }
  return table;
})();

/** The four weights at fraction `f` (0–1) past the second tap. */
function cubicWeights(f: number, out: Float64Array): void {
  const k = Math.round(f * CUBIC_STEPS) * 4;
  out[0] = CUBIC_TABLE[k] as number;
  out[1] = CUBIC_TABLE[k + 1] as number;
  out[2] = CUBIC_TABLE[k + 2] as number;
  out[3] = CUBIC_TABLE[k + 3] as number;
}

/**
 * A plane of `width × height` whose pixel `(X, Y)` samples the source at `u = u0 + X·ux + Y·uy`,
 * `v = v0 + X·vx + Y·vy` (source pixel coordinates, 0 at the centre of pixel 0). Outside the source an RGBA plane
 * is transparent and a mask is `outside`. RGBA is interpolated as premultiplied colour: the weights of a
 * transparent neighbour count for nothing, so edges keep their colour.
 */
export function mapPlane(
  plane: Plane,
  size: { readonly width: number; readonly height: number },
  map: { readonly u0: number; readonly ux: number; readonly uy: number; readonly v0: number; readonly vx: number; readonly vy: number },
  method: ResampleMethod,
  outside: number,
  check: () => void,
): Plane {
  const { width: w, height: h, channels } = plane;
  const out = blank(plane, size.width, size.height);
  // One element type each way keeps the loop's array reads monomorphic.
  const src = new Uint8Array(plane.data.buffer, plane.data.byteOffset, plane.data.byteLength);
  const dst = out.data;
  const rgba = channels === 4 ? (out.data as Uint8ClampedArray) : undefined;
  const taps = TAPS[method];
  const cubicTaps = method === "bicubic";
  const nearest = method === "nearest";
  const wx = new Float64Array(4);
  const wy = new Float64Array(4);
  for (let Y = 0; Y < size.height; Y++) {
    if (Y % ROW_BAND === 0) check();
    let u = map.u0 + Y * map.uy;
    let v = map.v0 + Y * map.vy;
    for (let X = 0; X < size.width; X++, u += map.ux, v += map.vx) {
      // First tap and the fraction past it.
      let i0: number;
      let j0: number;
      if (nearest) {
        i0 = Math.floor(u + 0.5);
        j0 = Math.floor(v + 0.5);
        wx[0] = 1;
        wy[0] = 1;
      } else {
        const fu = Math.floor(u);
        const fv = Math.floor(v);
        if (cubicTaps) {
          cubicWeights(u - fu, wx);
          cubicWeights(v - fv, wy);
          i0 = fu - 1;
          j0 = fv - 1;
        } else {
          wx[0] = 1 - (u - fu);
          wx[1] = u - fu;
          wy[0] = 1 - (v - fv);
          wy[1] = v - fv;
          i0 = fu;
          j0 = fv;
        }
      }
      // Wholly outside: nothing to add up.
      if (i0 + taps <= 0 || j0 + taps <= 0 || i0 >= w || j0 >= h) {
        if (channels === 1 && outside !== 0) dst[Y * size.width + X] = outside;
        continue;
      }
      if (rgba === undefined) {
        let sum = 0;
        for (let b = 0; b < taps; b++) {
          const j = j0 + b;
          const rowIn = j >= 0 && j < h;
          for (let a = 0; a < taps; a++) {
            const i = i0 + a;
            const value = rowIn && i >= 0 && i < w ? (src[j * w + i] as number) : outside;
            sum += (wx[a] as number) * (wy[b] as number) * value;
          }
        }
        dst[Y * size.width + X] = sum <= 0 ? 0 : sum >= 255 ? 255 : Math.round(sum);
        continue;
      }
      let sa = 0;
      let sr = 0;
      let sg = 0;
      let sb = 0;
      // Taps inside the source: most of them, away from its edges.
      const a0 = i0 < 0 ? -i0 : 0;
      const a1 = i0 + taps > w ? w - i0 : taps;
      const b0 = j0 < 0 ? -j0 : 0;
      const b1 = j0 + taps > h ? h - j0 : taps;
      for (let b = b0; b < b1; b++) {
        const weightY = wy[b] as number;
        let s = ((j0 + b) * w + i0 + a0) * 4;
        for (let a = a0; a < a1; a++, s += 4) {
          const alpha = src[s + 3] as number;
          if (alpha === 0) continue;
          const k = (wx[a] as number) * weightY * alpha;
          sa += k;
          sr += k * (src[s] as number);
          sg += k * (src[s + 1] as number);
          sb += k * (src[s + 2] as number);
        }
      }
      if (sa <= 0.5) continue;
      const d = (Y * size.width + X) * 4;
      const inv = 1 / sa;
      // Uint8ClampedArray rounds and clamps (a cubic overshoots a little at hard edges).
      rgba[d] = sr * inv;
      rgba[d + 1] = sg * inv;
      rgba[d + 2] = sb * inv;
      rgba[d + 3] = sa;
    }
  }
  return out;
}
