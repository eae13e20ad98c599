/*
 * Gradient Map: each pixel's grey level (the luminosity Photoshop's threshold uses) picks a colour from the
 * gradient, black at its start and white at its end. Stops that are partly transparent let the original colour
 * through in proportion. Noise gradients are not rendered (see `apply.ts`); dithering is not applied.
 */
import type { GradientMapAdjustment } from "ag-psd";
import { buildRamp, RAMP_SIZE } from "../_internal/gradient-ramp.js";
import type { ColorProgram } from "./program.js";

/** The Gradient Map adjustment as a colour function over a 256-entry palette. */
export function gradientMapProgram(adjustment: GradientMapAdjustment): ColorProgram {
  const ramp = buildRamp(
    { colorStops: adjustment.colorStops ?? [], opacityStops: adjustment.opacityStops, smoothness: adjustment.smoothness },
    { scale: "record", reverse: adjustment.reverse, method: adjustment.method },
  );
  // One palette entry per grey level.
  const palette = new Float64Array(256 * 4);
  for (let v = 0; v < 256; v++) {
    const i = Math.round((v / 255) * (RAMP_SIZE - 1)) * 4;
    for (let c = 0; c < 4; c++) palette[v * 4 + c] = ramp[i + c] ?? 0;
  }
  return {
    kind: "color",
    fn: (r, g, b, out) => {
      const grey = Math.round(0.3 * r + 0.59 * g + 0.11 * b);
      const i = Math.min(255, Math.max(0, grey)) * 4;
      const a = (palette[i + 3] ?? 255) / 255;
      out[0] = r + ((palette[i] ?? 0) - r) * a;
      out[1] = g + ((palette[i + 1] ?? 0) - g) * a;
      out[2] = b + ((palette[i + 2] ?? 0) - b) * a;
    },
  };
}
