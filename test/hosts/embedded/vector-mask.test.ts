import type { BezierPath, Layer, LayerVectorMask } from "ag-psd";
import { describe, expect, test } from "vitest";
import type { LayerMask } from "../../../src/hosts/embedded/document.js";
import { MAX_VECTOR_MASK_FEATHER, rasterizeVectorMask } from "../../../src/hosts/embedded/vector-mask.js";
import { isBridgeError } from "../../../src/protocol/index.js";
import { difference, readFixture, renderFixture } from "./psd-reference.js";

function valueAt(mask: LayerMask, x: number, y: number): number {
  const mx = x - mask.x;
  const my = y - mask.y;
  return mx >= 0 && my >= 0 && mx < mask.width && my < mask.height ? (mask.data[my * mask.width + mx] ?? 0) : mask.defaultColor;
}

/**
 * Photoshop's own rendering of a layer's vector mask: the mask it caches beside it, or, for a filled shape
 * without one, the shape layer's alpha (strokes in these files lie inside the shape).
 */
function photoshopMask(layer: Layer): LayerMask | undefined {
  const cached = layer.mask;
  if (cached?.fromVectorData && !layer.realMask && cached.imageData) {
    const { width, height, data } = cached.imageData;
    const bytes = Uint8Array.from({ length: width * height }, (_, i) => data[i * 4] ?? 0);
    return { x: cached.left ?? 0, y: cached.top ?? 0, width, height, data: bytes, defaultColor: (cached.defaultColor ?? 0) >= 128 ? 255 : 0 };
  }
  const image = layer.imageData;
  // Only an opaque solid fill's alpha is its shape, and only a stroke inside the shape keeps within it.
  const opaqueFill = layer.vectorFill?.type === "color" || (layer.vectorFill?.type === "solid" && layer.vectorFill.opacityStops.every((s) => s.opacity >= 1));
  const stroke = layer.vectorStroke;
  const strokeInside = stroke?.strokeEnabled !== true || (stroke.lineAlignment === "inside" && stroke.fillEnabled !== false);
  if (!cached && image && opaqueFill && strokeInside) {
    const bytes = Uint8Array.from({ length: image.width * image.height }, (_, i) => image.data[i * 4 + 3] ?? 0);
    return { x: layer.left ?? 0, y: layer.top ?? 0, width: image.width, height: image.height, data: bytes, defaultColor: 0 };
  }
  return undefined;
}

/** RMSE (0–255), share of pixels more than 5 off and the largest difference between two masks over a canvas. */
function compareMasks(a: LayerMask, b: LayerMask, width: number, height: number): { rmse: number; share: number; max: number } {
  let sum = 0;
  let off = 0;
  let max = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const d = Math.abs(valueAt(a, x, y) - valueAt(b, x, y));
      sum += d * d;
      if (d > 5) off++;
      max = Math.max(max, d);
    }
  }
  return { rmse: Math.sqrt(sum / (width * height)), share: off / (width * height), max };
}

/** Worst over a file's vector masks of how far ours are from Photoshop's (RMSE, share more than 5 off). */
const MASKS_REACHED: Record<string, { rmse: number; share: number }> = {
  "patterns.psd": { rmse: 0.1, share: 0 },
  "fill_adjustments.psd": { rmse: 0.1, share: 0 },
  "layers/curves-with-vectormask.psd": { rmse: 1, share: 0.008 },
  "mask-vector-density.psd": { rmse: 0.1, share: 0 },
  "mask-density-vectormask.psd": { rmse: 0.1, share: 0 },
  "stroke.psd": { rmse: 0.3, share: 0.001 },
  "gradient-styles.psd": { rmse: 0.1, share: 0 },
  "gradient-sizes.psd": { rmse: 0.1, share: 0 },
  "path-operations/combine.psd": { rmse: 1, share: 0.006 },
  "path-operations/combine-group.psd": { rmse: 1.2, share: 0.01 },
  "path-operations/exclude.psd": { rmse: 2.1, share: 0.013 },
  "path-operations/exclude-first.psd": { rmse: 0.8, share: 0.005 },
  "path-operations/exclude-group.psd": { rmse: 2, share: 0.03 },
  "path-operations/intersect-all.psd": { rmse: 0.9, share: 0.005 },
  "path-operations/intersect-first.psd": { rmse: 0.8, share: 0.005 },
  "path-operations/intersect-group.psd": { rmse: 1.6, share: 0.021 },
  "path-operations/subtract-all.psd": { rmse: 1.8, share: 0.008 },
  "path-operations/subtract-first.psd": { rmse: 1.2, share: 0.007 },
  "path-operations/subtract-group.psd": { rmse: 2, share: 0.028 },
  "path-operations/subtract-second.psd": { rmse: 1.1, share: 0.008 },
};

