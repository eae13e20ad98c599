import { describe, expect, it } from "vitest";
import type { HostLayer } from "../../../src/protocol/index.js";
import { type EditSession, editSessionOnFake } from "./_setup.js";

/*
 * layer:adjust and filter:apply on Photoshop, through the bridge and the fake Photoshop: `edit.filter` runs as
 * ExtendScript against the DOM stub, whose ArtLayer adjustments and filters check their arguments against the
 * Photoshop JavaScript Reference's ranges and record each call (dom-filters.ts). The types without an ArtLayer
 * method are played as ActionManager events, which the stub checks against their dialogs' ranges and records
 * (action-filters.ts). Each case checks the exact DOM calls and arguments or the descriptor played, and that the
 * edit was one history state named after the method.
 *
 * The sample: Title (text) · Group G [A (40,60–120,140) · B (100,80–200,180)] · Background; Title is active.
 */

interface Session extends Omit<EditSession, "oneEdit"> {
  /** Calls the method and answers the DOM calls of its one edit script (one history state named after the method). */
  calls(method: "layer:adjust" | "filter:apply", params: Record<string, unknown>): Promise<string[]>;
  /** Calls the method and answers the one ActionManager event its edit script played after selecting the layer. */
  played(method: "layer:adjust" | "filter:apply", params: Record<string, unknown>): Promise<{ event: string; descriptor: Record<string, unknown> }>;
}

async function session(): Promise<Session> {
  const s = await editSessionOnFake();
  return {
    ...s,
    async calls(method, params) {
      const { result, run } = await s.oneEdit<HostLayer & { revision: number }>(method, params);
      expect(result).toMatchObject({ id: params["layerId"] });
      expect(run.op).toBe("edit.filter");
      // The DOM's adjustments and filters act on the active layer: the script makes the target the active one.
      expect(run.actions.map((a) => a.event)).toEqual(["select"]);
      expect(s.fake.model.docs[0]!.active).toEqual([params["layerId"]]);
      return run.calls;
    },
    async played(method, params) {
      const { run } = await s.oneEdit<HostLayer & { revision: number }>(method, params);
      expect(run.op).toBe("edit.filter");
      expect(run.actions.map((a) => a.event)[0]).toBe("select");
      expect(run.actions, "one event after the select").toHaveLength(2);
      const played = run.actions[1]!;
      // The event changed the active layer's pixels: one call on it, inside the one history state.
      expect(run.calls).toEqual([`${params["layerId"]}.${played.event}`]);
      expect(s.fake.model.docs[0]!.dirty).toBe(true);
      return played as { event: string; descriptor: Record<string, unknown> };
    },
  };
}

const custom = { _enum: "presetKindType", _value: "presetKindCustom" };
const rgb = (red: number, grain: number, blue: number) => ({ _class: "RGBColor", red, grain, blue });

