/*
 * The hot per-pixel loops of the compositor, on plain byte views of straight-RGBA rasters. `composite.ts` decides
 * which one a layer needs; these only move bytes. Each reports its rows to an optional `work` every `ROW_BAND`
 * rows (a cancelled call throws from there) and once at its end.
 */
import type { Raster } from "./raster.js";
import { RowBands, type RowWork } from "./work.js";

/** The part of `dst` that `src`, placed with its top-left at `(dx, dy)`, covers; null when they do not overlap. */
export function overlap(dst: Raster, src: Raster, dx: number, dy: number): { x0: number; y0: number; x1: number; y1: number } | null {
  const x0 = Math.max(0, dx);
  const y0 = Math.max(0, dy);
  const x1 = Math.min(dst.width, dx + src.width);
  const y1 = Math.min(dst.height, dy + src.height);
  return x1 <= x0 || y1 <= y0 ? null : { x0, y0, x1, y1 };
}

/**
 * `normal` source-over without a mask: the common case, kept lean (exports of big documents spend their time
 * here). The general loop's formula, with the per-pixel divisions hoisted.
 */
export function normalOnto(dst: Raster, src: Raster, dx: number, dy: number, opacity: number, work?: RowWork): void {
  const box = overlap(dst, src, dx, dy);
  if (box === null) return;
  const { x0, y0, x1, y1 } = box;
  // Plain byte views: stores skip Uint8ClampedArray's clamp-and-round (values are in range; `+ 0.5` rounds).
  const d = new Uint8Array(dst.data.buffer, dst.data.byteOffset, dst.data.length);
  const s = new Uint8Array(src.data.buffer, src.data.byteOffset, src.data.length);
  const rowBytes = (x1 - x0) * 4;
  const scale = opacity / 255;
  const bands = new RowBands(work);
  for (let y = y0; y < y1; y++) {
    bands.next();
    const sRow = ((y - dy) * src.width + (x0 - dx)) * 4;
    const dRow = (y * dst.width + x0) * 4;
    let si = sRow;
    let di = dRow;
    const end = dRow + rowBytes;
    for (; di < end; si += 4, di += 4) {
      const sa = s[si + 3] as number;
      if (sa === 0) continue;
      const ba = d[di + 3] as number;
      const as = sa * scale;
      if (as >= 1 || ba === 0) {
        d[di] = s[si] as number;
        d[di + 1] = s[si + 1] as number;
        d[di + 2] = s[si + 2] as number;
        d[di + 3] = as >= 1 ? 255 : as * 255 + 0.5;
        continue;
      }
      const keep = (1 - as) * ba * (1 / 255);
      const ao = as + keep;
      const inv = 1 / ao;
      const k1 = as * inv;
      const k2 = keep * inv;
      d[di] = (s[si] as number) * k1 + (d[di] as number) * k2 + 0.5;
      d[di + 1] = (s[si + 1] as number) * k1 + (d[di + 1] as number) * k2 + 0.5;
      d[di + 2] = (s[si + 2] as number) * k1 + (d[di + 2] as number) * k2 + 0.5;
      d[di + 3] = ao * 255 + 0.5;
    }
  }
  bands.end(y1 - y0);
}

/**
 * A separable blend mode without a mask, the general loop's formula on plain byte views. Over an opaque
 * backdrop (the usual case: a background layer below) it reduces to `Cb + αs·(B(Cb, Cs) − Cb)`, with no division.
 */
export function separableOnto(
  dst: Raster,
  src: Raster,
  dx: number,
  dy: number,
  opacity: number,
  table: Float64Array,
  work?: RowWork,
): void {
  const box = overlap(dst, src, dx, dy);
  if (box === null) return;
  const { x0, y0, x1, y1 } = box;
  // Plain byte views: values stay in 0–255 and `+ 0.5` rounds, so the clamped array's checks are not needed.
  const d = new Uint8Array(dst.data.buffer, dst.data.byteOffset, dst.data.length);
  const s = new Uint8Array(src.data.buffer, src.data.byteOffset, src.data.length);
  const scale = opacity / 255;
  const bands = new RowBands(work);
  for (let y = y0; y < y1; y++) {
    bands.next();
    let si = ((y - dy) * src.width + (x0 - dx)) * 4;
    let di = (y * dst.width + x0) * 4;
    for (let x = x0; x < x1; x++, si += 4, di += 4) {
      const sa = s[si + 3] as number;
      if (sa === 0) continue;
      const as = sa * scale;
      const ba = d[di + 3] as number;
      if (ba === 255) {
        for (let c = 0; c < 3; c++) {
          const b = d[di + c] as number;
          const t = (table[(b << 8) | (s[si + c] as number)] as number) * 255;
          d[di + c] = b + as * (t - b) + 0.5;
        }
        continue;
      }
      const ab = ba / 255;
      const ao = as + ab * (1 - as);
      const inv = 1 / ao;
      const kS = as * (1 - ab) * inv;
      const kT = as * ab * 255 * inv;
      const kB = (1 - as) * ab * inv;
      for (let c = 0; c < 3; c++) {
        const sByte = s[si + c] as number;
        const bByte = d[di + c] as number;
        d[di + c] = kS * sByte + kT * (table[(bByte << 8) | sByte] as number) + kB * bByte + 0.5;
      }
      d[di + 3] = ao * 255 + 0.5;
    }
  }
  bands.end(y1 - y0);
}

/** Copies the overlapping part of `src` (top-left at `dx, dy`) into `dst`, replacing its pixels. */
export function copyOnto(dst: Raster, src: Raster, dx: number, dy: number, work?: RowWork): void {
  const box = overlap(dst, src, dx, dy);
  if (box === null) return;
  const { x0, y0, x1, y1 } = box;
  const bands = new RowBands(work);
  for (let y = y0; y < y1; y++) {
    bands.next();
    const from = ((y - dy) * src.width + (x0 - dx)) * 4;
    dst.data.set(src.data.subarray(from, from + (x1 - x0) * 4), (y * dst.width + x0) * 4);
  }
  bands.end(y1 - y0);
}
