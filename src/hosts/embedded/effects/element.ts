/*
 * What every effect produces (an RGBA raster over a box of the document, blended with its own opacity and mode)
 * and the plane helpers the effects share.
 */
import type { HostBounds } from "../../../protocol/index.js";
import type { Raster } from "../raster.js";
import { LUT_SIZE } from "./limits.js";
import { emptyPlane, type Plane, type ShapedLayer } from "./planes.js";

/** One drawn effect: `raster` covers `box` (document coordinates). */
export interface Element {
  readonly raster: Raster;
  readonly box: HostBounds;
  /** The effect's own opacity, 0–1 (the layer's opacity multiplies it when drawn). */
  readonly opacity: number;
  readonly blendMode: string;
}

/** The rectangle the layer's buffer covers, and its outline's (see `planes.ts`) when it has one. */
export function layerBox(layer: ShapedLayer): HostBounds {
  const own = { left: layer.left, top: layer.top, right: layer.left + layer.width, bottom: layer.top + layer.height };
  const outline = layer.outline;
  if (outline === undefined || outline.width === 0 || outline.height === 0) return own;
  if (layer.width === 0 || layer.height === 0) return { left: outline.x, top: outline.y, right: outline.x + outline.width, bottom: outline.y + outline.height };
  return {
    left: Math.min(own.left, outline.x),
    top: Math.min(own.top, outline.y),
    right: Math.max(own.right, outline.x + outline.width),
    bottom: Math.max(own.bottom, outline.y + outline.height),
  };
}

/** Whether a box holds no pixel. */
export function isEmpty(box: HostBounds): boolean {
  return box.right <= box.left || box.bottom <= box.top;
}

/**
 * A plane over `box` holding `source` read `(dx, dy)` pixels back (the value at `p` is `source(p − d)`), or
 * `outside` where that falls beyond the source.
 */
export function shifted(source: Plane, box: HostBounds, dx: number, dy: number, outside: number): Plane {
  const out = emptyPlane(box);
  const { width, height, data } = out;
  const src = source.data;
  for (let y = 0; y < height; y++) {
    const sy = box.top + y - dy - source.box.top;
    const inRow = sy >= 0 && sy < source.height;
    for (let x = 0; x < width; x++) {
      const sx = box.left + x - dx - source.box.left;
      data[y * width + x] = inRow && sx >= 0 && sx < source.width ? (src[sy * source.width + sx] as number) : outside;
    }
  }
  return out;
}

/**
 * In place: `v → contour(min(1, v / range))` (Photoshop's glow range stretches the falloff before its contour;
 * `range` 1 and a linear contour leave the plane as it is).
 */
export function shapeFalloff(plane: Plane, range: number, contour: Float32Array | undefined): Plane {
  const d = plane.data;
  const scale = 1 / Math.max(0.01, Math.min(1, range));
  if (scale === 1 && contour === undefined) return plane;
  const last = LUT_SIZE - 1;
  for (let i = 0; i < d.length; i++) {
    const v = Math.min(1, (d[i] as number) * scale);
    d[i] = contour === undefined ? v : (contour[Math.round(v * last)] as number);
  }
  return plane;
}

/** In place: `plane × mask` (same box), or `plane × (1 − mask)` with `invertMask`. */
export function multiply(plane: Plane, mask: Plane, invertMask = false): Plane {
  const d = plane.data;
  const m = mask.data;
  for (let i = 0; i < d.length; i++) d[i] = (d[i] as number) * (invertMask ? 1 - (m[i] as number) : (m[i] as number));
  return plane;
}
