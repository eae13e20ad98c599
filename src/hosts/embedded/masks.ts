/**
 * The mask a layer is rendered with: its user mask and its vector mask (as pixels) multiplied, each unless
 * disabled, each with its density (how far black hides) and feather (a blur) applied. The common case, one enabled
 * mask at full density without feather, is the stored mask itself; anything else is computed once per set of masks
 * and area (masks are replaced, never mutated, so identity is a safe cache key).
 */
import type { HostBounds } from "../../protocol/index.js";
import type { LayerMask } from "./document.js";
import { isEmptyBounds } from "./raster.js";
import { blurPlane, gaussianBoxes } from "./_internal/blur.js";

/** Largest feather radius rendered, in pixels: Photoshop's own limit for mask feather is 1000 px. */
export const MAX_MASK_FEATHER_PX = 1000;

/** A mask placed in the destination raster's coordinates: its `(0, 0)` at `(dx, dy)` there. */
export interface PlacedMask {
  readonly mask: LayerMask;
  readonly dx: number;
  readonly dy: number;
}

/** The masks of a layer as the model keeps them. */
export interface LayerMasks {
  readonly mask?: LayerMask | undefined;
  readonly vectorMask?: LayerMask | undefined;
  readonly vectorShape?: LayerMask | undefined;
  /** The layer's kind and pixels: a shape or fill layer with pixels of its own has its path drawn into them. */
  readonly kind?: string | undefined;
  readonly width?: number | undefined;
  readonly height?: number | undefined;
  /** Whether its record holds the fill it can be drawn from. */
  readonly record?: { readonly vectorFill?: unknown } | undefined;
}

/**
 * Whether a fill or shape layer is drawn from its record (its fill over the canvas, cut by its masks) rather than
 * from its pixels: when the file stored none, and when its vector mask has a density or feather. Photoshop's
 * cached pixels are the fill inside the path at full strength, but it renders the fill everywhere and lets the
 * mask's density show it outside the path (a vector mask at 80% shows 20% of the fill across the whole canvas).
 */
export function drawnFromRecord(layer: LayerMasks): boolean {
  if ((layer.kind !== "shape" && layer.kind !== "fill") || layer.record?.vectorFill === undefined) return false;
  if ((layer.width ?? 0) === 0 || (layer.height ?? 0) === 0) return true;
  const vector = layer.vectorMask;
  return vector !== undefined && !isInert(vector) && !isPlain(vector);
}

/** Whether the layer's pixels have its path drawn into them: a shape or fill layer with pixels it renders from. */
export function bakesVectorMask(layer: LayerMasks): boolean {
  const pixels = (layer.width ?? 0) > 0 && (layer.height ?? 0) > 0;
  return (layer.kind === "shape" || layer.kind === "fill") && pixels && !drawnFromRecord(layer);
}

/** The vector mask a layer renders with: its path rasterised here, else the file's own rasterisation. */
function vectorOf(layer: LayerMasks): LayerMask | undefined {
  return bakesVectorMask(layer) ? undefined : (layer.vectorShape ?? layer.vectorMask);
}

const combined = new WeakMap<object, Map<string, LayerMask | undefined>>();

/** Whether a mask changes nothing when rendered (disabled, or lets everything through everywhere). */
function isInert(mask: LayerMask | undefined): boolean {
  if (mask === undefined || mask.disabled === true || mask.density === 0) return true;
  return mask.defaultColor === 255 && (mask.width === 0 || mask.height === 0);
}

const isPlain = (mask: LayerMask): boolean => (mask.density ?? 255) === 255 && !((mask.feather ?? 0) > 0);

/**
 * The mask to render a layer with over `area` (document pixels: the layer's pixel rectangle, or a group's
 * bounds), or undefined when its masks hide nothing. Outside `area` the answer's `defaultColor` is 0: callers only
 * ask about pixels inside it.
 */
