import type { AdjustmentLayer, LevelsAdjustmentChannel } from "ag-psd";
import { describe, expect, test } from "vitest";
import { applyAdjustment, applyAdjustmentInPlace, unrenderedAdjustmentReason } from "../../../src/hosts/embedded/adjustments/index.js";
import { atopOnto } from "../../../src/hosts/embedded/clipping.js";
import type { Raster } from "../../../src/hosts/embedded/raster.js";
import { isBridgeError } from "../../../src/protocol/index.js";
import { difference, readFixture, renderFixture } from "./psd-reference.js";

/**
 * How close each real file comes once its adjustment layers are applied (RMSE 0–255 and share of pixels more
 * than 5 levels off, flattened over white and black): a ratchet of what the fitted formulas reach. Files whose
 * adjustment layers sit over nothing (`layers/*`) must stay exactly transparent.
 */
const REACHED: Record<string, { rmse: number; share: number }> = {
  "adjustment-mask.psd": { rmse: 0.1, share: 0 },
  "clip-adjustment.psd": { rmse: 0.1, share: 0 },
  "adjustments/adjustment_backdrop_test.psd": { rmse: 0.1, share: 0 },
  "adjustments/adjustment_clipping.psd": { rmse: 0.1, share: 0 },
  "adjustments/adjustment_nested_composition_1.psd": { rmse: 0.3, share: 0.001 },
  "adjustments/adjustment_nested_composition_2.psd": { rmse: 0.3, share: 0.001 },
  "adjustments/adjustment_nested_composition_3.psd": { rmse: 0.1, share: 0 },
  "adjustments/adjustment_nested_composition_4.psd": { rmse: 0.4, share: 0.002 },
  "adjustments/adjustment_nested_composition_5.psd": { rmse: 0.3, share: 0.001 },
  "adjustments/brightnesscontrast_grayscale.psd": { rmse: 2.6, share: 0.025 },
  "adjustments/brightnesscontrast_legacy_grayscale.psd": { rmse: 0.4, share: 0 },
  "adjustments/brightnesscontrast_legacy_rgb.psd": { rmse: 0.4, share: 0 },
  "adjustments/brightnesscontrast_rgb.psd": { rmse: 3, share: 0.11 },
  "adjustments/curves_grayscale.psd": { rmse: 0.1, share: 0 },
  "adjustments/curves_rgb.psd": { rmse: 0.3, share: 0 },
  "adjustments/exposure_grayscale.psd": { rmse: 0.7, share: 0 },
  "adjustments/exposure_rgb.psd": { rmse: 0.3, share: 0 },
  "adjustments/huesaturation_colorize_rgb.psd": { rmse: 0.9, share: 0.001 },
  "adjustments/huesaturation_lightness_rgb.psd": { rmse: 0.8, share: 0.001 },
  "adjustments/huesaturation_rgb.psd": { rmse: 1.2, share: 0.01 },
  "adjustments/huesaturation_saturation_rgb.psd": { rmse: 1.2, share: 0.008 },
  "adjustments/invert_grayscale.psd": { rmse: 0.1, share: 0 },
  "adjustments/invert_rgb.psd": { rmse: 0.1, share: 0 },
  "adjustments/levels_grayscale.psd": { rmse: 0.3, share: 0.001 },
  "adjustments/levels_rgb.psd": { rmse: 0.5, share: 0.001 },
  "adjustments/posterize_grayscale.psd": { rmse: 0.1, share: 0 },
  "adjustments/posterize_rgb.psd": { rmse: 0.1, share: 0 },
  "adjustments/threshold_grayscale.psd": { rmse: 0.1, share: 0 },
  "adjustments/threshold_rgb.psd": { rmse: 1.5, share: 0.001 },
  "layers/black-and-white.psd": { rmse: 0, share: 0 },
  "layers/brightness-contrast.psd": { rmse: 0, share: 0 },
  "layers/channel-mixer.psd": { rmse: 0, share: 0 },
  "layers/color-balance.psd": { rmse: 0, share: 0 },
  "layers/color-lookup.psd": { rmse: 0, share: 0 },
  "layers/curves.psd": { rmse: 0, share: 0 },
  "layers/exposure.psd": { rmse: 0, share: 0 },
  "layers/gradient-map-v3-classic.psd": { rmse: 0, share: 0 },
  "layers/gradient-map-v3-linear.psd": { rmse: 0, share: 0 },
  "layers/gradient-map-v3-perceptual.psd": { rmse: 0, share: 0 },
  "layers/gradient-map.psd": { rmse: 0, share: 0 },
  "layers/hue-saturation.psd": { rmse: 0, share: 0 },
  "layers/invert.psd": { rmse: 0, share: 0 },
  "layers/levels.psd": { rmse: 0, share: 0 },
  "layers/photo-filter.psd": { rmse: 0, share: 0 },
  "layers/posterize.psd": { rmse: 0, share: 0 },
  "layers/selective-color.psd": { rmse: 0, share: 0 },
  "layers/threshold.psd": { rmse: 0, share: 0 },
  "layers/vibrance.psd": { rmse: 0, share: 0 },
};

