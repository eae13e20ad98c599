import { describe, expect, it } from "vitest";
import type { HostLayer } from "../../../src/protocol/index.js";
import { buildScript } from "../../../src/hosts/photoshop/operations.js";
import { runExtendScript } from "../../fakes/photoshop/extendscript/run.js";
import { editSessionOnFake } from "./_setup.js";

/*
 * Layer effects on Photoshop (layer:setEffects), through the bridge and the fake Photoshop: `edit.effects` clears a
 * style the layer has (Clear Layer Style), then plays `set` of the target layer's `layerEffects` property, and
 * `set` of the document's `globalAngle` when the call sets the global light; the DOM stub checks every key against
 * what ScriptListener records (action-effects.ts) and reads the style back as the layer descriptor's `layerEffects`.
 * Each case checks the descriptor played, one history state, and the layer read back in the shape the method takes.
 *
 * The sample: Title (text) · Group G [A · B] · Background; Title is active.
 */

type Edited = HostLayer & { revision: number };
type Action = { event: string; descriptor: Record<string, unknown> };
const flat = (layers: readonly HostLayer[]): HostLayer[] => layers.flatMap((l) => [l, ...flat(l.children ?? [])]);

async function session() {
  const s = await editSessionOnFake();
  return {
    ...s,
    /** Calls layer:setEffects; answers the layer and the ActionManager events of its one edit script (one history state). */
    async set(params: Record<string, unknown>): Promise<{ result: Edited; actions: Action[] }> {
      const { result, run } = await s.oneEdit<Edited>("layer:setEffects", params);
      return { result, actions: run.actions as Action[] };
    },
    async layer(name: string): Promise<HostLayer> {
      return flat(await s.client.call<HostLayer[]>("document:layers")).find((l) => l.name === name)!;
    },
  };
}

/** The `to` of the `set` of layerEffects an edit played. */
const style = (actions: Action[]): Record<string, unknown> => {
  const set = actions.find((a) => a.event === "set" && JSON.stringify(a.descriptor["null"]).includes('"layerEffects"'));
  expect(set, "a set of layerEffects").toBeDefined();
  expect(set!.descriptor["null"]).toEqual([{ _ref: "property", _property: "layerEffects" }, { _ref: "layer", _enum: "ordinal", _value: "targetEnum" }]);
  return set!.descriptor["to"] as Record<string, unknown>;
};
const px = (v: number) => ({ _unit: "pixelsUnit", _value: v });
const pct = (v: number) => ({ _unit: "percentUnit", _value: v });
const deg = (v: number) => ({ _unit: "angleUnit", _value: v });
const rgb = (red: number, grain: number, blue: number) => ({ _class: "RGBColor", red, grain, blue });
const on = { enabled: true, present: true, showInDialog: true };
const linear = { _class: "shapeCurveType", name: "Linear", curve: [{ _class: "curvePoint", horizontal: 0, vertical: 0 }, { _class: "curvePoint", horizontal: 255, vertical: 255 }] };