describe("vector masks match the masks Photoshop rendered in real files", () => {
  for (const [file, reached] of Object.entries(MASKS_REACHED)) {
    test(`${file}: every vector mask within ${reached.rmse} RMSE and ${reached.share * 100} % of pixels off`, () => {
      const { psd } = readFixture(file);
      const layers: Layer[] = [];
      const walk = (list: readonly Layer[]): void => {
        for (const layer of list) {
          if (layer.children) walk(layer.children);
          else if (layer.vectorMask && photoshopMask(layer)) layers.push(layer);
        }
      };
      walk(psd.children ?? []);
      expect(layers.length).toBeGreaterThan(0);
      for (const layer of layers) {
        const d = compareMasks(rasterizeVectorMask(layer.vectorMask!, psd), photoshopMask(layer)!, psd.width, psd.height);
        expect(d.rmse, layer.name).toBeLessThanOrEqual(reached.rmse);
        expect(d.share, layer.name).toBeLessThanOrEqual(reached.share);
      }
    });
  }

  const COMPOSITES: Record<string, { rmse: number; share: number }> = {
    "mask-density-layervectormask.psd": { rmse: 0.6, share: 0.001 },
    "mask-density-vectormask.psd": { rmse: 0.1, share: 0 },
    "mask-vector-density.psd": { rmse: 0.1, share: 0 },
    "vector-mask3.psd": { rmse: 0.1, share: 0 },
  };
  for (const [file, reached] of Object.entries(COMPOSITES)) {
    test(`${file}'s composite with its vector masks (and their density) rasterised comes within ${reached.rmse} RMSE`, () => {
      const { psd, composite } = readFixture(file);
      const d = difference(renderFixture(psd, { adjustments: true, fills: true, vectorMasks: true }), composite);
      expect(d.rmse).toBeLessThanOrEqual(reached.rmse);
      expect(d.share).toBeLessThanOrEqual(reached.share);
    });
  }
});

/** A closed path through straight corners (each knot's controls on its anchor). */
function polygon(points: Array<[number, number]>, operation?: BezierPath["operation"]): BezierPath {
  const path: BezierPath = { open: false, fillRule: "even-odd", knots: points.map(([x, y]) => ({ linked: false, points: [x, y, x, y, x, y] })) };
  if (operation) path.operation = operation;
  return path;
}

const square = (x0: number, y0: number, x1: number, y1: number, operation: BezierPath["operation"] = "combine"): BezierPath =>
  polygon(
    [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
    ],
    operation,
  );

const CANVAS = { width: 20, height: 20 };
const mask = (paths: BezierPath[], extra: Partial<LayerVectorMask> = {}): LayerVectorMask => ({ paths, ...extra });

