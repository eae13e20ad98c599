/*
 * Knockout (a PSD blending option): a layer that knocks out composites onto its group's initial backdrop — what was
 * under the group for a pass-through group, transparency for an isolated one — instead of onto the layers below it
 * in the group, and replaces them wherever it covers: `result = (1 − f)·below + f·(layer over the backdrop)`, `f`
 * the layer's coverage (its alpha times its mask, before opacity), as in the W3C/PDF knockout groups. Coverage is
 * the layer's shape, not its opacity: the layer goes over the backdrop at full coverage (only its opacity lets the
 * backdrop through), so an anti-aliased edge over a lower layer of the group shows no seam of backdrop, as in
 * Photoshop's composites.
 * Photoshop's "deep" knockout (through every group to the background) is read as the same flag and rendered
 * shallow.
 */
import type { Raster } from "./raster.js";
import { overlap } from "./pixel-loops.js";
import type { PlacedMask } from "./masks.js";
import { RowBands, type RowWork } from "./work.js";

/** Draws `src` onto `dst` with its opacity, mode and mask: the compositor's `blendOnto`. */
export type Draw = (dst: Raster, src: Raster, dx: number, dy: number) => void;

/**
 * Composites `src` (top-left at `dx, dy` in `dst`) with knockout: its colour at full coverage onto `backdrop` (the
 * group's initial backdrop, same size as `dst`) with `draw` (its opacity and mode, no mask), then mixed into `dst`
 * by the source's coverage (alpha × `placed` mask).
 */
export function knockOutOnto(
  dst: Raster,
  backdrop: Uint8ClampedArray,
  src: Raster,
  dx: number,
  dy: number,
  placed: PlacedMask | undefined,
  draw: Draw,
  work?: RowWork,
): void {
  const box = overlap(dst, src, dx, dy);
  if (box === null) return;
  const { x0, y0, x1, y1 } = box;
  const width = x1 - x0;
  const height = y1 - y0;
  // The backdrop under the layer's box, with the layer drawn over it.
  const over: Raster = { data: new Uint8ClampedArray(width * height * 4), width, height };
  for (let y = 0; y < height; y++) {
    const from = ((y0 + y) * dst.width + x0) * 4;
    over.data.set(backdrop.subarray(from, from + width * 4), y * width * 4);
  }
  draw(over, opaque(src), dx - x0, dy - y0);
  const d = dst.data;
  const s = src.data;
  const o = over.data;
  const bands = new RowBands(work);
  for (let y = 0; y < height; y++) {
    bands.next();
    for (let x = 0; x < width; x++) {
      let f = (s[((y0 + y - dy) * src.width + (x0 + x - dx)) * 4 + 3] as number) / 255;
      if (f === 0) continue;
      if (placed) {
        const mx = x0 + x - placed.dx;
        const my = y0 + y - placed.dy;
        const { mask } = placed;
        const inside = mx >= 0 && my >= 0 && mx < mask.width && my < mask.height;
        f *= (inside ? (mask.data[my * mask.width + mx] as number) : mask.defaultColor) / 255;
        if (f === 0) continue;
      }
      const di = ((y0 + y) * dst.width + x0 + x) * 4;
      const oi = (y * width + x) * 4;
      // Mixed as premultiplied colour so a transparent side brings no colour of its own.
      const ab = ((d[di + 3] as number) / 255) * (1 - f);
      const ak = ((o[oi + 3] as number) / 255) * f;
      const ao = ab + ak;
      if (ao <= 0) {
        d[di + 3] = 0;
        continue;
      }
      for (let c = 0; c < 3; c++) d[di + c] = ((d[di + c] as number) * ab + (o[oi + c] as number) * ak) / ao;
      d[di + 3] = ao * 255;
    }
  }
  bands.end(height);
}

/** `src` with every pixel it covers at all made opaque: its colour at full coverage. */
function opaque(src: Raster): Raster {
  const data = src.data.slice();
  for (let i = 3; i < data.length; i += 4) if ((data[i] as number) > 0) data[i] = 255;
  return { data, width: src.width, height: src.height };
}
