import type { FitMode } from "../edits.js";

/** A rectangle with fractional edges. */
export interface FitRect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/**
 * Where an image of `width` × `height` goes in `box` by `fit` (`layer:replaceContents`), with the spare room (or the
 * overflow) shared by `alignment` (fractions: 0 left/top, ½ centre, 1 right/bottom). Every editor places an image
 * into a box with it, so `contain`, `cover`, `fill` and `none` mean the same everywhere.
 */
export function fitRect(width: number, height: number, box: FitRect, fit: FitMode, alignment: readonly [number, number]): FitRect {
  const scale = fit === "contain" ? Math.min(box.width / width, box.height / height) : fit === "cover" ? Math.max(box.width / width, box.height / height) : 1;
  const w = fit === "fill" ? box.width : width * scale;
  const h = fit === "fill" ? box.height : height * scale;
  return { x: box.x + (box.width - w) * alignment[0], y: box.y + (box.height - h) * alignment[1], width: w, height: h };
}
