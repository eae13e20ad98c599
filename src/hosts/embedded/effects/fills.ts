/*
 * The effects that paint over the layer's shape: colour, gradient and pattern overlays, and the stroke around
 * (outside), along (centre) or inside its edge, filled with a colour, a gradient or a pattern.
 */
import type { EffectNoiseGradient, EffectPattern, EffectSolidGradient, GradientStyle, InterpolationMethod, LayerEffectGradientOverlay, LayerEffectPatternOverlay, LayerEffectSolidFill, LayerEffectStroke } from "ag-psd";
import type { HostBounds } from "../../../protocol/index.js";
import type { PixelLayer } from "../document.js";
import { isEmptyBounds } from "../raster.js";
import { layerBounds } from "../tree.js";
import type { RowWork } from "../work.js";
import { gradientLut, rgbOf } from "./colour.js";
import { growPlane } from "./distance.js";
import { type Element, isEmpty, layerBox } from "./element.js";
import { type GradientPlacement, type Paint, paintRaster } from "./paint.js";
import { outlineBox } from "./outline.js";
import { bodyPlane, emptyPlane, expand, intersect, invert, type Plane, shapePlane } from "./planes.js";
import { finite, opacityOf, sizePx, type StyleContext } from "./style.js";

/**
 * The box a gradient aligned with the layer spans: its non-transparent pixels (a shape layer's path, see
 * `outline.ts`) grown by `grow` (a stroke's outer width: its gradient spans the stroked shape), or the canvas.
 */
function referenceBox(layer: PixelLayer, align: boolean | undefined, style: StyleContext, grow = 0): HostBounds {
  const bounds = outlineBox(layer) ?? layerBounds(layer);
  return align !== false && !isEmptyBounds(bounds) ? expand(bounds, grow) : { left: 0, top: 0, right: style.width, bottom: style.height };
}

/** How a gradient lies over its box (an overlay's fields, or a stroke gradient's own). */
interface GradientLayout {
  readonly style?: GradientStyle | undefined;
  readonly angle?: number | undefined;
  readonly scale?: number | undefined;
  readonly reverse?: boolean | undefined;
  readonly align?: boolean | undefined;
  readonly offset?: { readonly x: number; readonly y: number } | undefined;
  readonly interpolationMethod?: InterpolationMethod | undefined;
}

function gradientPaint(layer: PixelLayer, gradient: EffectSolidGradient | EffectNoiseGradient | undefined, layout: GradientLayout, style: StyleContext, grow = 0): Paint {
  const placement: GradientPlacement = {
    box: referenceBox(layer, layout.align, style, grow),
    angle: finite(layout.angle, 90),
    scale: finite(layout.scale, 1),
    style: layout.style ?? "linear",
    // ag-psd reads the offset's percentages as fractions of the box already.
    offsetX: finite(layout.offset?.x, 0),
    offsetY: finite(layout.offset?.y, 0),
  };
  return { kind: "gradient", lut: gradientLut(gradient, layout.reverse === true, layout.interpolationMethod), placement };
}

/** A phase coordinate: a number of pixels, or (a stroke's pattern) a units value. */
type Phase = number | { readonly value?: number } | undefined;

const phasePx = (value: Phase): number => finite(typeof value === "number" ? value : value?.value, 0);

/**
 * A pattern's paint, tiled from the layer's effects origin when it moves with the layer (the anchor Photoshop
 * records with the style), else from the canvas origin, plus its phase; undefined when the file lacks the pattern.
 */
function patternPaint(layer: PixelLayer, pattern: EffectPattern | undefined, effect: { align?: boolean; scale?: number; phase?: { x: Phase; y: Phase } }, style: StyleContext): Paint | undefined {
  const tile = pattern ? style.patterns.get(pattern.id) : undefined;
  if (!tile) return undefined;
  const origin = effect.align === false ? { x: 0, y: 0 } : (layer.effectsOrigin ?? { x: 0, y: 0 });
  const x = finite(origin.x, 0) + phasePx(effect.phase?.x);
  const y = finite(origin.y, 0) + phasePx(effect.phase?.y);
  return { kind: "pattern", tile, originX: x, originY: y, scale: finite(effect.scale, 1) };
}

/** An overlay's paint over the layer's box (not yet limited to its shape: the caller mixes it in by the shape). */
function overlay(layer: PixelLayer, region: HostBounds, paint: Paint | undefined, effect: { opacity?: number; blendMode?: string }): Element | undefined {
  const box = intersect(region, layerBox(layer));
  if (isEmpty(box) || paint === undefined) return undefined;
  const full = emptyPlane(box);
  full.data.fill(1);
  return { raster: paintRaster(full, paint), box, opacity: opacityOf(effect), blendMode: effect.blendMode ?? "normal" };
}

/** A colour overlay. */
export function colorOverlay(layer: PixelLayer, effect: LayerEffectSolidFill, region: HostBounds): Element | undefined {
  return overlay(layer, region, { kind: "solid", rgb: rgbOf(effect.color) }, effect);
}

