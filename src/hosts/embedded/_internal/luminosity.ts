/*
 * Luminosity as Photoshop's luminosity blend mode measures it (`0.3 R + 0.59 G + 0.11 B`), and the W3C "set
 * luminosity" that moves a colour to another luminosity keeping its hue, clipping back into gamut along the grey
 * axis. Adjustments that "preserve luminosity" (colour balance, photo filter) and black & white's tint use it.
 */

/** Luminosity of a 0–255 colour. */
export function luminosity(r: number, g: number, b: number): number {
  return 0.3 * r + 0.59 * g + 0.11 * b;
}

/** Moves the colour in `rgb` (0–255) to luminosity `target`, in place, clipping into 0–255 toward grey. */
export function setLuminosity(rgb: Float64Array, target: number): void {
  const d = target - luminosity(rgb[0] ?? 0, rgb[1] ?? 0, rgb[2] ?? 0);
  const r = (rgb[0] ?? 0) + d;
  const g = (rgb[1] ?? 0) + d;
  const b = (rgb[2] ?? 0) + d;
  const l = luminosity(r, g, b);
  const min = Math.min(r, g, b);
  const max = Math.max(r, g, b);
  // Out-of-gamut channels are pulled toward the grey of the same luminosity, all by the same ratio (keeps the hue).
  const low = min < 0 ? l / (l - min) : 1;
  const high = max > 255 ? (255 - l) / (max - l) : 1;
  const k = Math.min(low, high);
  rgb[0] = l + (r - l) * k;
  rgb[1] = l + (g - l) * k;
  rgb[2] = l + (b - l) * k;
}
