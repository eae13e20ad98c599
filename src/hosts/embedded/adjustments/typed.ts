/*
 * A typed adjustment (`layer:adjust`'s settings, see `protocol/adjustments.ts`) as the PSD record the renderer
 * already computes from (ag-psd's `AdjustmentLayer`): one implementation of each adjustment, whether it comes from
 * a file or from a call.
 */
import type { AdjustmentLayer, HueSaturationAdjustmentChannel } from "ag-psd";
import { HUE_RANGES, type ResolvedAdjustment } from "../../../protocol/adjustments.js";

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
        const [ra, rb, rc, rd] = RANGE_BOUNDS[name];
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
