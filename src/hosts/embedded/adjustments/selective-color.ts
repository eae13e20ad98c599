/*
 * Selective Color: nine colour classes (the six hues, whites, neutrals, blacks), each adding or removing cyan,
 * magenta, yellow and black ink, in proportion to how much a pixel belongs to the class. Membership: a hue class
 * by the span between its largest (primaries) or smallest (secondaries) channel and the middle one, whites and
 * blacks by how far the colour sits above or below mid-grey, neutrals by the rest. "Relative" scales the change
 * by the ink already there (a white stays white), "absolute" does not. Photoshop's exact weights are not published and no real file
 * exercises non-zero values; this is the widely used reading of it.
 */
import type { CMYK, SelectiveColorAdjustment } from "ag-psd";
import { type ColorProgram, finite, identityTable, sameTables } from "./program.js";

const CLASSES = ["reds", "yellows", "greens", "cyans", "blues", "magentas", "whites", "neutrals", "blacks"] as const;

/** The Selective Color adjustment as a colour function. */
export function selectiveColorProgram(adjustment: SelectiveColorAdjustment): ColorProgram {
  const inks = CLASSES.map((name) => toInks(adjustment[name]));
  if (inks.every((ink) => ink.every((v) => v === 0))) return sameTables(identityTable());
  const relative = adjustment.mode !== "absolute";
  const weights = new Float64Array(CLASSES.length);
  return {
    kind: "color",
    fn: (r, g, b, out) => {
      classWeights(r, g, b, weights);
      const rgb = [r, g, b];
      for (let c = 0; c < 3; c++) {
        // The channel's ink is its complement (cyan for red…); black ink adds to every channel's.
        const ink = 1 - (rgb[c] ?? 0) / 255;
        let change = 0;
        for (let k = 0; k < CLASSES.length; k++) {
          const w = weights[k] ?? 0;
          if (w === 0) continue;
          const amount = (inks[k]?.[c] ?? 0) + (inks[k]?.[3] ?? 0);
          change += w * (relative ? amount * ink : amount);
        }
        out[c] = 255 * (1 - Math.min(1, Math.max(0, ink + change)));
      }
    },
  };
}

function toInks(value: CMYK | undefined): [number, number, number, number] {
  return [finite(value?.c, 0) / 100, finite(value?.m, 0) / 100, finite(value?.y, 0) / 100, finite(value?.k, 0) / 100];
}

/** How much a colour belongs to each class (0–1), in {@link CLASSES} order. */
function classWeights(r: number, g: number, b: number, out: Float64Array): void {
  out.fill(0);
  const c = [r, g, b];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const mid = r + g + b - max - min;
  const hi = c.indexOf(max);
  const lo = c.indexOf(min);
  // Primaries: reds 0, greens 2, blues 4; the secondary opposite a channel: red → cyans 3, green → magentas 5, blue → yellows 1.
  out[[0, 2, 4][hi] ?? 0] = (max - mid) / 255;
  out[[3, 5, 1][lo] ?? 0] = (mid - min) / 255;
  out[6] = min > 128 ? ((min - 128) * 2) / 255 : 0;
  out[8] = max < 128 ? ((128 - max) * 2) / 255 : 0;
  out[7] = Math.max(0, 1 - (Math.abs(max - 127.5) + Math.abs(min - 127.5)) / 255);
}