describe("Photoshop layer:adjust", () => {
  it("makes each adjustment with its ArtLayer method and the resolved settings, on the layer made active", async () => {
    const s = await session();
    const a = s.id("A");
    const adjust = (adjustment: Record<string, unknown>): Promise<string[]> => s.calls("layer:adjust", { layerId: a, adjustment });
    const dom = adjust;

    expect(await dom({ type: "brightnessContrast", brightness: 20, contrast: -10 })).toEqual([`${a}.adjustBrightnessContrast(20, -10)`]);
    // Levels and curves: each colour channel alone (the only active channel), then the composite.
    expect(await dom({ type: "levels", rgb: { inputBlack: 10, inputWhite: 240, gamma: 1.2 }, blue: { outputWhite: 200 } })).toEqual([
      `${a}.adjustLevels[Blue](0, 255, 1, 0, 200)`,
      `${a}.adjustLevels(10, 240, 1.2, 0, 255)`,
    ]);
    expect(await dom({ type: "curves", red: [{ input: 0, output: 20 }, { input: 255, output: 255 }], rgb: [{ input: 0, output: 0 }, { input: 128, output: 160 }, { input: 255, output: 255 }] })).toEqual([
      `${a}.adjustCurves[Red]([[0,20],[255,255]])`,
      `${a}.adjustCurves([[0,0],[128,160],[255,255]])`,
    ]);
    expect(await dom({ type: "colorBalance", midtones: { cyanRed: 30 }, highlights: { yellowBlue: -15 } })).toEqual([`${a}.adjustColorBalance([0,0,0], [30,0,0], [0,0,-15], true)`]);
    // Photo filter: Photoshop's default colour (Warming Filter (85)) and density, as the bridge resolved them.
    expect(await dom({ type: "photoFilter", preserveLuminosity: false })).toEqual([`${a}.photoFilter("#ec8a00", 25, false)`]);
    expect(await dom({ type: "channelMixer", red: { red: 70, green: 30 } })).toEqual([`${a}.mixChannels([[70,30,0,0],[0,100,0,0],[0,0,100,0]], false)`]);
    expect(await dom({ type: "channelMixer", monochrome: { red: 40, green: 40, blue: 20, constant: 5 } })).toEqual([`${a}.mixChannels([[40,40,20,5]], true)`]);
    expect(await dom({ type: "invert" })).toEqual([`${a}.invert()`]);
    expect(await dom({ type: "posterize", levels: 3 })).toEqual([`${a}.posterize(3)`]);
    expect(await dom({ type: "threshold" })).toEqual([`${a}.threshold(128)`]);
    const zero = "[0,0,0,0]";
    expect(await dom({ type: "selectiveColor", mode: "absolute", reds: { cyan: 20 }, blacks: { black: -10 } })).toEqual([
      `${a}.selectiveColor("ABSOLUTE", [20,0,0,0], ${Array(7).fill(zero).join(", ")}, [0,0,0,-10])`,
    ]);
    // The target layer is made the active one inside the history state, before the adjustment.
  });

  it("plays the adjustments the DOM has no method for as Image > Adjustments events, with their adjustment layers' descriptors", async () => {
    const s = await session();
    const a = s.id("A");
    const am = (adjustment: Record<string, unknown>) => s.played("layer:adjust", { layerId: a, adjustment });
    expect(await am({ type: "exposure", exposure: 1.5, offset: 0.1, gamma: 0.8 })).toEqual({
      event: "exposure",
      descriptor: { exposure: 1.5, offset: 0.1, gammaCorrection: 0.8, presetKind: custom },
    });
    const hue = await am({ type: "hueSaturation", hue: 30, saturation: -20, ranges: { reds: { lightness: 10 } } });
    expect(hue).toEqual({
      event: "hueSaturation",
      descriptor: {
        colorize: false,
        adjustment: [
          { _class: "hueSatAdjustmentV2", hue: 30, saturation: -20, lightness: 0 },
          { _class: "hueSatAdjustmentV2", localRange: 1, beginRamp: 315, beginSustain: 345, endSustain: 15, endRamp: 45, hue: 0, saturation: 0, lightness: 10 },
        ],
        presetKind: custom,
      },
    });
    // Colorize: the master entry alone holds the colour (hue 0–360, saturation 0–100).
    expect((await am({ type: "hueSaturation", colorize: { hue: 200, saturation: 40, lightness: -5 } })).descriptor).toEqual({
      colorize: true,
      adjustment: [{ _class: "hueSatAdjustmentV2", hue: 200, saturation: 40, lightness: -5 }],
      presetKind: custom,
    });
    expect(await am({ type: "vibrance", vibrance: 30 })).toEqual({ event: "vibrance", descriptor: { vibrance: 30, saturation: 0, presetKind: custom } });
    expect(await am({ type: "blackAndWhite", reds: 50, tint: "#e0c080" })).toEqual({
      event: "blackAndWhite",
      descriptor: { red: 50, yellow: 60, grain: 40, cyan: 60, blue: 20, magenta: 80, useTint: true, tintColor: rgb(0xe0, 0xc0, 0x80), presetKind: custom },
    });
    // Gradient Map's event is GrMp; its gradient is the adjustment layer's, stops at 0–4096.
    const map = await am({ type: "gradientMap", stops: [{ location: 0, color: "#002060" }, { location: 100, color: "#ffd080" }], reverse: true });
    expect(map.event).toBe("gradientMapEvent");
    expect(map.descriptor).toMatchObject({ reverse: true, gradient: { _class: "gradientClassEvent", interfaceIconFrameDimmed: 4096 } });
    expect((map.descriptor["gradient"] as { colors: Array<{ location: number; color: unknown }> }).colors.map((c) => [c.location, c.color])).toEqual([
      [0, rgb(0, 0x20, 0x60)],
      [4096, rgb(0xff, 0xd0, 0x80)],
    ]);
  });

  it("answers NOT_SUPPORTED for the settings the DOM cannot take, naming the field, and runs nothing", async () => {
    const s = await session();
    const a = s.id("A");
    for (const [adjustment, field] of [
      [{ type: "brightnessContrast", brightness: 20, legacy: true }, "adjustment.legacy"],
      [{ type: "brightnessContrast", brightness: 120 }, "adjustment.brightness"],
      [{ type: "curves", rgb: Array.from({ length: 15 }, (_, i) => ({ input: i * 17, output: i * 17 })) }, "adjustment.rgb"],
    ] as const) {
      expect(await s.refused("layer:adjust", { layerId: a, adjustment })).toMatchObject({ code: "NOT_SUPPORTED", details: { editor: "photoshop", capability: "layer:adjust", field } });
    }
    // Every adjustment type is made: none is listed as unsupported.
    const info = await s.client.call<{ editors: Array<{ edits: Record<string, { unsupportedTypes?: string[] }> }> }>("getServerInfo");
    expect(info.editors[0]!.edits["layer:adjust"]?.unsupportedTypes).toBeUndefined();
    expect(info.editors[0]!.edits["filter:apply"]?.unsupportedTypes).toBeUndefined();
  });
});

