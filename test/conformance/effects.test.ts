import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPsd, type Layer } from "ag-psd";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { HostLayer } from "../../src/protocol/index.js";
import { itFor } from "./_editors.js";
import { EDIT_MATRIX, editSession, expectRefused, expectResult, exportComposite, flatten, paintedComposite, type EditSession } from "./_edits.js";

/** One of each effect, with settings away from the defaults. */
const EFFECTS = {
  dropShadow: { color: "#102030", opacity: 60, distance: 6, spread: 10, size: 4, useGlobalLight: false, angle: 45 },
  innerShadow: { color: "#400000", opacity: 50, distance: 3, choke: 20, size: 2 },
  outerGlow: { color: "#ffcc00", opacity: 80, size: 8, spread: 5, technique: "precise" },
  innerGlow: { color: "#00ffcc", opacity: 40, size: 3, source: "center", range: 60 },
  bevel: { style: "emboss", technique: "chiselHard", depth: 250, direction: "down", size: 6, altitude: 45, highlight: { color: "#fff0e0", opacity: 60 } },
  satin: { color: "#202020", opacity: 30, angle: 30, distance: 5, size: 7, invert: false },
  colorOverlay: { color: "#3060a0", opacity: 70, blendMode: "multiply" },
  gradientOverlay: { opacity: 50, stops: [{ location: 0, color: "#ff0000" }, { location: 100, color: "#0000ff" }], angle: 30, style: "radial" },
  stroke: { size: 2, position: "inside", color: "#00ff00", opacity: 90 },
} as const;

/** Which editors make layer effects: GIMP 2.10 has none. */
const MAKES_EFFECTS: Readonly<Record<"embedded" | "photoshop" | "gimp", boolean>> = { embedded: true, photoshop: true, gimp: false };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "bridge-effects-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Edited = HostLayer & { revision: number };

/**
 * Layer effects (`layer:setEffects`) on every present editor, over WebSocket and HTTP: set and cleared as one step
 * each and read back in `HostLayer.effects`, saved to PSD as Photoshop's layer style; or, where the editor's
 * `getServerInfo` does not list `layer:setEffects` among its edits, `NOT_SUPPORTED {editor, capability: "layer
 * effects"}` with nothing changed (GIMP 2.10, which has none; the embedded editor and Photoshop make them). Bad
 * settings are `BAD_REQUEST` naming the field on every editor.
 */
