/*
 * Outer glow, inner glow and satin. A "softer" glow is the shape spread (or choked) and blurred; a "precise" one
 * fades linearly with the distance from the edge. The glow's range stretches the falloff before its contour.
 * Noise and jitter are not drawn.
 */
import type { LayerEffectInnerGlow, LayerEffectSatin, LayerEffectsOuterGlow } from "ag-psd";
import type { HostBounds } from "../../../protocol/index.js";
import type { PixelLayer } from "../document.js";
import type { RowWork } from "../work.js";
import { contourLut, gradientLut, rgbOf } from "./colour.js";
import { growPlane } from "./distance.js";
import { type Element, isEmpty, layerBox, multiply, shapeFalloff, shifted } from "./element.js";
import { type Paint, paintRaster } from "./paint.js";
import { blurPlane, emptyPlane, expand, intersect, invert, type Plane, shapePlane } from "./planes.js";
import { finite, opacityOf, shadowOffset, sizePx, spreadFraction } from "./style.js";

type Glow = LayerEffectsOuterGlow | LayerEffectInnerGlow;

/** How far past the layer's box an outer glow reaches, in pixels. */
export function outerGlowReach(effect: LayerEffectsOuterGlow): number {
  return Math.ceil(sizePx(effect.size)) + 1;
}

/** The glow's falloff: spread and blurred (softer) or a linear fade over the distance (precise). */
function falloff(plane: Plane, effect: Glow, outside: number, work?: RowWork): Plane {
  const size = sizePx(effect.size);
  const spread = spreadFraction(effect.choke);
  // ag-psd types the technique on inner glows only; outer glows record it too.
  if ((effect as { technique?: string }).technique === "precise") return growPlane(plane, size, work, Math.max(1, size * (1 - spread)));
  return blurPlane(growPlane(plane, size * spread, work), size * (1 - spread), outside, work);
}

/** A glow's paint: its colour, or its gradient picked by the glow's strength (the start at the edge). */
function glowPaint(effect: Glow): Paint {
  const gradient = (effect as { gradient?: Parameters<typeof gradientLut>[0] }).gradient;
  return gradient !== undefined ? { kind: "ramp", lut: gradientLut(gradient) } : { kind: "solid", rgb: rgbOf(effect.color) };
}

/** An outer glow of `layer` over the part of `region` it reaches (outside the shape only). */
export function outerGlow(layer: PixelLayer, effect: LayerEffectsOuterGlow, region: HostBounds, work?: RowWork): Element | undefined {
  const reach = outerGlowReach(effect);
  const box = intersect(region, expand(layerBox(layer), reach));
  if (isEmpty(box)) return undefined;
  const plane = falloff(shapePlane(layer, expand(box, reach)), effect, 0, work);
  const coverage = shapeFalloff(shifted(plane, box, 0, 0, 0), finite(effect.range, 0.5), contourLut(effect.contour));
  multiply(coverage, shapePlane(layer, box), true);
  return { raster: paintRaster(coverage, glowPaint(effect)), box, opacity: opacityOf(effect), blendMode: effect.blendMode ?? "screen" };
}

/**
 * An inner glow of `layer` over the part of `region` its box covers: from the edge inward, or from the centre
 * outward (`source: "center"`); not yet limited to its shape (the caller mixes interior effects in by it).
 */
export function innerGlow(layer: PixelLayer, effect: LayerEffectInnerGlow, region: HostBounds, work?: RowWork): Element | undefined {
  const box = intersect(region, layerBox(layer));
  if (isEmpty(box)) return undefined;
  const reach = Math.ceil(sizePx(effect.size)) + 1;
  const plane = falloff(invert(shapePlane(layer, expand(box, reach))), effect, 1, work);
  const coverage = shifted(plane, box, 0, 0, 1);
  if (effect.source === "center") invert(coverage);
  shapeFalloff(coverage, finite(effect.range, 0.5), contourLut(effect.contour));
  return { raster: paintRaster(coverage, glowPaint(effect)), box, opacity: opacityOf(effect), blendMode: effect.blendMode ?? "screen" };
}

/**
 * Satin: the blurred shape moved both ways along the effect's own angle (satin ignores the global light), the
 * difference of the two copies through the contour (inverted when asked); not yet limited to the shape.
 */
export function satin(layer: PixelLayer, effect: LayerEffectSatin, region: HostBounds, work?: RowWork): Element | undefined {
  const box = intersect(region, layerBox(layer));
  if (isEmpty(box)) return undefined;
  const { dx, dy } = shadowOffset(finite(effect.angle, 19), effect.distance);
  const reach = Math.ceil(sizePx(effect.size)) + Math.max(Math.abs(dx), Math.abs(dy)) + 1;
  const plane = blurPlane(shapePlane(layer, expand(box, reach)), sizePx(effect.size), 0, work);
  const a = shifted(plane, box, dx, dy, 0);
  const b = shifted(plane, box, -dx, -dy, 0);
  const coverage = emptyPlane(box);
  const invertIt = effect.invert === true;
  for (let i = 0; i < coverage.data.length; i++) {
    const v = Math.abs((a.data[i] as number) - (b.data[i] as number));
    coverage.data[i] = invertIt ? 1 - v : v;
  }
  shapeFalloff(coverage, 1, contourLut(effect.contour));
  return { raster: paintRaster(coverage, { kind: "solid", rgb: rgbOf(effect.color) }), box, opacity: opacityOf(effect), blendMode: effect.blendMode ?? "multiply" };
}
