/*
 * Drawing a pixel layer with its layer style, in Photoshop's order from the bottom: drop shadows and outer glow
 * blend onto what is below; then the layer's pixels (× fill opacity), pattern, gradient and colour overlays,
 * satin, inner glow, inner shadows, the inner part of strokes and the bevel compose the interior, which is mixed
 * in by the shape (see `mix.ts`) over the outer part of strokes; the outside of an emboss goes on top. Layer opacity fades
 * everything; fill opacity only the pixels, so a layer at fill 0 still shows its effects. Effects follow the
 * shape the layer mask leaves.
 */
import type { LayerEffectsInfo } from "ag-psd";
import type { HostBounds } from "../../../protocol/index.js";
import { atopOnto } from "../clipping.js";
import { blendOnto } from "../blend.js";
import type { EmbeddedLayer, PixelLayer } from "../document.js";
import { effectiveMask } from "../masks.js";
import { cropRaster, type Raster } from "../raster.js";
import type { RowWork } from "../work.js";
import { bevel, bevelReach } from "./bevel.js";
import { type Element, isEmpty, layerBox } from "./element.js";
import { colorOverlay, gradientOverlay, patternOverlay, stroke, strokeReach } from "./fills.js";
import { innerGlow, outerGlow, outerGlowReach, satin } from "./glows.js";
import { interiorContent, mixInto } from "./mix.js";
import { vectorOutline } from "./outline.js";
import { bodyPlane, expand, intersect, type ShapedLayer, shapePlane } from "./planes.js";
import { dropShadow, dropShadowReach, innerShadow } from "./shadows.js";
import { vectorStroke, vectorStrokeOf, vectorStrokeReach } from "./vector-stroke.js";
import { DEFAULT_GLOBAL_ANGLE, hasActiveEffects, isOn, type StyleContext } from "./style.js";

/** How {@link drawLayer} draws a layer besides its own fields. */
export interface DrawLayerOptions {
  /** What the document lends the effects (global light, patterns, canvas). @default Photoshop's light, no patterns, `region` as canvas */
  readonly style?: StyleContext | undefined;
  /**
   * Pixels drawn in place of the layer's own: a clipping group's composite covering `region`, already faded by the
   * base's fill opacity and mask. The effects still come from the layer's own shape.
   */
  readonly content?: Raster | undefined;
  /** Draw every part source-atop `out` (a layer clipped inside a clipping group) instead of over it. @default false */
  readonly atop?: boolean | undefined;
}

/**
 * Whether {@link drawLayer} draws the layer through its style: it has layer effects on, or is a shape whose own
 * stroke goes over what covers its fill.
 */
export function hasStyle(layer: PixelLayer): boolean {
  return hasActiveEffects(layer.effects) || vectorStrokeOf(layer) !== undefined;
}

/** Whether any effect paints over the layer's fill (overlays, satin, inner glow, inner shadow, bevel). */
function coversFill(info: LayerEffectsInfo): boolean {
  const inside = [info.patternOverlay, info.satin, info.innerGlow, info.bevel, ...(info.gradientOverlay ?? []), ...(info.solidFill ?? []), ...(info.innerShadow ?? [])];
  return inside.some(isOn);
}

/** Stacking order within a list of same-kind effects: the first listed is the top-most, drawn last. */
function onTopLast<T extends { enabled?: boolean; present?: boolean }>(list: readonly T[] | undefined): T[] {
  return (list ?? []).filter(isOn).reverse();
}

/**
 * Draws a pixel layer onto `out` (which covers `region` of the document) with its opacity, fill opacity, blend
 * mode, mask and layer effects. A layer without effects is blended exactly as the compositor always did.
 * `work` hears of {@link layerRows} rows in all.
 *
 * @example
 * drawLayer(out, layer, canvas, work, { style: styleContext(doc) });
 */
