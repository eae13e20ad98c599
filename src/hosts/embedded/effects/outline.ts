/*
 * The outline a shape layer's effects follow. Photoshop draws the effects of a fill drawn through a vector path
 * (what its shape tools make) around the path, not around the fill's pixels: a stroke keeps to the square even
 * where the square's gradient fades to nothing, as the stored composites show. The path is rasterised here once
 * per path record (the file's pixels have it drawn in, so the model keeps no mask of it for those layers).
 */
import type { LayerVectorMask, VectorContent } from "ag-psd";
import type { HostBounds } from "../../../protocol/index.js";
import type { LayerMask, PixelLayer } from "../document.js";
import { rasterizeVectorMask } from "../vector-mask.js";

const rasterised = new WeakMap<LayerVectorMask, Map<string, LayerMask | undefined>>();

/** The path of a shape layer: a fill (solid, gradient, pattern) drawn through an enabled vector mask. */
function shapePath(layer: PixelLayer): LayerVectorMask | undefined {
  const record = layer.record;
  const path = record?.vectorMask;
  if (record?.vectorFill === undefined || path === undefined || path.disable === true || path.paths.length === 0) return undefined;
  return path;
}

/** Whether a fill leaves parts of its shape transparent (a gradient with a stop below full opacity, or noise with transparency). */
function seeThrough(fill: VectorContent): boolean {
  if (fill.type === "solid") return (fill.opacityStops ?? []).some((stop) => !(stop.opacity >= 1));
  if (fill.type === "noise") return fill.addTransparency === true;
  return false;
}

/**
 * The path a layer's effects follow instead of its pixels: a shape layer's whose fill leaves part of the shape
 * transparent. Where the fill is opaque the pixels are Photoshop's own rasterisation of the path (which lands a
 * pixel wider than the path's coordinates on some files), so they serve better.
 */
function outlinePath(layer: PixelLayer): LayerVectorMask | undefined {
  const path = shapePath(layer);
  const fill = layer.record?.vectorFill;
  return path !== undefined && fill !== undefined && seeThrough(fill) ? path : undefined;
}

/**
 * The vector path of a shape layer as a mask over the canvas (`width` × `height`), or undefined for a layer whose
 * effects follow its pixels (not a shape, an opaque fill, or a path that cannot be rasterised within the
 * vector-mask limits: the pixels Photoshop cached have the path drawn in, so they stand in for it).
 */
export function vectorOutline(layer: PixelLayer, canvas: { width: number; height: number }): LayerMask | undefined {
  return outlinePath(layer) === undefined ? undefined : pathMask(layer, canvas);
}

/** Whether a shape layer's fill leaves part of its shape transparent, so its pixels do not show its path. */
export function fillSeeThrough(layer: PixelLayer): boolean {
  return outlinePath(layer) !== undefined;
}

/**
 * A shape layer's path rasterised over the canvas, or undefined for a layer without one (or one beyond the
 * vector-mask limits). Computed once per path record and canvas size.
 */
export function pathMask(layer: PixelLayer, canvas: { width: number; height: number }): LayerMask | undefined {
  const path = shapePath(layer);
  if (path === undefined) return undefined;
  // The model's own rasterisation when it has one (a layer without pixels renders through it).
  if (layer.vectorShape !== undefined) return layer.vectorShape;
  let known = rasterised.get(path);
  if (known === undefined) {
    known = new Map();
    rasterised.set(path, known);
  }
  const key = `${canvas.width}x${canvas.height}`;
  if (known.has(key)) return known.get(key);
  let mask: LayerMask | undefined;
  try {
    mask = rasterizeVectorMask(path, canvas);
  } catch {
    // Too many segments for the limits: the cached pixels, which have the path drawn in, stand in for it.
    mask = undefined;
  }
  known.set(key, mask);
  return mask;
}

/**
 * The box a gradient aligned with a shape layer spans: its path's bounds, both sides rounded down (Photoshop's
 * placement on the stored composites: a pentagon from x 0.92 to 29.61 spans pixels 0 to 29), or undefined for a
 * layer that is no shape.
 */
export function outlineBox(layer: PixelLayer): HostBounds | undefined {
  const path = shapePath(layer);
  if (path === undefined) return undefined;
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const { knots } of path.paths) {
    for (const { points } of knots) {
      for (let i = 0; i + 1 < points.length; i += 2) {
        const x = points[i] as number;
        const y = points[i + 1] as number;
        if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
        left = Math.min(left, x);
        right = Math.max(right, x);
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
      }
    }
  }
  if (!(left < right && top < bottom)) return undefined;
  return { left: floorNear(left), top: floorNear(top), right: floorNear(right), bottom: floorNear(bottom) };
}

/**
 * How far below a whole pixel a path coordinate may fall and still count as on it: a file stores anchor points as
 * fixed-point fractions of the canvas, so a point drawn on pixel 153 reads back as 152.99999994 (and one on 34 as
 * 33.999998), which rounded down would shift the box by a whole pixel.
 */
const PATH_SNAP_PX = 1e-3;

function floorNear(v: number): number {
  return Math.floor(v + PATH_SNAP_PX);
}
