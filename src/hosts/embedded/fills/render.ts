/*
 * `renderFill`: a fill layer's content (ag-psd's `VectorContent`: solid colour, gradient or pattern) rendered
 * over a region of the document, straight RGBA. The compositor then applies the layer's vector mask, user mask,
 * opacity and blend mode.
 */
import type { PatternInfo, VectorContent } from "ag-psd";
import type { HostBounds } from "../../../protocol/index.js";
import { BridgeError } from "../../../protocol/errors.js";
import { colorToRgb, encodeSrgb } from "../_internal/psd-color.js";
import { type Raster, solidRaster } from "../raster.js";
import type { RowWork } from "../work.js";
import { renderGradient } from "./gradient.js";
import { renderPattern } from "./pattern.js";

/**
 * Most pixels one fill renders: as many as the largest document holds (a fill covers at most the canvas), 4 bytes
 * each. @default 100_000_000
 */
export const MAX_FILL_PIXELS = 100_000_000;

/** What a fill needs to know about its document. */
export interface FillContext {
  /** Canvas size (a gradient not aligned with its layer spans the canvas). */
  readonly width: number;
  readonly height: number;
  /** The document's patterns (ag-psd's `psd.patterns`), for pattern fills. */
  readonly patterns?: readonly PatternInfo[] | undefined;
  /** The layer's box, for gradients aligned with the layer (the vector mask's bounds, or the layer's pixels). */
  readonly layerBounds?: HostBounds | undefined;
  /**
   * Where the layer's patterns are anchored: its reference point (ag-psd's `layer.referencePoint`, where
   * Photoshop puts a pattern's top-left corner before the phase). @default {x: 0, y: 0}
   */
  readonly origin?: { readonly x: number; readonly y: number } | undefined;
  /** Size of a pattern tile relative to the pattern, when the file says (ag-psd does not read it). @default 1 */
  readonly patternScale?: number | undefined;
  /**
   * The colours are linear light, as the records of a 32-bit document hold them: they blend as such and are
   * encoded to sRGB. @default false
   */
  readonly linear?: boolean | undefined;
  /** Told every `ROW_BAND` rows; may throw to stop (a cancelled call). */
  readonly work?: RowWork | undefined;
}

/**
 * The fill covering `region` (document coordinates), a new straight-RGBA raster of its size.
 *
 * @throws BridgeError `NOT_SUPPORTED` for noise gradients (`details.fill: "noise"`), `BAD_REQUEST` for a
 * pattern the document does not hold (`details.pattern`) or one without pixels, `PAYLOAD_TOO_LARGE` above
 * {@link MAX_FILL_PIXELS}.
 * @example
 * const pixels = renderFill(layer.vectorFill, { left: 0, top: 0, right: psd.width, bottom: psd.height },
 *   { width: psd.width, height: psd.height, patterns: psd.patterns, layerBounds });
 */
export function renderFill(content: VectorContent, region: HostBounds, context: FillContext): Raster {
  const width = Math.max(0, region.right - region.left);
  const height = Math.max(0, region.bottom - region.top);
  if (width * height > MAX_FILL_PIXELS) {
    throw new BridgeError("PAYLOAD_TOO_LARGE", `Fill of ${width}×${height} exceeds ${MAX_FILL_PIXELS} pixels`, {
      details: { limit: "maxFillPixels", width, height, max: MAX_FILL_PIXELS },
    });
  }
  const area = { left: region.left, top: region.top, right: region.left + width, bottom: region.top + height };
  switch (content.type) {
    case "color": {
      const rgb = colorToRgb(content.color, "descriptor");
      const [r, g, b] = context.linear === true ? rgb.map((v) => encodeSrgb(v / 255)) : rgb;
      return solidRaster(width, height, [Math.round(r ?? 0), Math.round(g ?? 0), Math.round(b ?? 0), 255]);
    }
    case "solid": {
      const canvas = { left: 0, top: 0, right: context.width, bottom: context.height };
      // Aligned with its layer, a gradient spans the layer's box in whole pixels (a shape's path bounds, stored
      // as 31.999998 for 32, round to them).
      const layerBox = context.layerBounds ? wholePixels(context.layerBounds) : canvas;
      const box = content.align === false ? canvas : layerBox;
      return renderGradient(content, area, box, context.work, context.linear === true);
    }
    case "pattern": {
      const pattern = context.patterns?.find((p) => p.id === content.id);
      if (!pattern) {
        throw new BridgeError("BAD_REQUEST", `The document holds no pattern "${content.name}" (${content.id})`, {
          details: { pattern: content.id, name: content.name },
        });
      }
      const origin = { x: (context.origin?.x ?? 0) + (content.phase?.x ?? 0), y: (context.origin?.y ?? 0) + (content.phase?.y ?? 0) };
      return renderPattern(pattern, { origin, scale: context.patternScale }, area, context.work);
    }
    default:
      throw new BridgeError("NOT_SUPPORTED", "Noise gradient fills are not rendered", { details: { fill: content.type } });
  }
}

/** A box with its edges rounded to the nearest whole pixel. */
function wholePixels(box: HostBounds): HostBounds {
  return { left: Math.round(box.left), top: Math.round(box.top), right: Math.round(box.right), bottom: Math.round(box.bottom) };
}
