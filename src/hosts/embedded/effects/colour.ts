/*
 * Colours, gradients and contours of layer effects as Photoshop records them (ag-psd's parsed descriptors), turned
 * into bytes and lookup tables the pixel loops index without calls.
 */
import type { Color, EffectContour, EffectNoiseGradient, EffectSolidGradient } from "ag-psd";
import { colorToRgb } from "../color.js";
import { LUT_SIZE } from "./limits.js";

/** An sRGB colour as three bytes. */
export type Rgb8 = readonly [number, number, number];

const byte = (v: number): number => Math.min(255, Math.max(0, Math.round(v)));

/** RGB bytes of a descriptor colour (see `../color.ts`); a missing one is black, Photoshop's default shadow colour. */
export function rgbOf(color: Color | undefined): Rgb8 {
  return color ? colorToRgb(color) : [0, 0, 0];
}

/**
 * Position between two stops after the midpoint and smoothness are applied: the midpoint is where the mix is
 * half way; smoothness 1 (Photoshop's 100 %) eases each segment half way toward a smoothstep, which is what
 * the files' stored composites show (a plain linear mix is off by up to 6 levels near the stops).
 */
function segmentMix(u: number, midpoint: number, smoothness: number): number {
  const m = Math.min(0.99, Math.max(0.01, midpoint));
  const t = u < m ? (0.5 * u) / m : 0.5 + (0.5 * (u - m)) / (1 - m);
  return t + (smoothness / 2) * (t * t * (3 - 2 * t) - t);
}

function sample<T extends { location: number; midpoint: number }>(stops: readonly T[], t: number, smoothness: number, value: (stop: T) => number): number {
  const first = stops[0]!;
  if (t <= first.location) return value(first);
  for (let i = 1; i < stops.length; i++) {
    const b = stops[i]!;
    if (t > b.location) continue;
    const a = stops[i - 1]!;
    const span = b.location - a.location;
    const u = span > 0 ? (t - a.location) / span : 1;
    const mix = segmentMix(u, b.midpoint, smoothness);
    return value(a) + (value(b) - value(a)) * mix;
  }
  return value(stops[stops.length - 1]!);
}

/**
 * A gradient as `LUT_SIZE` RGBA entries (bytes) from its start (index 0) to its end. Noise gradients are not
 * reproduced (their colours come from a seeded generator): they render as a ramp from their minimum to their
 * maximum colour.
 */
export function gradientLut(gradient: EffectSolidGradient | EffectNoiseGradient | undefined, reverse = false): Uint8ClampedArray {
  const lut = new Uint8ClampedArray(LUT_SIZE * 4);
  // A gradient without colour stops paints nothing (transparent), rather than failing the render.
  if (gradient?.type === "solid" && gradient.colorStops.length === 0) return lut;
  const colors = gradient?.type === "solid" ? sortStops(gradient.colorStops.map((stop) => ({ ...stop, rgb: rgbOf(stop.color) }))) : noiseStops(gradient);
  const alphas = gradient?.type === "solid" && gradient.opacityStops.length > 0 ? sortStops(gradient.opacityStops) : [{ opacity: 1, location: 0, midpoint: 0.5 }];
  const smoothness = gradient?.type === "solid" && Number.isFinite(gradient.smoothness ?? 1) ? Math.min(1, Math.max(0, gradient.smoothness ?? 1)) : 0;
  for (let i = 0; i < LUT_SIZE; i++) {
    const t = reverse ? 1 - i / (LUT_SIZE - 1) : i / (LUT_SIZE - 1);
    for (let c = 0; c < 3; c++) lut[i * 4 + c] = sample(colors, t, smoothness, (stop) => stop.rgb[c]!);
    lut[i * 4 + 3] = 255 * sample(alphas, t, smoothness, (stop) => stop.opacity);
  }
  return lut;
}

/** Stops in order, with damaged numbers replaced (a location or midpoint that is not a number). */
function sortStops<T extends { location: number; midpoint: number }>(stops: readonly T[]): T[] {
  const clean = (v: number, fallback: number): number => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : fallback);
  return stops.map((stop) => ({ ...stop, location: clean(stop.location, 0), midpoint: clean(stop.midpoint, 0.5) })).sort((a, b) => a.location - b.location);
}

function noiseStops(gradient: EffectNoiseGradient | undefined): Array<{ location: number; midpoint: number; rgb: Rgb8 }> {
  const low = gradient?.min ?? [0, 0, 0];
  const high = gradient?.max ?? [1, 1, 1];
  const rgb = (v: readonly number[]): Rgb8 => [byte((v[0] ?? 0) * 255), byte((v[1] ?? 0) * 255), byte((v[2] ?? 0) * 255)];
  return [
    { location: 0, midpoint: 0.5, rgb: rgb(low) },
    { location: 1, midpoint: 0.5, rgb: rgb(high) },
  ];
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
