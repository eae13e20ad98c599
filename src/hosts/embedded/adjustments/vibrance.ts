/*
 * Vibrance: saturation raised (or lowered) more for dull colours than for vivid ones, so already saturated
 * colours do not clip; its Saturation slider works like Hue/Saturation's master saturation. Photoshop's exact
 * curve (which also spares skin tones) is not published; this is the common reading of it, not verified
 * against a file by itself.
 */
import type { VibranceAdjustment } from "ag-psd";
import { fromHsl, toHsl } from "./hue-saturation.js";
import { type ColorProgram, finite, identityTable, sameTables } from "./program.js";

/** The Vibrance adjustment as a colour function. */
export function vibranceProgram(adjustment: VibranceAdjustment): ColorProgram {
  const vibrance = Math.min(1, Math.max(-1, finite(adjustment.vibrance, 0) / 100));
  const saturation = Math.min(1, Math.max(-1, finite(adjustment.saturation, 0) / 100));
  if (vibrance === 0 && saturation === 0) return sameTables(identityTable());
  const gain = (a: number): number => (a >= 0 ? a / (1 - a + 0.006) : a);
  const hsl = new Float64Array(3);
  return {
    kind: "color",
    fn: (r, g, b, out) => {
      toHsl(r, g, b, hsl);
      const s0 = hsl[1] ?? 0;
      // Vibrance's gain fades out as the colour nears full saturation.
      const s = s0 * (1 + gain(saturation)) * (1 + gain(vibrance) * (1 - s0));
      fromHsl(hsl[0] ?? 0, Math.min(1, Math.max(0, s)), hsl[2] ?? 0, out);
    },
  };
}
