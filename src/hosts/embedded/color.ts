/*
 * Colours as PSD records store them (ag-psd's `Color`: RGB bytes or floats, HSB, CMYK, Lab or grey, in descriptor
 * units) as sRGB bytes, for layer effects and artboard backgrounds. The conversion itself is
 * `_internal/psd-color.ts`'s (profile-less CMYK and grey, Lab through D50 adapted to D65), rounded here.
 */
import type { Color } from "ag-psd";
import { colorToRgb as colorToSrgb } from "./_internal/psd-color.js";

/** A record's colour (descriptor units) as sRGB bytes. */
export function colorToRgb(color: Color): [number, number, number] {
  const [r, g, b] = colorToSrgb(color, "descriptor");
  return [Math.round(r), Math.round(g), Math.round(b)];
}
