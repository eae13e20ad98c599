/*
 * A typed adjustment (`layer:adjust`'s settings, see `protocol/adjustments.ts`) as the PSD record the renderer
 * already computes from (ag-psd's `AdjustmentLayer`): one implementation of each adjustment, whether it comes from
 * a file or from a call. And back: a record as typed settings (`HostLayer.adjustment`).
 */
import type { AdjustmentLayer, Color, HueSaturationAdjustmentChannel, LevelsAdjustmentChannel } from "ag-psd";
import { HUE_RANGES, SELECTIVE_CLASSES, type ResolvedAdjustment } from "../../../protocol/adjustments.js";
import { trueLocation } from "../_internal/gradient-ramp.js";
import { colorToRgb } from "../_internal/psd-color.js";
import { colorString } from "../fills/typed.js";

/** Photoshop's default hue ranges (degrees a…d: fading in from a to b, full to c, fading out to d). */
const RANGE_BOUNDS: Readonly<Record<(typeof HUE_RANGES)[number], readonly [number, number, number, number]>> = {
  reds: [315, 345, 15, 45],
  yellows: [15, 45, 75, 105],
  greens: [75, 105, 135, 165],
  cyans: [135, 165, 195, 225],
  blues: [195, 225, 255, 285],
  magentas: [255, 285, 315, 345],
};

const rgb = ([r, g, b]: readonly number[]) => ({ r: r ?? 0, g: g ?? 0, b: b ?? 0 });

/** The record of a typed adjustment. */
export function adjustmentRecord(a: ResolvedAdjustment): AdjustmentLayer {
  switch (a.type) {
    case "brightnessContrast":
      return { type: "brightness/contrast", brightness: a.brightness, contrast: a.contrast, useLegacy: a.legacy };
    case "levels": {
      const channel = (c: Extract<ResolvedAdjustment, { type: "levels" }>["rgb"]) =>
        c === null ? undefined : { shadowInput: c.inputBlack, highlightInput: c.inputWhite, shadowOutput: c.outputBlack, highlightOutput: c.outputWhite, midtoneInput: c.gamma };
      return { type: "levels", rgb: channel(a.rgb), red: channel(a.red), green: channel(a.green), blue: channel(a.blue) };
    }
    case "curves": {
      const curve = (points: Extract<ResolvedAdjustment, { type: "curves" }>["rgb"]) => (points === null ? undefined : points.map((p) => ({ input: p.input, output: p.output })));
      return { type: "curves", rgb: curve(a.rgb), red: curve(a.red), green: curve(a.green), blue: curve(a.blue) };
    }
    case "exposure":
      return { type: "exposure", exposure: a.exposure, offset: a.offset, gamma: a.gamma };
    case "hueSaturation": {
      // The record's "master" holds Colorize's switch and values in a…d (see `hue-saturation.ts`).
      const c = a.colorize;
      const master: HueSaturationAdjustmentChannel = {
        a: c === null ? 0 : 1,
        b: c?.hue ?? 0,
        c: c?.saturation ?? 25,
        d: c?.lightness ?? 0,
        hue: a.hue,
        saturation: a.saturation,
        lightness: a.lightness,
      };
      const record: AdjustmentLayer = { type: "hue/saturation", master };
      for (const name of HUE_RANGES) {
        const range = a.ranges[name];
        if (range === null) continue;
        const [ra, rb, rc, rd] = range.bounds ?? RANGE_BOUNDS[name];
        record[name] = { a: ra, b: rb, c: rc, d: rd, hue: range.hue, saturation: range.saturation, lightness: range.lightness };
      }
      return record;
    }
    case "vibrance":
      return { type: "vibrance", vibrance: a.vibrance, saturation: a.saturation };
    case "colorBalance":
      return { type: "color balance", shadows: { ...a.shadows }, midtones: { ...a.midtones }, highlights: { ...a.highlights }, preserveLuminosity: a.preserveLuminosity };
    case "blackAndWhite":
      return {
        type: "black & white",
        reds: a.reds,
        yellows: a.yellows,
        greens: a.greens,
        cyans: a.cyans,
        blues: a.blues,
        magentas: a.magentas,
        useTint: a.tint !== null,
        ...(a.tint !== null ? { tintColor: rgb(a.tint) } : {}),
      };
    case "photoFilter":
      return { type: "photo filter", color: rgb(a.color), density: a.density / 100, preserveLuminosity: a.preserveLuminosity };
    case "channelMixer":
      return a.monochrome
        ? { type: "channel mixer", monochrome: true, gray: { ...a.red } }
        : { type: "channel mixer", monochrome: false, red: { ...a.red }, green: { ...a.green }, blue: { ...a.blue } };
    case "invert":
      return { type: "invert" };
    case "posterize":
      return { type: "posterize", levels: a.levels };
    case "threshold":
      return { type: "threshold", level: a.level };
    case "gradientMap":
      return {
        type: "gradient map",
        gradientType: "solid",
        reverse: a.reverse,
        colorStops: a.stops.map((stop) => ({ color: rgb(stop.color), location: stop.location / 100, midpoint: 0.5 })),
        opacityStops: [
          { opacity: 1, location: 0, midpoint: 0.5 },
          { opacity: 1, location: 1, midpoint: 0.5 },
        ],
      };
    case "selectiveColor": {
      const ink = (k: { cyan: number; magenta: number; yellow: number; black: number }) => ({ c: k.cyan, m: k.magenta, y: k.yellow, k: k.black });
      return {
        type: "selective color",
        mode: a.mode,
        reds: ink(a.reds),
        yellows: ink(a.yellows),
        greens: ink(a.greens),
        cyans: ink(a.cyans),
        blues: ink(a.blues),
        magentas: ink(a.magentas),
        whites: ink(a.whites),
        neutrals: ink(a.neutrals),
        blacks: ink(a.blacks),
      };
    }
  }
}

