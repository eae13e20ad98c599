/*
 * A Photoshop gradient (colour stops and opacity stops, each with its midpoint) sampled into a lookup table of
 * RGBA, shared by gradient fill layers and the gradient map adjustment.
 *
 * ag-psd divides each stop's location by the gradient's "smoothness" field instead of by 4096, so a gradient
 * saved with a smoothness below 100 % reads with locations beyond 1; {@link trueLocation} undoes that.
 */
import type { Color, ColorStop, InterpolationMethod, OpacityStop } from "ag-psd";
import { type ColorScale, colorToRgb, decodeSrgb, encodeSrgb } from "./psd-color.js";

/**
 * How far a gradient's "smoothness" (100 % by default) bends the blend between two stops toward a smoothstep:
 * fitted on Photoshop's renderings of two-stop gradients at 100 %, where half linear, half smoothstep is within
 * 1.5 % of the ramp (pure smoothstep is 4 % off, linear 3.5 %).
 */
const SMOOTHNESS_EASE = 0.5;

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
  const ease = SMOOTHNESS_EASE * Math.min(1, Math.max(0, Number.isFinite(source.smoothness) ? (source.smoothness ?? 1) : 1));
  const colorStops = sortedStops(source.colorStops, source.smoothness, (stop) => colorToRgb(stop.color as Color, options.scale));
  const opacityStops = sortedStops(source.opacityStops ?? [], source.smoothness, (stop) => [Math.min(1, Math.max(0, stop.opacity))]);
  const linear = options.method === "linear" || options.linearStops === true;
  const toLinear = options.linearStops === true ? (level: number): number => level / 255 : decodeSrgb;
  const ramp = new Uint8ClampedArray(RAMP_SIZE * 4);
  for (let i = 0; i < RAMP_SIZE; i++) {
    const x0 = i / (RAMP_SIZE - 1);
    const x = options.reverse ? 1 - x0 : x0;
    const rgb = sample(colorStops, x, ease, linear ? toLinear : undefined);
    const alpha = opacityStops.length > 0 ? (sample(opacityStops, x, ease)[0] ?? 1) : 1;
    ramp[i * 4] = linear ? encodeSrgb(rgb[0] ?? 0) : (rgb[0] ?? 0);
    ramp[i * 4 + 1] = linear ? encodeSrgb(rgb[1] ?? 0) : (rgb[1] ?? 0);
    ramp[i * 4 + 2] = linear ? encodeSrgb(rgb[2] ?? 0) : (rgb[2] ?? 0);
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
 * later stop's midpoint (where the two are half and half), linear on each side of it, then eased by `ease`
 * (0 linear, 1 smoothstep).
 */
function sample(stops: readonly Stop[], x: number, ease: number, toSpace?: (level: number) => number): number[] {
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
    const linear = t < m ? (0.5 * t) / m : 0.5 + (0.5 * (t - m)) / (1 - m);
    const w = linear + ease * (linear * linear * (3 - 2 * linear) - linear);
    const va = convert(a.value);
    const vb = convert(b.value);
    return va.map((v, c) => v + ((vb[c] ?? v) - v) * w);
  }
  return convert(stops[stops.length - 1]!.value);
}
