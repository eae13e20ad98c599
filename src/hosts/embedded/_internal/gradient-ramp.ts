/*
 * A Photoshop gradient (colour stops and opacity stops, each with its midpoint) sampled into a lookup table of
 * RGBA, shared by gradient fill layers and the gradient map adjustment.
 *
 * ag-psd divides each stop's location by the gradient's "smoothness" field instead of by 4096, so a gradient
 * saved with a smoothness below 100 % reads with locations beyond 1; {@link trueLocation} undoes that.
 */
import type { Color, ColorStop, InterpolationMethod, OpacityStop } from "ag-psd";
import { type ColorScale, colorToRgb, decodeSrgb, encodeSrgb } from "./psd-color.js";

/** Entries of a ramp: finer than any gradient Photoshop stores (stop locations are in 1/4096). */
export const RAMP_SIZE = 4096;

/** What a ramp is built from (ag-psd's solid gradient, from a fill layer or a gradient map). */
export interface RampSource {
  readonly colorStops: readonly ColorStop[];
  readonly opacityStops?: readonly OpacityStop[] | undefined;
  readonly smoothness?: number | undefined;
}

/** How the ramp is built. */
export interface RampOptions {
  /** Where the colours were read from (see `psd-color.ts`). */
  readonly scale: ColorScale;
  /** Run the gradient from its last stop to its first. @default false */
  readonly reverse?: boolean | undefined;
  /** How colours blend between stops: `linear` in linear light, anything else (`classic`…) in sRGB. @default "classic" */
  readonly method?: InterpolationMethod | undefined;
  /**
   * The stops' colours are linear light already, as a 32-bit document's records hold them: they blend as they are
   * (whatever the method) and the ramp holds them encoded to sRGB. @default false
   */
  readonly linearStops?: boolean | undefined;
}

/** `RAMP_SIZE` RGBA entries (straight alpha) from location 0 to 1. */
export function buildRamp(source: RampSource, options: RampOptions): Uint8ClampedArray {
  const smooth = Math.min(1, Math.max(0, Number.isFinite(source.smoothness) ? (source.smoothness ?? 1) : 1));
  const colorStops = sortedStops(source.colorStops, source.smoothness, (stop) => colorToRgb(stop.color as Color, options.scale));
  const opacityStops = sortedStops(source.opacityStops ?? [], source.smoothness, (stop) => [Math.min(1, Math.max(0, stop.opacity))]);
  const linear = options.method === "linear" || options.linearStops === true;
  const toLinear = options.linearStops === true ? (level: number): number => level / 255 : decodeSrgb;
  const ramp = new Uint8ClampedArray(RAMP_SIZE * 4);
  for (let i = 0; i < RAMP_SIZE; i++) {
    const x0 = i / (RAMP_SIZE - 1);
    const x = options.reverse ? 1 - x0 : x0;
    const rgb = sample(colorStops, x, smooth, linear ? toLinear : undefined);
    const alpha = opacityStops.length > 0 ? Math.min(1, Math.max(0, sample(opacityStops, x, smooth)[0] ?? 1)) : 1;
    // A smooth blend can overshoot a stop a little (a cubic through its neighbours): clamp before encoding.
    ramp[i * 4] = linear ? encodeSrgb(unit(rgb[0])) : (rgb[0] ?? 0);
    ramp[i * 4 + 1] = linear ? encodeSrgb(unit(rgb[1])) : (rgb[1] ?? 0);
    ramp[i * 4 + 2] = linear ? encodeSrgb(unit(rgb[2])) : (rgb[2] ?? 0);
    ramp[i * 4 + 3] = alpha * 255;
  }
  return ramp;
}

/**
 * The factor that turns ag-psd's stop locations back into fractions of the gradient: its smoothness (see the file
 * comment), or 1 when that is missing or zero (ag-psd then divided by 4096 after all).
 */
function locationFactor(smoothness: number | undefined): number {
  return smoothness !== undefined && Number.isFinite(smoothness) && smoothness > 0 ? smoothness : 1;
}