describe("Photoshop filter:apply", () => {
  it("applies each filter with its ArtLayer method; radii are the DOM's pixels unchanged (σ is Photoshop's Radius)", async () => {
    const s = await session();
    const b = s.id("B");
    const dom = (filter: Record<string, unknown>): Promise<string[]> => s.calls("filter:apply", { layerId: b, filter });
    expect(await dom({ type: "gaussianBlur", radius: 2.5 })).toEqual([`${b}.applyGaussianBlur(2.5)`]);
    expect(await dom({ type: "gaussianBlur" })).toEqual([`${b}.applyGaussianBlur(1)`]);
    expect(await dom({ type: "motionBlur", angle: 45, distance: 6 })).toEqual([`${b}.applyMotionBlur(45, 6)`]);
    expect(await dom({ type: "unsharpMask", amount: 60, radius: 1.5, threshold: 2 })).toEqual([`${b}.applyUnSharpMask(60, 1.5, 2)`]);
    expect(await dom({ type: "sharpen" })).toEqual([`${b}.applySharpen()`]);
    expect(await dom({ type: "addNoise", amount: 5, distribution: "gaussian", monochromatic: true })).toEqual([`${b}.applyAddNoise(5, "GAUSSIAN", true)`]);
    expect(await dom({ type: "addNoise" })).toEqual([`${b}.applyAddNoise(10, "UNIFORM", false)`]);
    expect(await dom({ type: "median", radius: 3 })).toEqual([`${b}.applyMedianNoise(3)`]);
    expect(await dom({ type: "highPass" })).toEqual([`${b}.applyHighPass(10)`]);
  });

  it("plays box blur, mosaic and emboss as Filter menu events, in pixels and whole degrees", async () => {
    const s = await session();
    const b = s.id("B");
    const am = (filter: Record<string, unknown>) => s.played("filter:apply", { layerId: b, filter });
    expect(await am({ type: "boxBlur", radius: 3 })).toEqual({ event: "boxblur", descriptor: { radius: { _unit: "pixelsUnit", _value: 3 } } });
    expect(await am({ type: "pixelate", size: 12 })).toEqual({ event: "mosaic", descriptor: { cellSize: { _unit: "pixelsUnit", _value: 12 } } });
    // Emboss: the azimuth is Photoshop's angle (−180–180), the depth its height; the amount is Photoshop's default.
    expect(await am({ type: "emboss" })).toEqual({ event: "emboss", descriptor: { angle: 135, height: 3, amount: 100 } });
    expect(await am({ type: "emboss", azimuth: 300.4, depth: 12 })).toEqual({ event: "emboss", descriptor: { angle: -60, height: 12, amount: 100 } });
  });

  it("answers NOT_SUPPORTED for an emboss elevation and a motion blur longer than the DOM's 999 pixels, naming the field", async () => {
    const s = await session();
    const b = s.id("B");
    for (const [filter, field] of [
      [{ type: "emboss", elevation: 30 }, "filter.elevation"],
      [{ type: "motionBlur", distance: 1200 }, "filter.distance"],
    ] as const) {
      expect(await s.refused("filter:apply", { layerId: b, filter })).toMatchObject({ code: "NOT_SUPPORTED", details: { editor: "photoshop", capability: "filter:apply", field } });
    }
  });

  it("filters inside the selection, which stays, and refuses a locked layer or a group before anything changes", async () => {
    const s = await session();
    const b = s.id("B");
    await s.client.call("selection:set", { rect: { x: 110, y: 90, width: 30, height: 30 } });
    expect(await s.calls("filter:apply", { layerId: b, filter: { type: "gaussianBlur", radius: 3 } })).toEqual([`${b}.applyGaussianBlur(3)`]);
    expect(await s.client.call("selection:getArea")).toEqual({ x: 110, y: 90, width: 30, height: 30 });
    // An ActionManager filter leaves the selection as it was too.
    expect((await s.played("filter:apply", { layerId: b, filter: { type: "boxBlur", radius: 2 } })).event).toBe("boxblur");
    expect(await s.client.call("selection:getArea")).toEqual({ x: 110, y: 90, width: 30, height: 30 });
    await s.client.call("layer:update", { layerId: b, locked: true });
    expect(await s.refused("filter:apply", { layerId: b, filter: { type: "sharpen" } })).toMatchObject({ code: "BAD_REQUEST", details: { layerId: b, locked: true } });
    expect(await s.refused("layer:adjust", { layerId: s.id("Group G"), adjustment: { type: "invert" } })).toMatchObject({ code: "BAD_REQUEST", details: { kind: "group" } });
  });
});