const ADJUSTED = { adjustments: true, fills: false, vectorMasks: false } as const;
const IGNORED = { adjustments: false, fills: false, vectorMasks: false } as const;

describe("adjustment layers rebuild Photoshop's composite of real files", () => {
  for (const [file, reached] of Object.entries(REACHED)) {
    test(`${file} comes within ${reached.rmse} RMSE and ${reached.share * 100} % of pixels off`, () => {
      const { psd, composite } = readFixture(file);
      const d = difference(renderFixture(psd, ADJUSTED), composite);
      expect(d.rmse).toBeLessThanOrEqual(reached.rmse);
      expect(d.share).toBeLessThanOrEqual(reached.share);
    });
  }

  test("applying the adjustments is what brings the files close (ignoring them is far off)", () => {
    for (const file of ["adjustments/levels_rgb.psd", "adjustments/huesaturation_rgb.psd", "adjustments/brightnesscontrast_rgb.psd"]) {
      const { psd, composite } = readFixture(file);
      expect(difference(renderFixture(psd, IGNORED), composite).rmse).toBeGreaterThan(20);
    }
  });

  test("after the colour adjustments of a nine-adjustment chain, white comes out warm where Photoshop's does (colour balance, photo filter: unfitted)", () => {
    // The file's other quadrants hold layer effects; the lower right is its white background through the chain.
    const { psd, composite } = readFixture("fill_adjustments.psd");
    const d = difference(renderFixture(psd, ADJUSTED), composite, { left: 140, top: 140, right: 256, bottom: 256 });
    expect(d.rmse).toBeLessThanOrEqual(20);
  });
});

/** A raster of the given colours in a row, opaque unless an alpha is given. */
function row(...colors: Array<[number, number, number, number?]>): Raster {
  return { width: colors.length, height: 1, data: Uint8ClampedArray.from(colors.flatMap(([r, g, b, a]) => [r, g, b, a ?? 255])) };
}

function pixel(raster: Raster, x: number): number[] {
  return [...raster.data.subarray(x * 4, x * 4 + 4)];
}

const levels = (channel: Partial<LevelsAdjustmentChannel>): LevelsAdjustmentChannel => ({
  shadowInput: 0,
  highlightInput: 255,
  shadowOutput: 0,
  highlightOutput: 255,
  midtoneInput: 1,
  ...channel,
});

