/*
 * Layers whose picture comes from their record rather than from pixels alone: adjustment layers (a change of what
 * is below them), and fill and shape layers a file stored no pixels for (16- and 32-bit files) or whose vector
 * mask has a density or feather.
 */
import type { PatternInfo } from "ag-psd";
import type { HostBounds } from "../../protocol/index.js";
import { applyAdjustment, applyAdjustmentInPlace } from "./adjustments/index.js";
import { BLEND_FUNCTIONS, NON_SEPARABLE } from "./blend-modes.js";
import { atopOnto } from "./clipping.js";
import { drawLayer, type StyleContext } from "./effects/index.js";
import type { PixelLayer, SourceColor } from "./document.js";
import { pathBounds, renderFill } from "./fills/index.js";
import { drawnFromRecord, type PlacedMask } from "./masks.js";
import type { Raster } from "./raster.js";
import type { RowWork } from "./work.js";

/** Document facts these layers render with. */
export interface ContentContext {
  /** The canvas. */
  readonly width: number;
  readonly height: number;
  /** The document's patterns, for pattern fills. */
  readonly patterns?: readonly PatternInfo[] | undefined;
  /** A grayscale document: adjustments work on its grey level. */
  readonly grayscale?: boolean | undefined;
  /** The mode and depth of the file the document came from, when not 8-bit RGB. */
  readonly sourceColor?: SourceColor | undefined;
}

/**
 * Applies an adjustment layer to `dst` (what is below it in its group, covering `region`): the adjusted picture
 * mixed in with the layer's blend mode, opacity and mask; alpha stays as it was (an adjustment changes colours,
 * never coverage). A layer without a record of its adjustment does nothing.
 */
export function adjustOnto(dst: Raster, layer: PixelLayer, opacity: number, placed: PlacedMask | undefined, context: ContentContext, work?: RowWork): void {
  const adjustment = layer.record?.adjustment;
  if (adjustment === undefined || opacity <= 0) return;
  const options = { grayscale: context.grayscale === true, ...(work ? { work } : {}) };
  // At full strength the adjusted colour replaces the one below, exactly what drawing the copy source-atop gives.
  if (opacity >= 1 && placed === undefined && dst.space === undefined && isPlainBlend(layer.blendMode)) {
    applyAdjustmentInPlace(adjustment, dst, options);
    return;
  }
  const adjusted = applyAdjustment(adjustment, dst, options);
  // Full strength wherever there is anything to adjust: the backdrop's own alpha limits the result (source-atop).
  const a = adjusted.data;
  for (let i = 3; i < a.length; i += 4) a[i] = (a[i] as number) > 0 ? 255 : 0;
  atopOnto(dst, adjusted, { dx: 0, dy: 0, opacity, blendMode: layer.blendMode, placed, work });
}

/** Whether a blend mode mixes as `normal` does (every mode without a function of its own is rendered as normal). */
function isPlainBlend(blendMode: string): boolean {
  return BLEND_FUNCTIONS[blendMode] === undefined && NON_SEPARABLE[blendMode] === undefined;
}

/**
 * The pixels of a fill or shape layer drawn from its record over `region`, for one the file stored no pixels for
 * or whose vector mask has a density or feather (see {@link drawnFromRecord}); undefined when its own pixels are
 * its picture (Photoshop's rendering, used as it is) or it is no fill.
 */
export function recordedFill(layer: PixelLayer, region: HostBounds, context: ContentContext, work?: RowWork): Raster | undefined {
  const content = layer.record?.vectorFill;
  if (content === undefined || !drawnFromRecord(layer)) return undefined;
  const reference = layer.record?.referencePoint;
  const shape = pathBounds(layer.record?.vectorMask);
  return renderFill(content, region, {
    width: context.width,
    height: context.height,
    patterns: context.patterns,
    // A gradient aligned with its layer spans the shape's box (the canvas when the fill has no shape).
    ...(shape ? { layerBounds: shape } : {}),
    // A 32-bit document's records hold linear light.
    linear: context.sourceColor?.depth === 32,
    ...(reference ? { origin: { x: reference.x, y: reference.y } } : {}),
    ...(work ? { work } : {}),
  });
}

/**
 * Draws a layer whose picture comes from its record onto `out` (covering `region`): an adjustment layer changes
 * what is below it; a fill or shape layer without pixels of its own is drawn from its fill, with its masks and
 * effects. Answers whether the layer was one of these (else the caller draws its pixels).
 */
export function drawRecordedLayer(
  out: Raster,
  layer: PixelLayer,
  region: HostBounds,
  placed: PlacedMask | undefined,
  style: StyleContext | undefined,
  options: { atop?: boolean | undefined; work?: RowWork | undefined } = {},
): boolean {
  const context: ContentContext = {
    width: style?.width ?? region.right,
    height: style?.height ?? region.bottom,
    patterns: style?.patternList,
    grayscale: style?.grayscale,
    sourceColor: style?.sourceColor,
  };
  if (layer.kind === "adjustment") {
    const fill = layer.fillOpacity === undefined ? 1 : layer.fillOpacity / 255;
    adjustOnto(out, layer, (layer.opacity / 255) * fill, placed, context, options.work);
    return true;
  }
  const filled = recordedFill(layer, region, context, options.work);
  if (filled === undefined) return false;
  // Plain pixels now: the fill covers the region, and its vector mask (not drawn into it) cuts it.
  const drawn: PixelLayer = { ...layer, kind: "pixel", left: region.left, top: region.top, width: filled.width, height: filled.height, data: filled.data };
  drawLayer(out, drawn, region, options.work, { ...(style ? { style } : {}), ...(options.atop ? { atop: true } : {}) });
  return true;
}

/**
 * Rows {@link drawRecordedLayer} reports for a layer over `region` (the adjustment or fill, then the blend), or
 * undefined for a layer it does not draw.
 */
export function recordedRows(layer: PixelLayer, region: HostBounds): number | undefined {
  const height = region.bottom - region.top;
  if (layer.kind === "adjustment") return layer.record?.adjustment === undefined ? 0 : 2 * height;
  if (!drawnFromRecord(layer)) return undefined;
  return 2 * height;
}
