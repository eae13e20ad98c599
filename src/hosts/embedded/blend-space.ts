/*
 * Compositing in the colour space a document was made in. The editor holds 8-bit sRGB, but Photoshop blends a
 * 32-bit document in linear light and a Lab document in Lab: a half-covered edge of a shape (or anything with
 * partial alpha) mixes its colours there, and the mix differs by up to 30 levels from one in sRGB (a pink edge over
 * white: sRGB (241, 161, 161), linear light (242, 192, 192), as the files' stored composites show).
 *
 * A destination raster that carries a `space` is blended here: every pixel where something actually mixes (partial
 * alpha, or a blend mode other than normal) is taken into the space as floats, mixed with the compositor's
 * formulas, and stored back as sRGB bytes. Opaque normal pixels are copied as everywhere else, so only edges and
 * translucent layers pay for the conversion.
 */
import { labToLinearSrgb, linearToSrgb, rgbToLab, srgbToLinear } from "./psd-file/color.js";
import { BLEND_FUNCTIONS, NON_SEPARABLE, type Rgb } from "./blend-modes.js";
import type { PlacedMask } from "./masks.js";
import { overlap } from "./pixel-loops.js";
import type { BlendSpace, Raster } from "./raster.js";
import { RowBands, type RowWork } from "./work.js";

/** The space a document's layers blend in, from the mode and depth of its file; undefined for sRGB. */
export function blendSpaceOf(source: { readonly mode: string; readonly depth: number } | undefined): BlendSpace | undefined {
  if (source === undefined) return undefined;
  if (source.depth === 32) return "linear";
  return source.mode === "lab" ? "lab" : undefined;
}

/** A raster to composite into: `raster` itself, marked to blend in `space` when one is given. */
export function inSpace<T extends Raster>(raster: T, space: BlendSpace | undefined): T {
  return space === undefined ? raster : { ...raster, space };
}

/** sRGB byte → linear light, for every byte. */
const LINEAR = Float64Array.from({ length: 256 }, (_, v) => srgbToLinear(v / 255));

/**
 * Steps of the linear light → sRGB byte table: 1/65535 is a twentieth of a level even where the curve is steepest
 * (near black), so the table rounds as the curve would; 64 KiB.
 */
const ENCODE_STEPS = 65535;
const ENCODE = Uint8Array.from({ length: ENCODE_STEPS + 1 }, (_, i) => Math.round(255 * linearToSrgb(i / ENCODE_STEPS)));

/** Linear light (clamped to 0–1) as an sRGB byte, by {@link ENCODE}. */
const encodeByte = (v: number): number => (ENCODE[v <= 0 ? 0 : v >= 1 ? ENCODE_STEPS : Math.round(v * ENCODE_STEPS)] as number);

/** Reads 3 sRGB bytes at `i` as the space's floats (each 0–1) into `out`. */
function toSpace(space: BlendSpace, bytes: Uint8ClampedArray, i: number, out: Rgb): void {
  if (space === "linear") {
    out[0] = LINEAR[bytes[i] as number] as number;
    out[1] = LINEAR[bytes[i + 1] as number] as number;
    out[2] = LINEAR[bytes[i + 2] as number] as number;
    return;
  }
  const rgb = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
  // Most pixels that mix share a few colours (a shape's edge over its backdrop): their Lab is looked up, not recomputed.
  const slot = (rgb ^ (rgb >>> 12)) & (LAB_CACHE_ENTRIES - 1);
  if (labKeys[slot] !== rgb) {
    rgbToLab(rgb >>> 16, (rgb >>> 8) & 255, rgb & 255, labScratch);
    labKeys[slot] = rgb;
    labValues.set(labScratch, slot * 3);
  }
  out[0] = labValues[slot * 3] as number;
  out[1] = labValues[slot * 3 + 1] as number;
  out[2] = labValues[slot * 3 + 2] as number;
}

/** Entries of the sRGB → Lab cache: 64 Ki colours, 1.75 MiB, allocated once. */
const LAB_CACHE_ENTRIES = 1 << 16;
const labKeys = new Int32Array(LAB_CACHE_ENTRIES).fill(-1);
const labValues = new Float64Array(LAB_CACHE_ENTRIES * 3);
const labScratch = [0, 0, 0];

const rgbOut = [0, 0, 0];

/** Stores the space's floats as sRGB bytes at `i`. */
function fromSpace(space: BlendSpace, c: Rgb, bytes: Uint8ClampedArray, i: number): void {
  if (space === "linear") {
    bytes[i] = encodeByte(c[0]);
    bytes[i + 1] = encodeByte(c[1]);
    bytes[i + 2] = encodeByte(c[2]);
    return;
  }
  // Stored Lab units (each 0–1) as L*, a*, b*, then the one Lab conversion; encoded by the table.
  labToLinearSrgb(c[0] * 100, c[1] * 255 - 128, c[2] * 255 - 128, rgbOut);
  bytes[i] = encodeByte(rgbOut[0] as number);
  bytes[i + 1] = encodeByte(rgbOut[1] as number);
  bytes[i + 2] = encodeByte(rgbOut[2] as number);
}

