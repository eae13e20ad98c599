import { describe, expect, it } from "vitest";
import { blendOnto } from "../../../src/hosts/embedded/blend.js";
import { renderDocument } from "../../../src/hosts/embedded/composite.js";
import type { EmbeddedLayer, GroupLayer, LayerMask, PixelLayer } from "../../../src/hosts/embedded/document.js";
import { effectiveMask } from "../../../src/hosts/embedded/masks.js";
import type { PsdLayerRecord } from "../../../src/hosts/embedded/psd-records.js";
import type { Raster } from "../../../src/hosts/embedded/raster.js";
import { solidRaster } from "../../../src/hosts/embedded/raster.js";

type Rgba = [number, number, number, number];
let nextId = 1;

function pixel(name: string, rgba: Rgba, rect: { left: number; top: number; width: number; height: number }, extra: Partial<PixelLayer> = {}): PixelLayer {
  const { data } = solidRaster(rect.width, rect.height, rgba);
  return { id: nextId++, kind: "pixel", name, visible: true, opacity: 255, blendMode: "normal", ...rect, data, ...extra };
}

function group(name: string, children: EmbeddedLayer[], extra: Partial<GroupLayer> = {}): GroupLayer {
  return { id: nextId++, kind: "group", name, visible: true, opacity: 255, blendMode: "pass through", children, ...extra };
}

const at = (raster: Raster, x: number, y: number): number[] => [...raster.data.subarray((y * raster.width + x) * 4, (y * raster.width + x) * 4 + 4)];
const render = (width: number, height: number, layers: EmbeddedLayer[]): Raster => renderDocument({ width, height, layers });
const near = (got: number[], want: number[]): void => {
  for (let c = 0; c < 4; c++) expect(Math.abs(got[c]! - want[c]!), `channel ${c} of ${got} vs ${want}`).toBeLessThanOrEqual(1);
};

describe("blend-mode extremes as Photoshop draws them", () => {
  const one = (mode: string, backdrop: Rgba, source: Rgba): number[] => {
    const dst: Raster = { width: 1, height: 1, data: new Uint8ClampedArray(backdrop) };
    blendOnto(dst, { width: 1, height: 1, data: new Uint8ClampedArray(source) }, { dx: 0, dy: 0, opacity: 1, blendMode: mode });
    return at(dst, 0, 0);
  };

  it("vivid light: a white source dodges any backdrop to white, a black one burns it to black", () => {
    expect(one("vivid light", [0, 0, 255, 255], [255, 255, 255, 255])).toEqual([255, 255, 255, 255]);
    expect(one("vivid light", [255, 255, 0, 255], [0, 0, 0, 255])).toEqual([0, 0, 0, 255]);
  });

  it("hard mix: a black backdrop stays black and a white one white, whatever the source", () => {
    expect(one("hard mix", [0, 0, 0, 255], [255, 255, 255, 255])).toEqual([0, 0, 0, 255]);
    expect(one("hard mix", [255, 255, 255, 255], [0, 0, 0, 255])).toEqual([255, 255, 255, 255]);
    expect(one("hard mix", [100, 200, 10, 255], [155, 20, 250, 255])).toEqual([255, 0, 255, 255]);
  });

  it("dissolve draws each pixel whole or not at all, about as often as its opacity, the same every time", () => {
    const layers = [pixel("Grain", [200, 10, 10, 255], { left: 0, top: 0, width: 100, height: 100 }, { blendMode: "dissolve", opacity: 64 })];
    const first = render(100, 100, layers);
    const alphas = new Set<number>();
    let shown = 0;
    for (let i = 3; i < first.data.length; i += 4) {
      alphas.add(first.data[i]!);
      if (first.data[i] === 255) shown++;
    }
    expect([...alphas].sort((a, b) => a - b)).toEqual([0, 255]);
    expect(shown / 10_000).toBeGreaterThan(0.2);
    expect(shown / 10_000).toBeLessThan(0.3);
    expect(render(100, 100, layers).data).toEqual(first.data);
  });
});

