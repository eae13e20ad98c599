/*
 * Hue/Saturation, with its six colour ranges and Colorize. ag-psd reads the record's first 14 bytes as a
 * "master" channel although they hold the Colorize switch and values: `master.a` is the switch (a byte, then a
 * pad byte), `master.b/c/d` Colorize's hue, saturation and lightness, and `master.hue/saturation/lightness` the
 * master settings. The six ranges (`reds`…`magentas`) are as ag-psd names them: `a…d` the range's hue bounds in
 * degrees (fading in from a to b, full from b to c, fading out from c to d).
 */
import type { HueSaturationAdjustment, HueSaturationAdjustmentChannel } from "ag-psd";
import { type ColorProgram, finite } from "./program.js";

const RANGES = ["reds", "yellows", "greens", "cyans", "blues", "magentas"] as const;

interface Range {
  readonly bounds: readonly [number, number, number, number];
  readonly hue: number;
  readonly saturation: number;
  readonly lightness: number;
}

/** The Hue/Saturation adjustment as a colour function. */
export function hueSaturationProgram(adjustment: HueSaturationAdjustment): ColorProgram {
  const record = adjustment.master;
  if (record && finite(record.a, 0) !== 0) return colorizeProgram(record);
  const hue = finite(record?.hue, 0) / 360;
  const saturation = clampUnit(finite(record?.saturation, 0) / 100);
  // Photoshop works the master lightness as a whole number of levels (−37 % is −94/255): it decides which way
  // near-grey colours turn.
  const lightness = Math.round(2.55 * clampUnit(finite(record?.lightness, 0) / 100) * 100) / 255;
  const ranges = RANGES.map((name) => adjustment[name])
    .filter((range): range is HueSaturationAdjustmentChannel => range !== undefined)
    .map(toRange)
    .filter((range) => range.hue !== 0 || range.saturation !== 0 || range.lightness !== 0);
  const hsl = new Float64Array(3);
  return {
    kind: "color",
    fn: (r, g, b, out) => {
      toHsl(r, g, b, hsl);
      const h0 = hsl[0] ?? 0;
      let hueShift = hue;
      let rangeLightness = 0;
      let satFactor = 1;
      for (const range of ranges) {
        const w = rangeWeight(h0, range.bounds);
        if (w === 0) continue;
        hueShift += (w * range.hue) / 360;
        rangeLightness += w * range.lightness;
        satFactor += w * saturationGain(range.saturation);
      }
      // The master lightness comes out in whole levels: near-grey colours take their hue from the rounded values.
      out[0] = Math.round(lighten(r, lightness));
      out[1] = Math.round(lighten(g, lightness));
      out[2] = Math.round(lighten(b, lightness));
      shiftLightness(out, clampUnit(rangeLightness));
      toHsl(out[0] ?? 0, out[1] ?? 0, out[2] ?? 0, hsl);
      const s = Math.min(1, Math.max(0, (hsl[1] ?? 0) * (1 + saturationGain(saturation)) * satFactor));
      fromHsl((hsl[0] ?? 0) + hueShift, s, hsl[2] ?? 0, out);
    },
  };
}

/**
 * A colour range's lightness on an RGB colour: lowering pulls every channel toward the smallest one (full −100
 * leaves a grey at it), raising pushes them toward the largest (fitted on Photoshop's output: within a level).
 */
function shiftLightness(rgb: Float64Array, amount: number): void {
  if (amount === 0) return;
  const r = rgb[0] ?? 0;
  const g = rgb[1] ?? 0;
  const b = rgb[2] ?? 0;
  const anchor = amount < 0 ? Math.min(r, g, b) : Math.max(r, g, b);
  const keep = 1 - Math.abs(amount);
  rgb[0] = anchor + (r - anchor) * keep;
  rgb[1] = anchor + (g - anchor) * keep;
  rgb[2] = anchor + (b - anchor) * keep;
}

