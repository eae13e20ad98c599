/*
 * Drop shadow and inner shadow: the layer's shape (or its outside), moved away from the light, spread (or
 * choked) and blurred. A drop shadow is hidden under the layer itself when the layer knocks it out. Noise is
 * not drawn.
 */
import type { LayerEffectShadow } from "ag-psd";
import type { HostBounds } from "../../../protocol/index.js";
import type { PixelLayer } from "../document.js";
import type { RowWork } from "../work.js";
import { contourLut, rgbOf } from "./colour.js";
import { growPlane } from "./distance.js";
import { type Element, isEmpty, layerBox, multiply, shapeFalloff, shifted } from "./element.js";
import { paintRaster } from "./paint.js";
import { blurPlane, expand, intersect, invert, offsetBox, shapePlane } from "./planes.js";
import { finite, opacityOf, shadowOffset, sizePx, spreadFraction, type StyleContext } from "./style.js";

/** How far past the layer's box a drop shadow reaches (its size plus its distance), in pixels. */
export function dropShadowReach(effect: LayerEffectShadow): number {
  const { dx, dy } = shadowOffset(0, effect.distance);
  return Math.ceil(sizePx(effect.size)) + Math.max(Math.abs(dx), Math.abs(dy)) + 1;
}

function lightAngle(effect: LayerEffectShadow, style: StyleContext): number {
  return effect.useGlobalLight === false ? finite(effect.angle, style.globalAngle) : style.globalAngle;
}

/** A drop shadow of `layer` over the part of `region` it reaches; undefined when it reaches none of it. */
export function dropShadow(layer: PixelLayer, effect: LayerEffectShadow, region: HostBounds, style: StyleContext, work?: RowWork): Element | undefined {
  const size = sizePx(effect.size);
  const spread = spreadFraction(effect.choke);
  const { dx, dy } = shadowOffset(lightAngle(effect, style), effect.distance);
  const reach = Math.ceil(size) + 1;
  const box = intersect(region, expand(offsetBox(layerBox(layer), dx, dy), reach));
  if (isEmpty(box)) return undefined;
  // Spread grows the shape by that share of the size; the rest of the size is blur.
  let plane = shapePlane(layer, expand(offsetBox(box, -dx, -dy), reach));
  plane = growPlane(plane, size * spread, work);
  plane = blurPlane(plane, size * (1 - spread), 0, work);
  const coverage = shapeFalloff(shifted(plane, box, dx, dy, 0), 1, contourLut(effect.contour));
  if (effect.layerConceals !== false) multiply(coverage, shapePlane(layer, box), true);
  return { raster: paintRaster(coverage, { kind: "solid", rgb: rgbOf(effect.color) }), box, opacity: opacityOf(effect), blendMode: effect.blendMode ?? "multiply" };
}

/**
 * An inner shadow of `layer` over the part of `region` its box covers, not yet limited to its shape (the
 * caller mixes interior effects in by the shape); undefined when the layer is not in the region.
 */
export function innerShadow(layer: PixelLayer, effect: LayerEffectShadow, region: HostBounds, style: StyleContext, work?: RowWork): Element | undefined {
  const size = sizePx(effect.size);
  const choke = spreadFraction(effect.choke);
  const { dx, dy } = shadowOffset(lightAngle(effect, style), effect.distance);
  const box = intersect(region, layerBox(layer));
  if (isEmpty(box)) return undefined;
  const reach = Math.ceil(size) + 1;
  // The outside of the shape casts the shadow: beyond the layer's buffer everything is outside.
  let plane = invert(shapePlane(layer, expand(offsetBox(box, -dx, -dy), reach)));
  plane = growPlane(plane, size * choke, work);
  plane = blurPlane(plane, size * (1 - choke), 1, work);
  const coverage = shapeFalloff(shifted(plane, box, dx, dy, 1), 1, contourLut(effect.contour));
  return { raster: paintRaster(coverage, { kind: "solid", rgb: rgbOf(effect.color) }), box, opacity: opacityOf(effect), blendMode: effect.blendMode ?? "multiply" };
}
