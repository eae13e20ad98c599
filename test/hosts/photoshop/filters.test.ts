import { describe, expect, it } from "vitest";
import type { HostLayer } from "../../../src/protocol/index.js";
import { PHOTOSHOP_UNSUPPORTED_ADJUSTMENTS, PHOTOSHOP_UNSUPPORTED_FILTERS } from "../../../src/hosts/photoshop/edits.js";
import type { FakePhotoshop } from "../../fakes/photoshop/server.js";
import type { TestClient } from "../../helpers/ws-client.js";
import { editSessionOnFake } from "./_setup.js";

/*
 * layer:adjust and filter:apply on Photoshop, through the bridge and the fake Photoshop: `edit.filter` runs as
 * ExtendScript against the DOM stub, whose ArtLayer adjustments and filters check their arguments against the
 * Photoshop JavaScript Reference's ranges and record each call (dom-filters.ts). Each case checks the exact DOM
 * calls and arguments, and that the edit was one history state named after the method.
 *
 * The sample: Title (text) · Group G [A (40,60–120,140) · B (100,80–200,180)] · Background; Title is active.
 */

interface Session {
  fake: FakePhotoshop;
  client: TestClient;
  id(name: string): number;
  /** Calls the method and answers the DOM calls of its one edit script (one history state named after the method). */
  calls(method: "layer:adjust" | "filter:apply", params: Record<string, unknown>): Promise<string[]>;
  refused(method: string, params: Record<string, unknown>): Promise<{ code: string; message: string; details?: Record<string, unknown> }>;
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
  };
}

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

  it("answers NOT_SUPPORTED naming the type for the adjustments the DOM has no method for, and the settings it cannot take naming the field", async () => {
    const s = await session();
    const a = s.id("A");
    for (const type of PHOTOSHOP_UNSUPPORTED_ADJUSTMENTS) {
      expect(await s.refused("layer:adjust", { layerId: a, adjustment: { type } })).toMatchObject({ code: "NOT_SUPPORTED", details: { editor: "photoshop", capability: "layer:adjust", type } });
    }
    for (const [adjustment, field] of [
      [{ type: "brightnessContrast", brightness: 20, legacy: true }, "adjustment.legacy"],
      [{ type: "brightnessContrast", brightness: 120 }, "adjustment.brightness"],
      [{ type: "curves", rgb: Array.from({ length: 15 }, (_, i) => ({ input: i * 17, output: i * 17 })) }, "adjustment.rgb"],
    ] as const) {
      expect(await s.refused("layer:adjust", { layerId: a, adjustment })).toMatchObject({ code: "NOT_SUPPORTED", details: { editor: "photoshop", capability: "layer:adjust", field } });
    }
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

  it("answers NOT_SUPPORTED for box blur, pixelate and emboss, and for a motion blur longer than the DOM's 999 pixels", async () => {
    const s = await session();
    const b = s.id("B");
    for (const type of PHOTOSHOP_UNSUPPORTED_FILTERS) {
      expect(await s.refused("filter:apply", { layerId: b, filter: { type } })).toMatchObject({ code: "NOT_SUPPORTED", details: { editor: "photoshop", capability: "filter:apply", type } });
    }
    expect(await s.refused("filter:apply", { layerId: b, filter: { type: "motionBlur", distance: 1200 } })).toMatchObject({
      code: "NOT_SUPPORTED",
      details: { editor: "photoshop", capability: "filter:apply", field: "filter.distance" },
    });
  });

  it("filters inside the selection, which stays, and refuses a locked layer or a group before anything changes", async () => {
    const s = await session();
    const b = s.id("B");
    await s.client.call("selection:set", { rect: { x: 110, y: 90, width: 30, height: 30 } });
    expect(await s.calls("filter:apply", { layerId: b, filter: { type: "gaussianBlur", radius: 3 } })).toEqual([`${b}.applyGaussianBlur(3)`]);
    expect(await s.client.call("selection:getArea")).toEqual({ x: 110, y: 90, width: 30, height: 30 });
    await s.client.call("layer:update", { layerId: b, locked: true });
    expect(await s.refused("filter:apply", { layerId: b, filter: { type: "sharpen" } })).toMatchObject({ code: "BAD_REQUEST", details: { layerId: b, locked: true } });
    expect(await s.refused("layer:adjust", { layerId: s.id("Group G"), adjustment: { type: "invert" } })).toMatchObject({ code: "BAD_REQUEST", details: { kind: "group" } });
  });
});