/** Colorize: every pixel takes the hue and saturation given, keeping its own HSL lightness shifted by the lightness. */
function colorizeProgram(record: HueSaturationAdjustmentChannel): ColorProgram {
  const hue = finite(record.b, 0) / 360;
  const saturation = Math.min(1, Math.max(0, finite(record.c, 25) / 100));
  const lightness = clampUnit(finite(record.d, 0) / 100);
  return {
    kind: "color",
    fn: (r, g, b, out) => {
      const l = (Math.max(r, g, b) + Math.min(r, g, b)) / 510;
      fromHsl(hue, saturation, lightenLevel(l, lightness), out);
    },
  };
}

function toRange(channel: HueSaturationAdjustmentChannel): Range {
  return {
    bounds: [finite(channel.a, 0), finite(channel.b, 0), finite(channel.c, 0), finite(channel.d, 0)],
    hue: finite(channel.hue, 0),
    saturation: clampUnit(finite(channel.saturation, 0) / 100),
    lightness: clampUnit(finite(channel.lightness, 0) / 100),
  };
}

/** How much of a range applies to hue `h` (a fraction of a turn): 0 outside a…d, 1 from b to c, linear between. */
function rangeWeight(h: number, [a, b, c, d]: readonly [number, number, number, number]): number {
  const deg = (x: number): number => ((x % 360) + 360) % 360;
  const at = deg(h * 360 - a);
  const rise = deg(b - a);
  const full = deg(c - a);
  const end = deg(d - a);
  if (at <= rise) return rise === 0 ? 1 : at / rise;
  if (at <= full) return 1;
  if (at < end) return (end - at) / (end - full);
  return 0;
}

const clampUnit = (v: number): number => Math.min(1, Math.max(-1, v));

/**
 * Keeps +100 % saturation finite: a range at +100 % that a hue only brushes (weight 0.09) lifts a −97 % master to
 * about a third, as in Photoshop (fitted on real files: 0.006 puts every sample within 1.7 levels RMS).
 */
const SATURATION_SOFTNESS = 0.006;

/**
 * What a saturation setting (−1…1) adds to the factor an HSL saturation is multiplied by: `a` below zero, about
 * `a / (1 − a)` above. The colour ranges' gains, each weighted by how much of its range the hue is in, add up to
 * one factor applied after the master's (fitted on Photoshop's output: two ranges overlapping at +89 % and −92 %
 * saturate, as they do there).
 */
function saturationGain(amount: number): number {
  return amount >= 0 ? amount / (1 - amount + SATURATION_SOFTNESS) : amount;
}

/** Lightness change `amount` (−1…1) on a 0–255 channel: toward white or black. */
function lighten(v: number, amount: number): number {
  return amount > 0 ? v + (255 - v) * amount : v * (1 + amount);
}

/** Lightness change `amount` (−1…1) on a 0–1 level. */
function lightenLevel(v: number, amount: number): number {
  return amount > 0 ? v + (1 - v) * amount : v * (1 + amount);
}

/** RGB 0–255 to HSL (hue as a fraction of a turn, saturation and lightness 0–1). */
export function toHsl(r: number, g: number, b: number, out: Float64Array): void {
  const max = Math.max(r, g, b) / 255;
  const min = Math.min(r, g, b) / 255;
  const l = (max + min) / 2;
  const d = max - min;
  let h = 0;
  let s = 0;
  if (d > 0) {
    s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
    const rn = r / 255;
    const gn = g / 255;
    const bn = b / 255;
    h = max === rn ? (gn - bn) / d + (gn < bn ? 6 : 0) : max === gn ? (bn - rn) / d + 2 : (rn - gn) / d + 4;
    h /= 6;
  }
  out[0] = h;
  out[1] = s;
  out[2] = l;
}

/** HSL (hue as a fraction of a turn, any value; saturation and lightness 0–1) to RGB 0–255 in `out`. */
export function fromHsl(h: number, s: number, l: number, out: Float64Array): void {
  const hue = ((h % 1) + 1) % 1;
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const channel = (t: number): number => {
    const x = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    if (x < 1 / 6) return p + (q - p) * 6 * x;
    if (x < 1 / 2) return q;
    if (x < 2 / 3) return p + (q - p) * (2 / 3 - x) * 6;
    return p;
  };
  out[0] = 255 * channel(hue + 1 / 3);
  out[1] = 255 * channel(hue);
  out[2] = 255 * channel(hue - 1 / 3);
}
