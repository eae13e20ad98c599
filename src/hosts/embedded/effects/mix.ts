/*
 * How Photoshop puts a styled layer together (measured on the stored composites of real files): the layer's
 * pixels and its interior effects are composed as if the shape covered every pixel, then mixed into what is below
 * by the shape's coverage. So at an anti-aliased edge an overlay replaces the pixels' colour instead of letting
 * it show through.
 */
import type { HostBounds } from "../../../protocol/index.js";
import type { PixelLayer } from "../document.js";
import type { Raster } from "../raster.js";
import { RowBands, type RowWork } from "../work.js";
import type { Plane } from "./planes.js";

/**
 * The layer's colour as the interior sees it, over `shape`'s box: where the shape covers anything, the pixels'
 * colour with the fill opacity as alpha (or, for a clipping group's composite `content` covering `region`, its
 * alpha relative to the shape's). A shape layer's pixels may cover less than its outline (a fill fading to
 * nothing): `body`, their own coverage, then gives their alpha relative to the shape's.
 */
export function interiorContent(layer: PixelLayer, shape: Plane, fill: number, content?: { raster: Raster; region: HostBounds }, body?: Plane): Raster {
  const { width, height, box } = shape;
  const out = new Uint8Array(width * height * 4);
  const a = shape.data;
  const src = content ? content.raster : layer;
  const s = src.data;
  const left = content ? content.region.left : layer.left;
  const top = content ? content.region.top : layer.top;
  const fillByte = Math.round(fill * 255);
  // The part of the box the source covers; the rest stays transparent.
  const x0 = Math.max(0, left - box.left);
  const x1 = Math.min(width, left + src.width - box.left);
  const y0 = Math.max(0, top - box.top);
  const y1 = Math.min(height, top + src.height - box.top);
  for (let y = y0; y < y1; y++) {
    let i = y * width + x0;
    let si = ((box.top + y - top) * src.width + (box.left + x0 - left)) * 4;
    for (let x = x0; x < x1; x++, i++, si += 4) {
      const cover = a[i] as number;
      if (cover <= 0) continue;
      const o = i * 4;
      out[o] = s[si] as number;
      out[o + 1] = s[si + 1] as number;
      out[o + 2] = s[si + 2] as number;
      if (content) out[o + 3] = Math.min(255, (s[si + 3] as number) / cover + 0.5);
      else out[o + 3] = body ? Math.min(1, (body.data[i] as number) / cover) * fillByte + 0.5 : fillByte;
    }
  }
  return { data: new Uint8ClampedArray(out.buffer), width, height };
}

/**
 * `out` (covering `region`) ← `out` moved toward `lerp(out, interior, shape)` by `opacity`, over `shape`'s box
 * (`interior` covers that box). Mixed in premultiplied colour, so transparent backdrops stay right.
 */
export function mixInto(out: Raster, region: HostBounds, interior: Raster, shape: Plane, opacity: number, work?: RowWork): void {
  const { width, height, box } = shape;
  // Plain byte views: values stay in 0–255 and `+ 0.5` rounds, so the clamped array's checks are not needed.
  const d = new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.length);
  const v = interior.data;
  const a = shape.data;
  const bands = new RowBands(work);
  for (let y = 0; y < height; y++) {
    bands.next();
    let di = ((box.top + y - region.top) * out.width + (box.left - region.left)) * 4;
    let o = y * width * 4;
    for (let i = y * width, end = i + width; i < end; i++, di += 4, o += 4) {
      // Weights of what is there and of the interior: k of the interior shows, faded by the opacity.
      const k = (a[i] as number) * opacity;
      if (k === 0) continue;
      const da = ((d[di + 3] as number) / 255) * (1 - k);
      const va = ((v[o + 3] as number) / 255) * k;
      const oa = da + va;
      if (oa <= 0) {
        d[di + 3] = 0;
        continue;
      }
      const inv = 1 / oa;
      d[di] = ((d[di] as number) * da + (v[o] as number) * va) * inv + 0.5;
      d[di + 1] = ((d[di + 1] as number) * da + (v[o + 1] as number) * va) * inv + 0.5;
      d[di + 2] = ((d[di + 2] as number) * da + (v[o + 2] as number) * va) * inv + 0.5;
      d[di + 3] = oa * 255 + 0.5;
    }
  }
  bands.end(height);
}
