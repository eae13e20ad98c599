import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import type { HostLayer } from "../../../src/protocol/index.js";
import { PHOTOSHOP_ADJUSTMENT_LAYER_TYPES } from "../../../src/hosts/photoshop/edits.js";
import { buildScript } from "../../../src/hosts/photoshop/operations.js";
import { decodeImages, runExtendScript } from "../../fakes/photoshop/extendscript/run.js";
import { FakeModel } from "../../fakes/photoshop/model.js";
import { type EditSession, editSessionOnFake } from "./_setup.js";

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

interface Session extends Omit<EditSession, "oneEdit"> {
  /** Calls the method; answers its result and the ActionManager events of its one edit script (one history state). */
  edit(method: string, params: Record<string, unknown>): Promise<{ result: Edited; actions: Array<{ event: string; descriptor: Record<string, unknown> }> }>;
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

  /** A `w`×`h` PNG of one colour, as a data URI. */
  const tile = async (w: number, h: number, rgb: [number, number, number]): Promise<string> =>
    `data:image/png;base64,${(await sharp({ create: { width: w, height: h, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } }).png().toBuffer()).toString("base64")}`;
  const PRESET = /^bridge pattern [0-9a-f-]{36}$/;

  it("a pattern fill defines its image as a preset from a temporary document, makes the layer by the preset's name, deletes the preset: one state in the document", async () => {
    const s = await session();
    const doc = s.fake.model.docs[0]!;
    const [docs, history] = [s.fake.model.docs.map((d) => d.id), [...(doc.history ?? [])]];
    const { revision } = await s.client.call<{ revision: number }>("document:current");
    const before = s.fake.runs.length;
    const result = await s.client.call<Edited>("layer:create", { kind: "fill", fill: { type: "pattern", image: await tile(4, 2, [0x30, 0xa0, 0x50]), name: "Tiles" }, to: "top" });
    const runs = s.fake.runs.slice(before).filter((r) => r.op.startsWith("edit."));
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    const events = run.actions.map((a) => a.event);
    const define = run.actions.find((a) => a.event === "make" && JSON.stringify(a.descriptor["null"]) === JSON.stringify([{ _ref: "pattern" }]))!;
    expect(define.descriptor).toEqual({
      null: [{ _ref: "pattern" }],
      using: [{ _ref: "property", _property: "selection" }, { _ref: "document", _enum: "ordinal", _value: "targetEnum" }],
      name: expect.stringMatching(PRESET),
    });
    const preset = define.descriptor["name"] as string;
    const layer = run.actions.find((a) => a.event === "make" && a !== define)!;
    expect(layer.descriptor).toEqual({
      null: [{ _ref: "contentLayer" }],
      using: { _class: "contentLayer", type: { _class: "patternLayer", pattern: { _class: "pattern", name: preset }, scale: { _unit: "percentUnit", _value: 100 } } },
    });
    const removed = run.actions.findIndex((a) => a.event === "delete" && JSON.stringify(a.descriptor) === JSON.stringify({ null: [{ _ref: "pattern", _name: preset }] }));
    // Defined, then the layer made (and its default mask deleted), then the preset deleted.
    expect(events.indexOf("make")).toBe(run.actions.indexOf(define));
    expect(removed).toBeGreaterThan(run.actions.indexOf(layer));
    expect(removed).toBe(events.length - 1);
    // The temporary document took the whole image as the selection; it is closed without saving and never kept.
    expect(run.calls).toContain("selection.selectAll()");
    expect(s.fake.model.docs.map((d) => d.id)).toEqual(docs);
    expect(s.fake.model.activeDoc).toBe(doc.id);
    // One history state in the document edited; the user's presets are as they were; the image's file is gone.
    expect(doc.history).toEqual([...history, "layer:create"]);
    expect(s.fake.model.patternPresets).toEqual([]);
    expect(existsSync((run.params as { path: string }).path)).toBe(false);
    expect(result).toMatchObject({ revision: revision + 1, kind: "fill", name: "Pattern Fill 1", fill: { type: "pattern", name: preset } });
    const back = flat(await s.client.call<HostLayer[]>("document:layers")).find((l) => l.id === result.id)!;
    expect(back).toMatchObject({ kind: "fill", fill: { type: "pattern", name: preset } });
    expect(back.rect).toEqual({ x: 0, y: 0, width: 320, height: 240 });
  });

  it("layer:update sets a fill layer to a pattern, and back to a colour, one state each, the presets left as they were", async () => {
    const s = await session();
    const { result: layer } = await s.edit("layer:create", { kind: "fill", fill: { type: "solid", color: "red" }, to: "top" });
    const doc = s.fake.model.docs[0]!;
    const history = [...(doc.history ?? [])];
    const before = s.fake.runs.length;
    const patterned = await s.client.call<Edited>("layer:update", { layerId: layer.id, fill: { type: "pattern", image: await tile(3, 3, [0, 0, 255]) } });
    const run = s.fake.runs.slice(before).find((r) => r.op === "edit.layer")!;
    const set = run.actions.find((a) => a.event === "set")!;
    const preset = (run.actions.find((a) => a.event === "make")!.descriptor["name"]) as string;
    expect(preset).toMatch(PRESET);
    expect(set.descriptor).toEqual({
      null: [{ _ref: "contentLayer", _enum: "ordinal", _value: "targetEnum" }],
      to: { _class: "patternLayer", pattern: { _class: "pattern", name: preset }, scale: { _unit: "percentUnit", _value: 100 } },
    });
    expect(patterned).toMatchObject({ revision: layer.revision + 1, kind: "fill", fill: { type: "pattern", name: preset } });
    expect(doc.history).toEqual([...history, "layer:update"]);
    expect(s.fake.model.patternPresets).toEqual([]);
    const { result: solid } = await s.edit("layer:update", { layerId: layer.id, fill: { type: "solid", color: "#00ff00" } });
    expect(solid.fill).toEqual({ type: "solid", color: "#00ff00" });
  });