export function drawLayer(out: Raster, pixels: PixelLayer, region: HostBounds, work?: RowWork, options: DrawLayerOptions = {}): void {
  const info: LayerEffectsInfo = hasActiveEffects(pixels.effects) ? pixels.effects : {};
  const blend = options.atop === true ? atopOnto : blendOnto;
  const opacity = pixels.opacity / 255;
  // A shape's own stroke is drawn anew only where something would cover it: otherwise the file's pixels, which
  // hold it as Photoshop drew it, are exact.
  const strokeOver = vectorStrokeOf(pixels) !== undefined && (options.content !== undefined || coversFill(info));
  if (!hasActiveEffects(info) && !strokeOver) {
    drawContent(out, pixels, region, opacity, blend, options.content, work);
    return;
  }
  const meter = budget(work, layerRows(pixels, region));
  const style = options.style ?? { width: region.right, height: region.bottom, globalAngle: DEFAULT_GLOBAL_ANGLE, patterns: new Map() };
  // A shape layer's effects follow its path (see `outline.ts`); every other layer's its pixels.
  const outline = vectorOutline(pixels, style);
  const layer: ShapedLayer = outline ? { ...pixels, outline } : pixels;
  const onto = (target: Raster, at: HostBounds, element: Element | undefined, scale: number): void => {
    if (element === undefined || element.opacity === 0) return;
    blend(target, element.raster, { dx: element.box.left - at.left, dy: element.box.top - at.top, opacity: element.opacity * scale, blendMode: element.blendMode, work: meter });
  };
  for (const effect of onTopLast(info.dropShadow)) onto(out, region, dropShadow(layer, effect, region, style, meter), opacity);
  if (isOn(info.outerGlow)) onto(out, region, outerGlow(layer, info.outerGlow!, region, meter), opacity);

  const fill = layer.fillOpacity === undefined ? 1 : layer.fillOpacity / 255;
  const strokes = onTopLast(info.stroke).map((effect) => stroke(layer, effect, region, style, fill, meter));
  const own = strokeOver ? vectorStroke(layer, region, style, meter) : {};
  const box = intersect(region, layerBox(layer));
  const inside = [info.patternOverlay, info.satin, info.innerGlow, info.bevel, ...(info.gradientOverlay ?? []), ...(info.solidFill ?? []), ...(info.innerShadow ?? [])];
  // Strokes' outer parts go under the pixels, which cover their share of each pixel (see `fills.ts`).
  onto(out, region, own.outer, opacity);
  for (const parts of strokes) onto(out, region, parts.outer, opacity);
  if (isEmpty(box) || (!inside.some(isOn) && own.inner === undefined && strokes.every((parts) => parts.inner === undefined))) {
    // Nothing inside the shape but its pixels: they blend as they would without effects (the same result).
    drawContent(out, layer, region, opacity, blend, options.content, meter);
    meter.finish();
    return;
  }
  const shape = shapePlane(layer, box);
  const local = { x: box.left - region.left, y: box.top - region.top, width: box.right - box.left, height: box.bottom - box.top };
  const interior = { ...cropRaster(out, local), space: out.space };
  const body = outline && !options.content ? bodyPlane(pixels, box) : undefined;
  const content = interiorContent(layer, shape, fill, options.content ? { raster: options.content, region } : undefined, body);
  blend(interior, content, { dx: 0, dy: 0, opacity: 1, blendMode: layer.blendMode, work: meter });
  if (isOn(info.patternOverlay)) onto(interior, box, patternOverlay(layer, info.patternOverlay!, region, style), 1);
  for (const effect of onTopLast(info.gradientOverlay)) onto(interior, box, gradientOverlay(layer, effect, region, style), 1);
  for (const effect of onTopLast(info.solidFill)) onto(interior, box, colorOverlay(layer, effect, region), 1);
  if (isOn(info.satin)) onto(interior, box, satin(layer, info.satin!, region, meter), 1);
  if (isOn(info.innerGlow)) onto(interior, box, innerGlow(layer, info.innerGlow!, region, meter), 1);
  for (const effect of onTopLast(info.innerShadow)) onto(interior, box, innerShadow(layer, effect, region, style, meter), 1);
  // The shape's own stroke goes over everything that covers its fill but the stroke effect (see `vector-stroke.ts`).
  onto(interior, box, own.inner, 1);
  for (const parts of strokes) onto(interior, box, parts.inner, 1);
  const lit = isOn(info.bevel) ? bevel(layer, info.bevel!, region, style, meter) : [];
  for (const element of lit) onto(interior, box, element, 1);
  mixInto(out, region, interior, shape, opacity, meter);
  if (lit.length > 0 && bevelReach(info.bevel!) > 0) for (const element of lit) onto(out, region, outsideOf(layer, element), opacity);
  meter.finish();
}

/** The part of an element outside the layer's shape (an emboss lights both sides of the edge). */
function outsideOf(layer: PixelLayer, element: Element): Element {
  const shape = shapePlane(layer, element.box);
  const data = element.raster.data.slice();
  for (let i = 0; i < shape.data.length; i++) data[i * 4 + 3] = (data[i * 4 + 3] as number) * (1 - (shape.data[i] as number));
  return { ...element, raster: { ...element.raster, data } };
}

