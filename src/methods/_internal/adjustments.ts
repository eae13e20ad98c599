/**
 * The defaults of every adjustment and filter setting (Photoshop's, where its dialog has one), applied to what a
 * caller passed: editors receive every field resolved and colours parsed (see `protocol/adjustments.ts` for the
 * units and ranges).
 */
import { parseColor } from "../../hosts/_internal/color.js";
import {
  type AdjustmentInput,
  type FilterInput,
  HUE_RANGES,
  type ResolvedAdjustment,
  type ResolvedFilter,
  SELECTIVE_CLASSES,
} from "../../protocol/index.js";

/** Photoshop's Warming Filter (85), the Photo Filter dialog's first choice. */
export const DEFAULT_PHOTO_FILTER_COLOR = "#ec8a00";
/** Black & White's default weights per hue sector, percent (Photoshop's "Default" preset). */
export const BLACK_AND_WHITE_DEFAULTS = { reds: 40, yellows: 60, greens: 40, cyans: 60, blues: 20, magentas: 80 } as const;
/** Monochrome Channel Mixer's default row (Photoshop's): 40 % red, 40 % green, 20 % blue. */
const MONOCHROME_DEFAULT = { red: 40, green: 40, blue: 20, constant: 0 } as const;

type LevelsIn = { inputBlack?: number | undefined; inputWhite?: number | undefined; gamma?: number | undefined; outputBlack?: number | undefined; outputWhite?: number | undefined };
type RowIn = { red?: number | undefined; green?: number | undefined; blue?: number | undefined; constant?: number | undefined } | undefined;

const levels = (c: LevelsIn | undefined) =>
  c === undefined ? null : { inputBlack: c.inputBlack ?? 0, inputWhite: c.inputWhite ?? 255, gamma: c.gamma ?? 1, outputBlack: c.outputBlack ?? 0, outputWhite: c.outputWhite ?? 255 };
const row = (r: RowIn, fallback: { red: number; green: number; blue: number; constant: number }) => ({
  red: r?.red ?? fallback.red,
  green: r?.green ?? fallback.green,
  blue: r?.blue ?? fallback.blue,
  constant: r?.constant ?? fallback.constant,
});
const shift = (s: { cyanRed?: number | undefined; magentaGreen?: number | undefined; yellowBlue?: number | undefined } | undefined) => ({
  cyanRed: s?.cyanRed ?? 0,
  magentaGreen: s?.magentaGreen ?? 0,
  yellowBlue: s?.yellowBlue ?? 0,
});