/** A gradient overlay. */
export function gradientOverlay(layer: PixelLayer, effect: LayerEffectGradientOverlay, region: HostBounds, style: StyleContext): Element | undefined {
  return overlay(layer, region, gradientPaint(layer, effect.gradient, { ...effect, style: effect.type }, style), effect);
}

/** A pattern overlay; undefined when the file lacks the pattern. */
export function patternOverlay(layer: PixelLayer, effect: LayerEffectPatternOverlay, region: HostBounds, style: StyleContext): Element | undefined {
  return overlay(layer, region, patternPaint(layer, effect.pattern, effect, style), effect);
}

/** How far past the layer's box a stroke reaches, in pixels. */
export function strokeReach(effect: LayerEffectStroke): number {
  const size = sizePx(effect.size);
  return Math.ceil(effect.position === "inside" ? 0 : effect.position === "center" ? size / 2 : size) + 1;
}

/** The two halves of a stroke: around the shape (under its pixels) and along the inside of its edge. */
export interface StrokeParts {
  /** The band around the shape, to be drawn under the layer's pixels (see `outside`). */
  readonly outer?: Element | undefined;
  /** The band within the inner width of the edge, not yet limited to the shape. */
  readonly inner?: Element | undefined;
}

/**
 * A stroke of `size` px: all of it outside the shape, all inside, or half each (centre). Its outer part fills
 * what the shape leaves uncovered within the grown shape, so it shows through half-transparent pixels as in
 * Photoshop, and a layer at fill 0 keeps a hollow outline.
 */
export function stroke(layer: PixelLayer, effect: LayerEffectStroke, region: HostBounds, style: StyleContext, fill: number, work?: RowWork): StrokeParts {
  const size = sizePx(effect.size);
  const outward = effect.position === "inside" ? 0 : effect.position === "center" ? size / 2 : size;
  const inward = size - outward;
  const box = intersect(region, expand(layerBox(layer), strokeReach(effect)));
  const paint = strokePaint(layer, effect, style, outward);
  if (isEmpty(box) || size <= 0 || paint === undefined) return {};
  const source = expand(box, Math.ceil(size) + 1);
  const part = (plane: Plane, within: HostBounds): Element => ({
    raster: paintRaster(crop(plane, within), paint),
    box: within,
    opacity: opacityOf(effect),
    blendMode: effect.blendMode ?? "normal",
  });
  const inside = intersect(box, layerBox(layer));
  return {
    outer: outward > 0 ? part(outside(shapePlane(layer, source), pixelCover(layer, source, fill), outward, work), box) : undefined,
    inner: inward > 0 && !isEmpty(inside) ? part(growPlane(invert(shapePlane(layer, source)), inward, work), inside) : undefined,
  };
}

/**
 * The band around the shape, `by` wide, as a share of what the layer's pixels leave uncovered:
 * `(grown − a) / (1 − p)`, `a` the shape's coverage and `p` the pixels' (their alpha × masks × fill opacity; the
 * same as `a` on a plain layer at full fill). Drawn under the pixels, which then cover `p` of each pixel, the
 * stroke fills exactly its share, as Photoshop composes them: a half-transparent edge pixel shows half its colour
 * and half the stroke's, not the stroke over a mix of its colour and the backdrop.
 */
function outside(shape: Plane, pixels: Plane, by: number, work?: RowWork): Plane {
  const grown = growPlane(shape, by, work);
  const g = grown.data;
  for (let i = 0; i < g.length; i++) {
    const a = shape.data[i] as number;
    const band = Math.max(0, (g[i] as number) - a);
    const left = 1 - (pixels.data[i] as number);
    g[i] = band <= 0 ? 0 : left <= band ? 1 : band / left;
  }
  return grown;
}

/** How much of each pixel of `box` the layer's pixels cover: alpha × masks × fill opacity. */
function pixelCover(layer: PixelLayer, box: HostBounds, fill: number): Plane {
  const plane = bodyPlane(layer, box);
  if (fill < 1) for (let i = 0; i < plane.data.length; i++) plane.data[i] = (plane.data[i] as number) * fill;
  return plane;
}

function strokePaint(layer: PixelLayer, effect: LayerEffectStroke, style: StyleContext, outward: number): Paint | undefined {
  if (effect.fillType === "gradient" && effect.gradient) return gradientPaint(layer, effect.gradient, effect.gradient, style, outward);
  if (effect.fillType === "pattern") return patternPaint(layer, effect.pattern, (effect.pattern ?? {}) as { align?: boolean; phase?: { x: Phase; y: Phase } }, style);
  return { kind: "solid", rgb: rgbOf(effect.color) };
}

function crop(plane: Plane, box: HostBounds): Plane {
  const out = emptyPlane(box);
  for (let y = 0; y < out.height; y++) {
    const from = (box.top + y - plane.box.top) * plane.width + (box.left - plane.box.left);
    out.data.set(plane.data.subarray(from, from + out.width), y * out.width);
  }
  return out;
}
