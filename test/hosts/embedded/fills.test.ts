import type { Color, PatternInfo, VectorContent } from "ag-psd";
import { describe, expect, test } from "vitest";
import { renderFill } from "../../../src/hosts/embedded/fills/index.js";
import type { Raster } from "../../../src/hosts/embedded/raster.js";
import { isBridgeError } from "../../../src/protocol/index.js";
import { difference, readFixture, renderFixture } from "./psd-reference.js";

type Region = { left: number; top: number; right: number; bottom: number };

/**
 * How close each real file comes with its fill layers rendered (and its vector masks rasterised) instead of the
 * pixels Photoshop cached: a ratchet of what the fitted geometry reaches. Regions leave out what these modules do
 * not draw (noise gradients, layer effects).
 */
const REACHED: Array<{ file: string; region?: Region; rmse: number; share: number }> = [
  { file: "gradient-styles.psd", region: { left: 0, top: 0, right: 160, bottom: 133 }, rmse: 4.7, share: 0.04 },
  { file: "gradient-sizes.psd", rmse: 0.5, share: 0.001 },
  { file: "layers/gradient-fill.psd", rmse: 0.2, share: 0.001 },
  { file: "layers/pattern-fill.psd", rmse: 0.1, share: 0 },
  { file: "layers/solid-color-fill.psd", rmse: 0.1, share: 0 },
  { file: "patterns.psd", region: { left: 0, top: 0, right: 256, bottom: 118 }, rmse: 0.1, share: 0 },
  { file: "adjustments/adjustment_clipping.psd", rmse: 0.5, share: 0.001 },
  { file: "adjustments/adjustment_nested_composition_1.psd", rmse: 0.3, share: 0.001 },
  { file: "adjustments/adjustment_nested_composition_4.psd", rmse: 0.4, share: 0.002 },
];

const RENDERED = { adjustments: true, fills: true, vectorMasks: true } as const;

describe("fill layers rebuild Photoshop's composite of real files", () => {
  for (const { file, region, rmse, share } of REACHED) {
    test(`${file} comes within ${rmse} RMSE and ${share * 100} % of pixels off`, () => {
      const { psd, composite } = readFixture(file);
      const d = difference(renderFixture(psd, RENDERED), composite, region);
      expect(d.rmse).toBeLessThanOrEqual(rmse);
      expect(d.share).toBeLessThanOrEqual(share);
    });
  }
});

const CANVAS = { width: 40, height: 20 };
const WHOLE = { left: 0, top: 0, right: 40, bottom: 20 };

function at(raster: Raster, x: number, y: number): number[] {
  const i = (y * raster.width + x) * 4;
  return [...raster.data.subarray(i, i + 4)];
}

function gradient(extra: Partial<Extract<VectorContent, { type: "solid" }>> = {}): VectorContent {
  return {
    type: "solid",
    name: "test",
    smoothness: 0,
    colorStops: [
      { color: { r: 255, g: 0, b: 0 }, location: 0, midpoint: 0.5 },
      { color: { r: 0, g: 0, b: 255 }, location: 1, midpoint: 0.5 },
    ],
    opacityStops: [{ opacity: 1, location: 0, midpoint: 0.5 }],
    style: "linear",
    angle: 0,
    ...extra,
  };
}