  it("a pattern whose image cannot be read or decoded is BAD_REQUEST, and nothing runs", async () => {
    const s = await session();
    const error = await s.refused("layer:create", { kind: "fill", fill: { type: "pattern", image: "data:image/png;base64,AAAAAAAA" } });
    expect(error.code).toBe("BAD_REQUEST");
    // A PNG whose header reads but whose pixels are cut off fails when the bridge reads it, before Photoshop.
    const whole = Buffer.from((await tile(16, 16, [1, 2, 3])).split(",")[1]!, "base64");
    const cut = await s.refused("layer:create", { kind: "fill", fill: { type: "pattern", image: `data:image/png;base64,${whole.subarray(0, 40).toString("base64")}` } });
    expect(cut).toMatchObject({ code: "BAD_REQUEST", details: { format: "png" } });
    expect(s.fake.model.patternPresets).toEqual([]);
    expect(s.fake.model.docs).toHaveLength(1);
  });

  it("the fake models Define Pattern (a document and a selection needed), the presets, a pattern layer by a defined name, and a preset's delete", () => {
    const model = FakeModel.withSample(() => {});
    const attempt = (body: string): string =>
      runExtendScript(model, `var k = stringIDToTypeID; try { ${body}; "done" } catch (e) { "failed: " + e.message }`).text;
    const define = (name: string): string =>
      `var d = new ActionDescriptor(), r = new ActionReference(), u = new ActionReference(); r.putClass(k("pattern")); d.putReference(k("null"), r);
       u.putProperty(k("property"), k("selection")); u.putEnumerated(k("document"), k("ordinal"), k("targetEnum")); d.putReference(k("using"), u);
       d.putString(k("name"), ${JSON.stringify(name)}); executeAction(k("make"), d, DialogModes.NO)`;
    const fill = (name: string): string =>
      `var p = new ActionDescriptor(); p.putString(k("name"), ${JSON.stringify(name)}); var t = new ActionDescriptor(); t.putObject(k("pattern"), k("pattern"), p);
       var u = new ActionDescriptor(); u.putObject(k("type"), k("patternLayer"), t); var r = new ActionReference(); r.putClass(k("contentLayer"));
       var d = new ActionDescriptor(); d.putReference(k("null"), r); d.putObject(k("using"), k("contentLayer"), u); executeAction(k("make"), d, DialogModes.NO)`;
    const remove = (name: string): string =>
      `var d = new ActionDescriptor(), r = new ActionReference(); r.putName(k("pattern"), ${JSON.stringify(name)}); d.putReference(k("null"), r); executeAction(k("delete"), d, DialogModes.NO)`;
    // No selection: Define Pattern is not available.
    expect(attempt(define("P"))).toMatch(/^failed: .*not currently available/);
    expect(model.patternPresets).toEqual([]);
    expect(attempt(`app.activeDocument.selection.selectAll(); ${define("P")}`)).toBe("done");
    expect(model.patternPresets.map((p) => [p.name, p.width, p.height])).toEqual([["P", 320, 240]]);
    expect(attempt(fill("Q"))).toMatch(/^failed: .*not currently available/);
    expect(attempt(fill("P"))).toBe("done");
    expect(model.docs[0]!.layers[0]).toMatchObject({ kind: "fill", psKind: "PATTERNFILL", name: "Pattern Fill 1" });
    expect(attempt(remove("Q"))).toMatch(/^failed: .*not currently available/);
    expect(attempt(remove("P"))).toBe("done");
    expect(model.patternPresets).toEqual([]);
    // With no document open there is nothing to define a pattern from.
    model.docs = [];
    model.activeDoc = undefined;
    expect(attempt(define("P"))).toMatch(/^failed: .*No such element/);
  });

  it("a preset Photoshop will not delete leaves the pattern fill made, and the script notes it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "bridge-pattern-"));
    try {
      const path = join(dir, "tile.png");
      await writeFile(path, await sharp({ create: { width: 2, height: 2, channels: 3, background: "#ff8000" } }).png().toBuffer());
      const model = FakeModel.withSample(() => {});
      // The delete looks the preset up by name (findIndex): here it finds none, so Photoshop's delete fails.
      Object.defineProperty(model.patternPresets, "findIndex", { value: () => -1 });
      const edit = { op: "layer:create", kind: "fill", name: "Tiles", place: { to: "top" }, fill: { type: "pattern", name: "Pattern", preset: "bridge pattern kept" } };
      const params = { documentId: model.docs[0]!.id, edit, history: "layer:create", path };
      const out = JSON.parse(runExtendScript(model, buildScript("edit.layer", params), await decodeImages(params)).text);
      expect(out).toMatchObject({ ok: true, result: { layerId: expect.any(Number) }, notes: [expect.stringContaining('"bridge pattern kept" the fill was made from could not be deleted')] });
      expect(model.docs[0]!.layers[0]).toMatchObject({ name: "Tiles", kind: "fill", psKind: "PATTERNFILL" });
      expect(model.docs[0]!.history).toEqual(["layer:create"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
