/*
 * ag-psd's `Color` union as sRGB, the one place the editor converts record colours (`color.ts` rounds them to
 * bytes for effects and artboards; Lab goes through `psd-file/color.ts`, the conversion of whole Lab documents).
 * ag-psd hands colours over on two scales, depending on where in the file they were stored: colours read from
 * descriptors (fill layers, black & white's tint, layer effects) keep Photoshop's descriptor units (HSB saturation
 * and brightness, CMYK and grey in percent, Lab L* 0–100), colours read from binary colour records (gradient map
 * stops, photo filter) are fractions of 1 (Lab a* and b* within ±1). The caller says which one it holds.
 */
import type { Color } from "ag-psd";
import { labToLinearSrgb, linearToSrgb, srgbToLinear } from "../psd-file/color.js";

/** Where a colour came from: a descriptor or a binary colour record (see the file comment). */
export type ColorScale = "descriptor" | "record";

/** An sRGB colour, channels 0–255 as floats (rounding is left to whoever stores it). */
export type Rgb255 = [number, number, number];

const clamp255 = (v: number): number => (v < 0 ? 0 : v > 255 ? 255 : v);
const clamp01 = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);

/**
 * The colour as sRGB. CMYK and grey have no colour profile here: they convert naively (`(1 − c)(1 − k)`), which
 * is what an unmanaged conversion gives and can differ from Photoshop's profile-managed one by a few levels.
 * Lab is D50 (Photoshop's), adapted to sRGB's D65 with Bradford.
 */
export function colorToRgb(color: Color, scale: ColorScale): Rgb255 {
  if ("r" in color) return [clamp255(color.r), clamp255(color.g), clamp255(color.b)];
  if ("fr" in color) return [clamp255(color.fr * 255), clamp255(color.fg * 255), clamp255(color.fb * 255)];
  if ("h" in color) {
    // Descriptor hue is already a fraction of a turn; saturation and brightness are percent there.
    const unit = scale === "descriptor" ? 100 : 1;
    return hsbToRgb(color.h, clamp01(color.s / unit), clamp01(color.b / unit));
  }
  if ("c" in color) {
    // Records store CMYK as 0–255 where 0 is full ink; descriptors as percent of ink.
    const ink = (v: number): number => (scale === "descriptor" ? v / 100 : 1 - v / 255);
    const k = 1 - ink(color.k);
    return [255 * (1 - ink(color.c)) * k, 255 * (1 - ink(color.m)) * k, 255 * (1 - ink(color.y)) * k].map(clamp255) as Rgb255;
  }
  if ("l" in color) {
    return scale === "descriptor" ? labToRgb(color.l, color.a, color.b) : labToRgb(color.l * 100, color.a * 127, color.b * 127);
  }
  // Grey: percent of ink in descriptors; a record's value ag-psd already scaled to 0–255 ink.
  const ink = scale === "descriptor" ? color.k / 100 : color.k / 255;
  const v = clamp255(255 * (1 - ink));
  return [v, v, v];
}

/** HSB (hue as a fraction of a turn, saturation and brightness 0–1) as sRGB 0–255. */
export function hsbToRgb(h: number, s: number, v: number): Rgb255 {
  const hue = (((h % 1) + 1) % 1) * 6;
  const i = Math.floor(hue);
  const f = hue - i;
  const p = v * (1 - s);
  const q = v * (1 - s * f);
  const t = v * (1 - s * (1 - f));
  const rgb: Rgb255 = i === 0 ? [v, t, p] : i === 1 ? [q, v, p] : i === 2 ? [p, v, t] : i === 3 ? [p, q, v] : i === 4 ? [t, p, v] : [v, p, q];
  return rgb.map((c) => clamp255(c * 255)) as Rgb255;
}

/** CIE L*a*b* (D50, L* 0–100) as sRGB 0–255, out-of-gamut colours clipped (the conversion of `psd-file/color.ts`). */
export function labToRgb(l: number, a: number, b: number): Rgb255 {
  const linear = [0, 0, 0];
  labToLinearSrgb(l, a, b, linear);
  return [encodeSrgb(linear[0] ?? 0), encodeSrgb(linear[1] ?? 0), encodeSrgb(linear[2] ?? 0)];
}

/** Linear light (0–1, clamped) to an sRGB level 0–255. */
export function encodeSrgb(linear: number): number {
  return 255 * linearToSrgb(linear);
}

/** An sRGB level 0–255 to linear light 0–1. */
export function decodeSrgb(level: number): number {
  return srgbToLinear(level / 255);
}
