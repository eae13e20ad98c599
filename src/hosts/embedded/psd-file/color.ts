/**
 * The stated conversions between a PSD's stored samples and 8-bit sRGB, one pixel at a time. They are the whole
 * contract of "converted on open": anything that decodes a file's stored composite to compare it with what the
 * editor shows must use these, and saving back uses their inverses.
 *
 * - 16-bit → 8-bit: `round(v · 255 / 65535)` (Photoshop's files use the full 0–65535 range); back: `v · 257`.
 * - 32-bit float is linear light: clamped to [0, 1], then the sRGB transfer curve; back: the inverse curve.
 * - CMYK is stored inverted (255 = no ink): RGB = `255 · (1 − c)(1 − k)` per channel, no profile; back: K from
 *   the brightest channel, C/M/Y from the rest.
 * - Lab (L 0–100 stored as 0–255, a/b offset by 128) → XYZ relative to D50 → Bradford adaptation to D65 →
 *   linear sRGB → sRGB transfer curve, clamped.
 * - Grayscale from RGB (saving an edited layer back into a gray document): Rec. 601 luma
 *   `0.299 R + 0.587 G + 0.114 B`. Gray pixels (R = G = B) come back unchanged.
 * - Bitmap: 1 = black, 0 = white. Indexed: the palette's colour; duotone: its single channel read as gray.
 */

/** 16-bit sample → 8-bit. */
export const from16 = (value: number): number => Math.round((value * 255) / 65535);

/** 8-bit sample → 16-bit (exact inverse of {@link from16} on 8-bit values). */
export const to16 = (value: number): number => value * 257;

/** sRGB transfer curve: linear light in [0, 1] (clamped) → encoded value in [0, 1]. */
export function linearToSrgb(linear: number): number {
  const l = linear > 0 ? (linear < 1 ? linear : 1) : 0; // NaN lands on 0
  return l <= 0.0031308 ? 12.92 * l : 1.055 * l ** (1 / 2.4) - 0.055;
}

/** Inverse sRGB transfer curve: encoded value in [0, 1] → linear light. */
export function srgbToLinear(encoded: number): number {
  return encoded <= 0.04045 ? encoded / 12.92 : ((encoded + 0.055) / 1.055) ** 2.4;
}

/** 32-bit float sample (linear light) → 8-bit sRGB. */
export const from32 = (value: number): number => Math.round(255 * linearToSrgb(value));

/** 8-bit sRGB → 32-bit float (linear light). */
export const to32 = (value: number): number => srgbToLinear(value / 255);

/** A 0–1 sample to a byte, rounded and clamped. */
export const toByte = (unit: number): number => (unit <= 0 ? 0 : unit >= 1 ? 255 : Math.round(unit * 255));

/**
 * Stored CMYK (each 0–1, 1 = no ink) → 8-bit RGB into `out`: `255 · (1 − c)(1 − k)` per channel, with the stored
 * values being `1 − c` and `1 − k`.
 */
export function cmykToRgb(c: number, m: number, y: number, k: number, out: number[]): void {
  out[0] = toByte(c * k);
  out[1] = toByte(m * k);
  out[2] = toByte(y * k);
}

/** 8-bit RGB → stored CMYK (each 0–1, 1 = no ink) into `out`; inverse of {@link cmykToRgb}. */
export function rgbToCmyk(r: number, g: number, b: number, out: number[]): void {
  const k = Math.max(r, g, b) / 255;
  out[3] = k;
  out[0] = k > 0 ? r / 255 / k : 1;
  out[1] = k > 0 ? g / 255 / k : 1;
  out[2] = k > 0 ? b / 255 / k : 1;
}

type Matrix = readonly [number, number, number, number, number, number, number, number, number];

const multiply = (a: Matrix, b: Matrix): Matrix => {
  const out: number[] = [];
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out.push(a[r * 3]! * b[c]! + a[r * 3 + 1]! * b[3 + c]! + a[r * 3 + 2]! * b[6 + c]!);
  return out as unknown as Matrix;
};

