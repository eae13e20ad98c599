/*
 * Brightness/Contrast, both algorithms. Neither is documented; both were fitted on Photoshop's own output.
 *
 * Legacy ("Use Legacy"): a straight line, brightness shifting the input and contrast steepening around mid-grey,
 * the contrast percentage quantised to a byte first. It matches Photoshop's composite to the level.
 *
 * Current: brightness bends a curve that keeps black and white in place, a bump perpendicular to the diagonal
 * (the {@link BRIGHTNESS_BUMP} table, largest a little above mid-grey), and contrast then pulls the quarter
 * points apart along a natural cubic spline. On four real files with brightness −95…150 and contrast −50…70 it
 * is 1.4–4.3 levels RMS off Photoshop's (at most 10 levels on a few tones): close, not exact.
 */
import type { BrightnessAdjustment } from "ag-psd";
import { type ColorProgram, finite, sameTables, tableOf } from "./program.js";
import { naturalSpline } from "./tone.js";

/**
 * How far full brightness (100) moves the diagonal's points perpendicular to it, as a fraction of 255, sampled at
 * 17 evenly spaced points along the diagonal (fitted; see the file comment).
 */
const BRIGHTNESS_BUMP = [
  0, 0.0184, 0.0367, 0.0554, 0.0741, 0.0928, 0.1109, 0.128, 0.1434, 0.1539, 0.1579, 0.155, 0.1418, 0.124, 0.0999, 0.053, 0,
] as const;

/** Levels the quarter points (64 and 191) move per point of contrast, raising and lowering contrast (fitted). */
const CONTRAST_SHIFT = { raise: 0.263, lower: 0.2405 } as const;

/** The Brightness/Contrast adjustment as one table for all channels. */
export function brightnessContrastProgram(adjustment: BrightnessAdjustment): ColorProgram {
  const brightness = Math.min(150, Math.max(-150, finite(adjustment.brightness, 0)));
  const contrast = Math.min(100, Math.max(-100, finite(adjustment.contrast, 0)));
  return sameTables(adjustment.useLegacy ? legacyTable(brightness, contrast) : currentTable(brightness, contrast));
}

/**
 * Legacy: a line of slope `s` through mid-grey, `s` from the contrast quantised to a byte. Raising contrast shifts
 * by the brightness first, steepens and rounds up; lowering it flattens first, then shifts and rounds (fitted:
 * within one level of Photoshop's output, the other order is 6 levels off).
 */
function legacyTable(brightness: number, contrast: number): Uint8Array {
  const steps = Math.round(2.55 * contrast);
  if (steps >= 255) return tableOf((x) => (x + brightness >= 127.5 ? 255 : 0));
  if (steps > 0) return tableOf((x) => Math.ceil((255 / (255 - steps)) * (x + brightness - 127.5) + 127.5));
  return tableOf((x) => ((255 + steps) / 255) * (x - 127.5) + 127.5 + brightness);
}

function currentTable(brightness: number, contrast: number): Uint8Array {
  const bend = brightnessCurve(brightness / 100);
  const k = contrast * (contrast > 0 ? CONTRAST_SHIFT.raise : CONTRAST_SHIFT.lower);
  const spread = contrast === 0 ? (x: number) => x : naturalSpline([0, 64, 191, 255], [0, 64 - k, 191 + k, 255]);
  return tableOf((x) => spread(Math.min(255, Math.max(0, bend(x)))));
}

/**
 * The brightness curve: each point `(u, u)` of the diagonal moved by `v = strength · bump(u)` perpendicular to it,
 * to `(u − v, u + v)`, read back as a function of x. Where a strong darkening folds the curve over itself the
 * later point wins, which keeps the table monotonic.
 */
function brightnessCurve(strength: number): (x: number) => number {
  const samples = 1024;
  const xs = new Float64Array(samples + 1);
  const ys = new Float64Array(samples + 1);
  let reach = -Infinity;
  for (let i = 0; i <= samples; i++) {
    const u = i / samples;
    const v = strength * bumpAt(u);
    reach = Math.max(reach, u - v);
    xs[i] = reach * 255;
    ys[i] = (u + v) * 255;
  }
  return (x) => {
    let lo = 0;
    let hi = samples;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if ((xs[mid] ?? 0) <= x) lo = mid;
      else hi = mid;
    }
    const x0 = xs[lo] ?? 0;
    const x1 = xs[hi] ?? 0;
    const y0 = ys[lo] ?? 0;
    return x1 > x0 ? y0 + ((ys[hi] ?? 0) - y0) * ((x - x0) / (x1 - x0)) : y0;
  };
}

function bumpAt(u: number): number {
  const last = BRIGHTNESS_BUMP.length - 1;
  const at = Math.min(last, Math.max(0, u * last));
  const i = Math.min(last - 1, Math.floor(at));
  const a = BRIGHTNESS_BUMP[i] ?? 0;
  return a + ((BRIGHTNESS_BUMP[i + 1] ?? 0) - a) * (at - i);
}
