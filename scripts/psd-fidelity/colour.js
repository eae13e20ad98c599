// The stated colour conversions of the PSD fidelity measurement: every sample that is not 8-bit RGB becomes 8-bit
// sRGB by these rules and no others, so the reference composite and the editor can be pointed at one
// implementation. They are profile-less on purpose (no ICC transform): a measurement that depends on a colour
// engine would measure the engine.
//
// Plain JavaScript (with colour.d.ts beside it) so that both the vitest suite and `scripts/psd-fidelity.mjs`,
// which runs against dist/ without a TypeScript loader, import the same code.

/** Largest 16-bit sample. Photoshop writes the full 0–65535 range, not its internal 0–32768: in threshold_16bits_grayscale.psd white is 65535 and posterize_16bits_rgb.psd holds thirds of 65535 (21844, 43689). */
export const MAX_16 = 65535;

/** A 16-bit sample as 8-bit: `round(v · 255 / 65535)`. */
export function from16(v) {
  return Math.round((v * 255) / MAX_16);
}

/** Linear light (0–1) to the sRGB transfer curve (0–1), IEC 61966-2-1. */
export function linearToSrgb(v) {
  return v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055;
}

/** sRGB-encoded (0–1) to linear light. */
export function srgbToLinear(v) {
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
}

/** Clamps to 0–1 (NaN counts as 0: a 32-bit file can hold anything). */
export function clamp01(v) {
  return v > 0 ? (v < 1 ? v : 1) : 0;
}

/** A 32-bit float colour sample (linear light) as an 8-bit sRGB value, clamped. */
export function fromFloatColour(v) {
  return Math.round(linearToSrgb(clamp01(v)) * 255);
}

/** A 32-bit float alpha sample (coverage, no transfer curve) as 8-bit, clamped. */
export function fromFloatAlpha(v) {
  return Math.round(clamp01(v) * 255);
}

/**
 * CMYK as Photoshop stores it (each 0–1 here, 1 = no ink: the bytes are inverted) to 0–255 RGB without a profile:
 * with ink amounts c = 1 − stored, `R = 255·(1−c)(1−k)`, `G = 255·(1−m)(1−k)`, `B = 255·(1−y)(1−k)`.
 */
export function cmykStoredToRgb(c, m, y, k) {
  return [Math.round(255 * c * k), Math.round(255 * m * k), Math.round(255 * y * k)];
}

// D50 reference white (ICC PCS) and the Bradford D50 → D65 adaptation followed by XYZ (D65) → linear sRGB, as one
// matrix: M = sRGB(D65) · Bradford(D50→D65).
const D50 = [0.96422, 1, 0.82521];
const XYZ_D50_TO_LINEAR_SRGB = [
  [3.1338561, -1.6168667, -0.4906146],
  [-0.9787684, 1.9161415, 0.033454],
  [0.0719453, -0.2289914, 1.4052427],
];

/** CIE L*a*b* (L 0–100, a and b about −128…127), D50, to 0–255 sRGB: via XYZ D50, Bradford to D65. */
export function labToRgb(L, a, b) {
  const fy = (L + 16) / 116;
  const fx = fy + a / 500;
  const fz = fy - b / 200;
  const e = 216 / 24389;
  const k = 24389 / 27;
  const inv = (f) => (f ** 3 > e ? f ** 3 : (116 * f - 16) / k);
  const xyz = [inv(fx) * D50[0], (L > k * e ? fy ** 3 : L / k) * D50[1], inv(fz) * D50[2]];
  return XYZ_D50_TO_LINEAR_SRGB.map((row) => Math.round(linearToSrgb(clamp01(row[0] * xyz[0] + row[1] * xyz[1] + row[2] * xyz[2])) * 255));
}

/** Lab samples as stored (each normalised 0–1: L over 0–100, a and b with 0.5 ≈ 0) to 0–255 sRGB. */
export function labStoredToRgb(l, a, b) {
  return labToRgb(l * 100, a * 255 - 128, b * 255 - 128);
}

/** Bitmap mode: a set bit is black. */
export function fromBitmapBit(bit) {
  return bit ? 0 : 255;
}
