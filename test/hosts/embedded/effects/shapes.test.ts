import type { LayerEffectsInfo, LayerVectorMask, VectorContent } from "ag-psd";
import { describe, expect, it } from "vitest";
import type { PixelLayer } from "../../../../src/hosts/embedded/document.js";
import { drawLayer, styleContext } from "../../../../src/hosts/embedded/effects/index.js";
import type { PsdLayerRecord } from "../../../../src/hosts/embedded/psd-records.js";
import { type Raster, solidRaster } from "../../../../src/hosts/embedded/raster.js";

const SIZE = 60;
const REGION = { left: 0, top: 0, right: SIZE, bottom: SIZE };
const STYLE = styleContext({ width: SIZE, height: SIZE });
const px = (value: number) => ({ value, units: "Pixels" as const });
const RED = { r: 255, g: 0, b: 0 };
const GREEN = { r: 0, g: 255, b: 0 };
const BLUE = { r: 0, g: 0, b: 255 };

/** A closed rectangular path from (l, t) to (r, b), in document pixels. */
function rectPath(l: number, t: number, r: number, b: number): LayerVectorMask {
  const corner = (x: number, y: number) => ({ linked: false, points: [x, y, x, y, x, y] });
  return { paths: [{ open: false, fillRule: "even-odd", operation: "combine", knots: [corner(l, t), corner(r, t), corner(r, b), corner(l, b)] }] };
}

/** A shape layer over (20, 20)–(40, 40): `paint(x, y)` gives its cached pixels, `record` its shape records. */
function shape(paint: (x: number, y: number) => readonly number[], record: Partial<PsdLayerRecord>, effects?: LayerEffectsInfo): PixelLayer {
  const data = new Uint8ClampedArray(20 * 20 * 4);
  for (let y = 0; y < 20; y++) for (let x = 0; x < 20; x++) data.set(paint(20 + x, 20 + y), (y * 20 + x) * 4);
  return {
    id: 1,
    kind: "shape",
    name: "Shape",
    visible: true,
    opacity: 255,
    blendMode: "normal",
    left: 20,
    top: 20,
    width: 20,
    height: 20,
    data,
    record: { vectorMask: rectPath(20, 20, 40, 40), ...record } as PsdLayerRecord,
    ...(effects ? { effects } : {}),
  };
}

const pixelAt = (raster: Raster, x: number, y: number): number[] => [...raster.data.subarray((y * SIZE + x) * 4, (y * SIZE + x) * 4 + 4)];

/** A grey square with a red band 2 px wide inside its edge, as Photoshop caches a shape with an inside stroke. */
const strokedSquare = (x: number, y: number): number[] => (x < 22 || y < 22 || x >= 38 || y >= 38 ? [255, 0, 0, 255] : [128, 128, 128, 255]);
const insideStroke = {
  vectorFill: { type: "color", color: { r: 128, g: 128, b: 128 } } as VectorContent,
  vectorStroke: { strokeEnabled: true, fillEnabled: true, lineWidth: px(2), lineAlignment: "inside" as const, opacity: 1, content: { type: "color", color: RED } as VectorContent },
};

