import { describe, expect, test } from "vitest";
import { renderDocument } from "../../../src/hosts/embedded/composite.js";
import type { LayerMask, PixelLayer } from "../../../src/hosts/embedded/document.js";
import { gaussianBoxes } from "../../../src/hosts/embedded/_internal/blur.js";
import { effectiveMask } from "../../../src/hosts/embedded/masks.js";

/** The standard normal distribution's cumulative function (Abramowitz–Stegun 7.1.26 for erf, ±1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** A white rectangle from `top` down, wide enough that its side edges are far away, on a black mask. */
function halfPlane(top: number, feather: number): LayerMask {
  const width = 200;
  const height = 100;
  return { x: -50, y: top, width, height, data: new Uint8Array(width * height).fill(255), defaultColor: 0, feather };
}

describe("mask feather", () => {
  test("is a Gaussian whose standard deviation is the radius: the edge follows the normal curve", () => {
    const radius = 6;
    const top = 40;
    const mask = effectiveMask({ mask: halfPlane(top, radius) }, { left: 0, top: 0, right: 100, bottom: 100 });
    expect(mask).toBeDefined();
    // Pixel row y covers [y, y + 1): its centre is y + 0.5 − top from the edge.
    for (const y of [28, 32, 35, 38, 42, 45, 50]) {
      const got = mask!.data[(y - mask!.y) * mask!.width + 50]!;
      const want = 255 * normalCdf((y + 0.5 - top) / radius);
      expect(Math.abs(got - want), `row ${y}`).toBeLessThanOrEqual(3);
    }
  });

  test("the box passes add up to the Gaussian's variance", () => {
    for (const sigma of [0.8, 2, 3.5, 6, 17, 250]) {
      const radii = gaussianBoxes(sigma, 3);
      const variance = radii.reduce((sum, r) => sum + ((2 * r + 1) ** 2 - 1) / 12, 0);
      expect(Math.abs(Math.sqrt(variance) - sigma) / sigma, `σ ${sigma}`).toBeLessThan(0.12);
    }
  });
});

describe("a shape layer whose vector mask has a density", () => {
  test("shows its fill outside the path across the canvas, not only inside its cached pixels", () => {
    // Photoshop caches the fill inside the path (here a 10×10 square at 20, 20) at full strength.
    const width = 10;
    const height = 10;
    const data = new Uint8ClampedArray(width * height * 4);
    for (let i = 0; i < width * height; i++) data.set([0, 0, 255, 255], i * 4);
    const path: LayerMask = { x: 20, y: 20, width, height, data: new Uint8Array(width * height).fill(255), defaultColor: 0, density: 204 };
    const shape: PixelLayer = {
      id: 1,
      kind: "shape",
      name: "Square",
      visible: true,
      opacity: 255,
      blendMode: "normal",
      left: 20,
      top: 20,
      width,
      height,
      data,
      vectorMask: path,
      record: { vectorFill: { type: "color", color: { r: 0, g: 0, b: 255 } } } as PixelLayer["record"],
    };
    const out = renderDocument({ width: 60, height: 60, layers: [shape] });
    const alphaAt = (x: number, y: number): number => out.data[(y * 60 + x) * 4 + 3]!;
    // Inside the path all of the fill; far from it (and from the cached pixels) the 20% the density leaves.
    expect(alphaAt(25, 25)).toBe(255);
    expect(Math.abs(alphaAt(2, 2) - 51)).toBeLessThanOrEqual(1);
    expect(Math.abs(alphaAt(55, 40) - 51)).toBeLessThanOrEqual(1);
    expect([...out.data.subarray((2 * 60 + 2) * 4, (2 * 60 + 2) * 4 + 3)]).toEqual([0, 0, 255]);
  });
});
