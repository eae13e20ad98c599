import { describe, expect, it } from "vitest";
import type { HostLayer } from "../../../src/protocol/index.js";
import { PHOTOSHOP_ADJUSTMENT_LAYER_TYPES } from "../../../src/hosts/photoshop/edits.js";
import type { FakePhotoshop } from "../../fakes/photoshop/server.js";
import type { TestClient } from "../../helpers/ws-client.js";
import { editSessionOnFake } from "./_setup.js";

/*
 * Fill and adjustment layers on Photoshop (layer:create {kind: "fill" | "adjustment"}, layer:update {fill |
 * adjustment}), through the bridge and the fake Photoshop: `edit.layer` plays the ActionManager's `make` of a
 * contentLayer / adjustmentLayer and `set` of the target's content, which the DOM stub models (action-edit.ts) and
 * reads back as the layer descriptor's `adjustment` list. Each case checks the descriptor played, that the edit was
 * one history state, and that the layer reads back with its kind and settings.
 *
 * The sample: Title (text) · Group G [A · B] · Background; Title is active.
 */

type Edited = HostLayer & { revision: number };
const flat = (layers: readonly HostLayer[]): HostLayer[] => layers.flatMap((l) => [l, ...flat(l.children ?? [])]);

interface Session {
  fake: FakePhotoshop;
  client: TestClient;
  id(name: string): number;
  /** Calls the method; answers its result and the ActionManager events of its one edit script (one history state). */
  edit(method: string, params: Record<string, unknown>): Promise<{ result: Edited; actions: Array<{ event: string; descriptor: Record<string, unknown> }> }>;
  refused(method: string, params: Record<string, unknown>): Promise<{ code: string; message: string; details?: Record<string, unknown> }>;
}

async function session(): Promise<Session> {
  const s = await editSessionOnFake();
  return {
    ...s,
    async edit(method, params) {
      const { result, run } = await s.oneEdit<Edited>(method, params);
      return { result, actions: run.actions as never };
    },
  };
}

const made = (actions: Array<{ event: string; descriptor: Record<string, unknown> }>): Record<string, unknown> => {
  const make = actions.find((a) => a.event === "make");
  expect(make, "a make event").toBeDefined();
  return make!.descriptor;
};

