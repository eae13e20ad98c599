/*
 * Colour Balance: each tonal range (shadows, midtones, highlights) shifts the channels toward red/cyan,
 * green/magenta, blue/yellow, weighted by how much the channel's level belongs to that range. Photoshop's exact
 * curves are not published; the weights are smooth bells over the dark, middle and light levels with the
 * strength of the classic transfer curves. Not verified against a file by itself: in the only real sample it
 * runs inside a chain of nine adjustments (see the tests).
 */
import type { ColorBalanceAdjustment, ColorBalanceValues } from "ag-psd";
import { luminosity, setLuminosity } from "../_internal/luminosity.js";
import { type ColorProgram, finite } from "./program.js";

/** How far a full ±100 shift moves a channel at the heart of its range, as a fraction of 255. */
const BALANCE_STRENGTH = 0.667;

/** The Colour Balance adjustment: per-channel tables, or a colour function when it preserves luminosity. */
export function colorBalanceProgram(adjustment: ColorBalanceAdjustment): ColorProgram {
  const values = (v: ColorBalanceValues | undefined): [number, number, number] => [
    finite(v?.cyanRed, 0) / 100,
    finite(v?.magentaGreen, 0) / 100,
    finite(v?.yellowBlue, 0) / 100,
  ];
  const shadows = values(adjustment.shadows);
  const midtones = values(adjustment.midtones);
  const highlights = values(adjustment.highlights);
  const tables = [0, 1, 2].map((c) => {
    const table = new Float64Array(256);
    for (let v = 0; v < 256; v++) {
      const x = v / 255;
      const shift = (shadows[c] ?? 0) * shadowWeight(x) + (midtones[c] ?? 0) * midtoneWeight(x) + (highlights[c] ?? 0) * shadowWeight(1 - x);
      table[v] = Math.min(255, Math.max(0, v + 255 * BALANCE_STRENGTH * shift));
    }
    return table;
  }) as [Float64Array, Float64Array, Float64Array];
  if (!adjustment.preserveLuminosity) {
    const bytes = tables.map((t) => Uint8Array.from(t, (v) => Math.round(v))) as [Uint8Array, Uint8Array, Uint8Array];
    return { kind: "tables", tables: bytes };
  }
  return {
    kind: "color",
    fn: (r, g, b, out) => {
      out[0] = tables[0][r] ?? r;
      out[1] = tables[1][g] ?? g;
      out[2] = tables[2][b] ?? b;
      setLuminosity(out, luminosity(r, g, b));
    },
  };
}

/** How much a level (0–1) is a shadow: full at black, fading out by the upper midtones. */
function shadowWeight(x: number): number {
  const t = Math.min(1, x / 0.6);
  return (1 - t) * (1 - t);
}

/** How much a level (0–1) is a midtone: a bell, full at mid-grey and nothing at black and white. */
function midtoneWeight(x: number): number {
  return 1 - (2 * x - 1) ** 2;
}
