import type { LayerEffectsInfo } from "ag-psd";
import { describe, expect, it } from "vitest";
import type { PixelLayer } from "../../../../src/hosts/embedded/document.js";
import { drawLayer, layerRows, styleContext } from "../../../../src/hosts/embedded/effects/index.js";
import { solidRaster } from "../../../../src/hosts/embedded/raster.js";

/** A red 10×10 layer at (20, 20) with `effects`. */
function square(effects: LayerEffectsInfo): PixelLayer {
  const pixels = solidRaster(10, 10, [255, 0, 0, 255]);
  return { id: 1, kind: "pixel", name: "Square", visible: true, opacity: 255, blendMode: "normal", left: 20, top: 20, width: 10, height: 10, data: pixels.data, effects };
}

const REGION = { left: 0, top: 0, right: 60, bottom: 60 };
const STYLE = styleContext({ width: 60, height: 60 });

describe("drawing a layer's effects", () => {
  it("a damaged style (NaN and infinite numbers, no colour, a gradient without stops) still draws the layer", () => {
    const nan = { value: Number.NaN, units: "Pixels" as const };
    const effects: LayerEffectsInfo = {
      dropShadow: [{ enabled: true, size: nan, distance: { value: Number.POSITIVE_INFINITY, units: "Pixels" }, angle: Number.NaN, useGlobalLight: false, opacity: Number.NaN }],
      outerGlow: { enabled: true, size: nan, range: Number.NaN },
      innerShadow: [{ enabled: true, size: { value: 1e9, units: "Pixels" }, choke: nan }],
      stroke: [{ enabled: true, size: nan, position: "center" }],
      gradientOverlay: [{ enabled: true, angle: Number.NaN, scale: Number.NaN, gradient: { type: "solid", name: "none", colorStops: [], opacityStops: [] } }],
      bevel: { enabled: true, size: nan, altitude: Number.NaN, strength: Number.POSITIVE_INFINITY },
    };
    const out = solidRaster(60, 60, [255, 255, 255, 255]);
    const rows = layerRows(square(effects), REGION);
    let reported = 0;
    const work = {
      rows(count: number): void {
        reported += count;
      },
    };
    drawLayer(out, square(effects), REGION, work, { style: STYLE });
    expect(reported).toBe(rows);
    const at = (x: number, y: number): number[] => [...out.data.subarray((y * 60 + x) * 4, (y * 60 + x) * 4 + 4)];
    // The square is drawn (its inner shadow, clamped to 250 px, darkens all of it), far away nothing changed.
    expect(at(25, 25)[3]).toBe(255);
    expect(at(25, 25)).not.toEqual([255, 255, 255, 255]);
    expect(at(5, 5)).toEqual([255, 255, 255, 255]);
  });

  it("effect sizes are clamped to Photoshop's maximum: a huge glow reaches no further than MAX_EFFECT_SIZE_PX", () => {
    const layer = square({ outerGlow: { enabled: true, size: { value: 100_000, units: "Pixels" }, color: { r: 0, g: 0, b: 0 }, blendMode: "normal", range: 1 } });
    // Rows within 250 px (plus one) of the layer's box, twice: the layer's own and the glow's, clipped to the region.
    const wide = { left: -1000, top: -1000, right: 1000, bottom: 1000 };
    expect(layerRows(layer, wide)).toBe(10 + (10 + 2 * 251));
  });
});
