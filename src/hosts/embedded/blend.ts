/**
 * Blending one raster onto another with the W3C compositing formula:
 * `co·αo = αs·((1 − αb)·Cs + αb·B(Cb, Cs)) + (1 − αs)·αb·Cb`, `αo = αs + αb·(1 − αs)`.
 * `αs` is the source's alpha × opacity × mask. Separable modes apply `B` per channel; hue, saturation, color,
 * luminosity, darker/lighter color use the W3C non-separable definitions. `dissolve` draws each pixel whole or not
 * at all, with a chance of its alpha (a fixed pattern per layer pixel, so renders are repeatable; Photoshop's own
 * pattern is not reproduced); unknown names composite as `normal`. Loops report their rows to an optional
 * {@link RowWork}, which throws to stop a cancelled render.
 */
import type { PlacedMask } from "./masks.js";
import type { Raster } from "./raster.js";
import { normalOnto, overlap, separableOnto } from "./pixel-loops.js";
import { RowBands, type RowWork } from "./work.js";
import { BLEND_FUNCTIONS, blendTable, NON_SEPARABLE, type Rgb } from "./blend-modes.js";
import { blendInSpace } from "./blend-space.js";

/** Where and how a source raster is drawn onto another. */
export interface BlendPlacement {
  /** The source's top-left corner in the destination. */
  readonly dx: number;
  readonly dy: number;
  /** 0–1. */
  readonly opacity: number;
  /** A PSD blend mode name; unknown names draw as `normal`. */
  readonly blendMode: string;
  /** A layer mask placed at `(placed.dx, placed.dy)` in the destination. */
  readonly placed?: PlacedMask | undefined;
  /** The render's row accounting, which throws to stop a cancelled render. */
  readonly work?: RowWork | undefined;
}

/** Composites `src` onto `dst` in place, as `at` places it. */
export function blendOnto(dst: Raster, src: Raster, at: BlendPlacement): void {
  const { dx, dy, opacity, blendMode, placed, work } = at;
  const dissolve = blendMode === "dissolve";
  if (dst.space !== undefined) {
    blendInSpace(dst.space, dst, src, dx, dy, { opacity, blendMode, placed, ...(dissolve ? { dissolve: dissolveThreshold } : {}) }, work);
    return;
  }
  if (!placed && !dissolve && !BLEND_FUNCTIONS[blendMode] && !NON_SEPARABLE[blendMode]) {
    normalOnto(dst, src, dx, dy, opacity, work);
    return;
  }
  const blend = BLEND_FUNCTIONS[blendMode];
  if (!placed && blend) {
    separableOnto(dst, src, dx, dy, opacity, blendTable(blendMode, blend), work);
    return;
  }
  const table = blend ? blendTable(blendMode, blend) : undefined;
  const nonSeparable = NON_SEPARABLE[blendMode];
  const box = overlap(dst, src, dx, dy);
  if (box === null) return;
  let { x0, y0, x1, y1 } = box;
  // Rows the mask rectangle hides are skipped, but still counted as done.
  const rowsInBox = y1 - y0;
  const mask = placed?.mask;
  const mdx = placed?.dx ?? 0;
  const mdy = placed?.dy ?? 0;
  if (mask && mask.defaultColor === 0) {
    // Everything outside the mask rectangle is hidden: only its rectangle needs visiting.
    x0 = Math.max(x0, mdx);
    y0 = Math.max(y0, mdy);
    x1 = Math.min(x1, mdx + mask.width);
    y1 = Math.min(y1, mdy + mask.height);
  }
  const d = dst.data;
  const s = src.data;
  const cb: Rgb = [0, 0, 0];
  const cs: Rgb = [0, 0, 0];
  const mixed: Rgb = [0, 0, 0];
  const plainNormal = !blend && !nonSeparable;
  const bands = new RowBands(work);
  for (let y = y0; y < y1; y++) {
    bands.next();
    let si = ((y - dy) * src.width + (x0 - dx)) * 4;
    let di = (y * dst.width + x0) * 4;
    const my = y - mdy;
    const maskRow = mask && my >= 0 && my < mask.height ? my * mask.width : -1;
    for (let x = x0; x < x1; x++, si += 4, di += 4) {
      const sa = s[si + 3] as number;
      if (sa === 0) continue;
      let m = 255;
      if (mask) {
        const mx = x - mdx;
        m = maskRow >= 0 && mx >= 0 && mx < mask.width ? (mask.data[maskRow + mx] as number) : mask.defaultColor;
        if (m === 0) continue;
      }
      let as = (sa / 255) * opacity * (m / 255);
      if (dissolve) {
        as = dissolveThreshold(x - dx, y - dy) < as ? 1 : 0;
        if (as === 0) continue;
      }
      const bAlpha = d[di + 3] as number;
      if (plainNormal && (as >= 1 || bAlpha === 0)) {
        // Fast paths of `normal`: an opaque source replaces, a transparent backdrop takes the source.
        d[di] = s[si] as number;
        d[di + 1] = s[si + 1] as number;
        d[di + 2] = s[si + 2] as number;
        d[di + 3] = as >= 1 ? 255 : as * 255;
        continue;
      }
      const ab = bAlpha / 255;
      const ao = as + ab * (1 - as);
      if (nonSeparable && ab > 0) {
        for (let c = 0; c < 3; c++) {
          cb[c] = (d[di + c] as number) / 255;
          cs[c] = (s[si + c] as number) / 255;
        }
        nonSeparable(cb, cs, mixed);
        for (let c = 0; c < 3; c++) {
          const m2 = (1 - ab) * (cs[c] as number) + ab * (mixed[c] as number);
          d[di + c] = ((as * m2 + (1 - as) * ab * (cb[c] as number)) / ao) * 255;
        }
      } else {
        // co = (αs·((1 − αb)·S + αb·B(Cb, Cs)·255) + (1 − αs)·αb·Cb) / αo, with the weights hoisted per pixel.
        const inv = 1 / ao;
        const kS = table ? as * (1 - ab) * inv : as * inv;
        const kT = table ? as * ab * 255 * inv : 0;
        const kB = (1 - as) * ab * inv;
        for (let c = 0; c < 3; c++) {
          const sByte = s[si + c] as number;
          const bByte = d[di + c] as number;
          const blended = table ? (table[(bByte << 8) | sByte] as number) : 0;
          d[di + c] = kS * sByte + kT * blended + kB * bByte;
        }
      }
      d[di + 3] = ao * 255;
    }
  }
  bands.end(rowsInBox);
}

/** A repeatable pseudo-random value in [0, 1) for a layer pixel: dissolve's pattern. */
function dissolveThreshold(x: number, y: number): number {
  let h = Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1);
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}