describe("masks: density, feather, disabled, on groups", () => {
  const mask = (extra: Partial<LayerMask> = {}): LayerMask => ({ x: 0, y: 0, width: 4, height: 1, data: new Uint8Array([0, 0, 255, 255]), defaultColor: 0, ...extra });
  const area = { left: 0, top: 0, right: 4, bottom: 1 };

  it("a mask at half density hides black areas half way", () => {
    const out = effectiveMask({ mask: mask({ density: 128 }) }, area);
    expect([...out!.data]).toEqual([127, 127, 255, 255]);
  });

  it("a disabled mask hides nothing, and user and vector masks multiply", () => {
    expect(effectiveMask({ mask: mask({ disabled: true }) }, area)).toBeUndefined();
    const vector = mask({ data: new Uint8Array([255, 128, 128, 255]) });
    expect([...effectiveMask({ mask: mask(), vectorMask: vector }, area)!.data]).toEqual([0, 0, 128, 255]);
  });

  it("a feathered mask softens its edge", () => {
    const wide: LayerMask = { x: 0, y: 0, width: 20, height: 1, data: new Uint8Array(20).map((_, i) => (i < 10 ? 0 : 255)), defaultColor: 0 };
    const out = effectiveMask({ mask: { ...wide, feather: 3 } }, { left: 0, top: 0, right: 20, bottom: 1 })!;
    expect(out.data[5]).toBeLessThan(out.data[10]!);
    expect(out.data[9]).toBeGreaterThan(0);
    expect(out.data[10]).toBeLessThan(255);
  });

  it("a group's mask cuts the group's composite, pass-through or isolated", () => {
    const half: LayerMask = { x: 0, y: 0, width: 2, height: 1, data: new Uint8Array([255, 0]), defaultColor: 0 };
    for (const blendMode of ["pass through", "normal"]) {
      const layers = [group("G", [pixel("Red", [255, 0, 0, 255], { left: 0, top: 0, width: 2, height: 1 })], { blendMode, mask: half }), pixel("White", [255, 255, 255, 255], { left: 0, top: 0, width: 2, height: 1 })];
      const out = render(2, 1, layers);
      expect(at(out, 0, 0), blendMode).toEqual([255, 0, 0, 255]);
      expect(at(out, 1, 0), blendMode).toEqual([255, 255, 255, 255]);
    }
  });
});

