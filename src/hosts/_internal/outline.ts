import type { HostBounds } from "../../protocol/index.js";
import type { OutlineStroke, PixelSize } from "../host.js";
import { cssColor } from "./color.js";

/** A sharp composite input: an SVG and where it goes on the image. */
export interface OverlayInput {
  readonly input: Buffer;
  readonly left: number;
  readonly top: number;
}

/**
 * The SVG overlay that strokes `outline` over an image of `size` pixels showing the document region `bounds`,
 * for sharp's `composite`, the same on every editor. The SVG covers only the part of the image the path (grown by
 * the stroke) touches: a full-size SVG costs about twice as much, and sharp refuses overlays larger than the base.
 * The stroke width is in output pixels. Only path-command characters and numbers of `d` reach the SVG. `null`
 * when the outline misses the image.
 */
export function outlineOverlay(outline: OutlineStroke, bounds: HostBounds, size: PixelSize): OverlayInput | null {
  const docWidth = bounds.right - bounds.left;
  const docHeight = bounds.bottom - bounds.top;
  if (docWidth <= 0 || docHeight <= 0) return null;
  const sx = size.width / docWidth;
  const sy = size.height / docHeight;
  const grow = Math.ceil(outline.width / 2) + 1;
  const left = Math.max(0, Math.floor((outline.box.x - bounds.left) * sx) - grow);
  const top = Math.max(0, Math.floor((outline.box.y - bounds.top) * sy) - grow);
  const right = Math.min(size.width, Math.ceil((outline.box.x + outline.box.width - bounds.left) * sx) + grow);
  const bottom = Math.min(size.height, Math.ceil((outline.box.y + outline.box.height - bounds.top) * sy) + grow);
  if (right <= left || bottom <= top) return null;
  const width = right - left;
  const height = bottom - top;
  // The viewBox maps this piece of the output back to document pixels, so the path is drawn where it lies.
  const view = [bounds.left + left / sx, bounds.top + top / sy, width / sx, height / sy].map((v) => Math.round(v * 1000) / 1000);
  const d = outline.d.replace(/[^0-9eE.,\s+\-MLCQZmlcqzHVhvSsTtAa]/g, "");
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="${view.join(" ")}" preserveAspectRatio="none">` +
    `<path d="${d}" fill="none" fill-rule="evenodd" stroke="${cssColor(outline.color)}" stroke-width="${outline.width}" ` +
    `vector-effect="non-scaling-stroke" stroke-linejoin="miter"/></svg>`;
  return { input: Buffer.from(svg), left, top };
}
