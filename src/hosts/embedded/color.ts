/*
 * Colours as PSD records store them (ag-psd's `Color`: RGB bytes or floats, HSB, CMYK, Lab or grey) as sRGB bytes.
 * Conversions are profile-less, the same ones the editor states for whole documents: CMYK as `(1 − c)(1 − k)`,
 * Lab through D50 XYZ adapted to D65 (Bradford), grey as the share of ink (0 % is white).
 */
import type { Color } from "ag-psd";

const clampByte = (v: number): number => Math.max(0, Math.min(255, Math.round(v)));

/** sRGB's transfer curve, linear light (0–1) to encoded (0–1). */
export function srgbEncode(linear: number): number {
  const v = Math.max(0, Math.min(1, linear));
  return v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055;
}

/** CIE Lab (D50; L 0–100, a and b about −128–127) to sRGB bytes. */
export function labToRgb(l: number, a: number, b: number): [number, number, number] {
  const fy = (l + 16) / 116;
  const fx = fy + a / 500;
  const fz = fy - b / 200;
  const inverse = (t: number): number => (t > 6 / 29 ? t ** 3 : 3 * (6 / 29) ** 2 * (t - 4 / 29));
  // D50 white point.
  const x = 0.96422 * inverse(fx);
  const y = 1.0 * inverse(fy);
  const z = 0.82521 * inverse(fz);
  // Bradford-adapted D50 XYZ → linear sRGB (D65).
  const r = 3.1338561 * x - 1.6168667 * y - 0.4906146 * z;
  const g = -0.9787684 * x + 1.9161415 * y + 0.033454 * z;
  const bl = 0.0719453 * x - 0.2289914 * y + 1.4052427 * z;
  return [clampByte(srgbEncode(r) * 255), clampByte(srgbEncode(g) * 255), clampByte(srgbEncode(bl) * 255)];
}

/** HSB (hue 0–1 of a turn, saturation and brightness 0–100) to RGB bytes. */
function hsbToRgb(h: number, s: number, v: number): [number, number, number] {
  const sat = Math.max(0, Math.min(1, s / 100));
  const val = Math.max(0, Math.min(1, v / 100));
  const hue = (((h % 1) + 1) % 1) * 6;
  const sector = Math.floor(hue);
  const f = hue - sector;
  const p = val * (1 - sat);
  const q = val * (1 - sat * f);
  const t = val * (1 - sat * (1 - f));
  const rgb = [
    [val, t, p],
    [q, val, p],
    [p, val, t],
    [p, q, val],
    [t, p, val],
    [val, p, q],
  ][sector % 6] as [number, number, number];
  return [clampByte(rgb[0] * 255), clampByte(rgb[1] * 255), clampByte(rgb[2] * 255)];
}

/** A record's colour as sRGB bytes. */
export function colorToRgb(color: Color): [number, number, number] {
  if ("r" in color) return [clampByte(color.r), clampByte(color.g), clampByte(color.b)];
  if ("fr" in color) return [clampByte(color.fr * 255), clampByte(color.fg * 255), clampByte(color.fb * 255)];
  if ("h" in color) return hsbToRgb(color.h, color.s, color.b);
  if ("c" in color) {
    const k = 1 - color.k / 100;
    return [clampByte(255 * (1 - color.c / 100) * k), clampByte(255 * (1 - color.m / 100) * k), clampByte(255 * (1 - color.y / 100) * k)];
  }
  if ("l" in color) return labToRgb(color.l, color.a, color.b);
  const grey = clampByte(255 * (1 - color.k / 100));
  return [grey, grey, grey];
}
