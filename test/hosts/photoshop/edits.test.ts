import { describe, expect, it } from "vitest";
import { EDIT_METHOD_SCHEMAS, type HostDocument, type HostLayer, type HostRect } from "../../../src/protocol/index.js";
import { PHOTOSHOP_EDIT_CAPABILITIES } from "../../../src/hosts/photoshop/edits.js";
import { buildScript } from "../../../src/hosts/photoshop/operations.js";
import { Revisions } from "../../../src/hosts/photoshop/revisions.js";
import { runExtendScript } from "../../fakes/photoshop/extendscript/run.js";
import { FakeModel } from "../../fakes/photoshop/model.js";
import type { FakePhotoshop } from "../../fakes/photoshop/server.js";
import type { TestClient } from "../../helpers/ws-client.js";
import { bridgeOn, startFake } from "./_setup.js";

/*
 * Every edit of the vocabulary on Photoshop, through the bridge and the fake Photoshop: each script runs as
 * ExtendScript against the DOM stub, whose rules cite the Photoshop JavaScript Reference (dom-edits.ts) and the
 * ActionManager events Photoshop records (action-edit.ts). Each case reads the tree back and checks what the script
 * asked Photoshop to do, and that it was one history state named after the method.
 *
 * The sample: Title (text, 20,10–300,50) · Group G [A (40,60–120,140, 80 %) · B (100,80–200,180)] · Background
 * (320×240, white); Title is active, nothing is selected.
 */

type Tree = { document: HostDocument; layers: HostLayer[] };

interface Session {
  fake: FakePhotoshop;
  client: TestClient;
  id(name: string): number;
  tree(): Promise<Tree>;
  layer(name: string): Promise<HostLayer>;
  /** Calls an edit method and checks that its script made exactly one history state, named after the method. */
  edit<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** The last edit script's run: its DOM changes and ActionManager events. */
  last(): FakePhotoshop["runs"][number];
  /** The error a call answers. */
  refused(method: string, params?: Record<string, unknown>): Promise<{ code: string; message: string; details?: Record<string, unknown> }>;
}

const flat = (layers: readonly HostLayer[]): HostLayer[] => layers.flatMap((l) => [l, ...flat(l.children ?? [])]);
const names = (layers: readonly HostLayer[]): unknown[] => layers.map((l) => (l.children ? [l.name, names(l.children)] : l.name));

async function session(limits: Parameters<typeof bridgeOn>[2] = {}): Promise<Session> {
  const fake = await startFake();
  const harness = await bridgeOn(fake, {}, limits);
  const client = await harness.connect();
  const ids = new Map(flat(fake.model.docs[0]!.layers as unknown as HostLayer[]).map((l) => [l.name, l.id]));
  const tree = async (): Promise<Tree> => ({ document: await client.call<HostDocument>("document:current"), layers: await client.call<HostLayer[]>("document:layers") });
  const s: Session = {
    fake,
    client,
    id: (name) => ids.get(name) ?? flat(fake.model.docs.find((d) => d.id === fake.model.activeDoc)!.layers as unknown as HostLayer[]).find((l) => l.name === name)!.id,
    tree,
    layer: async (name) => flat((await tree()).layers).find((l) => l.name === name)!,
    async edit(method, params) {
      const before = fake.runs.length;
      const result = await client.call(method, params);
      const runs = fake.runs.slice(before).filter((r) => r.op.startsWith("edit."));
      expect(runs, `${method} runs one edit script`).toHaveLength(1);
      expect(runs[0]!.history, `${method} is one history state`).toEqual(method === "document:duplicate" ? ["duplicate(Sample copy)"] : [method]);
      return result as never;
    },
    last: () => fake.runs.filter((r) => r.op.startsWith("edit.")).at(-1)!,
    async refused(method, params) {
      const frame = await client.send(method, params);
      expect(frame.ok, `${method} is refused`).toBe(false);
      return frame.error as never;
    },
  };
  return s;
}

describe("Photoshop edits: capabilities", () => {
  it("lists every edit of the vocabulary; selection:fromColor's color alone is NOT_SUPPORTED, naming the field", async () => {
    const s = await session();
    // layer:updateText is the text methods' (src/protocol/text.ts), layer:adjust and filter:apply the filters'
    // (src/protocol/adjustments.ts), layer:setEffects the effects' (src/protocol/effects.ts), beside the editing vocabulary.
    const vocabulary = Object.keys(EDIT_METHOD_SCHEMAS);
    expect(Object.keys(PHOTOSHOP_EDIT_CAPABILITIES).sort()).toEqual([...vocabulary, "layer:updateText", "layer:adjust", "filter:apply", "layer:setEffects"].sort());
    const error = await s.refused("selection:fromColor", { color: "#ffffff", tolerance: 0, sampleMerged: true });
    expect(error).toMatchObject({ code: "NOT_SUPPORTED", details: { editor: "photoshop", capability: "selection:fromColor", field: "color" } });
    expect(s.fake.runs.filter((r) => r.op.startsWith("edit."))).toEqual([]);
  });
});