type Settings = { type: string; [setting: string]: unknown };
const num = (v: number | undefined, fallback: number): number => (v !== undefined && Number.isFinite(v) ? v : fallback);
const hexOf = (c: Color | undefined): string | undefined => (c === undefined ? undefined : colorString(colorToRgb(c, "descriptor")));

/**
 * An adjustment record as typed settings, in the shape `layer:create {kind: "adjustment"}` takes (every value the
 * record holds, so passing it back makes the same record). A colour lookup, which the typed settings cannot say,
 * reads as `{type: "colorLookup"}`. A Hue/Saturation range a file moved off Photoshop's default hues carries its
 * `bounds`.
 */
export function typedAdjustment(record: AdjustmentLayer): Settings {
  switch (record.type) {
    case "brightness/contrast":
      return { type: "brightnessContrast", brightness: num(record.brightness, 0), contrast: num(record.contrast, 0), legacy: record.useLegacy === true };
    case "levels": {
      const channel = (c: LevelsAdjustmentChannel | undefined) =>
        c === undefined
          ? undefined
          : { inputBlack: c.shadowInput, inputWhite: c.highlightInput, gamma: c.midtoneInput, outputBlack: c.shadowOutput, outputWhite: c.highlightOutput };
      return present({ type: "levels", rgb: channel(record.rgb), red: channel(record.red), green: channel(record.green), blue: channel(record.blue) });
    }
    case "curves": {
      const curve = (c: { input: number; output: number }[] | undefined) => c?.map((p) => ({ input: p.input, output: p.output }));
      return present({ type: "curves", rgb: curve(record.rgb), red: curve(record.red), green: curve(record.green), blue: curve(record.blue) });
    }
    case "exposure":
      return { type: "exposure", exposure: num(record.exposure, 0), offset: num(record.offset, 0), gamma: num(record.gamma, 1) };
    case "hue/saturation": {
      const master = record.master;
      const out: Settings = { type: "hueSaturation" };
      // Any non-zero switch is on (a byte and its pad byte: some files hold 256), as the renderer reads it.
      if (master !== undefined && Number.isFinite(master.a) && master.a !== 0) {
        out.colorize = { hue: (((master.b % 360) + 360) % 360), saturation: master.c, lightness: master.d };
        return out;
      }
      out.hue = num(master?.hue, 0);
      out.saturation = num(master?.saturation, 0);
      out.lightness = num(master?.lightness, 0);
      const ranges: Record<string, unknown> = {};
      for (const name of HUE_RANGES) {
        const r = record[name];
        if (r === undefined || (r.hue === 0 && r.saturation === 0 && r.lightness === 0)) continue;
        const bounds = [r.a, r.b, r.c, r.d];
        const moved = bounds.some((v, i) => v !== RANGE_BOUNDS[name][i]);
        ranges[name] = { hue: r.hue, saturation: r.saturation, lightness: r.lightness, ...(moved ? { bounds } : {}) };
      }
      if (Object.keys(ranges).length > 0) out.ranges = ranges;
      return out;
    }
    case "vibrance":
      return { type: "vibrance", vibrance: num(record.vibrance, 0), saturation: num(record.saturation, 0) };
    case "color balance": {
      const shift = (v: { cyanRed: number; magentaGreen: number; yellowBlue: number } | undefined) => ({ cyanRed: num(v?.cyanRed, 0), magentaGreen: num(v?.magentaGreen, 0), yellowBlue: num(v?.yellowBlue, 0) });
      return {
        type: "colorBalance",
        shadows: shift(record.shadows),
        midtones: shift(record.midtones),
        highlights: shift(record.highlights),
        preserveLuminosity: record.preserveLuminosity !== false,
      };
    }
    case "black & white":
      return present({
        type: "blackAndWhite",
        reds: record.reds,
        yellows: record.yellows,
        greens: record.greens,
        cyans: record.cyans,
        blues: record.blues,
        magentas: record.magentas,
        tint: record.useTint === true ? hexOf(record.tintColor) : undefined,
      });
    case "photo filter": {
      const c = record.color;
      // Lab as version 2 records hold it (fractions) or as descriptors (L* 0–100): as the renderer reads it.
      const scale = c !== undefined && "l" in c && Math.max(Math.abs(c.l), Math.abs(c.a), Math.abs(c.b)) <= 1 ? "record" : "descriptor";
      return present({
        type: "photoFilter",
        color: c === undefined ? undefined : colorString(colorToRgb(c, "l" in c ? scale : "record")),
        density: num(record.density, 0.25) * 100,
        preserveLuminosity: record.preserveLuminosity === true,
      });
    }
    case "channel mixer": {
      const row = (r: { red: number; green: number; blue: number; constant: number } | undefined) => (r === undefined ? undefined : { red: r.red, green: r.green, blue: r.blue, constant: r.constant });
      if (record.monochrome === true) return present({ type: "channelMixer", monochrome: row(record.gray) ?? {} });
      return present({ type: "channelMixer", red: row(record.red), green: row(record.green), blue: row(record.blue) });
    }
    case "invert":
      return { type: "invert" };
    case "posterize":
      return { type: "posterize", levels: num(record.levels, 4) };
    case "threshold":
      return { type: "threshold", level: num(record.level, 128) };
    case "gradient map": {
      const stops = (record.colorStops ?? [])
        .map((stop) => ({ location: Math.round(trueLocation(stop.location, record.smoothness) * 100000) / 1000, color: colorString(colorToRgb(stop.color, "descriptor")) }))
        .sort((a, b) => a.location - b.location);
      return { type: "gradientMap", stops, reverse: record.reverse === true };
    }
    case "selective color": {
      const out: Settings = { type: "selectiveColor", mode: record.mode ?? "relative" };
      for (const name of SELECTIVE_CLASSES) {
        const k = record[name];
        if (k !== undefined) out[name] = { cyan: k.c, magenta: k.m, yellow: k.y, black: k.k };
      }
      return out;
    }
    default:
      return { type: "colorLookup" };
  }
}

/** The settings without the fields left undefined. */
function present(settings: Settings): Settings {
  return Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)) as Settings;
}