describe.each(EDIT_MATRIX)("layer effects over $label", ({ editor, transport: { make } }) => {
  const it = itFor(editor);
  let s: EditSession;
  let supported = false;

  const start = async (): Promise<HostLayer> => {
    s = await editSession(editor, make);
    const info = await (await s.harness.connect()).send("getServerInfo");
    const editors = (info.result as { editors?: Array<{ kind: string; edits?: Record<string, unknown> }> }).editors ?? [];
    supported = editors.find((e) => e.kind === editor.name)?.edits?.["layer:setEffects"] !== undefined;
    expect(supported, `${editor.name} lists layer:setEffects`).toBe(MAKES_EFFECTS[editor.name]);
    const shape = expectResult("layer:create", await s.call("layer:create", { name: "Shape", to: "top" })) as HostLayer;
    expectResult("selection:set", await s.call("selection:set", { rect: { x: 10, y: 10, width: 20, height: 12 } }));
    expectResult("layer:fill", await s.call("layer:fill", { layerId: shape.id, color: "#c04020" }));
    expectResult("selection:clear", await s.call("selection:clear"));
    return shape;
  };

  it("an editor without layer effects answers NOT_SUPPORTED naming the capability, and changes nothing", async () => {
    const shape = await start();
    if (supported) return;
    const { revision } = await s.current();
    const outcome = await s.call("layer:setEffects", { layerId: shape.id, effects: { dropShadow: {} } });
    await expectRefused(s, outcome, "NOT_SUPPORTED", revision!);
    expect(outcome.error?.details).toMatchObject({ editor: editor.name, capability: "layer effects" });
  });

  it("every effect is set in one step, read back with its settings, drawn, undone and cleared", async () => {
    const shape = await start();
    if (!supported) return;
    const before = await paintedComposite(s);
    const { revision } = await s.current();
    const made = expectResult("layer:setEffects", await s.call("layer:setEffects", { layerId: shape.id, effects: EFFECTS })) as Edited;
    expect(made.revision).toBe(revision! + 1);
    expect(made.effects).toMatchObject(EFFECTS);
    expect(Object.keys(made.effects ?? {}).sort()).toEqual(Object.keys(EFFECTS).sort());
    // Defaults filled in and read back: a drop shadow's blend mode, a glow's range.
    expect(made.effects?.["dropShadow"]).toMatchObject({ blendMode: "multiply", useGlobalLight: false, layerKnocksOut: true });
    expect(made.effects?.["outerGlow"]).toMatchObject({ blendMode: "screen", range: 50 });
    const after = await paintedComposite(s);
    if (editor.paints) {
      // The colour overlay and stroke change the shape; the shadow and glow reach outside it.
      expect(after.at(20, 15)).not.toEqual(before.at(20, 15));
      expect(after.at(33, 25)).not.toEqual(before.at(33, 25));
    }
    // Replaced whole: one effect left, the others gone.
    const one = expectResult("layer:setEffects", await s.call("layer:setEffects", { layerId: shape.id, effects: { colorOverlay: { color: "#00ff00" } } })) as Edited;
    expect(one.effects).toEqual({ colorOverlay: { color: "#00ff00", blendMode: "normal", opacity: 100 } });
    if (editor.paints) expect((await exportComposite(s)).at(20, 15)).toEqual([0, 255, 0, 255]);
    expectResult("history:undo", await s.call("history:undo"));
    expect(((await s.layer("Shape")) as HostLayer).effects).toMatchObject(EFFECTS);
    const cleared = expectResult("layer:setEffects", await s.call("layer:setEffects", { layerId: shape.id, effects: {} })) as Edited;
    expect(cleared.effects).toBeUndefined();
    if (editor.paints) expect((await exportComposite(s)).data.equals(before.data)).toBe(true);
  });

  it("the global light: effects using it read back its angle, and setting it moves them in the same step", async () => {
    const shape = await start();
    if (!supported) return;
    const lit = expectResult("layer:setEffects", await s.call("layer:setEffects", { layerId: shape.id, effects: { dropShadow: { distance: 5 } }, globalLight: { angle: 90 } })) as Edited;
    expect(lit.effects?.["dropShadow"]).toMatchObject({ useGlobalLight: true, angle: 90 });
    const other = expectResult("layer:create", await s.call("layer:create", { name: "Other", to: "top" })) as HostLayer;
    // An angle named with the global light sets it: the first layer's shadow moves too (an angle alone is the effect's own).
    expectResult("layer:setEffects", await s.call("layer:setEffects", { layerId: other.id, effects: { innerShadow: { angle: 30, useGlobalLight: true } } }));
    expect(((await s.layer("Shape")) as HostLayer).effects?.["dropShadow"]).toMatchObject({ useGlobalLight: true, angle: 30 });
    expectResult("history:undo", await s.call("history:undo"));
    expect(((await s.layer("Shape")) as HostLayer).effects?.["dropShadow"]).toMatchObject({ angle: 90 });
    const { revision } = await s.current();
    const clash = await s.call("layer:setEffects", { layerId: other.id, effects: { dropShadow: { angle: 10, useGlobalLight: true }, bevel: { angle: 20, useGlobalLight: true } } });
    await expectRefused(s, clash, "BAD_REQUEST", revision!);
    expect(clash.error?.details).toMatchObject({ field: "effects.bevel.angle" });
  });

  it("bad settings are BAD_REQUEST naming the field, and nothing changes", async () => {
    const shape = await start();
    const { revision } = await s.current();
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ dropShadow: { opacity: 150 } }, "opacity"],
      [{ dropShadow: { size: 300 } }, "size"],
      [{ innerGlow: { source: "middle" } }, "source"],
      [{ bevel: { depth: 0 } }, "depth"],
      [{ bevel: { altitude: 100 } }, "altitude"],
      [{ stroke: { size: 0 } }, "size"],
      [{ gradientOverlay: { stops: [{ location: 0, color: "red" }] } }, "stops"],
      [{ satin: { contour: [{ x: 0, y: 300 }, { x: 255, y: 0 }] } }, "contour"],
      [{ shimmer: {} }, "shimmer"],
    ];
    for (const [effects, field] of bad) {
      const outcome = await s.call("layer:setEffects", { layerId: shape.id, effects });
      await expectRefused(s, outcome, "BAD_REQUEST", revision!);
      expect(JSON.stringify(outcome.error), field).toContain(field);
    }
    if (!supported) return;
    const colour = await s.call("layer:setEffects", { layerId: shape.id, effects: { colorOverlay: { color: "mauve-ish" } } });
    await expectRefused(s, colour, "BAD_REQUEST", revision!);
    expect(colour.error?.details).toMatchObject({ "effects.colorOverlay.color": "mauve-ish" });
    const mode = await s.call("layer:setEffects", { layerId: shape.id, effects: { outerGlow: { blendMode: "sparkle" } } });
    await expectRefused(s, mode, "BAD_REQUEST", revision!);
    expect(mode.error?.details).toMatchObject({ field: "effects.outerGlow.blendMode" });
  });

  it("effects save to PSD as Photoshop's layer style, which ag-psd and the editor read back", async () => {
    const shape = await start();
    if (!supported || !editor.paints) return;
    expectResult("layer:setEffects", await s.call("layer:setEffects", { layerId: shape.id, effects: EFFECTS, globalLight: { angle: 75, altitude: 40 } }));
    const path = join(dir, `${editor.label.replace(" ×", "x")}-${Math.random().toString(36).slice(2)}.psd`);
    expectResult("document:save", await s.call("document:save", { savePath: path }));
    const psd = readPsd(await readFile(path), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
    expect(psd.imageResources).toMatchObject({ globalAngle: 75, globalAltitude: 40 });
    const all = (layers: readonly Layer[]): Layer[] => layers.flatMap((l) => [l, ...all(l.children ?? [])]);
    const saved = all(psd.children ?? []).find((l) => l.name === "Shape")!;
    expect(saved.effects?.dropShadow?.[0]).toMatchObject({ enabled: true, angle: 45, useGlobalLight: false, distance: { value: 6 }, size: { value: 4 }, choke: { value: 10 } });
    expect(saved.effects?.bevel).toMatchObject({ style: "emboss", technique: "chisel hard", direction: "down", strength: 2.5 });
    expect(saved.effects?.stroke?.[0]).toMatchObject({ position: "inside", fillType: "color", color: { r: 0, g: 255, b: 0 } });
    expectResult("document:open", await s.call("document:open", { path }));
    const reopened = flatten(expectResult("document:layers", await s.call("document:layers")) as HostLayer[]).find((l) => l.name === "Shape")!;
    expect(reopened.effects).toMatchObject(EFFECTS);
    expect(reopened.effects?.["innerShadow"]).toMatchObject({ useGlobalLight: true, angle: 75 });
  });

  it("effects Photoshop stacks take a list: each drawn, read back in order, saved as several, and past ten refused", async () => {
    const shape = await start();
    if (!supported) return;
    // Two hard shadows far apart, both of their own light: each lands on its own side of the shape.
    const shadows = [
      { color: "#ff0000", opacity: 100, blendMode: "normal", distance: 8, size: 0, useGlobalLight: false, angle: 0 },
      { color: "#0000ff", opacity: 100, blendMode: "normal", distance: 8, size: 0, useGlobalLight: false, angle: 180 },
    ];
    const strokes = [
      { size: 2, position: "outside", color: "#00ff00" },
      { size: 4, position: "outside", color: "#ffff00" },
    ];
    const made = expectResult("layer:setEffects", await s.call("layer:setEffects", { layerId: shape.id, effects: { dropShadow: shadows, stroke: strokes, colorOverlay: { color: "#ffffff" } } })) as Edited;
    expect(made.effects?.["dropShadow"]).toMatchObject(shadows);
    expect(made.effects?.["stroke"]).toMatchObject(strokes);
    // One of a kind still reads back as an object.
    expect(made.effects?.["colorOverlay"]).toMatchObject({ color: "#ffffff" });
    if (editor.paints) {
      // The shape covers x 10–29, y 10–21; the strokes reach 4 px out. A shadow falls away from its light: the red
      // one (lit from the right) to the left of the shape, the blue one to its right.
      const picture = await exportComposite(s);
      expect(picture.at(3, 15)).toEqual([255, 0, 0, 255]);
      expect(picture.at(36, 15)).toEqual([0, 0, 255, 255]);
      // The first stroke is drawn over the second: green next to the shape, yellow beyond it.
      expect(picture.at(30, 15)).toEqual([0, 255, 0, 255]);
      expect(picture.at(32, 15)).toEqual([255, 255, 0, 255]);
      const path = join(dir, `${editor.label.replace(" ×", "x")}-stacked-${Math.random().toString(36).slice(2)}.psd`);
      expectResult("document:save", await s.call("document:save", { savePath: path }));
      const psd = readPsd(await readFile(path), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
      const saved = (psd.children ?? []).find((l) => l.name === "Shape")!;
      expect(saved.effects?.dropShadow?.map((e) => e.color)).toEqual([
        { r: 255, g: 0, b: 0 },
        { r: 0, g: 0, b: 255 },
      ]);
      expect(saved.effects?.stroke?.map((e) => e.size?.value)).toEqual([2, 4]);
    }
    const { revision } = await s.current();
    const tooMany = await s.call("layer:setEffects", { layerId: shape.id, effects: { dropShadow: Array.from({ length: 11 }, () => ({})) } });
    await expectRefused(s, tooMany, "BAD_REQUEST", revision!);
    expect(JSON.stringify(tooMany.error)).toContain("dropShadow");
    const badColour = await s.call("layer:setEffects", { layerId: shape.id, effects: { stroke: [{ color: "red" }, { color: "mauve-ish" }] } });
    await expectRefused(s, badColour, "BAD_REQUEST", revision!);
    expect(badColour.error?.details).toMatchObject({ "effects.stroke.1.color": "mauve-ish" });
  });
});