export function effectiveMask(layer: LayerMasks, area: HostBounds): LayerMask | undefined {
  const masks = [layer.mask, vectorOf(layer)].filter((mask): mask is LayerMask => !isInert(mask));
  if (masks.length === 0) return undefined;
  if (masks.length === 1 && isPlain(masks[0]!)) return masks[0];
  if (isEmptyBounds(area)) return undefined;
  const key = `${area.left},${area.top},${area.right},${area.bottom}`;
  const anchor = masks[0]!;
  let cache = combined.get(anchor);
  if (cache === undefined) {
    cache = new Map();
    combined.set(anchor, cache);
  }
  const second = masks[1];
  const cacheKey = second === undefined ? key : `${key}|${secondId(second)}`;
  if (cache.has(cacheKey)) return cache.get(cacheKey);
  const out = multiply(masks, area);
  // One entry per area and partner is enough: a layer is rendered over the same area again and again.
  if (cache.size > 8) cache.clear();
  cache.set(cacheKey, out);
  return out;
}

const ids = new WeakMap<LayerMask, number>();
let nextId = 1;
function secondId(mask: LayerMask): number {
  let id = ids.get(mask);
  if (id === undefined) {
    id = nextId++;
    ids.set(mask, id);
  }
  return id;
}

/** The product of masks (each with its density and feather) over `area`; outside `area` it hides. */
export function productMask(masks: readonly LayerMask[], area: HostBounds): LayerMask {
  return multiply(masks.filter((mask) => !isInert(mask)), area);
}

/** The product of the masks (each with its density and feather) over `area`, one byte per pixel. */
function multiply(masks: readonly LayerMask[], area: HostBounds): LayerMask {
  const width = area.right - area.left;
  const height = area.bottom - area.top;
  const data = new Uint8Array(width * height).fill(255);
  for (const mask of masks) {
    const values = feathered(mask);
    const density = mask.density ?? 255;
    // density d: black hides d/255 of the way, so a value v shows 255 − d·(255 − v)/255.
    const lift = new Uint8Array(256);
    for (let v = 0; v < 256; v++) lift[v] = Math.round(255 - (density * (255 - v)) / 255);
    const outside = lift[values.defaultColor] as number;
    for (let y = 0; y < height; y++) {
      const my = area.top + y - values.y;
      const inRow = my >= 0 && my < values.height;
      const row = y * width;
      for (let x = 0; x < width; x++) {
        const mx = area.left + x - values.x;
        const v = inRow && mx >= 0 && mx < values.width ? (lift[values.data[my * values.width + mx] as number] as number) : outside;
        data[row + x] = ((data[row + x] as number) * v + 127) / 255;
      }
    }
  }
  return { x: area.left, y: area.top, width, height, data, defaultColor: 0 };
}

/**
 * The mask blurred by its feather radius, grown by the blur's reach. Photoshop's feather is a Gaussian whose
 * standard deviation is the radius (measured: a feathered mask edge follows the normal distribution's curve with
 * σ = radius to within a level); three box passes of two neighbouring widths match that variance.
 */
function feathered(mask: LayerMask): LayerMask {
  const radius = Math.min(MAX_MASK_FEATHER_PX, mask.feather ?? 0);
  if (!(radius > 0)) return mask;
  // Grown by the blur's reach (the three boxes' radii), so nothing of the blurred edge is cut off.
  const pad = gaussianBoxes(radius, 3).reduce((sum, r) => sum + r, 0);
  const width = mask.width + 2 * pad;
  const height = mask.height + 2 * pad;
  const plane = new Float32Array(width * height).fill(mask.defaultColor);
  for (let y = 0; y < mask.height; y++) {
    for (let x = 0; x < mask.width; x++) plane[(y + pad) * width + x + pad] = mask.data[y * mask.width + x] as number;
  }
  const outside = mask.defaultColor;
  blurPlane(plane, width, height, radius, { left: outside, right: outside, top: outside, bottom: outside });
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = Math.round(plane[i] as number);
  return { x: mask.x - pad, y: mask.y - pad, width, height, data, defaultColor: mask.defaultColor };
}
