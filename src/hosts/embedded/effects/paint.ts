/*
 * Turning an effect's coverage plane into the RGBA raster the compositor blends: a solid colour, a gradient laid
 * over a box (Photoshop's linear, radial, angle, reflected and diamond styles) or a pattern tiled from an origin.
 * One loop per kind of paint, no call per pixel.
 */
import type { GradientStyle, PatternInfo } from "ag-psd";
import type { HostBounds } from "../../../protocol/index.js";
import type { Raster } from "../raster.js";
import type { Rgb8 } from "./colour.js";
import { RAMP_SIZE } from "../_internal/gradient-ramp.js";
import { gradientPosition } from "../fills/gradient.js";
import { hasPixels, sampleTile } from "../_internal/pattern-sample.js";
import type { Plane } from "./planes.js";

/** Where a gradient lies: its box, angle (degrees), scale (1 = 100 %), style and offset (fractions of the box). */
export interface GradientPlacement {
  readonly box: HostBounds;
  readonly angle: number;
  readonly scale: number;
  readonly style: GradientStyle;
  readonly offsetX: number;
  readonly offsetY: number;
}

/** What fills an effect's coverage. */
export type Paint =
  | { readonly kind: "solid"; readonly rgb: Rgb8 }
  | { readonly kind: "gradient"; readonly lut: Uint8ClampedArray; readonly placement: GradientPlacement }
  | { readonly kind: "pattern"; readonly tile: PatternInfo; readonly originX: number; readonly originY: number; readonly scale: number }
  /** Colour and alpha picked by the coverage (a glow drawn with a gradient): the strongest part takes the start. */
  | { readonly kind: "ramp"; readonly lut: Uint8ClampedArray };

/**
 * A glow drawn with a gradient takes its alpha from the gradient, not from its strength, so its faint end would
 * stop with a step: it fades in over the weakest quarter of the glow instead, as the stored composites show.
 */
const GRADIENT_GLOW_FADE = 4;

/** The raster of `coverage` filled with `paint`, covering the plane's box. */
export function paintRaster(coverage: Plane, paint: Paint): Raster {
  const { width, height } = coverage;
  const out = new Uint8ClampedArray(width * height * 4);
  const cov = coverage.data;
  if (paint.kind === "solid") {
    const [r, g, b] = paint.rgb;
    for (let i = 0, o = 0; i < cov.length; i++, o += 4) {
      const a = cov[i] as number;
      if (a <= 0) continue;
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = b;
      out[o + 3] = a * 255 + 0.5;
    }
  } else if (paint.kind === "ramp") {
    const lut = paint.lut;
    for (let i = 0, o = 0; i < cov.length; i++, o += 4) {
      const a = cov[i] as number;
      if (a <= 0) continue;
      const at = Math.round((1 - Math.min(1, a)) * (RAMP_SIZE - 1)) * 4;
      out[o] = lut[at] as number;
      out[o + 1] = lut[at + 1] as number;
      out[o + 2] = lut[at + 2] as number;
      out[o + 3] = Math.min(1, a * GRADIENT_GLOW_FADE) * (lut[at + 3] as number) + 0.5;
    }
  } else if (paint.kind === "gradient") {
    gradientInto(out, coverage, paint.lut, paint.placement);
  } else {
    patternInto(out, coverage, paint);
  }
  return { data: out, width, height };
}

/**
 * Gradients of effects lie as those of gradient fill layers do (`../fills/gradient.ts`, fitted on Photoshop's
 * renderings): ends rounded to whole pixels, each pixel sampled at its top-left corner.
 */
function gradientInto(out: Uint8ClampedArray, coverage: Plane, lut: Uint8ClampedArray, place: GradientPlacement): void {
  const { width, height, box } = coverage;
  const cov = coverage.data;
  const position = gradientPosition({ angle: place.angle, scale: Math.max(0.01, place.scale), style: place.style, offset: { x: place.offsetX, y: place.offsetY } }, place.box);
  const last = RAMP_SIZE - 1;
  for (let y = 0; y < height; y++) {
    const py = box.top + y;
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const a = cov[i] as number;
      if (a <= 0) continue;
      const t = position(box.left + x, py);
      const at = Math.round(Math.min(1, Math.max(0, t)) * last) * 4;
      const o = i * 4;
      out[o] = lut[at] as number;
      out[o + 1] = lut[at + 1] as number;
      out[o + 2] = lut[at + 2] as number;
      out[o + 3] = a * (lut[at + 3] as number) + 0.5;
    }
  }
}

function patternInto(out: Uint8ClampedArray, coverage: Plane, paint: Extract<Paint, { kind: "pattern" }>): void {
  const { width, height, box } = coverage;
  const cov = coverage.data;
  const tile = paint.tile;
  if (!hasPixels(tile)) return;
  const place = { originX: paint.originX, originY: paint.originY, scale: Math.max(0.01, paint.scale) };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const a = cov[i] as number;
      if (a <= 0) continue;
      const o = i * 4;
      sampleTile(tile, place, box.left + x, box.top + y, out, o);
      out[o + 3] = a * (out[o + 3] as number) + 0.5;
    }
  }
}