describe("Photoshop layer effects", () => {
  it("getServerInfo lists layer:setEffects among Photoshop's edits", async () => {
    const s = await session();
    const info = await s.client.call<{ editors: Array<{ kind: string; edits?: Record<string, unknown> }> }>("getServerInfo");
    expect(info.editors[0]!.edits?.["layer:setEffects"]).toEqual({});
  });

  it("each effect kind is written with the Layer Style dialog's keys and units, and reads back as it was asked", async () => {
    const s = await session();
    const effects = {
      dropShadow: { color: "#102030", opacity: 60, distance: 6, spread: 10, size: 4, useGlobalLight: false, angle: 45, noise: 5, contour: [{ x: 0, y: 0 }, { x: 128, y: 200 }, { x: 255, y: 255 }] },
      innerShadow: { color: "#400000", opacity: 50, distance: 3, choke: 20, size: 2, blendMode: "linear burn" },
      outerGlow: { color: "#ffcc00", opacity: 80, size: 8, spread: 5, technique: "precise", jitter: 10, range: 40 },
      innerGlow: { color: "#00ffcc", opacity: 40, size: 3, source: "center", choke: 15 },
      bevel: { style: "emboss", technique: "chiselHard", depth: 250, direction: "down", size: 6, soften: 2, altitude: 45, useGlobalLight: false, angle: 60, highlight: { color: "#fff0e0", opacity: 60 }, shadow: { blendMode: "color burn" } },
      satin: { color: "#202020", opacity: 30, angle: 30, distance: 5, size: 7, invert: false },
      colorOverlay: { color: "#3060a0", opacity: 70, blendMode: "multiply" },
      gradientOverlay: { opacity: 50, stops: [{ location: 0, color: "#ff0000" }, { location: 100, color: "#0000ff80", midpoint: 30 }], angle: 30, style: "radial", scale: 80, offset: { x: 10, y: -5 }, dither: true },
      stroke: { size: 2, position: "inside", color: "#00ff00", opacity: 90 },
    };
    const { result, actions } = await s.set({ layerId: s.id("A"), effects });
    const to = style(actions);
    expect(to["_class"]).toBe("layerEffects");
    expect(to["scale"]).toEqual(pct(100));
    expect(to["dropShadow"]).toEqual({
      _class: "dropShadow",
      ...on,
      mode: { _enum: "blendMode", _value: "multiply" },
      opacity: pct(60),
      color: rgb(0x10, 0x20, 0x30),
      useGlobalAngle: false,
      localLightingAngle: deg(45),
      distance: px(6),
      chokeMatte: px(10),
      blur: px(4),
      noise: pct(5),
      antiAlias: false,
      transferSpec: {
        _class: "shapeCurveType",
        name: "Custom",
        curve: [
          { _class: "curvePoint", horizontal: 0, vertical: 0 },
          { _class: "curvePoint", horizontal: 128, vertical: 200 },
          { _class: "curvePoint", horizontal: 255, vertical: 255 },
        ],
      },
      layerConceals: true,
    });
    // An effect using the global light names no angle of its own.
    expect(to["innerShadow"]).toMatchObject({ _class: "innerShadow", mode: { _value: "linearBurn" }, useGlobalAngle: true, chokeMatte: px(20), transferSpec: linear });
    expect(to["innerShadow"]).not.toHaveProperty("localLightingAngle");
    expect(to["outerGlow"]).toMatchObject({
      _class: "outerGlow",
      mode: { _value: "screen" },
      glowTechnique: { _enum: "matteTechnique", _value: "preciseMatte" },
      chokeMatte: px(5),
      blur: px(8),
      shadingNoise: pct(10),
      inputRange: pct(40),
    });
    expect(to["innerGlow"]).toMatchObject({ _class: "innerGlow", innerGlowSource: { _enum: "innerGlowSourceType", _value: "centerGlow" }, chokeMatte: px(15) });
    expect(to["bevelEmboss"]).toMatchObject({
      _class: "bevelEmboss",
      bevelStyle: { _enum: "bevelEmbossStyle", _value: "emboss" },
      bevelTechnique: { _enum: "bevelTechnique", _value: "preciseMatte" },
      strengthRatio: pct(250),
      bevelDirection: { _enum: "bevelEmbossStampStyle", _value: "out" },
      blur: px(6),
      softness: px(2),
      useGlobalAngle: false,
      localLightingAngle: deg(60),
      localLightingAltitude: deg(45),
      highlightMode: { _value: "screen" },
      highlightColor: rgb(0xff, 0xf0, 0xe0),
      highlightOpacity: pct(60),
      shadowMode: { _value: "colorBurn" },
      shadowOpacity: pct(75),
      useShape: false,
      useTexture: false,
    });
    expect(to["bevelEmboss"]).not.toHaveProperty("mode");
    expect(to["chromeFX"]).toMatchObject({ _class: "chromeFX", invert: false, localLightingAngle: deg(30), distance: px(5), blur: px(7), mappingShape: linear });
    expect(to["solidFill"]).toEqual({ _class: "solidFill", ...on, mode: { _enum: "blendMode", _value: "multiply" }, opacity: pct(70), color: rgb(0x30, 0x60, 0xa0) });
    expect(to["gradientFill"]).toMatchObject({
      _class: "gradientFill",
      type: { _enum: "gradientType", _value: "radial" },
      angle: deg(30),
      scale: pct(80),
      dither: true,
      offset: { _class: "paint", horizontal: pct(10), vertical: pct(-5) },
      gradient: { _class: "gradientClassEvent", interfaceIconFrameDimmed: 4096 },
    });
    expect(to["frameFX"]).toMatchObject({
      _class: "frameFX",
      style: { _enum: "frameStyle", _value: "insetFrame" },
      paintType: { _enum: "frameFill", _value: "solidColor" },
      size: px(2),
      color: rgb(0, 255, 0),
      overprint: false,
    });
    // Read back in the shape the method takes, the defaults filled in.
    expect(result.effects).toMatchObject({ ...effects, gradientOverlay: { ...effects.gradientOverlay, stops: [{ location: 0, color: "#ff0000" }, { location: 100, color: "#0000ff80", midpoint: 30 }] } });
    expect(result.effects?.["dropShadow"]).toMatchObject({ blendMode: "multiply", layerKnocksOut: true, antiAlias: false });
    expect(result.effects?.["innerShadow"]).toMatchObject({ useGlobalLight: true, angle: 120 });
    expect(result.effects?.["bevel"]).toMatchObject({ shadow: { color: "#000000", blendMode: "color burn", opacity: 75 } });
    expect(result.effects?.["colorOverlay"]).toEqual({ color: "#3060a0", blendMode: "multiply", opacity: 70 });
    expect(result.effects?.["stroke"]).toEqual({ size: 2, position: "inside", color: "#00ff00", blendMode: "normal", opacity: 90 });
    // Every read of the layer shows the same.
    expect((await s.layer("A")).effects).toEqual(result.effects);
  });

  it("several of a kind go in as its Multi list and read back as a list in order; one as its single object", async () => {
    const s = await session();
    const shadows = [
      { color: "#ff0000", distance: 8, size: 0, useGlobalLight: false, angle: 0 },
      { color: "#0000ff", distance: 8, size: 0, useGlobalLight: false, angle: 180 },
    ];
    const strokes = [{ size: 2, color: "#00ff00" }, { size: 4, gradient: { stops: [{ location: 0, color: "#ffff00" }, { location: 100, color: "#ff00ff" }], angle: 45 } }];
    const { result, actions } = await s.set({ layerId: s.id("Title"), effects: { dropShadow: shadows, stroke: strokes, colorOverlay: [{ color: "#ffffff" }] } });
    const to = style(actions);
    expect(Object.keys(to).sort()).toEqual(["_class", "dropShadowMulti", "frameFXMulti", "scale", "solidFill"]);
    expect((to["dropShadowMulti"] as Array<Record<string, unknown>>).map((d) => [d["_class"], d["color"]])).toEqual([
      ["dropShadow", rgb(255, 0, 0)],
      ["dropShadow", rgb(0, 0, 255)],
    ]);
    expect((to["frameFXMulti"] as Array<Record<string, unknown>>)[1]).toMatchObject({
      _class: "frameFX",
      paintType: { _enum: "frameFill", _value: "gradientFill" },
      angle: deg(45),
      gradient: { _class: "gradientClassEvent" },
    });
    expect(result.effects?.["dropShadow"]).toMatchObject(shadows);
    expect(result.effects?.["stroke"]).toMatchObject([
      { size: 2, color: "#00ff00" },
      { size: 4, gradient: { style: "linear", angle: 45, stops: [{ location: 0, color: "#ffff00" }, { location: 100, color: "#ff00ff" }] } },
    ]);
    expect(result.effects?.["colorOverlay"]).toEqual({ color: "#ffffff", blendMode: "normal", opacity: 100 });
    // Title is a top-level layer: the tree's ActionManager read is checked against the DOM walk on it, effects too.
    const dom = JSON.parse(runExtendScript(s.fake.model, buildScript("document.tree", { layerTree: "dom" })).text) as { result: { layers: HostLayer[] } };
    const am = JSON.parse(runExtendScript(s.fake.model, buildScript("document.tree", {})).text) as { result: { layers: HostLayer[] }; notes?: string[] };
    expect(am.notes).toBeUndefined();
    expect(am.result.layers[0]!.effects).toEqual(dom.result.layers[0]!.effects);
    expect(am.result.layers[0]!.effects).toEqual(result.effects);
  });

  it("a gradient's interpolation is written as fill layers' is, only when it is not classic, and reads back", async () => {
    const s = await session();
    const stops = [{ location: 0, color: "#ff0000" }, { location: 100, color: "#0000ff" }];
    const { result, actions } = await s.set({
      layerId: s.id("A"),
      effects: { gradientOverlay: { stops, interpolation: "perceptual" }, stroke: [{ size: 2, gradient: { stops, interpolation: "smooth" } }, { size: 3, gradient: { stops } }] },
    });
    const to = style(actions);
    expect(to["gradientFill"]).toMatchObject({ gradientsInterpolationMethod: { _enum: "gradientInterpolationMethodType", _value: "perceptual" } });
    const strokes = to["frameFXMulti"] as Array<Record<string, unknown>>;
    expect(strokes[0]).toMatchObject({ gradientsInterpolationMethod: { _enum: "gradientInterpolationMethodType", _value: "smooth" } });
    // Classic, the default, writes no key: Photoshop before 2022 knows no other.
    expect(strokes[1]).not.toHaveProperty("gradientsInterpolationMethod");
    expect(result.effects?.["gradientOverlay"]).toMatchObject({ interpolation: "perceptual" });
    expect(result.effects?.["stroke"]).toMatchObject([{ gradient: { interpolation: "smooth" } }, { gradient: { stops } }]);
    const readStrokes = result.effects?.["stroke"] as Array<{ gradient: Record<string, unknown> }> | undefined;
    expect(readStrokes?.[1]?.gradient).toBeDefined();
    expect(readStrokes?.[1]?.gradient).not.toHaveProperty("interpolation");
  });

  it("a kind Photoshop wrote otherwise (a noise gradient, a key of another type) is left out with a note; the rest reads", async () => {
    const s = await session();
    await s.set({ layerId: s.id("Title"), effects: { dropShadow: {}, colorOverlay: {}, gradientOverlay: { stops: [{ location: 0, color: "red" }, { location: 100, color: "blue" }] } } });
    const title = s.fake.model.docs[0]!.layers[0]!;
    type Stored = { [key: string]: { type: string; value: unknown } };
    const style = title.effects as Stored;
    // A noise gradient has no colour stops; an opacity kept as a boolean is not the unitDouble the read expects.
    delete ((style["gradientFill"]!.value as Stored)["gradient"]!.value as Stored)["colors"];
    (style["dropShadow"]!.value as Stored)["opacity"] = { type: "boolean", value: true };
    const read = JSON.parse(runExtendScript(s.fake.model, buildScript("document.tree", {})).text) as { result: { layers: HostLayer[] }; notes?: string[] };
    expect(read.result.layers[0]!.effects).toEqual({ colorOverlay: { blendMode: "normal", opacity: 100, color: "#ff0000" } });
    expect(read.notes).toEqual([expect.stringMatching(/^layer \d+: its dropShadow effects were left out/)]);
  });

  it("a new style replaces the old whole (cleared first), {} clears it, and each is one step undone as one", async () => {
    const s = await session();
    const { result: first } = await s.set({ layerId: s.id("A"), effects: { dropShadow: {}, stroke: { size: 5 } } });
    expect(Object.keys(first.effects ?? {})).toEqual(["dropShadow", "stroke"]);
    const { result: second, actions } = await s.set({ layerId: s.id("A"), effects: { outerGlow: { size: 12 } } });
    expect(actions.map((a) => a.event)).toEqual(["select", "disableLayerStyle", "set"]);
    expect(second.effects).toEqual({
      outerGlow: { blendMode: "screen", opacity: 35, color: "#ffffbe", noise: 0, technique: "softer", size: 12, antiAlias: false, range: 50, jitter: 0, spread: 0 },
    });
    const { result: cleared, actions: clearing } = await s.set({ layerId: s.id("A"), effects: {} });
    expect(clearing.map((a) => a.event)).toEqual(["select", "disableLayerStyle"]);
    expect(cleared.effects).toBeUndefined();
    expect(s.fake.model.docs[0]!.history?.slice(-3)).toEqual(["layer:setEffects", "layer:setEffects", "layer:setEffects"]);
    await s.client.call("history:undo");
    expect((await s.layer("A")).effects).toEqual(second.effects);
    await s.client.call("history:undo");
    expect((await s.layer("A")).effects).toEqual(first.effects);
    // Clearing a layer without a style plays nothing but still answers the layer.
    const { actions: none } = await s.set({ layerId: s.id("B"), effects: {} });
    expect(none.map((a) => a.event)).toEqual(["select"]);
  });

  it("the global light is set on the document in the same step; effects using it read its angle back, and undo puts it back", async () => {
    const s = await session();
    const { result, actions } = await s.set({ layerId: s.id("A"), effects: { dropShadow: { distance: 5 }, bevel: {} }, globalLight: { angle: 90, altitude: 40 } });
    const light = actions.find((a) => a.event === "set" && JSON.stringify(a.descriptor["null"]).includes('"globalAngle"'))!;
    expect(light.descriptor).toEqual({
      null: [{ _ref: "property", _property: "globalAngle" }, { _ref: "document", _enum: "ordinal", _value: "targetEnum" }],
      to: { _class: "globalAngle", globalLightingAngle: deg(90), globalAltitude: deg(40) },
    });
    // The light is set before the style.
    expect(actions.map((a) => a.event)).toEqual(["select", "set", "set"]);
    expect(result.effects?.["dropShadow"]).toMatchObject({ useGlobalLight: true, angle: 90 });
    expect(result.effects?.["bevel"]).toMatchObject({ useGlobalLight: true, angle: 90, altitude: 30 });
    expect(s.fake.model.docs[0]!.globalLight).toEqual({ angle: 90, altitude: 40 });
    // An angle named with the global light sets it: the first layer's shadow moves too.
    await s.set({ layerId: s.id("B"), effects: { innerShadow: { angle: 30, useGlobalLight: true } } });
    expect((await s.layer("A")).effects?.["dropShadow"]).toMatchObject({ angle: 30 });
    expect(s.fake.model.docs[0]!.globalLight).toEqual({ angle: 30, altitude: 40 });
    await s.client.call("history:undo");
    expect((await s.layer("A")).effects?.["dropShadow"]).toMatchObject({ angle: 90 });
    expect(s.fake.model.docs[0]!.globalLight).toEqual({ angle: 90, altitude: 40 });
  });

  it("what Photoshop's descriptor cannot take, the Background layer and a locked layer are refused, and nothing runs", async () => {
    const s = await session();
    const refusals: Array<[Record<string, unknown>, string, Record<string, unknown>]> = [
      [{ dropShadow: { color: "#00000080" } }, "NOT_SUPPORTED", { editor: "photoshop", capability: "layer effects", field: "effects.dropShadow.color" }],
      [{ stroke: [{ color: "red" }, { color: "#ff000010" }] }, "NOT_SUPPORTED", { capability: "layer effects", field: "effects.stroke.1.color" }],
      [{ bevel: { highlight: { color: "#ffffff00" } } }, "NOT_SUPPORTED", { capability: "layer effects", field: "effects.bevel.highlight.color" }],
    ];
    for (const [effects, code, details] of refusals) {
      const error = await s.refused("layer:setEffects", { layerId: s.id("A"), effects });
      expect(error.code, JSON.stringify(effects)).toBe(code);
      expect(error.details).toMatchObject(details);
    }
    const background = await s.refused("layer:setEffects", { layerId: s.id("Background"), effects: { dropShadow: {} } });
    expect(background).toMatchObject({ code: "BAD_REQUEST", details: { layerId: s.id("Background"), field: "effects" } });
    await s.client.call("layer:update", { layerId: s.id("B"), locked: true });
    const locked = await s.refused("layer:setEffects", { layerId: s.id("B"), effects: { dropShadow: {} } });
    expect(locked).toMatchObject({ code: "BAD_REQUEST", details: { layerId: s.id("B"), locked: true } });
    expect((await s.layer("A")).effects).toBeUndefined();
  });
});