const invert = (m: Matrix): Matrix => {
  const [a, b, c, d, e, f, g, h, i] = m;
  const det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  const out = [e * i - f * h, c * h - b * i, b * f - c * e, f * g - d * i, a * i - c * g, c * d - a * f, d * h - e * g, b * g - a * h, a * e - b * d];
  return out.map((v) => v / det) as unknown as Matrix;
};

/** Bradford chromatic adaptation D50 → D65. */
const BRADFORD_D50_TO_D65: Matrix = [0.9555766, -0.0230393, 0.0631636, -0.0282895, 1.0099416, 0.0210077, 0.0122982, -0.020483, 1.3299098];
/** XYZ (D65) → linear sRGB (IEC 61966-2-1). */
const XYZ_D65_TO_SRGB: Matrix = [3.2404542, -1.5371385, -0.4985314, -0.969266, 1.8760108, 0.041556, 0.0556434, -0.2040259, 1.0572252];
const XYZ_D50_TO_SRGB = multiply(XYZ_D65_TO_SRGB, BRADFORD_D50_TO_D65);
const SRGB_TO_XYZ_D50 = invert(XYZ_D50_TO_SRGB);
/** The D50 white point (ICC profile connection space). */
const D50 = [0.96422, 1, 0.82521] as const;

const EPSILON = 6 / 29;
const labF = (t: number): number => (t > EPSILON ** 3 ? Math.cbrt(t) : t / (3 * EPSILON * EPSILON) + 4 / 29);
const labFInverse = (t: number): number => (t > EPSILON ? t * t * t : 3 * EPSILON * EPSILON * (t - 4 / 29));

/**
 * CIE L*a*b* in its own units (L* 0–100, a* and b* about −128…127, D50) → linear-light sRGB into `out`, not clamped
 * (colours outside sRGB fall outside 0–1): the one Lab conversion of the editor.
 */
export function labToLinearSrgb(l: number, a: number, b: number, out: number[]): void {
  const fy = (l + 16) / 116;
  const fx = fy + a / 500;
  const fz = fy - b / 200;
  const x = D50[0] * labFInverse(fx);
  const y = D50[1] * labFInverse(fy);
  const z = D50[2] * labFInverse(fz);
  const m = XYZ_D50_TO_SRGB;
  out[0] = m[0] * x + m[1] * y + m[2] * z;
  out[1] = m[3] * x + m[4] * y + m[5] * z;
  out[2] = m[6] * x + m[7] * y + m[8] * z;
}

/** Stored Lab (each 0–1: L · 100, a and b · 255 − 128) → 8-bit sRGB into `out`. */
export function labToRgb(l: number, a: number, b: number, out: number[]): void {
  labToLinearSrgb(l * 100, a * 255 - 128, b * 255 - 128, out);
  out[0] = toByte(linearToSrgb(out[0] ?? 0));
  out[1] = toByte(linearToSrgb(out[1] ?? 0));
  out[2] = toByte(linearToSrgb(out[2] ?? 0));
}

/** 8-bit sRGB → stored Lab (each 0–1) into `out`; inverse of {@link labToRgb}. */
export function rgbToLab(r: number, g: number, b: number, out: number[]): void {
  const lr = srgbToLinear(r / 255);
  const lg = srgbToLinear(g / 255);
  const lb = srgbToLinear(b / 255);
  const m = SRGB_TO_XYZ_D50;
  const fx = labF((m[0] * lr + m[1] * lg + m[2] * lb) / D50[0]);
  const fy = labF((m[3] * lr + m[4] * lg + m[5] * lb) / D50[1]);
  const fz = labF((m[6] * lr + m[7] * lg + m[8] * lb) / D50[2]);
  out[0] = Math.min(1, Math.max(0, (116 * fy - 16) / 100));
  out[1] = Math.min(1, Math.max(0, (500 * (fx - fy) + 128) / 255));
  out[2] = Math.min(1, Math.max(0, (200 * (fy - fz) + 128) / 255));
}

/** 8-bit RGB → 8-bit gray (Rec. 601 luma). */
export const rgbToGray = (r: number, g: number, b: number): number => Math.round(0.299 * r + 0.587 * g + 0.114 * b);

/** A bitmap bit: 1 is black. */
export const bitmapToGray = (bit: number): number => (bit ? 0 : 255);
