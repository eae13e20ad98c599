/*
 * Float planes (one value in 0–1 per pixel over a box of the document) that layer effects are built from: the
 * layer's shape, blurred, grown and shifted. Planes live in typed arrays (off the JS heap) and are dropped as
 * soon as an effect is drawn. Loops report their rows to a `RowWork` every `ROW_BAND` rows, so a cancelled
 * render stops inside a blur too.
 */
import type { HostBounds } from "../../../protocol/index.js";
import type { LayerMask, PixelLayer } from "../document.js";
import { effectiveMask } from "../masks.js";
import { RowBands, type RowWork } from "../work.js";

/** Values in 0–1 over `box` (document coordinates), row-major. */
export interface Plane {
  readonly data: Float32Array;
  readonly box: HostBounds;
  readonly width: number;
  readonly height: number;
}

/** An all-zero plane over `box`. */
export function emptyPlane(box: HostBounds): Plane {
  const width = Math.max(0, box.right - box.left);
  const height = Math.max(0, box.bottom - box.top);
  return { data: new Float32Array(width * height), box, width, height };
}

/** `box` grown by `by` pixels on every side. */
export function expand(box: HostBounds, by: number): HostBounds {
  return { left: box.left - by, top: box.top - by, right: box.right + by, bottom: box.bottom + by };
}

/** `box` moved by `(dx, dy)`. */
export function offsetBox(box: HostBounds, dx: number, dy: number): HostBounds {
  return { left: box.left + dx, top: box.top + dy, right: box.right + dx, bottom: box.bottom + dy };
}

/** The common part of two boxes (possibly empty: right ≤ left or bottom ≤ top). */
export function intersect(a: HostBounds, b: HostBounds): HostBounds {
  return { left: Math.max(a.left, b.left), top: Math.max(a.top, b.top), right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom) };
}

/**
 * A layer as its effects see it: `outline`, when set, is the vector path its effects follow in place of its pixels
 * (a shape layer, see `outline.ts`).
 */
export type ShapedLayer = PixelLayer & { readonly outline?: LayerMask | undefined };

/**
 * The layer's shape over `box`, what its effects are drawn from: its outline times its user mask for a shape
 * layer, else its alpha times the mask it renders with (user and vector masks), 0 outside its buffer.
 */
export function shapePlane(layer: ShapedLayer, box: HostBounds): Plane {
  if (layer.outline === undefined) return bodyPlane(layer, box);
  const plane = emptyPlane(box);
  const mask = effectiveMask({ mask: layer.mask, vectorShape: layer.outline }, box);
  if (mask === undefined) return plane;
  const { data, width, height } = plane;
  for (let y = 0; y < height; y++) {
    const my = box.top + y - mask.y;
    const inRow = my >= 0 && my < mask.height;
    for (let x = 0; x < width; x++) {
      const mx = box.left + x - mask.x;
      data[y * width + x] = (inRow && mx >= 0 && mx < mask.width ? (mask.data[my * mask.width + mx] as number) : mask.defaultColor) / 255;
    }
  }
  return plane;
}

/**
 * The layer's pixels' coverage over `box`: their alpha times the mask they render with (user and vector masks),
 * 0 outside the buffer. The same as {@link shapePlane} unless the layer has an outline.
 */
export function bodyPlane(layer: PixelLayer, box: HostBounds): Plane {
  const plane = emptyPlane(box);
  const { data, width } = plane;
  const x0 = Math.max(box.left, layer.left);
  const x1 = Math.min(box.right, layer.left + layer.width);
  const y0 = Math.max(box.top, layer.top);
  const y1 = Math.min(box.bottom, layer.top + layer.height);
  const src = layer.data;
  const mask = effectiveMask(layer, { left: layer.left, top: layer.top, right: layer.left + layer.width, bottom: layer.top + layer.height });
  for (let y = y0; y < y1; y++) {
    let si = ((y - layer.top) * layer.width + (x0 - layer.left)) * 4 + 3;
    let di = (y - box.top) * width + (x0 - box.left);
    const my = mask ? y - mask.y : -1;
    const maskRow = mask && my >= 0 && my < mask.height ? my * mask.width : -1;
    for (let x = x0; x < x1; x++, si += 4, di++) {
      const a = src[si] as number;
      if (a === 0) continue;
      let m = 255;
      if (mask) {
        const mx = x - mask.x;
        m = maskRow >= 0 && mx >= 0 && mx < mask.width ? (mask.data[maskRow + mx] as number) : mask.defaultColor;
      }
      data[di] = (a * m) / 65025;
    }
  }
  return plane;
}

