/*
 * Clipping masks. A clipped layer shows only where its base (the nearest unclipped layer under it) has pixels:
 * the base and its clipped layers composite as one isolated group, drawn with the base's opacity and blend mode
 * (Photoshop's "blend clipped layers as group", its default). Inside the group each clipped layer is drawn
 * "source-atop" the group so far: its own blend mode and opacity apply, and the group's alpha stays the base's.
 */
import { BLEND_FUNCTIONS, blendTable, NON_SEPARABLE, type Rgb } from "./blend-modes.js";
import { blendInSpace } from "./blend-space.js";
import type { BlendPlacement } from "./blend.js";
import { overlap } from "./pixel-loops.js";
import type { Raster } from "./raster.js";
import { RowBands, } from "./work.js";

/**
 * Draws `src` source-atop `dst`, as `at` places it: `co = αs·B(Cb, Cs) + (1 − αs)·Cb` where `dst` has pixels,
 * nothing where it has none, `dst`'s alpha unchanged. `αs` is the source's alpha × `opacity` × its mask.
 */
export function atopOnto(dst: Raster, src: Raster, at: BlendPlacement): void {
  const { dx, dy, opacity, blendMode, placed, work } = at;
  if (dst.space !== undefined) {
    blendInSpace(dst.space, dst, src, dx, dy, { opacity, blendMode, placed, atop: true }, work);
    return;
  }
  const box = overlap(dst, src, dx, dy);
  if (box === null) return;
  const { x0, y0, x1, y1 } = box;
  const blend = BLEND_FUNCTIONS[blendMode];
  const table = blend ? blendTable(blendMode, blend) : undefined;
  const nonSeparable = NON_SEPARABLE[blendMode];
  const d = dst.data;
  const s = src.data;
  const cb: Rgb = [0, 0, 0];
  const cs: Rgb = [0, 0, 0];
  const mixed: Rgb = [0, 0, 0];
  const mask = placed?.mask;
  const bands = new RowBands(work);
  for (let y = y0; y < y1; y++) {
    bands.next();
    let si = ((y - dy) * src.width + (x0 - dx)) * 4;
    let di = (y * dst.width + x0) * 4;
    const my = y - (placed?.dy ?? 0);
    const maskRow = mask && my >= 0 && my < mask.height ? my * mask.width : -1;
    for (let x = x0; x < x1; x++, si += 4, di += 4) {
      const sa = s[si + 3] as number;
      if (sa === 0 || d[di + 3] === 0) continue;
      let m = 255;
      if (mask) {
        const mx = x - (placed?.dx ?? 0);
        m = maskRow >= 0 && mx >= 0 && mx < mask.width ? (mask.data[maskRow + mx] as number) : mask.defaultColor;
        if (m === 0) continue;
      }
      const as = (sa / 255) * opacity * (m / 255);
      if (nonSeparable) {
        for (let c = 0; c < 3; c++) {
          cb[c] = (d[di + c] as number) / 255;
          cs[c] = (s[si + c] as number) / 255;
        }
        nonSeparable(cb, cs, mixed);
        for (let c = 0; c < 3; c++) d[di + c] = (as * (mixed[c] as number) + (1 - as) * (cb[c] as number)) * 255;
        continue;
      }
      for (let c = 0; c < 3; c++) {
        const sByte = s[si + c] as number;
        const bByte = d[di + c] as number;
        const mixedByte = table ? (table[(bByte << 8) | sByte] as number) * 255 : sByte;
        d[di + c] = as * mixedByte + (1 - as) * bByte;
      }
    }
  }
  bands.end(y1 - y0);
}