describe("Photoshop fill and adjustment layers", () => {
  it("getServerInfo lists fill and adjustment layers as made (no unsupportedTypes on layer:create)", async () => {
    const s = await session();
      const info = await s.client.call<{ editors: Array<{ edits?: Record<string, { unsupportedTypes?: string[]; unsupported?: string[] }> }> }>("getServerInfo");
      const edits = info.editors[0]!.edits!;
      expect(edits["layer:create"]?.unsupportedTypes ?? []).not.toContain("fill");
      expect(edits["layer:create"]?.unsupportedTypes ?? []).not.toContain("adjustment");
      expect(edits["layer:update"]?.unsupported ?? []).toEqual([]);
  });

  it("a solid fill layer is a make of a contentLayer with a solidColorLayer, placed, named, without the default mask", async () => {
    const s = await session();
      const { result, actions } = await s.edit("layer:create", { kind: "fill", fill: { type: "solid", color: "#2050c0" }, above: s.id("A") });
      expect(made(actions)).toEqual({
        null: [{ _ref: "contentLayer" }],
        using: { _class: "contentLayer", type: { _class: "solidColorLayer", color: { _class: "RGBColor", red: 0x20, grain: 0x50, blue: 0xc0 } } },
      });
      // The mask Photoshop adds by default is deleted in the same step.
      expect(actions.map((a) => a.event)).toContain("delete");
      expect(result).toMatchObject({ kind: "fill", name: "Color Fill 1", fill: { type: "solid", color: "#2050c0" } });
      expect(result.mask).toBeUndefined();
      const group = (await s.client.call<HostLayer[]>("document:layers")).find((l) => l.children?.some((c) => c.id === s.id("A")))!;
      expect(group.children!.map((l) => l.name)).toEqual(["Color Fill 1", "A", "B"]);
  });

  it("a gradient fill writes its stops as Clrs and Trns at 0–4096 and reads back as it was asked", async () => {
    const s = await session();
      const fill = {
        type: "gradient",
        style: "radial",
        stops: [{ location: 0, color: "#ffffff" }, { location: 60, color: "#00000080", midpoint: 30 }],
        angle: 45,
        scale: 80,
        reverse: true,
        align: false,
        offset: { x: 10, y: -5 },
        smoothness: 50,
      };
      const { result, actions } = await s.edit("layer:create", { kind: "fill", fill, to: "top", name: "Ramp" });
      const type = (made(actions)["using"] as { type: Record<string, unknown> }).type;
      expect(type).toMatchObject({
        _class: "gradientLayer",
        type: { _enum: "gradientType", _value: "radial" },
        angle: { _unit: "angleUnit", _value: 45 },
        scale: { _unit: "percentUnit", _value: 80 },
        reverse: true,
        align: false,
        offset: { _class: "paint", horizontal: { _unit: "percentUnit", _value: 10 }, vertical: { _unit: "percentUnit", _value: -5 } },
      });
      const gradient = type["gradient"] as Record<string, unknown>;
      expect(gradient).toMatchObject({ _class: "gradientClassEvent", interfaceIconFrameDimmed: 2048 });
      expect(gradient["colors"]).toEqual([
        { _class: "colorStop", color: { _class: "RGBColor", red: 255, grain: 255, blue: 255 }, type: { _enum: "colorStopType", _value: "userStop" }, location: 0, midpoint: 50 },
        { _class: "colorStop", color: { _class: "RGBColor", red: 0, grain: 0, blue: 0 }, type: { _enum: "colorStopType", _value: "userStop" }, location: 2458, midpoint: 30 },
      ]);
      expect((gradient["transparency"] as Array<{ opacity: { _value: number } }>).map((t) => Math.round(t.opacity._value))).toEqual([100, 50]);
      expect(result).toMatchObject({
        kind: "fill",
        name: "Ramp",
        fill: { ...fill, stops: [{ location: 0, color: "#ffffff", midpoint: 50 }, { location: 60, color: "#00000080", midpoint: 30 }], interpolation: "classic" },
      });
  });

  it("a gradient's interpolation other than classic is its gradientsInterpolationMethod, and reads back; classic writes none", async () => {
    const s = await session();
    const stops = [{ location: 0, color: "red" }, { location: 100, color: "blue" }];
    for (const interpolation of ["perceptual", "linear", "smooth"]) {
      const { result, actions } = await s.edit("layer:create", { kind: "fill", fill: { type: "gradient", interpolation, stops }, to: "top" });
      expect((made(actions)["using"] as { type: Record<string, unknown> }).type["gradientsInterpolationMethod"]).toEqual({ _enum: "gradientInterpolationMethodType", _value: interpolation });
      expect(result.fill).toMatchObject({ type: "gradient", interpolation });
    }
    const { result, actions } = await s.edit("layer:create", { kind: "fill", fill: { type: "gradient", stops }, to: "top" });
    expect((made(actions)["using"] as { type: Record<string, unknown> }).type).not.toHaveProperty("gradientsInterpolationMethod");
    expect(result.fill).toMatchObject({ interpolation: "classic" });
  });

  it("a colorized Hue/Saturation layer is colorize true with the colour as the one entry, made and changed, and reads back", async () => {
    const s = await session();
    const { result, actions } = await s.edit("layer:create", { kind: "adjustment", adjustment: { type: "hueSaturation", colorize: { hue: 30, saturation: 50 } }, to: "top" });
    expect((made(actions)["using"] as { type: Record<string, unknown> }).type).toEqual({
      _class: "hueSaturation",
      colorize: true,
      adjustment: [{ _class: "hueSatAdjustmentV2", hue: 30, saturation: 50, lightness: 0 }],
    });
    expect(result.adjustment).toEqual({ type: "hueSaturation", colorize: { hue: 30, saturation: 50, lightness: 0 } });
    const { result: updated } = await s.edit("layer:update", { layerId: result.id, adjustment: { type: "hueSaturation", colorize: { hue: 300, saturation: 20, lightness: 15 } } });
    expect(updated.adjustment).toEqual({ type: "hueSaturation", colorize: { hue: 300, saturation: 20, lightness: 15 } });
  });

  it("layer:update {fill} sets the target content layer's content in one step, even from solid to gradient", async () => {
    const s = await session();
      const { result: layer } = await s.edit("layer:create", { kind: "fill", fill: { type: "solid", color: "red" }, to: "top" });
      const { result, actions } = await s.edit("layer:update", { layerId: layer.id, fill: { type: "solid", color: "#00ff00" }, opacity: 40 });
      const set = actions.find((a) => a.event === "set")!;
      expect(set.descriptor).toEqual({
        null: [{ _ref: "contentLayer", _enum: "ordinal", _value: "targetEnum" }],
        to: { _class: "solidColorLayer", color: { _class: "RGBColor", red: 0, grain: 255, blue: 0 } },
      });
      expect(result).toMatchObject({ id: layer.id, opacity: 40, fill: { type: "solid", color: "#00ff00" } });
      const { result: ramp } = await s.edit("layer:update", { layerId: layer.id, fill: { type: "gradient", stops: [{ location: 0, color: "red" }, { location: 100, color: "blue" }] } });
      expect(ramp.fill).toMatchObject({ type: "gradient", style: "linear", angle: 90, stops: [{ location: 0, color: "#ff0000" }, { location: 100, color: "#0000ff" }] });
  });

  it("each adjustment type made here is a make of an adjustmentLayer with the adjustment's class, read back", async () => {
    const s = await session();
      const cases: Array<[Record<string, unknown>, string, Record<string, unknown>]> = [
        [{ type: "brightnessContrast", brightness: 40, contrast: 10 }, "brightnessEvent", { brightness: 40, center: 10, useLegacy: false }],
        [
          { type: "levels", rgb: { inputBlack: 10, inputWhite: 200, gamma: 1.2, outputBlack: 0, outputWhite: 255 }, red: { inputBlack: 0, inputWhite: 255, gamma: 1, outputBlack: 20, outputWhite: 235 } },
          "levels",
          {
            adjustment: [
              { _class: "levelsAdjustment", channel: [{ _ref: "channel", _enum: "channel", _value: "composite" }], input: [10, 200], gamma: 1.2, output: [0, 255] },
              { _class: "levelsAdjustment", channel: [{ _ref: "channel", _enum: "channel", _value: "red" }], input: [0, 255], gamma: 1, output: [20, 235] },
            ],
          },
        ],
        [
          { type: "curves", green: [{ input: 0, output: 0 }, { input: 128, output: 190 }, { input: 255, output: 255 }] },
          "curves",
          {
            adjustment: [
              {
                _class: "curvesAdjustment",
                channel: [{ _ref: "channel", _enum: "channel", _value: "green" }],
                curve: [
                  { _class: "paint", horizontal: 0, vertical: 0 },
                  { _class: "paint", horizontal: 128, vertical: 190 },
                  { _class: "paint", horizontal: 255, vertical: 255 },
                ],
              },
            ],
          },
        ],
        [
          { type: "colorBalance", midtones: { cyanRed: -60, magentaGreen: 0, yellowBlue: 10 }, preserveLuminosity: false },
          "colorBalance",
          { shadowLevels: [0, 0, 0], midtoneLevels: [-60, 0, 10], highlightLevels: [0, 0, 0], preserveLuminosity: false },
        ],
        [{ type: "exposure", exposure: 1, offset: 0.1, gamma: 0.8 }, "exposure", { exposure: 1, offset: 0.1, gammaCorrection: 0.8 }],
        [{ type: "vibrance", vibrance: 30, saturation: 20 }, "vibrance", { vibrance: 30, saturation: 20 }],
        [
          { type: "channelMixer", red: { red: 20, green: 80, blue: 0, constant: 0 } },
          "channelMixer",
          {
            monochromatic: false,
            red: { _class: "channelMatrix", red: { _unit: "percentUnit", _value: 20 }, grain: { _unit: "percentUnit", _value: 80 }, blue: { _unit: "percentUnit", _value: 0 }, constant: { _unit: "percentUnit", _value: 0 } },
            grain: { _class: "channelMatrix", red: { _unit: "percentUnit", _value: 0 }, grain: { _unit: "percentUnit", _value: 100 }, blue: { _unit: "percentUnit", _value: 0 }, constant: { _unit: "percentUnit", _value: 0 } },
            blue: { _class: "channelMatrix", red: { _unit: "percentUnit", _value: 0 }, grain: { _unit: "percentUnit", _value: 0 }, blue: { _unit: "percentUnit", _value: 100 }, constant: { _unit: "percentUnit", _value: 0 } },
          },
        ],
        [
          { type: "blackAndWhite", reds: 50, tint: "#e0c080" },
          "blackAndWhite",
          { red: 50, yellow: 60, grain: 40, cyan: 60, blue: 20, magenta: 80, useTint: true, tintColor: { _class: "RGBColor", red: 0xe0, grain: 0xc0, blue: 0x80 } },
        ],
        [
          { type: "photoFilter", color: "#0060ff", density: 80, preserveLuminosity: false },
          "photoFilter",
          { color: { _class: "RGBColor", red: 0, grain: 0x60, blue: 255 }, density: 80, preserveLuminosity: false },
        ],
        [{ type: "selectiveColor", mode: "absolute", reds: { cyan: 60, magenta: 0, yellow: -10, black: 30 } }, "selectiveColor", { method: { _enum: "correctionMethod", _value: "absolute" } }],
        [{ type: "invert" }, "invert", {}],
        [{ type: "posterize", levels: 3 }, "posterization", { levels: 3 }],
        [{ type: "threshold", level: 100 }, "thresholdClassEvent", { level: 100 }],
        [
          { type: "hueSaturation", hue: 120, saturation: -20, ranges: { reds: { lightness: 10 }, blues: { hue: 5, bounds: [190, 220, 260, 290] } } },
          "hueSaturation",
          {
            colorize: false,
            adjustment: [
              { _class: "hueSatAdjustmentV2", hue: 120, saturation: -20, lightness: 0 },
              { _class: "hueSatAdjustmentV2", localRange: 1, beginRamp: 315, beginSustain: 345, endSustain: 15, endRamp: 45, hue: 0, saturation: 0, lightness: 10 },
              { _class: "hueSatAdjustmentV2", localRange: 5, beginRamp: 190, beginSustain: 220, endSustain: 260, endRamp: 290, hue: 5, saturation: 0, lightness: 0 },
            ],
          },
        ],
        [
          { type: "gradientMap", stops: [{ location: 0, color: "#002060" }, { location: 100, color: "#ffd080" }], reverse: true },
          "gradientMapClass",
          { reverse: true },
        ],
      ];
      expect(cases.map(([a]) => a["type"]).sort()).toEqual([...PHOTOSHOP_ADJUSTMENT_LAYER_TYPES].sort());
      for (const [adjustment, cls, keys] of cases) {
        const { result, actions } = await s.edit("layer:create", { kind: "adjustment", adjustment, above: s.id("A") });
        expect(made(actions)).toMatchObject({ null: [{ _ref: "adjustmentLayer" }], using: { _class: "adjustmentLayer", type: { _class: cls, ...keys } } });
        if (cls !== "gradientMapClass" && cls !== "selectiveColor") expect(Object.keys((made(actions)["using"] as { type: object }).type).sort()).toEqual(["_class", ...Object.keys(keys)].sort());
        expect(result.kind).toBe("adjustment");
        expect(result.adjustment).toMatchObject(adjustment);
      }
      const layers = flat(await s.client.call<HostLayer[]>("document:layers"));
      expect(layers.filter((l) => l.kind === "adjustment").map((l) => l.name)).toEqual([
        "Brightness/Contrast 1",
        "Levels 1",
        "Curves 1",
        "Color Balance 1",
        "Exposure 1",
        "Vibrance 1",
        "Channel Mixer 1",
        "Black & White 1",
        "Photo Filter 1",
        "Selective Color 1",
        "Invert 1",
        "Posterize 1",
        "Threshold 1",
        "Hue/Saturation 1",
        "Gradient Map 1",
      ]);
  });

  it("layer:update {adjustment} changes an adjustment layer's content, even to another type, in one step", async () => {
    const s = await session();
      const { result: layer } = await s.edit("layer:create", { kind: "adjustment", adjustment: { type: "invert" }, name: "Inv", to: "top" });
      expect(layer.adjustment).toEqual({ type: "invert" });
      const { result, actions } = await s.edit("layer:update", { layerId: layer.id, adjustment: { type: "hueSaturation", hue: 180 } });
      expect(actions.find((a) => a.event === "set")!.descriptor).toMatchObject({
        null: [{ _ref: "adjustmentLayer", _enum: "ordinal", _value: "targetEnum" }],
        to: { _class: "hueSaturation" },
      });
      expect(result.adjustment).toEqual({ type: "hueSaturation", hue: 180, saturation: 0, lightness: 0 });
      // Undone, it is the invert layer again.
      await s.client.call("history:undo");
      const back = flat(await s.client.call<HostLayer[]>("document:layers")).find((l) => l.name === "Inv")!;
      expect(back.adjustment).toEqual({ type: "invert" });
  });

  it("what Photoshop is not asked to make answers NOT_SUPPORTED naming the capability and field, and nothing runs", async () => {
    const s = await session();
      const { result: fillLayer } = await s.edit("layer:create", { kind: "fill", fill: { type: "solid", color: "red" }, to: "top" });
      const refusals: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
        ["layer:create", { kind: "fill", fill: { type: "solid", color: "#ff000080" } }, { capability: "fill layers", field: "fill.color" }],
        ["layer:update", { layerId: fillLayer.id, fill: { type: "solid", color: "#00000000" } }, { capability: "fill layers", field: "fill.color" }],
      ];
      for (const [method, params, details] of refusals) {
        const error = await s.refused(method, params);
        expect(error.code, JSON.stringify(params)).toBe("NOT_SUPPORTED");
        expect(error.details).toMatchObject({ editor: "photoshop", ...details });
      }
      // A fill goes on a fill layer only.
      const wrong = await s.refused("layer:update", { layerId: s.id("A"), fill: { type: "solid", color: "red" } });
      expect(wrong).toMatchObject({ code: "BAD_REQUEST", details: { field: "fill" } });
  });
});