/** A stop's location as a fraction 0–1 of the gradient. */
export function trueLocation(location: number, smoothness: number | undefined): number {
  const at = location * locationFactor(smoothness);
  return Number.isFinite(at) ? Math.min(1, Math.max(0, at)) : 0;
}

interface Stop {
  readonly at: number;
  readonly midpoint: number;
  readonly value: readonly number[];
}

function sortedStops<T extends { location: number; midpoint: number }>(stops: readonly T[], smoothness: number | undefined, value: (stop: T) => readonly number[]): Stop[] {
  return stops
    .map((stop) => ({
      at: trueLocation(stop.location, smoothness),
      midpoint: Number.isFinite(stop.midpoint) ? Math.min(0.99, Math.max(0.01, stop.midpoint)) : 0.5,
      value: value(stop),
    }))
    .sort((a, b) => a.at - b.at);
}

/**
 * The stops' value at `x`: flat before the first and after the last; between two stops the mix follows the
 * later stop's midpoint (where the two are half and half), linear on each side of it, then bent toward a smooth
 * curve by `smooth` (the gradient's smoothness, 0 linear, 1 fully smooth).
 *
 * The smooth curve is a cubic Hermite through the stops whose slope at each inner stop is the secant of its two
 * neighbours (Catmull–Rom) and at the first and last stop half the secant to its neighbour, kept between the two
 * stops it joins. Measured on Photoshop's renderings: a blue–yellow–blue stroke gradient at 100 % follows it to a
 * level (its peak is flat, its ends ease in), three-stop grey and CMYK ramps match it where a steep neighbour
 * would swing the cubic past a stop, and for two stops it is exactly half linear, half smoothstep, the blend
 * two-stop renderings showed.
 */
function sample(stops: readonly Stop[], x: number, smooth: number, toSpace?: (level: number) => number): number[] {
  const first = stops[0];
  if (!first) return [0, 0, 0];
  const convert = (value: readonly number[]): number[] => (toSpace ? value.map(toSpace) : [...value]);
  if (x <= first.at) return convert(first.value);
  for (let i = 1; i < stops.length; i++) {
    const b = stops[i]!;
    if (x > b.at) continue;
    const a = stops[i - 1]!;
    const span = b.at - a.at;
    const t = span <= 0 ? 1 : (x - a.at) / span;
    const m = b.midpoint;
    const u = t < m ? (0.5 * t) / m : 0.5 + (0.5 * (t - m)) / (1 - m);
    const va = convert(a.value);
    const vb = convert(b.value);
    if (smooth <= 0 || span <= 0) return va.map((v, c) => v + ((vb[c] ?? v) - v) * u);
    // Hermite basis at u; the slopes are per unit of location, scaled to the segment.
    const h10 = u * u * u - 2 * u * u + u;
    const h01 = -2 * u * u * u + 3 * u * u;
    const h11 = u * u * u - u * u;
    const before = i >= 2 ? stops[i - 2] : undefined;
    const after = stops[i + 1];
    const vBefore = before ? convert(before.value) : undefined;
    const vAfter = after ? convert(after.value) : undefined;
    return va.map((v, c) => {
      const w = vb[c] ?? v;
      const secant = (w - v) / span;
      const slopeA = vBefore && before && a.at - before.at + span > 0 ? (w - (vBefore[c] ?? v)) / (b.at - before.at) : secant / 2;
      const slopeB = vAfter && after && after.at - a.at > 0 ? ((vAfter[c] ?? w) - v) / (after.at - a.at) : secant / 2;
      // Never past either stop of the segment: a steep neighbour would swing the cubic beyond them.
      const cubic = Math.min(Math.max(v, w), Math.max(Math.min(v, w), v + (w - v) * h01 + span * (slopeA * h10 + slopeB * h11)));
      const straight = v + (w - v) * u;
      return straight + smooth * (cubic - straight);
    });
  }
  return convert(stops[stops.length - 1]!.value);
}

/** A channel in linear light, clamped to 0–1. */
function unit(v: number | undefined): number {
  return Math.min(1, Math.max(0, v ?? 0));
}
