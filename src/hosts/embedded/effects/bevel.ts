/*
 * Bevel and emboss, approximated: the shape blurred over the bevel's size is a height map, lit from the light's
 * angle and altitude; where a slope faces the light more than flat ground it gets the highlight, where less the
 * shadow. An inner bevel shows inside the shape, an outer bevel outside, an emboss both; a pillow emboss sinks
 * the outside. Textures, gloss contours, soften and the chisel techniques' hard slopes are not reproduced.
 */
import type { LayerEffectBevel } from "ag-psd";
import type { HostBounds } from "../../../protocol/index.js";
import type { PixelLayer } from "../document.js";
import type { RowWork } from "../work.js";
import { rgbOf } from "./colour.js";
import { type Element, isEmpty, layerBox, shifted } from "./element.js";
import { paintRaster } from "./paint.js";
import { blurPlane, emptyPlane, expand, intersect, shapePlane } from "./planes.js";
import { finite, opacityOf, sizePx, type StyleContext } from "./style.js";

/** How far past the layer's box a bevel reaches (outer bevels and embosses light the outside too). */
export function bevelReach(effect: LayerEffectBevel): number {
  return effect.style === "inner bevel" || effect.style === undefined ? 0 : Math.ceil(sizePx(effect.size)) + 1;
}

/** The bevel's highlight and shadow over `region` (as elements to draw on top of the layer), or none. */
export function bevel(layer: PixelLayer, effect: LayerEffectBevel, region: HostBounds, style: StyleContext, work?: RowWork): Element[] {
  const size = Math.max(1, sizePx(effect.size));
  const box = intersect(region, expand(layerBox(layer), bevelReach(effect)));
  if (isEmpty(box)) return [];
  // The shape blurred is its height: a rounded slope reaching the bevel's size past the edge on the side(s) it
  // shows, so embosses (both sides) blur over half of it.
  const across = effect.style === "emboss" || effect.style === "pillow emboss";
  const height = shifted(blurPlane(shapePlane(layer, expand(box, Math.ceil(size) + 2)), across ? size / 2 : size, 0, work), expand(box, 1), 0, 0, 0);
  // A pillow emboss sinks the outside: its slopes there face the other way.
  const pillow = effect.style === "pillow emboss" ? shapePlane(layer, box) : undefined;
  const angle = ((effect.useGlobalLight === false ? finite(effect.angle, style.globalAngle) : style.globalAngle) * Math.PI) / 180;
  // An altitude of 90° or more has no shadow side; kept just below so the shading stays defined.
  const altitude = (Math.min(89, Math.max(1, finite(effect.altitude, 30))) * Math.PI) / 180;
  const lx = Math.cos(altitude) * Math.cos(angle);
  const ly = -Math.cos(altitude) * Math.sin(angle);
  const lz = Math.sin(altitude);
  // Depth 100 % raises the plateau by the bevel's size: a 45° slope; "down" digs instead.
  const depth = Math.min(10, Math.max(0, finite(effect.strength, 1))) * size * (effect.direction === "down" ? -1 : 1);
  const light = emptyPlane(box);
  const dark = emptyPlane(box);
  const w = height.width;
  for (let y = 0; y < light.height; y++) {
    for (let x = 0; x < light.width; x++) {
      const i = (y + 1) * w + (x + 1);
      const o = y * light.width + x;
      const sign = pillow !== undefined && (pillow.data[o] as number) < 0.5 ? -1 : 1;
      const gx = (((height.data[i + 1] as number) - (height.data[i - 1] as number)) / 2) * depth * sign;
      const gy = (((height.data[i + w] as number) - (height.data[i - w] as number)) / 2) * depth * sign;
      const shade = (-gx * lx - gy * ly + lz) / Math.sqrt(gx * gx + gy * gy + 1);
      light.data[o] = Math.max(0, (shade - lz) / (1 - lz));
      dark.data[o] = Math.max(0, (lz - shade) / lz);
    }
  }
  return [
    { raster: paintRaster(dark, { kind: "solid", rgb: rgbOf(effect.shadowColor) }), box, opacity: opacityOf({ opacity: effect.shadowOpacity }), blendMode: effect.shadowBlendMode ?? "multiply" },
    { raster: paintRaster(light, { kind: "solid", rgb: rgbOf(effect.highlightColor ?? { r: 255, g: 255, b: 255 }) }), box, opacity: opacityOf({ opacity: effect.highlightOpacity }), blendMode: effect.highlightBlendMode ?? "screen" },
  ];
}
