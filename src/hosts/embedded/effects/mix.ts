/*
 * How Photoshop puts a styled layer together (measured on the stored composites of real files): the layer's
 * pixels and its interior effects are composed as if the shape covered every pixel, then mixed into what is below
 * by the shape's coverage. So at an anti-aliased edge an overlay replaces the pixels' colour instead of letting
 * it show through, and the outer part of a stroke meets the shape edge to edge.
 */
import type { HostBounds } from "../../../protocol/index.js";
import type { PixelLayer } from "../document.js";
import type { Raster } from "../raster.js";
import { ROW_BAND, type RowWork } from "../work.js";
import type { Plane } from "./planes.js";

/**
 * The layer's colour as the interior sees it, over `shape`'s box: where the shape covers anything, the pixels'
 * colour with the fill opacity as alpha (or, for a clipping group's composite `content` covering `region`, its
 * alpha relative to the shape's).
 */
export function interiorContent(layer: PixelLayer, shape: Plane, fill: number, content?: { raster: Raster; region: HostBounds }): Raster {
  const { width, height, box } = shape;
  const out = new Uint8ClampedArray(width * height * 4);
  const a = shape.data;
  const src = content ? content.raster : layer;
  const left = content ? content.region.left : layer.left;
  const top = content ? content.region.top : layer.top;
  for (let y = 0; y < height; y++) {
    const sy = box.top + y - top;
    if (sy < 0 || sy >= src.height) continue;
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const cover = a[i] as number;
      const sx = box.left + x - left;
      if (cover <= 0 || sx < 0 || sx >= src.width) continue;
      const si = (sy * src.width + sx) * 4;
      const o = i * 4;
      out[o] = src.data[si] as number;
      out[o + 1] = src.data[si + 1] as number;
      out[o + 2] = src.data[si + 2] as number;
      out[o + 3] = content ? Math.min(255, (src.data[si + 3] as number) / cover) : fill * 255 + 0.5;
    }
  }
  return { data: out, width, height };
}

/**
 * `out` (covering `region`) ← `out` moved toward `lerp(under, interior, shape)` by `opacity`, over `shape`'s box;
 * `under` and `interior` cover that box. Mixed in premultiplied colour, so transparent backdrops stay right.
 */
export function mixInto(out: Raster, region: HostBounds, under: Raster, interior: Raster, shape: Plane, opacity: number, work?: RowWork): void {
  const { width, height, box } = shape;
  const d = out.data;
  const u = under.data;
  const v = interior.data;
  const a = shape.data;
  let mark = 0;
  for (let y = 0; y < height; y++) {
    if (work !== undefined && y - mark === ROW_BAND) {
      work.rows(ROW_BAND);
      mark = y;
    }
    let di = ((box.top + y - region.top) * out.width + (box.left - region.left)) * 4;
    for (let x = 0; x < width; x++, di += 4) {
      const i = y * width + x;
      const k = a[i] as number;
      const o = i * 4;
      const ua = (u[o + 3] as number) / 255;
      const va = (v[o + 3] as number) / 255;
      const ya = ua + (va - ua) * k;
      const da = (d[di + 3] as number) / 255;
      const oa = da + (ya - da) * opacity;
      if (oa <= 0) {
        d[di + 3] = 0;
        continue;
      }
      for (let c = 0; c < 3; c++) {
        const yp = (u[o + c] as number) * ua + ((v[o + c] as number) * va - (u[o + c] as number) * ua) * k;
        const dp = (d[di + c] as number) * da;
        d[di + c] = (dp + (yp - dp) * opacity) / oa;
      }
      d[di + 3] = oa * 255;
    }
  }
  work?.rows(height - mark);
}
