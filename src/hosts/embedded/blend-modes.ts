/*
 * The blend modes the embedded editor renders: separable ones as functions of one channel (and a 256×256 table of
 * each, built on first use), non-separable ones (hue, saturation, color, luminosity, darker/lighter color) on RGB,
 * all as the W3C compositing spec defines them, channels in 0–1.
 */

export type BlendFn = (cb: number, cs: number) => number;
export type Rgb = [number, number, number];
export type NonSeparableFn = (cb: Rgb, cs: Rgb, out: Rgb) => void;

const hardLight: BlendFn = (cb, cs) => (cs <= 0.5 ? 2 * cb * cs : 1 - 2 * (1 - cb) * (1 - cs));
const colorDodge: BlendFn = (cb, cs) => (cb === 0 ? 0 : cs >= 1 ? 1 : Math.min(1, cb / (1 - cs)));
const colorBurn: BlendFn = (cb, cs) => (cb >= 1 ? 1 : cs <= 0 ? 0 : 1 - Math.min(1, (1 - cb) / cs));

/** Separable blend functions by PSD blend mode name; channels in 0–1. */
export const BLEND_FUNCTIONS: Readonly<Record<string, BlendFn>> = {
  multiply: (cb, cs) => cb * cs,
  screen: (cb, cs) => cb + cs - cb * cs,
  overlay: (cb, cs) => hardLight(cs, cb),
  "hard light": hardLight,
  "soft light": (cb, cs) => {
    if (cs <= 0.5) return cb - (1 - 2 * cs) * cb * (1 - cb);
    const d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : Math.sqrt(cb);
    return cb + (2 * cs - 1) * (d - cb);
  },
  darken: (cb, cs) => Math.min(cb, cs),
  lighten: (cb, cs) => Math.max(cb, cs),
  difference: (cb, cs) => Math.abs(cb - cs),
  exclusion: (cb, cs) => cb + cs - 2 * cb * cs,
  "color dodge": colorDodge,
  "color burn": colorBurn,
  "linear dodge": (cb, cs) => Math.min(1, cb + cs),
  "linear burn": (cb, cs) => Math.max(0, cb + cs - 1),
  // Photoshop settles the extremes by the source first: pure black burns to 0 and pure white dodges to 1 whatever
  // the backdrop (W3C's burn and dodge would keep a white or black backdrop), as its own composites show.
  "vivid light": (cb, cs) => (cs <= 0.5 ? (cs <= 0 ? 0 : colorBurn(cb, 2 * cs)) : cs >= 1 ? 1 : colorDodge(cb, 2 * cs - 1)),
  "linear light": (cb, cs) => Math.min(1, Math.max(0, cb + 2 * cs - 1)),
  "pin light": (cb, cs) => (cs <= 0.5 ? Math.min(cb, 2 * cs) : Math.max(cb, 2 * cs - 1)),
  // Vivid light thresholded at ½ with W3C's burn and dodge: a black backdrop stays 0 and a white one 1 whatever the
  // source (so not quite `cb + cs ≥ 1`, which Photoshop's composites contradict at those extremes).
  "hard mix": (cb, cs) => (cb <= 0 ? 0 : cb >= 1 ? 1 : cb + cs >= 1 ? 1 : 0),
  subtract: (cb, cs) => Math.max(0, cb - cs),
  divide: (cb, cs) => (cs === 0 ? (cb === 0 ? 0 : 1) : Math.min(1, cb / cs)),
};

const lum = (c: Rgb): number => 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2];
const sat = (c: Rgb): number => Math.max(c[0], c[1], c[2]) - Math.min(c[0], c[1], c[2]);

function clipColor(c: Rgb): void {
  const l = lum(c);
  const n = Math.min(c[0], c[1], c[2]);
  const x = Math.max(c[0], c[1], c[2]);
  for (let i = 0; i < 3; i++) {
    let v = c[i] as number;
    if (n < 0) v = l + ((v - l) * l) / (l - n);
    if (x > 1) v = l + ((v - l) * (1 - l)) / (x - l);
    c[i] = v;
  }
}

function setLum(c: Rgb, l: number, out: Rgb): void {
  const d = l - lum(c);
  out[0] = c[0] + d;
  out[1] = c[1] + d;
  out[2] = c[2] + d;
  clipColor(out);
}

function setSat(c: Rgb, s: number, out: Rgb): void {
  const max = Math.max(c[0], c[1], c[2]);
  const min = Math.min(c[0], c[1], c[2]);
  for (let i = 0; i < 3; i++) {
    const v = c[i] as number;
    out[i] = max === min ? 0 : v === max ? s : v === min ? 0 : ((v - min) * s) / (max - min);
  }
}

const scratch: Rgb = [0, 0, 0];

/** Non-separable blend modes (W3C compositing §10) by PSD name. */
export const NON_SEPARABLE: Readonly<Record<string, NonSeparableFn>> = {
  hue: (cb, cs, out) => {
    setSat(cs, sat(cb), scratch);
    setLum(scratch, lum(cb), out);
  },
  saturation: (cb, cs, out) => {
    setSat(cb, sat(cs), scratch);
    setLum(scratch, lum(cb), out);
  },
  color: (cb, cs, out) => setLum(cs, lum(cb), out),
  luminosity: (cb, cs, out) => setLum(cb, lum(cs), out),
  "darker color": (cb, cs, out) => out.splice(0, 3, ...(lum(cs) < lum(cb) ? cs : cb)),
  "lighter color": (cb, cs, out) => out.splice(0, 3, ...(lum(cs) > lum(cb) ? cs : cb)),
};

/** Blend modes that composite differently from `normal` (the others are kept and saved, rendered as normal). */
export const RENDERED_BLEND_MODES: readonly string[] = ["normal", ...Object.keys(BLEND_FUNCTIONS), ...Object.keys(NON_SEPARABLE)];

const tables = new Map<string, Float64Array>();

/**
 * `B(cb, cs)` for every pair of bytes (index `cb << 8 | cs`): channels are bytes, so the table holds exactly the
 * values the function would return, without a call per channel. Built on first use, 512 KiB per mode.
 */
export function blendTable(mode: string, blend: BlendFn): Float64Array {
  let table = tables.get(mode);
  if (!table) {
    table = new Float64Array(256 * 256);
    for (let b = 0; b < 256; b++) for (let c = 0; c < 256; c++) table[(b << 8) | c] = blend(b / 255, c / 255);
    tables.set(mode, table);
  }
  return table;
}

