/*
 * Adjustments that mix channels: Black & White (a grey from the colour's hue sectors, optionally tinted) and
 * Channel Mixer.
 */
import type { BlackAndWhiteAdjustment, ChannelMixerAdjustment, ChannelMixerChannel } from "ag-psd";
import { setLuminosity } from "../_internal/luminosity.js";
import { colorToRgb } from "../_internal/psd-color.js";
import { type ColorProgram, finite } from "./program.js";

/**
 * Black & White: the grey is the smallest channel, plus the span up to the middle one weighted by the secondary
 * colour the two largest channels make (yellow, cyan, magenta), plus the span up to the largest weighted by its
 * primary (red, green, blue). Neutral greys keep their level; with the defaults pure red becomes 40 % grey. A tint
 * colours the grey like the Color blend mode.
 */
export function blackAndWhiteProgram(adjustment: BlackAndWhiteAdjustment): ColorProgram {
  const w = (value: number | undefined, fallback: number): number => finite(value, fallback) / 100;
  const primary = [w(adjustment.reds, 40), w(adjustment.greens, 40), w(adjustment.blues, 20)] as const;
  // The secondary colour of two channels, by the channel left out: blue out → yellow, red out → cyan, green out → magenta.
  const secondary = [w(adjustment.cyans, 60), w(adjustment.magentas, 80), w(adjustment.yellows, 60)] as const;
  const tint = adjustment.useTint && adjustment.tintColor ? colorToRgb(adjustment.tintColor, "descriptor") : undefined;
  return {
    kind: "color",
    fn: (r, g, b, out) => {
      const c = [r, g, b];
      const order = [0, 1, 2].sort((i, j) => (c[j] ?? 0) - (c[i] ?? 0));
      const [hi, mid, lo] = order as [number, number, number];
      const max = c[hi] ?? 0;
      const middle = c[mid] ?? 0;
      const min = c[lo] ?? 0;
      const grey = min + (middle - min) * (secondary[lo] ?? 0) + (max - middle) * (primary[hi] ?? 0);
      if (tint) {
        out[0] = tint[0];
        out[1] = tint[1];
        out[2] = tint[2];
        setLuminosity(out, Math.min(255, Math.max(0, grey)));
        return;
      }
      out[0] = grey;
      out[1] = grey;
      out[2] = grey;
    },
  };
}

/** Channel Mixer: each output channel a weighted sum of the input channels (percent) plus a constant (percent of white). */
export function channelMixerProgram(adjustment: ChannelMixerAdjustment): ColorProgram {
  const identity = (red: number, green: number, blue: number): ChannelMixerChannel => ({ red, green, blue, constant: 0 });
  const rows = adjustment.monochrome
    ? [adjustment.gray, adjustment.gray, adjustment.gray].map((row) => row ?? identity(40, 40, 20))
    : [adjustment.red ?? identity(100, 0, 0), adjustment.green ?? identity(0, 100, 0), adjustment.blue ?? identity(0, 0, 100)];
  const m = rows.map((row) => [finite(row.red, 0) / 100, finite(row.green, 0) / 100, finite(row.blue, 0) / 100, (finite(row.constant, 0) / 100) * 255]);
  return {
    kind: "color",
    fn: (r, g, b, out) => {
      for (let c = 0; c < 3; c++) {
        const k = m[c] ?? [0, 0, 0, 0];
        out[c] = (k[0] ?? 0) * r + (k[1] ?? 0) * g + (k[2] ?? 0) * b + (k[3] ?? 0);
      }
    },
  };
}