/** `1 − v` in place (the outside of a shape). */
export function invert(plane: Plane): Plane {
  const d = plane.data;
  for (let i = 0; i < d.length; i++) d[i] = 1 - (d[i] as number);
  return plane;
}

/**
 * Photoshop's blur of effect shapes, approximated by two box passes of `size` pixels per axis (a tent reaching
 * `size` pixels out): against the stored composites of real files this is within a level, closer than a
 * Gaussian or three passes. Pixels outside the plane count as `outside` (0 for a shape, 1 for its inverse).
 */
export function blurPlane(plane: Plane, size: number, outside: number, work?: RowWork): Plane {
  const w = Math.round(size);
  if (w <= 1 || plane.width === 0 || plane.height === 0) return plane;
  const a = Math.floor((w - 1) / 2);
  const b = w - 1 - a;
  const scratch = new Float32Array(plane.data.length);
  // The two passes lean opposite ways when the width is even, so the tent stays centred.
  horizontal(plane, plane.data, scratch, a, b, outside);
  horizontal(plane, scratch, plane.data, b, a, outside);
  vertical(plane, plane.data, scratch, a, b, outside, work);
  vertical(plane, scratch, plane.data, b, a, outside, work);
  return plane;
}

function horizontal(plane: Plane, src: Float32Array, dst: Float32Array, before: number, after: number, outside: number): void {
  const { width, height } = plane;
  const inv = 1 / (before + after + 1);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let sum = 0;
    for (let k = -before; k <= after; k++) sum += k < 0 || k >= width ? outside : (src[row + k] as number);
    for (let x = 0; x < width; x++) {
      dst[row + x] = sum * inv;
      const enter = x + after + 1;
      const leave = x - before;
      sum += (enter < width ? (src[row + enter] as number) : outside) - (leave >= 0 ? (src[row + leave] as number) : outside);
    }
  }
}

function vertical(plane: Plane, src: Float32Array, dst: Float32Array, before: number, after: number, outside: number, work?: RowWork): void {
  const { width, height } = plane;
  const inv = 1 / (before + after + 1);
  // Column sums swept down the rows: every access is row-major, so the pass stays in cache.
  const sums = new Float64Array(width);
  for (let k = -before; k <= after; k++) {
    if (k < 0 || k >= height) for (let x = 0; x < width; x++) sums[x] = (sums[x] as number) + outside;
    else for (let x = 0; x < width; x++) sums[x] = (sums[x] as number) + (src[k * width + x] as number);
  }
  const bands = new RowBands(work);
  for (let y = 0; y < height; y++) {
    bands.next();
    const row = y * width;
    const enter = y + after + 1;
    const leave = y - before;
    const enterRow = enter < height ? enter * width : -1;
    const leaveRow = leave >= 0 ? leave * width : -1;
    for (let x = 0; x < width; x++) {
      const s = sums[x] as number;
      dst[row + x] = s * inv;
      sums[x] = s + (enterRow >= 0 ? (src[enterRow + x] as number) : outside) - (leaveRow >= 0 ? (src[leaveRow + x] as number) : outside);
    }
  }
  bands.end(height);
}

/** The plane's value at document pixel `(x, y)`, or `outside` beyond its box. */
export function valueAt(plane: Plane, x: number, y: number, outside: number): number {
  const px = x - plane.box.left;
  const py = y - plane.box.top;
  return px < 0 || py < 0 || px >= plane.width || py >= plane.height ? outside : (plane.data[py * plane.width + px] as number);
}
