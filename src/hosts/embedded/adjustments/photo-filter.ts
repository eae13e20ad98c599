/*
 * Photo Filter: a coloured filter in front of the lens, each channel multiplied by the filter colour's, mixed in
 * by the density; "preserve luminosity" moves the result back to the colour's luminosity. The filter colour
 * arrives as Lab (binary record scale, or descriptor scale in the version 3 record, told apart by its range).
 */
import type { PhotoFilterAdjustment } from "ag-psd";
import { luminosity, setLuminosity } from "../_internal/luminosity.js";
import { colorToRgb } from "../_internal/psd-color.js";
import { type ColorProgram, finite } from "./program.js";

/** The Photo Filter adjustment: tables, or a colour function when it preserves luminosity. */
export function photoFilterProgram(adjustment: PhotoFilterAdjustment): ColorProgram {
  const color = adjustment.color ?? { l: 0.6706, a: 0.252, b: 0.945 };
  // ag-psd reads the version 2 record's Lab as fractions of 1 and version 3's as descriptor units (L* 0–100).
  const scale = "l" in color && (Math.abs(color.l) > 1 || Math.abs(color.a) > 1 || Math.abs(color.b) > 1) ? "descriptor" : "record";
  const filter = colorToRgb(color, "l" in color ? scale : "record");
  const density = Math.min(1, Math.max(0, finite(adjustment.density, 0.25)));
  const factors = filter.map((c) => 1 - density + (density * c) / 255) as [number, number, number];
  if (!adjustment.preserveLuminosity) {
    const table = (k: number): Uint8Array => Uint8Array.from({ length: 256 }, (_, v) => Math.round(Math.min(255, v * k)));
    return { kind: "tables", tables: [table(factors[0]), table(factors[1]), table(factors[2])] };
  }
  return {
    kind: "color",
    fn: (r, g, b, out) => {
      out[0] = r * factors[0];
      out[1] = g * factors[1];
      out[2] = b * factors[2];
      setLuminosity(out, luminosity(r, g, b));
    },
  };
}
