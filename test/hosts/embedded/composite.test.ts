import { describe, expect, it } from "vitest";
import { blendOnto } from "../../../src/hosts/embedded/blend.js";
import type { Raster } from "../../../src/hosts/embedded/raster.js";

const raster = (pixels: number[][]): Raster => ({ width: pixels.length, height: 1, data: new Uint8ClampedArray(pixels.flat()) });

/** W3C compositing of one straight-RGBA source pixel over a backdrop pixel with a separable blend function. */
function reference(backdrop: number[], source: number[], opacity: number, blend: (cb: number, cs: number) => number): number[] {
  const ab = backdrop[3]! / 255;
  const as = (source[3]! / 255) * opacity;
  const ao = as + ab * (1 - as);
  const out = [0, 1, 2].map((c) => {
    const cb = backdrop[c]! / 255;
    const cs = source[c]! / 255;
    return ((as * (1 - ab) * cs + as * ab * blend(cb, cs) + (1 - as) * ab * cb) / ao) * 255;
  });
  return [...out, ao * 255];
}

const MODES: Array<[string, (cb: number, cs: number) => number]> = [
  ["multiply", (cb, cs) => cb * cs],
  ["screen", (cb, cs) => cb + cs - cb * cs],
  ["difference", (cb, cs) => Math.abs(cb - cs)],
];

describe("separable blend modes", () => {
  it.each(MODES)("%s follows the W3C formula over opaque, translucent and empty backdrops", (mode, blend) => {
    const backdrops = [
      [200, 100, 50, 255],
      [200, 100, 50, 128],
      [10, 240, 130, 30],
      [0, 0, 0, 0],
    ];
    const source = [30, 180, 90, 150];
    const dst = raster(backdrops);
    blendOnto(dst, raster(backdrops.map(() => source)), { dx: 0, dy: 0, opacity: 0.8, blendMode: mode });
    backdrops.forEach((backdrop, i) => {
      const want = reference(backdrop, source, 0.8, blend);
      const got = [...dst.data.subarray(i * 4, i * 4 + 4)];
      for (let c = 0; c < 4; c++) expect(Math.abs(got[c]! - want[c]!), `${mode} pixel ${i} channel ${c}`).toBeLessThanOrEqual(1);
    });
  });
});