describe("adjustments on synthetic pixels", () => {
  test("at full strength, adjusting in place gives the bytes drawing the adjusted copy source-atop gives", () => {
    // Noise with a sixth of the pixels fully transparent and the rest of every alpha.
    const width = 97;
    const height = 31;
    const data = new Uint8ClampedArray(width * height * 4);
    let seed = 7;
    for (let i = 0; i < data.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      data[i] = seed >>> 24;
    }
    for (let i = 3; i < data.length; i += 24) data[i] = 0;
    const adjustments: AdjustmentLayer[] = [
      { type: "levels", rgb: levels({ shadowInput: 20, highlightInput: 200, midtoneInput: 1.3 }) },
      { type: "invert" },
      { type: "hue/saturation", master: { a: 0, b: 0, c: 0, d: 0, hue: 25, saturation: 30, lightness: -10 } },
      { type: "posterize", levels: 5 },
    ];
    for (const adjustment of adjustments) {
      const drawn: Raster = { width, height, data: new Uint8ClampedArray(data) };
      const copy = applyAdjustment(adjustment, drawn);
      for (let i = 3; i < copy.data.length; i += 4) copy.data[i] = (copy.data[i] as number) > 0 ? 255 : 0;
      atopOnto(drawn, copy, { dx: 0, dy: 0, opacity: 1, blendMode: "normal", placed: undefined });
      const inPlace: Raster = { width, height, data: new Uint8ClampedArray(data) };
      applyAdjustmentInPlace(adjustment, inPlace);
      expect(Buffer.from(inPlace.data).equals(Buffer.from(drawn.data)), adjustment.type).toBe(true);
    }
  });

  test("levels map the input black and white points exactly onto the output ones", () => {
    const adjusted = applyAdjustment({ type: "levels", rgb: levels({ shadowInput: 20, highlightInput: 200, shadowOutput: 10, highlightOutput: 240 }) }, row([20, 200, 110], [0, 255, 10]));
    expect(pixel(adjusted, 0)).toEqual([10, 240, 125, 255]);
    expect(pixel(adjusted, 1)).toEqual([10, 240, 10, 255]);
  });

  test("levels stretch to a whole level before the midtone curve, as Photoshop's output shows", () => {
    // Photoshop's own output for black point 38 and gamma 0.67: 41 stretches to 3.5, rounded to 4 → 1 (unrounded: 0).
    const adjusted = applyAdjustment({ type: "levels", rgb: levels({ shadowInput: 38, midtoneInput: 0.67 }) }, row([41, 45, 98]));
    expect(pixel(adjusted, 0).slice(0, 3)).toEqual([1, 1, 38]);
  });

  test("a midtone gamma above 1 rises from black with a finite slope, as Photoshop's does", () => {
    // Photoshop's output for 44–214 at gamma 1.78: 45 → 7 and 47 → 17, where the pure power law gives 14 and 26.
    const adjusted = applyAdjustment({ type: "levels", rgb: levels({ shadowInput: 44, highlightInput: 214, midtoneInput: 1.78 }) }, row([45, 47, 64]));
    expect(pixel(adjusted, 0).slice(0, 3)).toEqual([7, 17, 77]);
  });

  test("a channel's levels run before the composite's", () => {
    const adjusted = applyAdjustment({ type: "levels", red: levels({ highlightOutput: 128 }), rgb: levels({ highlightInput: 128 }) }, row([255, 128, 0]));
    expect(pixel(adjusted, 0)).toEqual([255, 255, 0, 255]);
  });

  test("inverting twice gives the picture back, alpha untouched", () => {
    const source = row([0, 17, 255, 10], [128, 64, 32, 255], [5, 250, 99, 0]);
    const once = applyAdjustment({ type: "invert" }, source);
    expect(pixel(once, 0)).toEqual([255, 238, 0, 10]);
    expect([...applyAdjustment({ type: "invert" }, once).data]).toEqual([...source.data]);
  });

  test("curves pass through their points and stay flat beyond the ends", () => {
    const curve = [
      { input: 30, output: 0 },
      { input: 128, output: 200 },
      { input: 220, output: 255 },
    ];
    const adjusted = applyAdjustment({ type: "curves", rgb: curve }, row([30, 128, 220], [0, 10, 250]));
    expect(pixel(adjusted, 0)).toEqual([0, 200, 255, 255]);
    expect(pixel(adjusted, 1).slice(0, 3)).toEqual([0, 0, 255]);
  });

  test("threshold turns a colour white once its grey reaches the level", () => {
    const adjusted = applyAdjustment({ type: "threshold", level: 128 }, row([128, 128, 128], [127, 127, 127], [255, 0, 0]));
    expect(pixel(adjusted, 0)).toEqual([255, 255, 255, 255]);
    expect(pixel(adjusted, 1)).toEqual([0, 0, 0, 255]);
    expect(pixel(adjusted, 2)).toEqual([0, 0, 0, 255]);
  });

  test("posterize keeps black and white and leaves as many levels as asked", () => {
    const ramp: Raster = { width: 256, height: 1, data: Uint8ClampedArray.from({ length: 1024 }, (_, i) => (i % 4 === 3 ? 255 : i >> 2)) };
    const adjusted = applyAdjustment({ type: "posterize", levels: 4 }, ramp);
    const values = new Set(Array.from({ length: 256 }, (_, x) => adjusted.data[x * 4]));
    expect(values.size).toBe(4);
    expect(values.has(0) && values.has(255)).toBe(true);
  });

  test("settings that change nothing leave every colour as it was", () => {
    const source = row([12, 200, 99], [255, 0, 128], [40, 40, 40], [250, 250, 250]);
    const neutral: AdjustmentLayer[] = [
      { type: "exposure", exposure: 0, offset: 0, gamma: 1 },
      { type: "brightness/contrast", brightness: 0, contrast: 0, useLegacy: true },
      { type: "vibrance" },
      { type: "color balance", preserveLuminosity: false },
      { type: "channel mixer", monochrome: false },
      { type: "selective color", mode: "relative" },
      { type: "photo filter", color: { r: 255, g: 0, b: 0 }, density: 0, preserveLuminosity: false },
      { type: "color lookup" },
    ];
    for (const adjustment of neutral) expect([...applyAdjustment(adjustment, source).data], adjustment.type).toEqual([...source.data]);
  });

  test("hue/saturation turns hues by the master hue", () => {
    const adjusted = applyAdjustment({ type: "hue/saturation", master: { a: 0, b: 0, c: 25, d: 0, hue: 120, saturation: 0, lightness: 0 } }, row([255, 0, 0]));
    expect(pixel(adjusted, 0)).toEqual([0, 255, 0, 255]);
  });

  test("colorize gives every pixel the hue and saturation asked for, keeping its lightness", () => {
    const adjusted = applyAdjustment({ type: "hue/saturation", master: { a: 256, b: 240, c: 100, d: 0, hue: 0, saturation: 0, lightness: 0 } }, row([0, 255, 0], [128, 128, 128]));
    expect(pixel(adjusted, 0)).toEqual([0, 0, 255, 255]);
    // Mid-grey 128 is a hair above half lightness: the blue keeps it (1 + 255 = 2 · 128).
    expect(pixel(adjusted, 1)).toEqual([1, 1, 255, 255]);
  });

  test("black & white with the default weights turns pure red into 40 % grey and keeps greys", () => {
    const weights = { reds: 40, yellows: 60, greens: 40, cyans: 60, blues: 20, magentas: 80 };
    const adjusted = applyAdjustment({ type: "black & white", ...weights }, row([255, 0, 0], [77, 77, 77]));
    expect(pixel(adjusted, 0)).toEqual([102, 102, 102, 255]);
    expect(pixel(adjusted, 1)).toEqual([77, 77, 77, 255]);
  });

  test("a gradient map maps black to its first stop and white to its last", () => {
    const adjusted = applyAdjustment(
      {
        type: "gradient map",
        gradientType: "solid",
        colorStops: [
          { color: { r: 255, g: 0, b: 0 }, location: 0, midpoint: 0.5 },
          { color: { r: 0, g: 0, b: 255 }, location: 1, midpoint: 0.5 },
        ],
        opacityStops: [{ opacity: 1, location: 0, midpoint: 0.5 }],
      },
      row([0, 0, 0], [255, 255, 255]),
    );
    expect(pixel(adjusted, 0)).toEqual([255, 0, 0, 255]);
    expect(pixel(adjusted, 1)).toEqual([0, 0, 255, 255]);
  });

  test("a monochrome channel mixer gives every channel the same weighted sum", () => {
    const gray = { red: 50, green: 50, blue: 0, constant: 0 };
    expect(pixel(applyAdjustment({ type: "channel mixer", monochrome: true, gray }, row([200, 100, 50])), 0)).toEqual([150, 150, 150, 255]);
  });

  test("a grayscale document's levels use its one channel, which ag-psd calls red", () => {
    const adjusted = applyAdjustment({ type: "levels", red: levels({ shadowOutput: 100 }) }, row([0, 0, 0]), { grayscale: true });
    expect(pixel(adjusted, 0)).toEqual([100, 100, 100, 255]);
  });

  test("a long run reports its rows to the work it is given", () => {
    const tall: Raster = { width: 2, height: 100, data: new Uint8ClampedArray(800) };
    let rows = 0;
    applyAdjustment({ type: "invert" }, tall, { work: { rows: (n) => { rows += n; } } });
    expect(rows).toBe(100);
  });

  test("a color lookup holding a table is refused by name, not rendered as something else", () => {
    const lookup: AdjustmentLayer = { type: "color lookup", lut3DFileData: new Uint8Array(4), lutFormat: "cube" };
    expect(unrenderedAdjustmentReason(lookup)).toMatch(/lookup/);
    let caught: unknown;
    try {
      applyAdjustment(lookup, row([1, 2, 3]));
    } catch (error) {
      caught = error;
    }
    expect(isBridgeError(caught) && caught.code).toBe("NOT_SUPPORTED");
  });
});
