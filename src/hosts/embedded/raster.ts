import type { HostBounds, HostRect } from "../../protocol/index.js";

/** Straight (non-premultiplied) RGBA pixels, row-major, 4 bytes per pixel. */
export interface Raster {
  readonly data: Uint8ClampedArray;
  readonly width: number;
  readonly height: number;
  /**
   * Where colours drawn onto this raster mix (see `blend-space.ts`): linear light or Lab, for a document made in
   * one; undefined for sRGB. Only the rasters a render composites into carry one.
   */
  readonly space?: BlendSpace | undefined;
}

/** A colour space the compositor can mix in besides sRGB: linear light (32-bit documents) or CIE Lab. */
export type BlendSpace = "linear" | "lab";

/** An all-transparent raster. */
export function emptyRaster(width: number, height: number): Raster {
  return { data: new Uint8ClampedArray(width * height * 4), width, height };
}

/** A raster filled with one colour. */
export function solidRaster(width: number, height: number, rgba: readonly [number, number, number, number]): Raster {
  const raster = emptyRaster(width, height);
  // One 32-bit store per pixel (a per-pixel `set` of 4 bytes is ~10× slower on 64 MP canvases).
  const pixel = new Uint8Array(rgba);
  new Uint32Array(raster.data.buffer, raster.data.byteOffset, width * height).fill(new Uint32Array(pixel.buffer)[0] ?? 0);
  return raster;
}

/** Copies the `rect` part of a raster (the rect must lie inside it). */
export function cropRaster(raster: Raster, rect: HostRect): Raster {
  const out = emptyRaster(rect.width, rect.height);
  for (let y = 0; y < rect.height; y++) {
    const start = ((rect.y + y) * raster.width + rect.x) * 4;
    out.data.set(raster.data.subarray(start, start + rect.width * 4), y * rect.width * 4);
  }
  return out;
}

/** The raster's bytes as a Buffer without copying (sharp wants a Buffer for raw input). */
export function rasterBuffer(raster: Raster): Buffer {
  return Buffer.from(raster.data.buffer, raster.data.byteOffset, raster.data.byteLength);
}

/** The zero-size bounds used for empty layers. */
export const EMPTY_BOUNDS: HostBounds = Object.freeze({ left: 0, top: 0, right: 0, bottom: 0 });

/** Whether bounds enclose no pixel. */
export function isEmptyBounds(bounds: HostBounds): boolean {
  return bounds.right <= bounds.left || bounds.bottom <= bounds.top;
}

/** `{left, top, right, bottom}` as `{x, y, width, height}`. */
export function boundsToRect(bounds: HostBounds): HostRect {
  return { x: bounds.left, y: bounds.top, width: bounds.right - bounds.left, height: bounds.bottom - bounds.top };
}

/** Smallest bounds containing both; empty bounds are ignored. */
export function unionBounds(a: HostBounds, b: HostBounds): HostBounds {
  if (isEmptyBounds(a)) return b;
  if (isEmptyBounds(b)) return a;
  return {
    left: Math.min(a.left, b.left),
    top: Math.min(a.top, b.top),
    right: Math.max(a.right, b.right),
    bottom: Math.max(a.bottom, b.bottom),
  };
}