describe("fills on a synthetic canvas", () => {
  test("a solid colour fill covers the region with the colour, opaque", () => {
    const fill = renderFill({ type: "color", color: { r: 10, g: 200, b: 30 } }, { left: 5, top: 5, right: 8, bottom: 7 }, CANVAS);
    expect([fill.width, fill.height]).toEqual([3, 2]);
    expect(at(fill, 2, 1)).toEqual([10, 200, 30, 255]);
  });

  test("colours in HSB, CMYK, Lab and grey come out as their sRGB", () => {
    const colors: Array<[Color, number[]]> = [
      [{ h: 1 / 3, s: 100, b: 100 }, [0, 255, 0]],
      [{ c: 0, m: 100, y: 100, k: 0 }, [255, 0, 0]],
      [{ l: 100, a: 0, b: 0 }, [255, 255, 255]],
      [{ k: 100 }, [0, 0, 0]],
      [{ fr: 0, fg: 0, fb: 1 }, [0, 0, 255]],
    ];
    for (const [color, rgb] of colors) expect(at(renderFill({ type: "color", color }, WHOLE, CANVAS), 0, 0).slice(0, 3), JSON.stringify(color)).toEqual(rgb);
  });

  test("a linear gradient's ends carry the stop colours and its middle is half way", () => {
    const fill = renderFill(gradient(), WHOLE, CANVAS);
    expect(at(fill, 0, 10)).toEqual([255, 0, 0, 255]);
    expect(at(fill, 39, 10)[0]).toBeLessThanOrEqual(8);
    expect(at(fill, 39, 10)[2]).toBeGreaterThanOrEqual(247);
    const middle = at(fill, 20, 10);
    expect(Math.abs((middle[0] ?? 0) - (middle[2] ?? 0))).toBeLessThanOrEqual(8);
  });

  test("reverse swaps the ends", () => {
    const fill = renderFill(gradient({ reverse: true }), WHOLE, CANVAS);
    expect(at(fill, 0, 10).slice(0, 3)).toEqual([0, 0, 255]);
  });

  test("an angle of 90 runs the gradient from the bottom up", () => {
    const fill = renderFill(gradient({ angle: 90 }), WHOLE, CANVAS);
    expect(at(fill, 20, 19)[0]).toBeGreaterThan(235);
    expect(at(fill, 20, 19)[2]).toBeLessThan(20);
    expect(at(fill, 20, 0)[2]).toBeGreaterThan(240);
  });

  test("opacity stops fade the fill out", () => {
    const fill = renderFill(
      gradient({ opacityStops: [{ opacity: 1, location: 0, midpoint: 0.5 }, { opacity: 0, location: 1, midpoint: 0.5 }] }),
      WHOLE,
      CANVAS,
    );
    expect(at(fill, 0, 10)[3]).toBe(255);
    expect(at(fill, 39, 10)[3]).toBeLessThanOrEqual(8);
  });

  test("a radial gradient is its first colour at the centre and its last toward the corners", () => {
    const fill = renderFill(gradient({ style: "radial" }), WHOLE, CANVAS);
    expect(at(fill, 20, 10).slice(0, 3)).toEqual([255, 0, 0]);
    expect(at(fill, 0, 0).slice(0, 3)).toEqual([0, 0, 255]);
  });

  test("aligned with the layer, the gradient spans the layer's box, not the canvas", () => {
    const fill = renderFill(gradient(), WHOLE, { ...CANVAS, layerBounds: { left: 10, top: 0, right: 20, bottom: 20 } });
    expect(at(fill, 5, 10).slice(0, 3)).toEqual([255, 0, 0]);
    expect(at(fill, 30, 10).slice(0, 3)).toEqual([0, 0, 255]);
    const unaligned = renderFill(gradient({ align: false }), WHOLE, { ...CANVAS, layerBounds: { left: 10, top: 0, right: 20, bottom: 20 } });
    expect(at(unaligned, 30, 10)[0]).toBeGreaterThan(40);
  });

  test("a gradient saved below 100 % smoothness still reaches its last stop at the end (ag-psd's locations undone)", () => {
    // ag-psd divides locations by the smoothness: at 40 % the last stop reads as 2.5.
    const fill = renderFill(
      gradient({
        smoothness: 0.4,
        colorStops: [
          { color: { r: 255, g: 0, b: 0 }, location: 0, midpoint: 0.5 },
          { color: { r: 0, g: 0, b: 255 }, location: 2.5, midpoint: 0.5 },
        ],
      }),
      WHOLE,
      CANVAS,
    );
    expect(at(fill, 39, 10)[2]).toBeGreaterThan(240);
  });

  test("a pattern tiles from the layer's reference point plus the phase", () => {
    const tile: PatternInfo = {
      name: "checker",
      id: "p1",
      x: 2,
      y: 2,
      bounds: { x: 0, y: 0, w: 2, h: 2 },
      data: Uint8Array.from([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255]),
    };
    const content: VectorContent = { type: "pattern", name: "checker", id: "p1", phase: { x: 1, y: 0 } };
    const fill = renderFill(content, WHOLE, { ...CANVAS, patterns: [tile], origin: { x: 2, y: 1 } });
    // The tile's top-left (red) lies at (3, 1), and every 2 px from there.
    expect(at(fill, 3, 1).slice(0, 3)).toEqual([255, 0, 0]);
    expect(at(fill, 5, 3).slice(0, 3)).toEqual([255, 0, 0]);
    expect(at(fill, 4, 1).slice(0, 3)).toEqual([0, 255, 0]);
    expect(at(fill, 3, 2).slice(0, 3)).toEqual([0, 0, 255]);
  });

  test("a reflected gradient is dragged from its centre to an end in whole pixels: at 30° over 4×4 it runs at 45°", () => {
    const stops = [
      { color: { r: 0, g: 0, b: 0 }, location: 0, midpoint: 0.5 },
      { color: { r: 200, g: 200, b: 200 }, location: 1, midpoint: 0.5 },
    ];
    const square = { width: 4, height: 4 };
    const fill = renderFill(gradient({ style: "reflected", angle: 30, smoothness: 0, colorStops: stops }), { left: 0, top: 0, right: 4, bottom: 4 }, square);
    // The end (4.0, 0.85) rounds down to (4, 0): half a gradient is (2, −2), so each pixel is |x − y| / 4 along it.
    for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) expect(at(fill, x, y)[0], `${x},${y}`).toBe(Math.round((200 * Math.abs(x - y)) / 4));
  });

  test("a linear gradient rounds each of its ends down to a whole pixel", () => {
    // 0° over a 5-pixel box: the ends (0, y) and (5, y) stay, the centre is 2.5, so pixel 1 is 20 % along.
    const fill = renderFill(gradient({ smoothness: 0, colorStops: [
      { color: { r: 0, g: 0, b: 0 }, location: 0, midpoint: 0.5 },
      { color: { r: 250, g: 250, b: 250 }, location: 1, midpoint: 0.5 },
    ] }), { left: 0, top: 0, right: 5, bottom: 1 }, { width: 5, height: 1 });
    expect(at(fill, 1, 0)[0]).toBe(50);
  });

  test("a 32-bit document's gradient blends its stops as linear light and shows them encoded", () => {
    const stops = [
      { color: { r: 0, g: 0, b: 0 }, location: 0, midpoint: 0.5 },
      { color: { r: 255, g: 255, b: 255 }, location: 1, midpoint: 0.5 },
    ];
    const content = gradient({ smoothness: 0, colorStops: stops, angle: 0 });
    const line = { left: 0, top: 0, right: 5, bottom: 1 };
    const linear = renderFill(content, line, { width: 5, height: 1, linear: true });
    const plain = renderFill(content, line, { width: 5, height: 1 });
    // Pixel 2 is 40 % along: sRGB 170 blended in linear light, 102 blended as sRGB; the stops stay black and white.
    expect(at(plain, 2, 0)[0]).toBe(102);
    expect(at(linear, 2, 0)[0]).toBe(170);
    expect(at(linear, 0, 0)[0]).toBe(0);
    const solid = renderFill({ type: "color", color: { r: 51, g: 51, b: 51 } }, line, { width: 5, height: 1, linear: true });
    expect(at(solid, 0, 0)[0]).toBe(124);
  });

  test("a pattern at 200 % lands each texel on every other pixel and blends the pixels between", () => {
    const tile: PatternInfo = {
      name: "lines",
      id: "p2",
      x: 1,
      y: 2,
      bounds: { x: 0, y: 0, w: 1, h: 2 },
      data: Uint8Array.from([0, 0, 0, 255, 200, 200, 200, 255]),
    };
    const fill = renderFill({ type: "pattern", name: "lines", id: "p2" }, { left: 0, top: 0, right: 1, bottom: 4 }, { width: 1, height: 4, patterns: [tile], patternScale: 2 });
    expect([0, 1, 2, 3].map((y) => at(fill, 0, y)[0])).toEqual([0, 100, 200, 100]);
  });

  test("a pattern the document does not hold, a noise gradient and a huge region are refused by name", () => {
    const codes: unknown[] = [];
    const attempt = (fn: () => unknown): void => {
      try {
        fn();
        codes.push("none");
      } catch (error) {
        codes.push(isBridgeError(error) ? error.code : error);
      }
    };
    attempt(() => renderFill({ type: "pattern", name: "gone", id: "nope" }, WHOLE, CANVAS));
    attempt(() => renderFill({ type: "noise", name: "n", min: [0, 0, 0, 0], max: [1, 1, 1, 1] }, WHOLE, CANVAS));
    attempt(() => renderFill({ type: "color", color: { r: 0, g: 0, b: 0 } }, { left: 0, top: 0, right: 20_000, bottom: 20_000 }, CANVAS));
    expect(codes).toEqual(["BAD_REQUEST", "NOT_SUPPORTED", "PAYLOAD_TOO_LARGE"]);
  });

  test("a long fill reports its rows to the work it is given", () => {
    let rows = 0;
    renderFill(gradient(), { left: 0, top: 0, right: 4, bottom: 70 }, { ...CANVAS, work: { rows: (n) => { rows += n; } } });
    expect(rows).toBe(70);
  });
});