function drawContent(out: Raster, layer: PixelLayer, region: HostBounds, opacity: number, blend: typeof blendOnto, content: Raster | undefined, work?: RowWork): void {
  if (content !== undefined) {
    blend(out, content, { dx: 0, dy: 0, opacity, blendMode: layer.blendMode, work });
    return;
  }
  if (layer.width === 0 || layer.height === 0) return;
  const fill = layer.fillOpacity === undefined ? 1 : layer.fillOpacity / 255;
  const mask = effectiveMask(layer, layerBox(layer));
  const placed = mask ? { mask, dx: mask.x - region.left, dy: mask.y - region.top } : undefined;
  blend(out, layer, { dx: layer.left - region.left, dy: layer.top - region.top, opacity: opacity * fill, blendMode: layer.blendMode, placed, work });
}

/** Rows of `region` within `reach` pixels of the layer's box. */
function rowsWithin(layer: PixelLayer, region: HostBounds, reach: number): number {
  if (layer.width === 0 || layer.height === 0) return 0;
  const box = intersect(region, expand(layerBox(layer), reach));
  return isEmpty(box) ? 0 : box.bottom - box.top;
}

/**
 * How many rows {@link drawLayer} reports for this layer over `region`: the rows its pixels cover, plus for
 * every effect that is on the rows that effect can reach.
 */
export function layerRows(layer: PixelLayer, region: HostBounds): number {
  const own = rowsWithin(layer, region, 0);
  if (!hasStyle(layer)) return own;
  const info: LayerEffectsInfo = layer.effects ?? {};
  let rows = own;
  if (vectorStrokeOf(layer) !== undefined) rows += rowsWithin(layer, region, vectorStrokeReach(layer));
  for (const effect of info.dropShadow ?? []) if (isOn(effect)) rows += rowsWithin(layer, region, dropShadowReach(effect));
  if (isOn(info.outerGlow)) rows += rowsWithin(layer, region, outerGlowReach(info.outerGlow!));
  for (const effect of info.stroke ?? []) if (isOn(effect)) rows += rowsWithin(layer, region, strokeReach(effect));
  if (isOn(info.bevel)) rows += rowsWithin(layer, region, bevelReach(info.bevel!));
  const inside = [info.patternOverlay, info.satin, info.innerGlow, ...(info.gradientOverlay ?? []), ...(info.solidFill ?? []), ...(info.innerShadow ?? [])];
  for (const effect of inside) if (isOn(effect)) rows += own;
  return rows;
}

/**
 * Bytes an effect holds per pixel of the box it works on, at its peak: the distance transform's four planes (16),
 * the shape and the grown plane (8), plus the interior, the layer's colour and a stroke's raster kept alive beside
 * them (12), rounded up for the rasters an element is painted into.
 */
export const EFFECT_WORK_BYTES_PER_PIXEL = 48;

/** How far past its box the layer's effects reach, in pixels. */
function reachOf(layer: PixelLayer): number {
  if (!hasStyle(layer)) return 0;
  const info: LayerEffectsInfo = layer.effects ?? {};
  const reaches = [
    vectorStrokeReach(layer),
    ...onTopLast(info.dropShadow).map(dropShadowReach),
    ...onTopLast(info.stroke).map(strokeReach),
    isOn(info.outerGlow) ? outerGlowReach(info.outerGlow!) : 0,
    isOn(info.bevel) ? bevelReach(info.bevel!) : 0,
  ];
  return Math.max(0, ...reaches);
}

/**
 * The most memory drawing the effects of any one layer of `layers` over `region` holds at once (layers are drawn
 * one after the other and their work is dropped in between): what an export or save reserves beside its canvas.
 */
export function effectsWorkBytes(layers: readonly EmbeddedLayer[], region: HostBounds): number {
  let most = 0;
  for (const layer of layers) {
    if (!layer.visible) continue;
    if (layer.kind === "group") {
      most = Math.max(most, effectsWorkBytes(layer.children, region));
      continue;
    }
    if (!hasStyle(layer) || layer.width === 0 || layer.height === 0) continue;
    const reach = reachOf(layer);
    const drawn = intersect(region, expand(layerBox(layer), reach));
    if (isEmpty(drawn)) continue;
    // Blurs and distances read their planes `reach` pixels past what they draw.
    const read = expand(drawn, reach);
    most = Math.max(most, (read.right - read.left) * (read.bottom - read.top) * EFFECT_WORK_BYTES_PER_PIXEL);
  }
  return most;
}

/** A `RowWork` that passes on at most `total` rows (loops over planes visit more) and the rest at `finish`. */
function budget(work: RowWork | undefined, total: number): RowWork & { finish(): void } {
  let left = total;
  return {
    rows(count) {
      const take = Math.min(count, left);
      left -= take;
      // Rows past the budget still reach `work`, as zero: every report is a cancellation checkpoint.
      work?.rows(take);
    },
    finish() {
      if (left > 0) work?.rows(left);
      left = 0;
    },
  };
}
