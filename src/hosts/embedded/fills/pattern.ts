/*
 * Pattern fills: the document's pattern (found by id among `psd.patterns`) tiled over the canvas, a tile's
 * top-left corner at the layer's reference point moved by the phase (fitted: exact on real files), scaled by the
 * scale when one is given (resampled as `_internal/pattern-sample.ts` says).
 */
import type { PatternInfo } from "ag-psd";
import { BridgeError } from "../../../protocol/errors.js";
import type { HostBounds } from "../../../protocol/index.js";
import { hasPixels, sampleTile } from "../_internal/pattern-sample.js";
import { emptyRaster, type Raster } from "../raster.js";
import { RowBands, type RowWork } from "../work.js";

/** Where and how a pattern lies. */
export interface PatternPlacement {
  /** Where a tile's top-left corner lies, in document pixels (the reference point plus the phase). */
  readonly origin?: { readonly x: number; readonly y: number } | undefined;
  /** Size of one tile relative to the pattern (1 = 100 %). @default 1 */
  readonly scale?: number | undefined;
}

/** Renders the tiled pattern over `region` of the document. */
export function renderPattern(pattern: PatternInfo, placement: PatternPlacement, region: HostBounds, work?: RowWork): Raster {
  const tileWidth = pattern.bounds.w;
  const tileHeight = pattern.bounds.h;
  if (!hasPixels(pattern)) {
    throw new BridgeError("BAD_REQUEST", `Pattern "${pattern.name}" has no pixels`, { details: { pattern: pattern.id, width: tileWidth, height: tileHeight } });
  }
  const width = region.right - region.left;
  const height = region.bottom - region.top;
  const out = emptyRaster(width, height);
  const scale = placement.scale !== undefined && Number.isFinite(placement.scale) && placement.scale > 0 ? placement.scale : 1;
  const phaseX = Number.isFinite(placement.origin?.x) ? (placement.origin?.x ?? 0) : 0;
  const phaseY = Number.isFinite(placement.origin?.y) ? (placement.origin?.y ?? 0) : 0;
  const wrap = (v: number, n: number): number => ((v % n) + n) % n;
  const place = { originX: phaseX, originY: phaseY, scale };
  // At 100 % from a whole-pixel origin every pixel is a texel: copied without resampling.
  const whole = scale === 1 && Number.isInteger(phaseX) && Number.isInteger(phaseY);
  const src = pattern.data;
  const d = out.data;
  const bands = new RowBands(work);
  for (let y = 0; y < height; y++) {
    bands.next();
    if (!whole) {
      for (let x = 0; x < width; x++) sampleTile(pattern, place, region.left + x, region.top + y, d, (y * width + x) * 4);
      continue;
    }
    const ty = wrap(region.top + y - phaseY, tileHeight);
    for (let x = 0; x < width; x++) {
      const tx = wrap(region.left + x - phaseX, tileWidth);
      const s = (ty * tileWidth + tx) * 4;
      const o = (y * width + x) * 4;
      d[o] = src[s] ?? 0;
      d[o + 1] = src[s + 1] ?? 0;
      d[o + 2] = src[s + 2] ?? 0;
      d[o + 3] = src[s + 3] ?? 255;
    }
  }
  bands.end(height);
  return out;
}
