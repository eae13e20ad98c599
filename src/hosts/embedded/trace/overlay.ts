import sharp from "sharp";
import type { HostBounds } from "../../../protocol/index.js";
import type { Raster } from "../raster.js";
import { rasterBuffer } from "../raster.js";

/** How the outline is drawn. */
export interface OutlineStyle {
  /** `rgba(…)` or `#rrggbb`, already validated. */
  readonly color: string;
  readonly width: number;
}

/**
 * Strokes SVG path data (document pixels) over a raster that covers `bounds` of the document. The SVG is sized
 * to the part of the path's bbox (grown by the stroke) that overlaps the raster and composited at its offset:
 * a full-canvas SVG costs twice as much (reference), and sharp refuses overlays larger than the base. Parts of
 * the outline outside the raster are clipped by the SVG viewport.
 */
export async function strokeOutline(
  raster: Raster,
  bounds: HostBounds,
  path: { d: string; x: number; y: number; width: number; height: number },
  style: OutlineStyle,
): Promise<Raster> {
  const grow = Math.ceil(style.width / 2) + 1;
  const left = Math.max(bounds.left, path.x - grow);
  const top = Math.max(bounds.top, path.y - grow);
  const right = Math.min(bounds.right, path.x + path.width + grow);
  const bottom = Math.min(bounds.bottom, path.y + path.height + grow);
  if (right <= left || bottom <= top) return raster;
  const width = right - left;
  const height = bottom - top;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="${left} ${top} ${width} ${height}">` +
    `<path d="${path.d}" fill="none" fill-rule="evenodd" stroke="${style.color}" stroke-width="${style.width}" stroke-linejoin="miter"/></svg>`;
  const { data, info } = await sharp(rasterBuffer(raster), { raw: { width: raster.width, height: raster.height, channels: 4 } })
    .composite([{ input: Buffer.from(svg), left: left - bounds.left, top: top - bounds.top }])
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}