describe("shape layers and their effects", () => {
  it("a shape's own stroke is drawn over the colour overlay that covers its fill", () => {
    const out = solidRaster(SIZE, SIZE, [255, 255, 255, 255]);
    drawLayer(out, shape(strokedSquare, insideStroke, { solidFill: [{ enabled: true, color: BLUE, opacity: 1, blendMode: "normal" }] }), REGION, undefined, { style: STYLE });
    expect(pixelAt(out, 30, 30)).toEqual([0, 0, 255, 255]);
    expect(pixelAt(out, 20, 30)).toEqual([255, 0, 0, 255]);
    expect(pixelAt(out, 30, 39)).toEqual([255, 0, 0, 255]);
    expect(pixelAt(out, 23, 30)).toEqual([0, 0, 255, 255]);
  });

  it("a shape's own stroke goes over the layers clipped to it", () => {
    const out = solidRaster(SIZE, SIZE, [255, 255, 255, 255]);
    // The clipping group's composite: the shape's pixels with a green layer clipped over all of them.
    const group = solidRaster(SIZE, SIZE, [0, 0, 0, 0]);
    for (let y = 20; y < 40; y++) for (let x = 20; x < 40; x++) group.data.set([0, 255, 0, 255], (y * SIZE + x) * 4);
    drawLayer(out, shape(strokedSquare, insideStroke), REGION, undefined, { style: STYLE, content: group });
    expect(pixelAt(out, 21, 30)).toEqual([255, 0, 0, 255]);
    expect(pixelAt(out, 30, 30)).toEqual([0, 255, 0, 255]);
  });

  it("with nothing over its fill, a shape layer shows the pixels the file cached, stroke and all", () => {
    // A cached band whose colour differs from the record's: drawn anew it would turn red.
    const cached = (x: number): number[] => (x < 22 ? [200, 10, 10, 255] : [128, 128, 128, 255]);
    const out = solidRaster(SIZE, SIZE, [255, 255, 255, 255]);
    drawLayer(out, shape(cached, insideStroke), REGION, undefined, { style: STYLE });
    expect(pixelAt(out, 20, 30)).toEqual([200, 10, 10, 255]);
  });

  it("a stroke effect on a shape whose fill fades to nothing follows the path, not the pixels", () => {
    // Red fading from opaque on the left to transparent on the right half of the square.
    const fading = (x: number): number[] => [255, 0, 0, Math.max(0, 255 - (x - 20) * 26)];
    const gradient = {
      type: "solid",
      name: "fade",
      colorStops: [
        { color: RED, location: 0, midpoint: 0.5 },
        { color: RED, location: 1, midpoint: 0.5 },
      ],
      opacityStops: [
        { opacity: 1, location: 0, midpoint: 0.5 },
        { opacity: 0, location: 0.5, midpoint: 0.5 },
      ],
    } as unknown as VectorContent;
    const effects: LayerEffectsInfo = { stroke: [{ enabled: true, position: "inside", fillType: "color", size: px(2), color: GREEN, opacity: 1, blendMode: "normal" }] };
    const out = solidRaster(SIZE, SIZE, [255, 255, 255, 255]);
    drawLayer(out, shape((x) => fading(x), { vectorFill: gradient }, effects), REGION, undefined, { style: STYLE });
    // Along the right edge, where the pixels are transparent, the stroke still runs inside the square's edge.
    expect(pixelAt(out, 39, 30)).toEqual([0, 255, 0, 255]);
    expect(pixelAt(out, 30, 21)).toEqual([0, 255, 0, 255]);
    expect(pixelAt(out, 35, 30)).toEqual([255, 255, 255, 255]);
    expect(pixelAt(out, 41, 30)).toEqual([255, 255, 255, 255]);
  });

  it("a gradient overlay on a shape spans the path's bounds, rounded down, not its pixels'", () => {
    // The path runs from x 19.6 to 39.6: its box is pixels 19 to 39, whose middle is at x 29.
    const black = { r: 0, g: 0, b: 0 };
    const white = { r: 255, g: 255, b: 255 };
    const ramp = {
      enabled: true,
      opacity: 1,
      blendMode: "normal" as const,
      type: "linear" as const,
      angle: 0,
      align: true,
      scale: 1,
      gradient: {
        type: "solid" as const,
        name: "ramp",
        colorStops: [
          { color: black, location: 0, midpoint: 0.5 },
          { color: white, location: 1, midpoint: 0.5 },
        ],
        opacityStops: [
          { opacity: 1, location: 0, midpoint: 0.5 },
          { opacity: 1, location: 1, midpoint: 0.5 },
        ],
      },
    };
    const layer = shape(() => [0, 0, 0, 255], { vectorFill: { type: "color", color: black } as VectorContent, vectorMask: rectPath(19.6, 20, 39.6, 40) }, { gradientOverlay: [ramp] });
    const out = solidRaster(SIZE, SIZE, [255, 255, 255, 255]);
    drawLayer(out, layer, REGION, undefined, { style: STYLE });
    expect(Math.abs((pixelAt(out, 29, 30)[0] as number) - 128)).toBeLessThanOrEqual(3);
  });
});

describe("stroke effects around half-transparent pixels", () => {
  it("an outside stroke fills what a half-transparent edge pixel leaves: half its colour and half the stroke's", () => {
    // A red square whose right column is half transparent, stroked outside in black over white.
    const data = new Uint8ClampedArray(10 * 10 * 4);
    for (let y = 0; y < 10; y++) for (let x = 0; x < 10; x++) data.set([255, 0, 0, x === 9 ? 128 : 255], (y * 10 + x) * 4);
    const layer: PixelLayer = {
      id: 1,
      kind: "pixel",
      name: "Square",
      visible: true,
      opacity: 255,
      blendMode: "normal",
      left: 20,
      top: 20,
      width: 10,
      height: 10,
      data,
      effects: { stroke: [{ enabled: true, position: "outside", fillType: "color", size: px(3), color: { r: 0, g: 0, b: 0 }, opacity: 1, blendMode: "normal" }] },
    };
    const out = solidRaster(SIZE, SIZE, [255, 255, 255, 255]);
    drawLayer(out, layer, REGION, undefined, { style: STYLE });
    const [r, g, b, a] = pixelAt(out, 29, 25);
    // Half red, half black, none of the white backdrop.
    expect(Math.abs((r as number) - 128)).toBeLessThanOrEqual(2);
    expect(g).toBeLessThanOrEqual(2);
    expect(b).toBeLessThanOrEqual(2);
    expect(a).toBe(255);
  });
});