/** How a source meets the destination: over it (source-over), or atop it (its alpha kept: a clipped layer). */
export interface SpacedBlend {
  readonly opacity: number;
  readonly blendMode: string;
  readonly placed?: PlacedMask | undefined;
  readonly atop?: boolean | undefined;
  /** A pixel's chance of being drawn whole (dissolve); undefined for every other mode. */
  readonly dissolve?: ((x: number, y: number) => number) | undefined;
}

/**
 * The compositor's source-over (or source-atop) of `src` at `(dx, dy)` onto `dst`, with the colours mixed in
 * `space`: the same formulas as `blendOnto` and `atopOnto`, on the space's values.
 */
export function blendInSpace(space: BlendSpace, dst: Raster, src: Raster, dx: number, dy: number, how: SpacedBlend, work?: RowWork): void {
  const box = overlap(dst, src, dx, dy);
  if (box === null) return;
  const { x0, y0, x1, y1 } = box;
  const blend = BLEND_FUNCTIONS[how.blendMode];
  const nonSeparable = NON_SEPARABLE[how.blendMode];
  const mask = how.placed?.mask;
  const d = dst.data;
  const s = src.data;
  const cb: Rgb = [0, 0, 0];
  const cs: Rgb = [0, 0, 0];
  const mixed: Rgb = [0, 0, 0];
  const bands = new RowBands(work);
  for (let y = y0; y < y1; y++) {
    bands.next();
    let si = ((y - dy) * src.width + (x0 - dx)) * 4;
    let di = (y * dst.width + x0) * 4;
    const my = y - (how.placed?.dy ?? 0);
    const maskRow = mask && my >= 0 && my < mask.height ? my * mask.width : -1;
    for (let x = x0; x < x1; x++, si += 4, di += 4) {
      const sa = s[si + 3] as number;
      const bAlpha = d[di + 3] as number;
      if (sa === 0 || (how.atop && bAlpha === 0)) continue;
      let m = 255;
      if (mask) {
        const mx = x - (how.placed?.dx ?? 0);
        m = maskRow >= 0 && mx >= 0 && mx < mask.width ? (mask.data[maskRow + mx] as number) : mask.defaultColor;
        if (m === 0) continue;
      }
      let as = (sa / 255) * how.opacity * (m / 255);
      if (how.dissolve) as = how.dissolve(x - dx, y - dy) < as ? 1 : 0;
      if (as <= 0) continue;
      const ab = bAlpha / 255;
      const plain = !blend && !nonSeparable;
      if (plain && !how.atop && (as >= 1 || ab === 0)) {
        // Nothing mixes: the source replaces (or lands on nothing).
        d[di] = s[si] as number;
        d[di + 1] = s[si + 1] as number;
        d[di + 2] = s[si + 2] as number;
        d[di + 3] = as >= 1 ? 255 : as * 255;
        continue;
      }
      toSpace(space, d, di, cb);
      toSpace(space, s, si, cs);
      if (nonSeparable) nonSeparable(cb, cs, mixed);
      else for (let c = 0; c < 3; c++) mixed[c] = blend ? blend(cb[c] as number, cs[c] as number) : (cs[c] as number);
      if (how.atop) {
        for (let c = 0; c < 3; c++) mixed[c] = as * (mixed[c] as number) + (1 - as) * (cb[c] as number);
        fromSpace(space, mixed, d, di);
        continue;
      }
      const ao = as + ab * (1 - as);
      for (let c = 0; c < 3; c++) {
        const withBackdrop = (1 - ab) * (cs[c] as number) + ab * (mixed[c] as number);
        mixed[c] = (as * withBackdrop + (1 - as) * ab * (cb[c] as number)) / ao;
      }
      fromSpace(space, mixed, d, di);
      d[di + 3] = ao * 255;
    }
  }
  bands.end(y1 - y0);
}

/**
 * Moves `dst` toward `target` by `t` (0–1) times the mask's value at each pixel (`maskAt`), premultiplied, the
 * colours in `space`: a pass-through group's opacity and mask.
 */
export function lerpInSpace(space: BlendSpace, dst: Raster, target: Raster, t: number, maskAt: ((x: number, y: number) => number) | undefined): void {
  const d = dst.data;
  const g = target.data;
  const cb: Rgb = [0, 0, 0];
  const cg: Rgb = [0, 0, 0];
  for (let y = 0; y < dst.height; y++) {
    for (let x = 0; x < dst.width; x++) {
      const w = maskAt ? t * maskAt(x, y) : t;
      if (w === 0) continue;
      const i = (y * dst.width + x) * 4;
      const ab = (d[i + 3] as number) / 255;
      const ag = (g[i + 3] as number) / 255;
      const ao = ab + (ag - ab) * w;
      if (ao <= 0) {
        d[i + 3] = 0;
        continue;
      }
      toSpace(space, d, i, cb);
      toSpace(space, g, i, cg);
      for (let c = 0; c < 3; c++) cb[c] = ((cb[c] as number) * ab + ((cg[c] as number) * ag - (cb[c] as number) * ab) * w) / ao;
      fromSpace(space, cb, d, i);
      d[i + 3] = ao * 255;
    }
  }
}
