/**
 * Mixing whole rasters by a mask: a pass-through group's opacity and mask fading its result toward the backdrop,
 * a group's mask cutting its composite, and the backdrop taken back out of a non-isolated group.
 */
import type { PlacedMask } from "./masks.js";
import type { Raster } from "./raster.js";
import { emptyRaster } from "./raster.js";
import { RowBands, type RowWork } from "./work.js";
import { lerpInSpace } from "./blend-space.js";

/**
 * Moves `dst` toward `target` by `t` (0–1) times the mask where one is placed, interpolating premultiplied colour:
 * a pass-through group's opacity and mask.
 */
export function lerpInto(dst: Raster, target: Raster, t: number, placed: PlacedMask | undefined, work?: RowWork): void {
  if (dst.space !== undefined) {
    lerpInSpace(dst.space, dst, target, t, placed && ((x, y) => maskValue(placed, x, y)));
    work?.rows(dst.height);
    return;
  }
  const d = dst.data;
  const g = target.data;
  const rowBytes = dst.width * 4;
  const bands = new RowBands(work);
  const row = placed ? new Float32Array(dst.width) : undefined;
  for (let y = 0; y < dst.height; y++) {
    bands.next();
    if (placed && row) {
      maskRow(placed, y, row, t);
      lerpRowMasked(d, g, y * rowBytes, row);
    } else {
      lerpRow(d, g, y * rowBytes, (y + 1) * rowBytes, t);
    }
  }
  bands.end(dst.height);
}

/** The mask's value (0–1) at pixel `(x, y)` of the destination. */
function maskValue(placed: PlacedMask, x: number, y: number): number {
  const { mask, dx, dy } = placed;
  const mx = x - dx;
  const my = y - dy;
  return (mx >= 0 && my >= 0 && mx < mask.width && my < mask.height ? (mask.data[my * mask.width + mx] as number) : mask.defaultColor) / 255;
}

/** Multiplies a raster's alpha by a placed mask (a group's mask applied to its composite). */
export function maskInPlace(raster: Raster, placed: PlacedMask): void {
  const row = new Float32Array(raster.width);
  const d = raster.data;
  for (let y = 0; y < raster.height; y++) {
    maskRow(placed, y, row, 1);
    const start = y * raster.width * 4;
    for (let x = 0; x < raster.width; x++) d[start + x * 4 + 3] = (d[start + x * 4 + 3] as number) * (row[x] as number);
  }
}

/** The mask's values along row `y` of the destination, times `t`, as fractions. */
function maskRow(placed: PlacedMask, y: number, out: Float32Array, t: number): void {
  const { mask, dx, dy } = placed;
  const my = y - dy;
  const inside = my >= 0 && my < mask.height;
  for (let x = 0; x < out.length; x++) {
    const mx = x - dx;
    const v = inside && mx >= 0 && mx < mask.width ? (mask.data[my * mask.width + mx] as number) : mask.defaultColor;
    out[x] = (v / 255) * t;
  }
}

function lerpRowMasked(d: Uint8ClampedArray, g: Uint8ClampedArray, start: number, ts: Float32Array): void {
  for (let x = 0; x < ts.length; x++) {
    const t = ts[x] as number;
    if (t === 0) continue;
    const i = start + x * 4;
    lerpRow(d, g, i, i + 4, t);
  }
}

function lerpRow(d: Uint8ClampedArray, g: Uint8ClampedArray, start: number, end: number, t: number): void {
  for (let i = start; i < end; i += 4) {
    const ab = (d[i + 3] as number) / 255;
    const ag = (g[i + 3] as number) / 255;
    const ao = ab + (ag - ab) * t;
    if (ao <= 0) {
      d[i + 3] = 0;
      continue;
    }
    for (let c = 0; c < 3; c++) {
      const pb = (d[i + c] as number) * ab;
      const pg = (g[i + c] as number) * ag;
      d[i + c] = (pb + (pg - pb) * t) / ao;
    }
    d[i + 3] = ao * 255;
  }
}

/**
 * The layer that, drawn normally over `backdrop`, gives `result`, with alpha `shape`'s alpha × `opacity` (W3C's
 * backdrop removal of a non-isolated group): premultiplied `result − (1 − α)·backdrop`.
 */
export function backdropRemoved(result: Raster, backdrop: Raster, shape: Raster, opacity: number): Raster {
  const out = emptyRaster(result.width, result.height);
  const r = result.data;
  const b = backdrop.data;
  const d = out.data;
  for (let i = 0; i < d.length; i += 4) {
    const a = ((shape.data[i + 3] as number) / 255) * opacity;
    if (a <= 0) continue;
    const ar = (r[i + 3] as number) / 255;
    const ab = (b[i + 3] as number) / 255;
    for (let c = 0; c < 3; c++) {
      const premultiplied = (r[i + c] as number) * ar - (1 - a) * (b[i + c] as number) * ab;
      d[i + c] = Math.min(255, Math.max(0, premultiplied / a));
    }
    d[i + 3] = a * 255;
  }
  return out;
}
