/*
 * Colours, gradients and contours of layer effects as Photoshop records them (ag-psd's parsed descriptors), turned
 * into bytes and lookup tables the pixel loops index without calls.
 */
import type { Color, EffectContour, EffectNoiseGradient, EffectSolidGradient, InterpolationMethod } from "ag-psd";
import { buildRamp } from "../_internal/gradient-ramp.js";
import { colorToRgb } from "../color.js";
import { LUT_SIZE } from "./limits.js";

/** An sRGB colour as three bytes. */
export type Rgb8 = readonly [number, number, number];

/** RGB bytes of a descriptor colour (see `../color.ts`); a missing one is black, Photoshop's default shadow colour. */
export function rgbOf(color: Color | undefined): Rgb8 {
  return color ? colorToRgb(color) : [0, 0, 0];
}

/**
 * A gradient as `RAMP_SIZE` RGBA entries from its start (index 0) to its end, built as gradient fills build theirs
 * (`../_internal/gradient-ramp.ts`: midpoints, smoothness, interpolation method). Noise gradients are not
 * reproduced (their colours come from a seeded generator): they render as a ramp from their minimum to their
 * maximum colour.
 */
export function gradientLut(gradient: EffectSolidGradient | EffectNoiseGradient | undefined, reverse = false, method?: InterpolationMethod): Uint8ClampedArray {
  if (gradient?.type === "solid") return buildRamp(gradient, { scale: "descriptor", reverse, method });
  const low = gradient?.min ?? [0, 0, 0];
  const high = gradient?.max ?? [1, 1, 1];
  const color = (v: readonly number[]): Color => ({ fr: v[0] ?? 0, fg: v[1] ?? 0, fb: v[2] ?? 0 });
  const colorStops = [
    { color: color(low), location: 0, midpoint: 0.5 },
    { color: color(high), location: 1, midpoint: 0.5 },
  ];
  return buildRamp({ colorStops, smoothness: 0 }, { scale: "descriptor", reverse });
}

/**
 * A contour (the curve an effect's falloff goes through) as `LUT_SIZE` values in 0–1, or undefined for the
 * linear one (nothing to do). Points are joined by straight lines; Photoshop rounds smooth points into a curve,
 * which differs by a few levels on custom contours.
 */
export function contourLut(contour: EffectContour | undefined): Float32Array | undefined {
  const points = (contour?.curve ?? []).slice().sort((a, b) => a.x - b.x);
  const linear = points.length < 2 || points.every((p) => Math.abs(p.x - p.y) < 0.5);
  if (linear) return undefined;
  const lut = new Float32Array(LUT_SIZE);
  for (let i = 0; i < LUT_SIZE; i++) {
    const x = (255 * i) / (LUT_SIZE - 1);
    const at = points.findIndex((p) => p.x >= x);
    let y: number;
    if (at <= 0) y = points[at === 0 ? 0 : points.length - 1]!.y;
    else {
      const a = points[at - 1]!;
      const b = points[at]!;
      y = b.x > a.x ? a.y + ((b.y - a.y) * (x - a.x)) / (b.x - a.x) : b.y;
    }
    lut[i] = Math.min(1, Math.max(0, y / 255));
  }
  return lut;
}
