/**
 * Compositing of the layer tree in straight RGBA with the W3C separable blend formula:
 * `co·αo = αs·((1 − αb)·Cs + αb·B(Cb, Cs)) + (1 − αs)·αb·Cb`, `αo = αs + αb·(1 − αs)`.
 * A plain JS loop is enough: documents are small and compositing runs only for exports and previews.
 * Non-separable modes (hue, saturation, color, luminosity) and unknown names composite as `normal`.
 */
import type { HostBounds } from "../../protocol/index.js";
import type { EmbeddedLayer } from "./document.js";
import type { Raster } from "./raster.js";
import { boundsToRect, cropRaster, emptyRaster, isEmptyBounds } from "./raster.js";
import { layerBounds } from "./tree.js";

type BlendFn = (cb: number, cs: number) => number;

const hardLight: BlendFn = (cb, cs) => (cs <= 0.5 ? 2 * cb * cs : 1 - 2 * (1 - cb) * (1 - cs));

/** Separable blend functions by PSD blend mode name; channels in 0–1. */
const BLEND_FUNCTIONS: Readonly<Record<string, BlendFn>> = {
  multiply: (cb, cs) => cb * cs,
  screen: (cb, cs) => cb + cs - cb * cs,
  overlay: (cb, cs) => hardLight(cs, cb),
  "hard light": hardLight,
  "soft light": (cb, cs) => {
    if (cs <= 0.5) return cb - (1 - 2 * cs) * cb * (1 - cb);
    const d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : Math.sqrt(cb);
    return cb + (2 * cs - 1) * (d - cb);
  },
  darken: (cb, cs) => Math.min(cb, cs),
  lighten: (cb, cs) => Math.max(cb, cs),
  difference: (cb, cs) => Math.abs(cb - cs),
  exclusion: (cb, cs) => cb + cs - 2 * cb * cs,
  "color dodge": (cb, cs) => (cb === 0 ? 0 : cs >= 1 ? 1 : Math.min(1, cb / (1 - cs))),
  "color burn": (cb, cs) => (cb >= 1 ? 1 : cs <= 0 ? 0 : 1 - Math.min(1, (1 - cb) / cs)),
  "linear dodge": (cb, cs) => Math.min(1, cb + cs),
  "linear burn": (cb, cs) => Math.max(0, cb + cs - 1),
};

/**
 * Composites `src` onto `dst` in place, `src`'s top-left at `(dx, dy)` in `dst`, with `opacity` (0–1) and a
 * PSD blend mode.
 */
export function blendOnto(dst: Raster, src: Raster, dx: number, dy: number, opacity: number, blendMode: string): void {
  const blend = BLEND_FUNCTIONS[blendMode];
  const x0 = Math.max(0, dx);
  const y0 = Math.max(0, dy);
  const x1 = Math.min(dst.width, dx + src.width);
  const y1 = Math.min(dst.height, dy + src.height);
  const d = dst.data;
  const s = src.data;
  for (let y = y0; y < y1; y++) {
    let si = ((y - dy) * src.width + (x0 - dx)) * 4;
    let di = (y * dst.width + x0) * 4;
    for (let x = x0; x < x1; x++, si += 4, di += 4) {
      const as = ((s[si + 3] ?? 0) / 255) * opacity;
      if (as === 0) continue;
      const ab = (d[di + 3] ?? 0) / 255;
      const ao = as + ab * (1 - as);
      for (let c = 0; c < 3; c++) {
        const cs = (s[si + c] ?? 0) / 255;
        const cb = (d[di + c] ?? 0) / 255;
        const mixed = blend && ab > 0 ? (1 - ab) * cs + ab * blend(cb, cs) : cs;
        d[di + c] = ((as * mixed + (1 - as) * ab * cb) / ao) * 255;
      }
      d[di + 3] = ao * 255;
    }
  }
}

/**
 * Renders layers (top-most first) into a new raster covering `region` of the document. Hidden layers and groups
 * are skipped; groups are isolated: their children are composited into a group buffer first, which is then
 * blended with the group's opacity and mode (`pass through` composites as `normal`).
 */
export function renderLayers(layers: readonly EmbeddedLayer[], region: HostBounds): Raster {
  const out = emptyRaster(region.right - region.left, region.bottom - region.top);
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i];
    if (layer === undefined || !layer.visible || layer.opacity === 0) continue;
    const mode = layer.blendMode === "pass through" ? "normal" : layer.blendMode;
    if (layer.kind === "group") {
      if (isEmptyBounds(layerBounds(layer))) continue;
      blendOnto(out, renderLayers(layer.children, region), 0, 0, layer.opacity / 255, mode);
    } else if (layer.width > 0 && layer.height > 0) {
      blendOnto(out, layer, layer.left - region.left, layer.top - region.top, layer.opacity / 255, mode);
    }
  }
  return out;
}

/** The composite of the whole canvas. */
export function renderDocument(doc: { width: number; height: number; layers: readonly EmbeddedLayer[] }): Raster {
  return renderLayers(doc.layers, { left: 0, top: 0, right: doc.width, bottom: doc.height });
}

/**
 * A layer's own pixels cropped to its bounds (a group: the composite of its children), ignoring the layer's own
 * visibility, opacity and blend mode; `null` when the layer has no non-transparent pixel.
 */
export function renderLayer(layer: EmbeddedLayer): { raster: Raster; bounds: HostBounds } | null {
  const bounds = layerBounds(layer);
  if (isEmptyBounds(bounds)) return null;
  if (layer.kind === "group") return { raster: renderLayers(layer.children, bounds), bounds };
  const rect = boundsToRect(bounds);
  return { raster: cropRaster(layer, { ...rect, x: rect.x - layer.left, y: rect.y - layer.top }), bounds };
}