/** An adjustment with every default filled in. @throws BridgeError `BAD_REQUEST` naming a colour field it cannot read. */
export function resolveAdjustment(a: AdjustmentInput): ResolvedAdjustment {
  switch (a.type) {
    case "brightnessContrast":
      return { type: a.type, brightness: a.brightness ?? 0, contrast: a.contrast ?? 0, legacy: a.legacy ?? false };
    case "levels":
      return { type: a.type, rgb: levels(a.rgb), red: levels(a.red), green: levels(a.green), blue: levels(a.blue) };
    case "curves": {
      const curve = (points: readonly { input: number; output: number }[] | undefined) => (points === undefined ? null : [...points].sort((p, q) => p.input - q.input));
      return { type: a.type, rgb: curve(a.rgb), red: curve(a.red), green: curve(a.green), blue: curve(a.blue) };
    }
    case "exposure":
      return { type: a.type, exposure: a.exposure ?? 0, offset: a.offset ?? 0, gamma: a.gamma ?? 1 };
    case "hueSaturation": {
      const ranges = Object.fromEntries(
        HUE_RANGES.map((name) => {
          const r = a.ranges?.[name];
          return [name, r === undefined ? null : { hue: r.hue ?? 0, saturation: r.saturation ?? 0, lightness: r.lightness ?? 0, bounds: r.bounds ?? null }];
        }),
      ) as Extract<ResolvedAdjustment, { type: "hueSaturation" }>["ranges"];
      const colorize = a.colorize === undefined ? null : { hue: a.colorize.hue, saturation: a.colorize.saturation, lightness: a.colorize.lightness ?? 0 };
      return { type: a.type, hue: a.hue ?? 0, saturation: a.saturation ?? 0, lightness: a.lightness ?? 0, ranges, colorize };
    }
    case "vibrance":
      return { type: a.type, vibrance: a.vibrance ?? 0, saturation: a.saturation ?? 0 };
    case "colorBalance":
      return { type: a.type, shadows: shift(a.shadows), midtones: shift(a.midtones), highlights: shift(a.highlights), preserveLuminosity: a.preserveLuminosity ?? true };
    case "blackAndWhite":
      return {
        type: a.type,
        reds: a.reds ?? BLACK_AND_WHITE_DEFAULTS.reds,
        yellows: a.yellows ?? BLACK_AND_WHITE_DEFAULTS.yellows,
        greens: a.greens ?? BLACK_AND_WHITE_DEFAULTS.greens,
        cyans: a.cyans ?? BLACK_AND_WHITE_DEFAULTS.cyans,
        blues: a.blues ?? BLACK_AND_WHITE_DEFAULTS.blues,
        magentas: a.magentas ?? BLACK_AND_WHITE_DEFAULTS.magentas,
        tint: a.tint === undefined ? null : parseColor(a.tint, "adjustment.tint"),
      };
    case "photoFilter":
      return {
        type: a.type,
        color: parseColor(a.color ?? DEFAULT_PHOTO_FILTER_COLOR, "adjustment.color"),
        density: a.density ?? 25,
        preserveLuminosity: a.preserveLuminosity ?? true,
      };
    case "channelMixer":
      if (a.monochrome !== undefined) {
        const gray = row(a.monochrome, MONOCHROME_DEFAULT);
        return { type: a.type, red: gray, green: gray, blue: gray, monochrome: true };
      }
      return {
        type: a.type,
        red: row(a.red, { red: 100, green: 0, blue: 0, constant: 0 }),
        green: row(a.green, { red: 0, green: 100, blue: 0, constant: 0 }),
        blue: row(a.blue, { red: 0, green: 0, blue: 100, constant: 0 }),
        monochrome: false,
      };
    case "invert":
      return { type: a.type };
    case "posterize":
      return { type: a.type, levels: a.levels ?? 4 };
    case "threshold":
      return { type: a.type, level: a.level ?? 128 };
    case "gradientMap": {
      const stops = (a.stops ?? [{ location: 0, color: "black" }, { location: 100, color: "white" }]).map((stop, i) => ({
        location: stop.location,
        color: parseColor(stop.color, `adjustment.stops.${i}.color`),
      }));
      return { type: a.type, stops: stops.sort((p, q) => p.location - q.location), reverse: a.reverse ?? false };
    }
    case "selectiveColor": {
      const inks = Object.fromEntries(
        SELECTIVE_CLASSES.map((name) => {
          const k = a[name];
          return [name, { cyan: k?.cyan ?? 0, magenta: k?.magenta ?? 0, yellow: k?.yellow ?? 0, black: k?.black ?? 0 }];
        }),
      ) as Omit<Extract<ResolvedAdjustment, { type: "selectiveColor" }>, "type" | "mode">;
      return { type: a.type, mode: a.mode ?? "relative", ...inks };
    }
  }
}

/** A filter with every default filled in. */
export function resolveFilter(f: FilterInput): ResolvedFilter {
  switch (f.type) {
    case "gaussianBlur":
      return { type: f.type, radius: f.radius ?? 1 };
    case "motionBlur":
      return { type: f.type, angle: f.angle ?? 0, distance: f.distance ?? 10 };
    case "boxBlur":
      return { type: f.type, radius: f.radius ?? 1 };
    case "unsharpMask":
      return { type: f.type, amount: f.amount ?? 50, radius: f.radius ?? 1, threshold: f.threshold ?? 0 };
    case "sharpen":
      return { type: f.type };
    case "addNoise":
      return { type: f.type, amount: f.amount ?? 10, distribution: f.distribution ?? "uniform", monochromatic: f.monochromatic ?? false };
    case "median":
      return { type: f.type, radius: f.radius ?? 1 };
    case "pixelate":
      return { type: f.type, size: f.size ?? 10 };
    case "emboss":
      return { type: f.type, azimuth: f.azimuth ?? 135, elevation: f.elevation ?? 45, depth: f.depth ?? 3 };
    case "highPass":
      return { type: f.type, radius: f.radius ?? 10 };
  }
}