describe("vector masks on synthetic paths", () => {
  test("a square covers exactly its area, its half-covered edge pixels at half", () => {
    const m = rasterizeVectorMask(mask([square(2, 3.5, 10, 8)]), CANVAS);
    expect(valueAt(m, 5, 5)).toBe(255);
    expect(valueAt(m, 5, 3)).toBe(128);
    expect(valueAt(m, 5, 2)).toBe(0);
    expect(valueAt(m, 10, 5)).toBe(0);
    expect(valueAt(m, 1, 5)).toBe(0);
    expect(m.defaultColor).toBe(0);
  });

  test("subtract removes the inner path", () => {
    const m = rasterizeVectorMask(mask([square(0, 0, 10, 10), square(3, 3, 7, 7, "subtract")]), CANVAS);
    expect(valueAt(m, 1, 1)).toBe(255);
    expect(valueAt(m, 5, 5)).toBe(0);
  });

  test("intersect keeps only the overlap and exclude everything but it", () => {
    const paths = (op: BezierPath["operation"]): BezierPath[] => [square(0, 0, 10, 10), square(5, 5, 15, 15, op)];
    const intersect = rasterizeVectorMask(mask(paths("intersect")), CANVAS);
    const exclude = rasterizeVectorMask(mask(paths("exclude")), CANVAS);
    expect([valueAt(intersect, 7, 7), valueAt(intersect, 2, 2), valueAt(intersect, 12, 12)]).toEqual([255, 0, 0]);
    expect([valueAt(exclude, 7, 7), valueAt(exclude, 2, 2), valueAt(exclude, 12, 12)]).toEqual([0, 255, 255]);
  });

  test("a mask starting with subtract starts from everything", () => {
    const m = rasterizeVectorMask(mask([square(5, 5, 10, 10, "subtract")]), CANVAS);
    expect(valueAt(m, 7, 7)).toBe(0);
    expect(valueAt(m, 1, 1)).toBe(255);
    expect(m.defaultColor).toBe(255);
  });

  test("a path without an operation fills together with the one before it (even-odd makes a hole)", () => {
    const inner = square(3, 3, 7, 7);
    delete inner.operation;
    const m = rasterizeVectorMask(mask([square(0, 0, 10, 10), inner]), CANVAS);
    expect([valueAt(m, 1, 1), valueAt(m, 5, 5)]).toEqual([255, 0]);
  });

  test("invert swaps shown and hidden, density lightens what it hides", () => {
    const inverted = rasterizeVectorMask(mask([square(0, 0, 10, 10)], { invert: true }), CANVAS);
    expect([valueAt(inverted, 5, 5), valueAt(inverted, 15, 15)]).toEqual([0, 255]);
    const half = rasterizeVectorMask(mask([square(0, 0, 10, 10)]), CANVAS, { density: 128 });
    expect([valueAt(half, 5, 5), valueAt(half, 15, 15)]).toEqual([255, 127]);
  });

  test("feather blurs the edge symmetrically around the path, and the path goes on past the canvas edge", () => {
    const m = rasterizeVectorMask(mask([square(-5, -5, 10, 25)]), CANVAS, { feather: 2 });
    const edge = [7, 8, 9, 10, 11, 12].map((x) => valueAt(m, x, 10));
    for (let i = 1; i < edge.length; i++) expect(edge[i]).toBeLessThanOrEqual(edge[i - 1]!);
    expect(Math.abs((valueAt(m, 9, 10) + valueAt(m, 10, 10)) / 2 - 127.5)).toBeLessThan(8);
    expect(valueAt(m, 0, 10)).toBeGreaterThan(250);
    expect(valueAt(m, 5, 0)).toBeGreaterThan(250);
  });

  test("a circle of Bézier arcs covers π r² pixels", () => {
    const k = 0.5523 * 8;
    const c = 10;
    const circle: BezierPath = {
      open: false,
      fillRule: "non-zero",
      operation: "combine",
      knots: [
        { linked: true, points: [c - k, c - 8, c, c - 8, c + k, c - 8] },
        { linked: true, points: [c + 8, c - k, c + 8, c, c + 8, c + k] },
        { linked: true, points: [c + k, c + 8, c, c + 8, c - k, c + 8] },
        { linked: true, points: [c - 8, c + k, c - 8, c, c - 8, c - k] },
      ],
    };
    const m = rasterizeVectorMask(mask([circle]), CANVAS);
    let area = 0;
    for (let y = 0; y < 20; y++) for (let x = 0; x < 20; x++) area += valueAt(m, x, y) / 255;
    expect(Math.abs(area - Math.PI * 64)).toBeLessThan(1);
  });

  test("a disabled mask and an empty one that starts with all pixels hide nothing", () => {
    for (const m of [rasterizeVectorMask(mask([square(0, 0, 5, 5)], { disable: true }), CANVAS), rasterizeVectorMask(mask([], { fillStartsWithAllPixels: true }), CANVAS)]) {
      expect([valueAt(m, 2, 2), valueAt(m, 15, 15)]).toEqual([255, 255]);
    }
  });

  test("a feather past the limit and a mask larger than the limit are refused by name", () => {
    const codes: unknown[] = [];
    for (const attempt of [
      () => rasterizeVectorMask(mask([square(0, 0, 5, 5)]), CANVAS, { feather: MAX_VECTOR_MASK_FEATHER + 1 }),
      () => rasterizeVectorMask(mask([square(0, 0, 20_000, 20_000)]), { width: 20_000, height: 20_000 }),
    ]) {
      try {
        attempt();
        codes.push("none");
      } catch (error) {
        codes.push(isBridgeError(error) ? error.code : error);
      }
    }
    expect(codes).toEqual(["BAD_REQUEST", "PAYLOAD_TOO_LARGE"]);
  });
});