describe("knockout, clipping to a pass-through group, artboards", () => {
  it("a knockout layer shows its group's backdrop through the layers below it in the group", () => {
    // Backdrop white; in a pass-through group, blue, then a multiply grey that knocks out: it multiplies white,
    // not blue.
    const grey = pixel("Grey", [128, 128, 128, 255], { left: 0, top: 0, width: 1, height: 1 }, { blendMode: "multiply", knockout: true });
    const blue = pixel("Blue", [0, 0, 255, 255], { left: 0, top: 0, width: 2, height: 1 });
    const out = render(2, 1, [group("G", [grey, blue]), pixel("White", [255, 255, 255, 255], { left: 0, top: 0, width: 2, height: 1 })]);
    near(at(out, 0, 0), [128, 128, 128, 255]);
    near(at(out, 1, 0), [0, 0, 255, 255]);
  });

  it("a knockout layer's half-covered edge over a lower layer of its group lets none of the backdrop through", () => {
    // Backdrop red; in the group a grey pixel, then the same grey half covering it with knockout: the pixel stays
    // grey (half the knockout layer's grey, half the grey below it), with no red seam.
    const edge = pixel("Edge", [128, 128, 128, 128], { left: 0, top: 0, width: 1, height: 1 }, { knockout: true });
    const below = pixel("Below", [128, 128, 128, 255], { left: 0, top: 0, width: 1, height: 1 });
    const out = render(1, 1, [group("G", [edge, below]), pixel("Red", [255, 0, 0, 255], { left: 0, top: 0, width: 1, height: 1 })]);
    near(at(out, 0, 0), [128, 128, 128, 255]);
  });

  it("layers clipped to a pass-through group blend with what is under the group, inside the group's shape", () => {
    // White backdrop; the group holds red in exclusion (white ⊕ red = cyan) over its left pixel; a clipped
    // "lighter color" green keeps the lighter cyan, and nothing shows right of the group's pixels.
    const red = pixel("Red", [255, 0, 0, 255], { left: 0, top: 0, width: 1, height: 1 }, { blendMode: "exclusion" });
    const green = pixel("Green", [0, 255, 0, 255], { left: 0, top: 0, width: 2, height: 1 }, { blendMode: "lighter color", clipping: true });
    const out = render(2, 1, [green, group("G", [red]), pixel("White", [255, 255, 255, 255], { left: 0, top: 0, width: 2, height: 1 })]);
    near(at(out, 0, 0), [0, 255, 255, 255]);
    near(at(out, 1, 0), [255, 255, 255, 255]);
  });

  it("an artboard draws its background and cuts its layers to its rectangle", () => {
    const record = { artboard: { rect: { left: 1, top: 0, right: 3, bottom: 1 }, backgroundType: 4, color: { r: 10, g: 20, b: 30 } } } as PsdLayerRecord;
    const dot = pixel("Dot", [255, 0, 0, 255], { left: 0, top: 0, width: 2, height: 1 });
    const out = render(4, 1, [group("Artboard", [dot], { record })]);
    expect(at(out, 0, 0)[3]).toBe(0);
    expect(at(out, 1, 0)).toEqual([255, 0, 0, 255]);
    expect(at(out, 2, 0)).toEqual([10, 20, 30, 255]);
    expect(at(out, 3, 0)[3]).toBe(0);
  });
});

describe("channel restrictions (advanced blending with a channel unchecked)", () => {
  it("a layer with blue unchecked blends into red and green and leaves the blue of what is below as it was", () => {
    const top = pixel("Pink", [250, 100, 200, 255], { left: 0, top: 0, width: 1, height: 1 }, { restrictedChannels: [2] });
    const out = render(1, 1, [top, pixel("Grey", [129, 129, 129, 255], { left: 0, top: 0, width: 1, height: 1 })]);
    near(at(out, 0, 0), [250, 100, 129, 255]);
  });

  it("the layer's effects leave the unchecked channel alone too", () => {
    const color = { r: 0, g: 0, b: 0 };
    const effects = { solidFill: [{ enabled: true, present: true, blendMode: "normal", color, opacity: 1 }] } as PixelLayer["effects"];
    const top = pixel("Overlaid", [255, 255, 255, 255], { left: 0, top: 0, width: 1, height: 1 }, { effects, restrictedChannels: [0] });
    const out = render(1, 1, [top, pixel("Grey", [129, 129, 129, 255], { left: 0, top: 0, width: 1, height: 1 })]);
    near(at(out, 0, 0), [129, 0, 0, 255]);
  });

  it("over transparency an unchecked channel has nothing to keep, and a restriction on a group holds for all it draws", () => {
    const red = pixel("Red", [255, 255, 0, 255], { left: 0, top: 0, width: 1, height: 1 });
    const out = render(1, 1, [group("G", [red], { blendMode: "normal", restrictedChannels: [1] })]);
    near(at(out, 0, 0), [255, 0, 0, 255]);
  });

  it("a grayscale document's one channel unchecked keeps the grey below", () => {
    const top = pixel("Light", [200, 200, 200, 255], { left: 0, top: 0, width: 1, height: 1 }, { restrictedChannels: [0] });
    const layers = [top, pixel("Dark", [40, 40, 40, 255], { left: 0, top: 0, width: 1, height: 1 })];
    near(at(renderDocument({ width: 1, height: 1, layers, grayscale: true }), 0, 0), [40, 40, 40, 255]);
  });
});
