import type { LayerVectorMask, VectorContent } from "ag-psd";
import { describe, expect, test } from "vitest";
import { recordedFill } from "../../../src/hosts/embedded/content-layers.js";
import type { PixelLayer } from "../../../src/hosts/embedded/document.js";
import { pathBounds } from "../../../src/hosts/embedded/fills/index.js";

const GRADIENT: VectorContent = {
  type: "solid",
  name: "black to white",
  smoothness: 0,
  colorStops: [
    { color: { r: 0, g: 0, b: 0 }, location: 0, midpoint: 0.5 },
    { color: { r: 250, g: 250, b: 250 }, location: 1, midpoint: 0.5 },
  ],
  opacityStops: [{ opacity: 1, location: 0, midpoint: 0.5 }],
  style: "linear",
  angle: 0,
};

/** A rectangle's vector mask from (x0, y0) to (x1, y1), as ag-psd reads one. */
function rectangle(x0: number, y0: number, x1: number, y1: number): LayerVectorMask {
  const knot = (x: number, y: number) => ({ linked: false, points: [x, y, x, y, x, y] });
  return { paths: [{ open: false, operation: "combine", fillRule: "even-odd", knots: [knot(x0, y0), knot(x1, y0), knot(x1, y1), knot(x0, y1)] }] };
}

/** A fill layer a 16-bit file stored no pixels for. */
function fillLayer(record: PixelLayer["record"]): PixelLayer {
  return { id: 1, kind: "shape", name: "Shape", visible: true, opacity: 255, blendMode: "normal", left: 0, top: 0, width: 0, height: 0, data: new Uint8ClampedArray(0), record };
}

describe("fill layers drawn from their records", () => {
  test("a shape's box is the bounds of its anchor points, in document pixels", () => {
    expect(pathBounds(rectangle(10.000001, 2, 19.999998, 8))).toEqual({ left: 10.000001, top: 2, right: 19.999998, bottom: 8 });
    expect(pathBounds({ paths: [] })).toBeUndefined();
  });

  test("a gradient aligned with its layer spans the shape's box, not the canvas", () => {
    const layer = fillLayer({ vectorFill: GRADIENT, vectorMask: rectangle(10, 0, 20, 4) } as PixelLayer["record"]);
    const filled = recordedFill(layer, { left: 0, top: 0, right: 40, bottom: 4 }, { width: 40, height: 4 });
    const red = (x: number): number => filled?.data[x * 4] ?? -1;
    // Black up to the shape's left edge, white from its right edge: a canvas-wide gradient would still be grey there.
    expect(red(5)).toBe(0);
    expect(red(15)).toBe(125);
    expect(red(30)).toBe(250);
  });

  test("a 32-bit document's fill colours are linear light", () => {
    const solid = fillLayer({ vectorFill: { type: "color", color: { r: 51, g: 51, b: 51 } } } as PixelLayer["record"]);
    const region = { left: 0, top: 0, right: 1, bottom: 1 };
    expect(recordedFill(solid, region, { width: 1, height: 1 })?.data[0]).toBe(51);
    expect(recordedFill(solid, region, { width: 1, height: 1, sourceColor: { mode: "rgb", depth: 32 } })?.data[0]).toBe(124);
  });
});