describe("Photoshop edits: layers", () => {
  it("layer:create makes `Layer 1` above the active layer by default, a group where it is told, and fills the whole layer without losing the selection", async () => {
    const s = await session();
    const made = await s.edit<HostLayer & { revision: number }>("layer:create");
    expect(made).toMatchObject({ name: "Layer 1", kind: "pixel", revision: 1 });
    expect(s.last().calls).toEqual(["artLayers.add()", `${made.id}.name = "Layer 1"`, `${made.id}.move(${s.id("Title")}, PLACEBEFORE)`]);
    expect(names((await s.tree()).layers)).toEqual(["Layer 1", "Title", ["Group G", ["A", "B"]], "Background"]);

    const group = await s.edit<HostLayer>("layer:create", { kind: "group", name: "Icons", to: "bottom" });
    expect(group).toMatchObject({ kind: "group", children: [] });
    // The bottom of a document with a Background layer is just above it (Layer > Arrange > Send to Back).
    expect(names((await s.tree()).layers)).toEqual(["Layer 1", "Title", ["Group G", ["A", "B"]], ["Icons", []], "Background"]);
    await s.edit("layer:create", { name: "Inside", parent: group.id });
    expect(names((await s.tree()).layers).at(-2)).toEqual(["Icons", ["Inside"]]);

    await s.client.call("selection:set", { rect: { x: 10, y: 10, width: 20, height: 20 } });
    const filled = await s.edit<HostLayer>("layer:create", { name: "Wash", fillColor: "#ff000080", below: s.id("Title") });
    expect(filled.rect).toEqual({ x: 0, y: 0, width: 320, height: 240 });
    expect(s.last().calls).toEqual(expect.arrayContaining(["selection.selectAll()", "selection.fill(#ff0000, NORMAL, 50)", "selection.load()"]));
    expect(await s.client.call("selection:getArea")).toEqual({ x: 10, y: 10, width: 20, height: 20 });
  });

  it("layer:update changes only the fields given, locks last and unlocks first, and names blend modes as layer records do", async () => {
    const s = await session();
    const a = s.id("A");
    const updated = await s.edit<HostLayer>("layer:update", { layerId: a, name: "Alpha", visible: false, opacity: 40, blendMode: "color burn", fillOpacity: 60, locked: true });
    expect(updated).toMatchObject({ name: "Alpha", visible: false, opacity: 40, blendMode: "color burn", fillOpacity: 60, locked: true });
    expect(s.last().calls).toEqual([`${a}.name = "Alpha"`, `${a}.visible = false`, `${a}.opacity = 40`, `${a}.blendMode = COLORBURN`, `${a}.fillOpacity = 60`, `${a}.allLocked = true`]);
    // A locked layer takes the change asked for (unlocked first, locked again).
    await s.edit("layer:update", { layerId: a, opacity: 70 });
    expect(s.last().calls).toEqual([`${a}.allLocked = false`, `${a}.opacity = 70`, `${a}.allLocked = true`]);
    const unlocked = await s.edit<HostLayer>("layer:update", { layerId: a, locked: false });
    expect(unlocked).toMatchObject({ locked: false, opacity: 70, blendMode: "color burn", name: "Alpha" });
    expect((await s.layer("Group G")).blendMode).toBe("pass through");
    expect(await s.refused("layer:update", { layerId: s.id("Group G"), fillOpacity: 10 })).toMatchObject({ code: "BAD_REQUEST" });
  });

  it("layer:delete removes a layer (a group with its layers); an unknown layer is LAYER_NOT_FOUND and nothing changes", async () => {
    const s = await session();
    const before = await s.tree();
    expect(await s.refused("layer:delete", { layerId: 999 })).toMatchObject({ code: "LAYER_NOT_FOUND" });
    expect(await s.tree()).toEqual(before);
    const out = await s.edit("layer:delete", { layerId: s.id("Group G") });
    expect(out).toEqual({ documentId: before.document.id, layerId: s.id("Group G"), deleted: true, revision: 1 });
    expect(s.last().calls).toEqual([`${s.id("Group G")}.remove()`]);
    expect(names((await s.tree()).layers)).toEqual(["Title", "Background"]);
  });

  it("layer:duplicate copies a layer as `<name> copy` directly above it by default, or where it is told", async () => {
    const s = await session();
    const copy = await s.edit<HostLayer>("layer:duplicate", { layerId: s.id("A") });
    expect(copy).toMatchObject({ name: "A copy", rect: { x: 40, y: 60, width: 80, height: 80 } });
    expect(copy.id).not.toBe(s.id("A"));
    expect(names((await s.tree()).layers)).toEqual(["Title", ["Group G", ["A copy", "A", "B"]], "Background"]);
    const group = await s.edit<HostLayer>("layer:duplicate", { layerId: s.id("Group G"), name: "G2", to: "top" });
    expect(group.children!.map((l) => l.name)).toEqual(["A copy", "A", "B"]);
    expect(names((await s.tree()).layers)[0]).toEqual(["G2", ["A copy", "A", "B"]]);
  });

  it("layer:move places a layer above, below, into a group or at either end; a group cannot go inside itself", async () => {
    const s = await session();
    await s.edit("layer:move", { layerId: s.id("A"), to: "top" });
    expect(names((await s.tree()).layers)).toEqual(["A", "Title", ["Group G", ["B"]], "Background"]);
    await s.edit("layer:move", { layerId: s.id("Title"), below: s.id("B") });
    expect(names((await s.tree()).layers)).toEqual(["A", ["Group G", ["B", "Title"]], "Background"]);
    await s.edit("layer:move", { layerId: s.id("A"), parent: s.id("Group G") });
    expect(s.last().calls).toEqual([`${s.id("A")}.move(${s.id("B")}, PLACEBEFORE)`]);
    expect(names((await s.tree()).layers)).toEqual([["Group G", ["A", "B", "Title"]], "Background"]);
    await s.edit("layer:move", { layerId: s.id("Title"), to: "bottom" });
    expect(names((await s.tree()).layers)).toEqual([["Group G", ["A", "B"]], "Title", "Background"]);
    expect(await s.refused("layer:move", { layerId: s.id("Group G"), parent: s.id("Group G") })).toMatchObject({ code: "BAD_REQUEST" });
    expect(await s.refused("layer:move", { layerId: s.id("A"), below: s.id("Background") })).toMatchObject({ code: "BAD_REQUEST" });
  });

  it("layer:group puts layers into a new group where the top-most was, in order; layer:ungroup gives them back", async () => {
    const s = await session();
    const group = await s.edit<HostLayer>("layer:group", { ids: [s.id("B"), s.id("Title")] });
    expect(group).toMatchObject({ name: "Group 1", kind: "group" });
    expect(names((await s.tree()).layers)).toEqual([["Group 1", ["Title", "B"]], ["Group G", ["A"]], "Background"]);
    const out = await s.edit<{ layers: HostLayer[] }>("layer:ungroup", { layerId: group.id });
    expect(out.layers.map((l) => l.name)).toEqual(["Title", "B"]);
    expect(s.last().calls).toEqual([`${s.id("Title")}.move(${group.id}, PLACEBEFORE)`, `${s.id("B")}.move(${group.id}, PLACEBEFORE)`, `${group.id}.remove()`]);
    expect(names((await s.tree()).layers)).toEqual(["Title", "B", ["Group G", ["A"]], "Background"]);
    expect(await s.refused("layer:ungroup", { layerId: s.id("Title") })).toMatchObject({ code: "BAD_REQUEST" });
  });

  it("layer:merge merges layers into one named after the top-most (Merge Layers), or one layer down into the layer below it", async () => {
    const s = await session();
    const merged = await s.edit<HostLayer>("layer:merge", { ids: [s.id("B"), s.id("A")] });
    expect(merged).toMatchObject({ name: "A", kind: "pixel", rect: { x: 40, y: 60, width: 160, height: 120 } });
    expect(s.last().actions.map((a) => a.event)).toEqual(["select", "select", "mergeLayersNew"]);
    expect(s.last().actions[1]!.descriptor).toMatchObject({ selectionModifier: { _value: "addToSelection" }, makeVisible: false });
    expect(names((await s.tree()).layers)).toEqual(["Title", ["Group G", ["A"]], "Background"]);
    // Merge down: the layer below keeps its name.
    const down = await s.edit<HostLayer>("layer:merge", { layerId: s.id("Title") });
    expect(down.name).toBe("Group G");
    expect(names((await s.tree()).layers)).toEqual(["Group G", "Background"]);
  });

  it("layer:rasterize makes a text layer a pixel layer (RasterizeType.ENTIRELAYER); a pixel layer or a group is refused before any script", async () => {
    const s = await session();
    expect(await s.edit("layer:rasterize", { layerId: s.id("Title") })).toMatchObject({ kind: "pixel", name: "Title" });
    expect(s.last().calls).toEqual([`${s.id("Title")}.rasterize(ENTIRELAYER)`]);
    // Nothing to rasterize: the bridge refuses it as it does on every editor, and Photoshop is not asked.
    const ran = s.last();
    expect(await s.refused("layer:rasterize", { layerId: s.id("A") })).toMatchObject({ code: "BAD_REQUEST", details: { kind: "pixel" } });
    expect(s.last()).toBe(ran);
    expect(await s.refused("layer:rasterize", { layerId: s.id("Group G") })).toMatchObject({ code: "BAD_REQUEST" });
  });

  it("layer:fill paints the selection, or the whole layer when nothing is selected (opacity 100 and normal by default); a locked layer is refused", async () => {
    const s = await session();
    const [a, b] = [s.id("A"), s.id("B")];
    await s.client.call("selection:set", { rect: { x: 150, y: 150, width: 100, height: 60 } });
    const grown = await s.edit<HostLayer>("layer:fill", { layerId: a, color: "red", opacity: 50, blendMode: "multiply" });
    expect(s.last().calls).toEqual(["selection.fill(#ff0000, MULTIPLY, 50)"]);
    expect(grown.rect).toEqual({ x: 40, y: 60, width: 210, height: 150 });
    await s.client.call("selection:clear");
    const whole = await s.edit<HostLayer>("layer:fill", { layerId: b, color: "#00ff00" });
    expect(s.last().calls).toEqual(["selection.selectAll()", "selection.fill(#00ff00, NORMAL, 100)", "selection.deselect()"]);
    expect(s.last().actions[0]).toMatchObject({ event: "select", descriptor: { null: [{ _ref: "layer", _id: b }], makeVisible: false } });
    expect(whole.rect).toEqual({ x: 0, y: 0, width: 320, height: 240 });
    expect(await s.client.call("selection:getArea")).toBeNull();
    await s.edit("layer:update", { layerId: b, locked: true });
    const before = s.fake.runs.length;
    expect(await s.refused("layer:fill", { layerId: b, color: "red" })).toMatchObject({ code: "BAD_REQUEST", details: { locked: true } });
    expect(s.fake.runs.slice(before).flatMap((r) => r.calls)).toEqual([]);
  });

  it("layer:clear makes the selected pixels transparent (all of them with nothing selected); the Background layer is refused", async () => {
    const s = await session();
    await s.client.call("selection:set", { rect: { x: 0, y: 0, width: 320, height: 100 } });
    const cleared = await s.edit<HostLayer>("layer:clear", { layerId: s.id("A") });
    expect(s.last().calls).toEqual(["selection.clear()"]);
    expect(cleared.rect).toEqual({ x: 40, y: 100, width: 80, height: 40 });
    await s.client.call("selection:clear");
    expect((await s.edit<HostLayer>("layer:clear", { layerId: s.id("A") })).rect).toEqual({ x: 0, y: 0, width: 0, height: 0 });
    expect(await s.refused("layer:clear", { layerId: s.id("Background") })).toMatchObject({ code: "BAD_REQUEST" });
  });

  it("layer:transform is one Free Transform about the anchor: scale, turn, mirror, then move; defaults change nothing but the move", async () => {
    const s = await session();
    const a = s.id("A");
    const moved = await s.edit<HostLayer>("layer:transform", { layerId: a, dx: 10, dy: -5 });
    expect(moved.rect).toEqual({ x: 50, y: 55, width: 80, height: 80 });
    expect(s.last().actions.at(-1)).toEqual({
      event: "transform",
      descriptor: {
        null: [{ _ref: "layer", _enum: "ordinal", _value: "targetEnum" }],
        freeTransformCenterState: { _enum: "quadCenterState", _value: "QCSIndependent" },
        position: { _class: "paint", horizontal: { _unit: "pixelsUnit", _value: 80 }, vertical: { _unit: "pixelsUnit", _value: 100 } },
        offset: { _class: "offset", horizontal: { _unit: "pixelsUnit", _value: 10 }, vertical: { _unit: "pixelsUnit", _value: -5 } },
        width: { _unit: "percentUnit", _value: 100 },
        height: { _unit: "percentUnit", _value: 100 },
        angle: { _unit: "angleUnit", _value: 0 },
        interpolation: { _enum: "interpolationType", _value: "bicubic" },
      },
    });
    const scaled = await s.edit<HostLayer>("layer:transform", { layerId: a, scaleX: 50, scaleY: 25, anchor: "topLeft", resample: "nearest" });
    expect(scaled.rect).toEqual({ x: 50, y: 55, width: 40, height: 20 });
    const turned = await s.edit<HostLayer>("layer:transform", { layerId: a, angle: 90, anchor: { x: 50, y: 55 } });
    expect(turned.rect).toEqual({ x: 30, y: 55, width: 20, height: 40 });
    // Photoshop mirrors before it turns: one axis mirrored turns the other way round.
    await s.edit("layer:transform", { layerId: a, angle: 30, flip: "horizontal" });
    expect(s.last().actions.at(-1)!.descriptor).toMatchObject({ width: { _value: -100 }, height: { _value: 100 }, angle: { _value: -30 } });
    await s.edit("layer:transform", { layerId: a, angle: 30, flip: "both" });
    expect(s.last().actions.at(-1)!.descriptor).toMatchObject({ width: { _value: -100 }, height: { _value: -100 }, angle: { _value: 30 } });
    expect(await s.refused("layer:transform", { layerId: s.id("Background"), dx: 1 })).toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("Photoshop edits: masks", () => {
  it("layer:addMask reveals all by default, from the selection when there is one; updateMask, applyMask and deleteMask act on it", async () => {
    const s = await session();
    const a = s.id("A");
    const masked = await s.edit<HostLayer>("layer:addMask", { layerId: a });
    expect(masked.mask).toEqual({ enabled: true, linked: true, density: 100, feather: 0 });
    expect(s.last().actions.at(-1)).toEqual({
      event: "make",
      descriptor: { new: { _class: "channel" }, at: [{ _ref: "channel", _enum: "channel", _value: "mask" }], using: { _enum: "userMaskEnabled", _value: "revealAll" } },
    });
    expect(await s.refused("layer:addMask", { layerId: a })).toMatchObject({ code: "BAD_REQUEST" });

    const updated = await s.edit<HostLayer>("layer:updateMask", { layerId: a, density: 60, feather: 2.5 });
    expect(updated.mask).toEqual({ enabled: true, linked: true, density: 60, feather: 2.5 });
    expect(s.last().actions.at(-1)!.descriptor).toEqual({
      null: [{ _ref: "layer", _enum: "ordinal", _value: "targetEnum" }],
      to: { _class: "layer", userMaskDensity: { _unit: "percentUnit", _value: 60 }, userMaskFeather: { _unit: "pixelsUnit", _value: 2.5 } },
    });
    expect((await s.edit<HostLayer>("layer:updateMask", { layerId: a, enabled: false, linked: false })).mask).toEqual({ enabled: false, linked: false, density: 60, feather: 2.5 });

    const gone = await s.edit<HostLayer>("layer:deleteMask", { layerId: a });
    expect(gone.mask).toBeUndefined();
    expect(s.last().actions.at(-1)!.descriptor).toEqual({ null: [{ _ref: "channel", _enum: "channel", _value: "mask" }] });
    expect(await s.refused("layer:deleteMask", { layerId: a })).toMatchObject({ code: "BAD_REQUEST" });

    await s.client.call("selection:set", { rect: { x: 0, y: 0, width: 60, height: 320 } });
    const fromSelection = await s.edit<HostLayer>("layer:addMask", { layerId: a });
    expect(s.last().actions.at(-1)!.descriptor).toMatchObject({ using: { _value: "revealSelection" } });
    // The mask cuts the layer's bounds to what it reveals (bounds count the mask).
    expect(fromSelection.rect).toEqual({ x: 40, y: 60, width: 20, height: 80 });
    const applied = await s.edit<HostLayer>("layer:applyMask", { layerId: a });
    expect(s.last().actions.at(-1)!.descriptor).toEqual({ null: [{ _ref: "channel", _enum: "channel", _value: "mask" }], apply: true });
    expect(applied.mask).toBeUndefined();
    expect(applied.rect).toEqual({ x: 40, y: 60, width: 20, height: 80 });
    expect(await s.refused("layer:addMask", { layerId: s.id("Background"), from: "hideAll" })).toMatchObject({ code: "BAD_REQUEST" });
  });

  it("the layer tree reads locked, fillOpacity and the mask the same way through the ActionManager and the DOM walk", async () => {
    const s = await session();
    await s.edit("layer:addMask", { layerId: s.id("B"), from: "hideAll" });
    await s.edit("layer:update", { layerId: s.id("Title"), locked: true, fillOpacity: 30 });
    const read = (layerTree?: string) => JSON.parse(runExtendScript(s.fake.model, buildScript("document.tree", layerTree ? { layerTree } : {})).text);
    const am = read();
    expect(am.notes).toBeUndefined();
    expect(am).toEqual(read("dom"));
    expect(am.result.layers[0]).toMatchObject({ locked: true, fillOpacity: 30 });
    expect(am.result.layers[1].children[1]).toMatchObject({ mask: { enabled: true, linked: true, density: 100, feather: 0 }, rect: { width: 0, height: 0 } });
  });
});

describe("Photoshop edits: documents", () => {
  it("document:resize resamples every layer (bicubic by default) and keeps the resolution unless given", async () => {
    const s = await session();
    expect(await s.edit("document:resize", { percent: 50 })).toMatchObject({ width: 160, height: 120, resolution: 72, revision: 1 });
    expect(s.last().calls).toEqual(["resizeImage(160, 120, 72, BICUBIC)"]);
    expect((await s.layer("A")).rect).toEqual({ x: 20, y: 30, width: 40, height: 40 });
    await s.edit("document:resize", { width: 320, resolution: 300, resample: "nearest" });
    expect(s.last().calls).toEqual(["resizeImage(320, 240, 300, NEARESTNEIGHBOR)"]);
  });

  it("document:resizeCanvas anchors the image (centre by default); a Background layer fills the new canvas, and cannot be made transparent", async () => {
    const s = await session();
    const doc = await s.edit<HostDocument>("document:resizeCanvas", { width: 400, height: 300 });
    expect(doc).toMatchObject({ width: 400, height: 300 });
    expect(s.last().calls).toEqual(["resizeCanvas(400, 300, MIDDLECENTER)"]);
    expect((await s.layer("A")).rect).toEqual({ x: 80, y: 90, width: 80, height: 80 });
    expect((await s.layer("Background")).rect).toEqual({ x: 0, y: 0, width: 400, height: 300 });
    await s.edit("document:resizeCanvas", { width: 300, height: 300, anchor: "bottomRight", fillColor: "#000000" });
    // The height does not change: top and bottom are the same anchor then.
    expect(s.last().calls).toEqual(["resizeCanvas(300, 300, TOPRIGHT)"]);
    expect((await s.layer("A")).rect).toEqual({ x: -20, y: 90, width: 80, height: 80 });
    expect(await s.refused("document:resizeCanvas", { width: 500, height: 500, fillColor: "transparent" })).toMatchObject({ code: "BAD_REQUEST" });
  });

  it("document:crop crops to a rectangle, or to the selection by default", async () => {
    const s = await session();
    expect(await s.edit("document:crop", { rect: { x: 50, y: 70, width: 100, height: 100 } })).toMatchObject({ width: 100, height: 100 });
    expect(s.last().calls).toEqual(["crop([50, 70, 150, 170])"]);
    expect((await s.layer("A")).rect).toEqual({ x: 0, y: 0, width: 70, height: 70 });
    await s.client.call("selection:set", { rect: { x: 10, y: 20, width: 30, height: 40 } });
    expect(await s.edit("document:crop")).toMatchObject({ width: 30, height: 40 });
    expect(await s.client.call("selection:clear")).toBeDefined();
    expect(await s.refused("document:crop")).toMatchObject({ code: "BAD_REQUEST" });
  });

  it("document:rotate turns the canvas clockwise and document:flip mirrors it (both: twice, one state)", async () => {
    const s = await session();
    expect(await s.edit("document:rotate", { angle: 90 })).toMatchObject({ width: 240, height: 320 });
    expect(s.last().calls).toEqual(["rotateCanvas(90)"]);
    // A (40,60–120,140) turned clockwise about the centre of a 320×240 canvas, in the 240×320 one.
    expect((await s.layer("A")).rect).toEqual({ x: 100, y: 40, width: 80, height: 80 });
    await s.edit("document:rotate", { angle: -90 });
    expect(s.last().calls).toEqual(["rotateCanvas(270)"]);
    await s.edit("document:flip", { direction: "horizontal" });
    expect((await s.layer("A")).rect).toEqual({ x: 200, y: 60, width: 80, height: 80 });
    await s.edit("document:flip", { direction: "both" });
    expect(s.last().calls).toEqual(["flipCanvas(HORIZONTAL)", "flipCanvas(VERTICAL)"]);
    expect((await s.layer("A")).rect).toEqual({ x: 40, y: 100, width: 80, height: 80 });
  });

  it("document:duplicate copies the document as `<name> copy`, which becomes the active document", async () => {
    const s = await session();
    const source = (await s.tree()).document;
    const copy = await s.edit<HostDocument>("document:duplicate");
    expect(copy).toMatchObject({ name: "Sample copy", width: 320, height: 240 });
    expect(copy.id).not.toBe(source.id);
    expect((await s.client.call<HostDocument>("document:current")).id).toBe(copy.id);
    expect(names((await s.tree()).layers)).toEqual(["Title", ["Group G", ["A", "B"]], "Background"]);
    const listed = await s.client.call<HostDocument[]>("document:list");
    expect(listed.find((d) => d.id === source.id)!.revision).toBe(1);
    expect(listed.find((d) => d.id === copy.id)!.revision).toBe(0);
  });

  it("document:flatten leaves one Background layer; document:trim crops away transparent edges, and nothing when there are none", async () => {
    const s = await session();
    // A visible Background layer leaves nothing to trim: no change, so no history state either.
    await s.client.call("document:trim");
    expect([s.last().calls, s.last().history]).toEqual([[], []]);
    expect((await s.tree()).document).toMatchObject({ width: 320, height: 240 });
    await s.client.call("layer:update", { layerId: s.id("Background"), visible: false });
    expect(await s.edit("document:trim")).toMatchObject({ width: 280, height: 170 });
    expect(s.last().calls).toEqual(["trim(TRANSPARENT)"]);
    expect((await s.layer("Title")).rect).toEqual({ x: 0, y: 0, width: 280, height: 40 });
    await s.edit("document:flatten");
    expect(s.last().calls).toEqual(["flatten()"]);
    expect(names((await s.tree()).layers)).toEqual(["Background"]);
  });
});

describe("Photoshop edits: the bridge's maxDocumentPixels", () => {
  it("a canvas or a transformed layer past it is PAYLOAD_TOO_LARGE before any script runs, and the revision stays", async () => {
    const fake = await startFake();
    const client = await (await bridgeOn(fake, { limits: { maxDocumentPixels: 100_000 } })).connect();
    const a = fake.model.docs[0]!.layers[1]!.children![0]!.id;
    const refusals = [
      ["document:resize", { percent: 200 }],
      ["document:resizeCanvas", { width: 400, height: 300 }],
      ["document:rotate", { angle: 45 }],
      ["layer:transform", { layerId: a, scaleX: 500, scaleY: 500 }],
    ] as const;
    for (const [method, params] of refusals) {
      const frame = await client.send(method, params);
      expect(frame.error, method).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: "maxDocumentPixels", maxPixels: 100_000 } });
    }
    expect(fake.runs.filter((r) => r.op.startsWith("edit."))).toEqual([]);
    expect((await client.call<HostDocument>("document:current")).revision).toBe(0);
    // Within it, the same edit is made.
    expect(await client.call("layer:transform", { layerId: a, scaleX: 200, scaleY: 200 })).toMatchObject({ rect: { width: 160, height: 160 } });
  });
});

describe("Photoshop edits: selections", () => {
  const bounds = (out: unknown): HostRect | null => (out as { bounds: HostRect | null }).bounds;

  it("selection:all, clear and invert (of nothing: everything)", async () => {
    const s = await session();
    expect(bounds(await s.edit("selection:all"))).toEqual({ x: 0, y: 0, width: 320, height: 240 });
    expect(bounds(await s.edit("selection:clear"))).toBeNull();
    expect(bounds(await s.edit("selection:invert"))).toEqual({ x: 0, y: 0, width: 320, height: 240 });
    expect(s.last().calls).toEqual(["selection.selectAll()"]);
    await s.client.call("selection:set", { rect: { x: 0, y: 0, width: 100, height: 240 } });
    expect(bounds(await s.edit("selection:invert"))).toEqual({ x: 100, y: 0, width: 220, height: 240 });
    expect(s.last().calls).toEqual(["selection.invert()"]);
  });

  it("selection:modify expands and contracts (in steps of at most 500 px), feathers, smooths and selects a border", async () => {
    const s = await session();
    await s.client.call("selection:set", { rect: { x: 100, y: 100, width: 50, height: 50 } });
    expect(bounds(await s.edit("selection:modify", { expand: 10 }))).toEqual({ x: 90, y: 90, width: 70, height: 70 });
    expect(bounds(await s.edit("selection:modify", { contract: 20 }))).toEqual({ x: 110, y: 110, width: 30, height: 30 });
    // A feathered edge takes in the partly selected pixels around it.
    expect(bounds(await s.edit("selection:modify", { feather: 2.5 }))).toEqual({ x: 107, y: 107, width: 36, height: 36 });
    expect(s.last().calls).toEqual(["selection.feather(2.5)"]);
    await s.edit("selection:modify", { smooth: 3 });
    expect(s.last().calls).toEqual(["selection.smooth(3)"]);
    expect(bounds(await s.edit("selection:modify", { border: 8 }))).toEqual({ x: 103, y: 103, width: 44, height: 44 });
    expect(await s.refused("selection:modify", { border: 201 })).toMatchObject({ code: "BAD_REQUEST", details: { max: 200 } });
    expect(bounds(await s.edit("selection:modify", { expand: 700 }))).toEqual({ x: 0, y: 0, width: 320, height: 240 });
    expect(s.last().calls).toEqual(["selection.expand(500)", "selection.expand(200)"]);
    await s.client.call("selection:clear");
    expect(await s.refused("selection:modify", { expand: 1 })).toMatchObject({ code: "BAD_REQUEST" });
  });

  it("selection:fromLayer selects a layer's transparency (replace by default) or combines it with the selection", async () => {
    const s = await session();
    expect(bounds(await s.edit("selection:fromLayer", { layerId: s.id("A") }))).toEqual({ x: 40, y: 60, width: 80, height: 80 });
    expect(s.last().actions.at(-1)).toEqual({
      event: "set",
      descriptor: { null: [{ _ref: "channel", _property: "selection" }], to: [{ _ref: "channel", _enum: "channel", _value: "transparencyEnum" }, { _ref: "layer", _id: s.id("A") }] },
    });
    expect(bounds(await s.edit("selection:fromLayer", { layerId: s.id("B"), mode: "add" }))).toEqual({ x: 40, y: 60, width: 160, height: 120 });
    expect(s.last().actions.at(-1)).toMatchObject({ event: "add", descriptor: { to: [{ _property: "selection" }] } });
    expect(bounds(await s.edit("selection:fromLayer", { layerId: s.id("B"), mode: "intersect" }))).toEqual({ x: 100, y: 80, width: 100, height: 100 });
    expect(bounds(await s.edit("selection:fromLayer", { layerId: s.id("B"), mode: "subtract" }))).toBeNull();
    expect(s.last().actions.at(-1)).toMatchObject({ event: "subtract", descriptor: { from: [{ _property: "selection" }] } });
  });

  it("selection:fromColor is the magic wand at a point: contiguous on a layer by default, everywhere or on the whole image when asked", async () => {
    const s = await session();
    const wand = await s.edit("selection:fromColor", { point: { x: 60, y: 70 }, tolerance: 10, layerId: s.id("A") });
    expect(bounds(wand)).toEqual({ x: 40, y: 60, width: 80, height: 80 });
    expect(s.last().actions.at(-1)).toEqual({
      event: "set",
      descriptor: {
        null: [{ _ref: "channel", _property: "selection" }],
        to: { _class: "paint", horizontal: { _unit: "pixelsUnit", _value: 60 }, vertical: { _unit: "pixelsUnit", _value: 70 } },
        tolerance: 10,
        antiAlias: true,
        contiguous: true,
        merged: false,
      },
    });
    // On the composite, the white of the Background around the layers, connected to (5, 230).
    expect(bounds(await s.edit("selection:fromColor", { point: { x: 5, y: 230 }, tolerance: 0, sampleMerged: true }))).toEqual({ x: 0, y: 0, width: 320, height: 240 });
    expect(s.last().actions.at(-1)!.descriptor).toMatchObject({ merged: true, contiguous: true });
    expect(bounds(await s.edit("selection:fromColor", { point: { x: 150, y: 150 }, tolerance: 0, sampleMerged: true, contiguous: false, mode: "intersect" }))).toEqual({ x: 100, y: 80, width: 100, height: 100 });
    expect(s.last().actions.at(-1)!.event).toBe("intersectWith");
  });
});

describe("Photoshop edits: revisions, events and refusals", () => {
  it("each edit raises the document's revision by one and emits documentChanged {documentId, revision, method}; a stale ifRevision is CONFLICT and runs nothing", async () => {
    const s = await session();
    await s.client.call("event:subscribe", { type: "documentChanged" });
    const { document } = await s.tree();
    expect(document.revision).toBe(0);
    const event = s.client.next((f) => f.type === "documentChanged" && (f.data as { method?: string }).method === "layer:update");
    const out = await s.edit<{ revision: number }>("layer:update", { layerId: s.id("A"), name: "First", ifRevision: 0 });
    expect(out.revision).toBe(1);
    expect((await event).data).toEqual({ documentId: document.id, revision: 1, method: "layer:update" });
    const before = s.fake.runs.length;
    const conflict = await s.refused("layer:update", { layerId: s.id("A"), name: "Second", ifRevision: 0 });
    expect(conflict).toMatchObject({ code: "CONFLICT", details: { documentId: document.id, revision: 1, ifRevision: 0 } });
    expect(s.fake.runs.slice(before).filter((r) => r.op.startsWith("edit."))).toEqual([]);
    expect((await s.layer("First")).id).toBe(s.id("A"));
    // Selection edits count too.
    expect(await s.edit("selection:all", { ifRevision: 1 })).toMatchObject({ revision: 2 });
  });

  it("Photoshop's own change events raise the revision while they are subscribed; the echo of the bridge's own edit does not", async () => {
    // No echo window after an edit: the fake reports a script's change before its answer, while the edit runs.
    const s = await session({ editEchoMs: 0 });
    await s.client.call("event:subscribe", { type: "imageChanged" });
    await s.fake.waitForSubscription("imageChanged");
    const doc = s.fake.model.docs[0]!;
    const echoed = s.client.nth((f) => f.type === "imageChanged", 1);
    await s.edit("layer:update", { layerId: s.id("A"), visible: false });
    await echoed;
    expect((await s.tree()).document.revision).toBe(1);
    // Someone edits in Photoshop: a change the bridge did not make. A save (metaDataOnly) or another active layer
    // (selection) changes no content and does not count.
    const outside = s.client.nth((f) => f.type === "imageChanged", 4);
    s.fake.model.changed(doc, { metaDataOnly: true });
    s.fake.model.changed(doc, { selection: [0] });
    s.fake.model.changed(doc, { layers: [{ id: s.id("B"), index: 2 }] });
    await outside;
    expect((await s.tree()).document.revision).toBe(2);
  });

  it("a change Photoshop reports within editEchoMs of the bridge's own change is its echo; one after that counts", async () => {
    let now = 1_000;
    const revisions = new Revisions(500, () => now);
    const { revision } = await revisions.change(7, async () => {
      revisions.observed(7);
      return null;
    });
    expect(revision).toBe(1);
    now += 500 - 1;
    revisions.observed(7);
    expect(revisions.of(7)).toBe(1);
    now += 1;
    revisions.observed(7);
    revisions.observed(8);
    expect([revisions.of(7), revisions.of(8)]).toEqual([2, 1]);
    await expect(revisions.change(7, () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    expect(revisions.of(7)).toBe(2);
  });

  it("a failure inside the history state goes back to the state before it: nothing the edit did is left", () => {
    const model = FakeModel.withSample(() => {});
    const a = model.docs[0]!.layers[1]!.children![0]!;
    // Straight to the script: the method would refuse "pass through" on a pixel layer; Photoshop throws on it
    // after the name was already set.
    const edit = { op: "layer:update", layerId: a.id, name: "Renamed", blendMode: "pass through" };
    const out = JSON.parse(runExtendScript(model, buildScript("edit.layer", { documentId: model.docs[0]!.id, edit, history: "layer:update" })).text);
    expect(out).toMatchObject({ ok: false, error: { code: "JSX_FAILED", message: expect.stringMatching(/Illegal argument/) } });
    expect(model.docs[0]!.layers[1]!.children![0]).toMatchObject({ name: "A", id: a.id });
  });

  it("a script error inside the edit undoes what it did and changes nothing", async () => {
    const s = await session();
    const before = await s.tree();
    // Moving a layer below the Background layer fails inside Photoshop (checked in the script before it starts).
    expect(await s.refused("layer:create", { below: s.id("Background") })).toMatchObject({ code: "BAD_REQUEST" });
    expect(await s.tree()).toEqual(before);
  });
});
