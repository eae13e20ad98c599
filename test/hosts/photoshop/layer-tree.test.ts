import { describe, expect, it } from "vitest";
import type { Logger } from "../../../src/logger.js";
import { readEnvelope } from "../../../src/hosts/photoshop/envelope.js";
import { noteLogger } from "../../../src/hosts/photoshop/_internal/notes.js";
import { buildScript, type Operation } from "../../../src/hosts/photoshop/operations.js";
import type { StubQuirks } from "../../fakes/photoshop/extendscript/action-get.js";
import { runExtendScript } from "../../fakes/photoshop/extendscript/run.js";
import { type FakeLayer, FakeModel } from "../../fakes/photoshop/model.js";

/**
 * A document with a text layer, a group holding a pixel layer, a hidden group (with a hidden layer in it) and an
 * empty group, a hidden top-level layer, and at the bottom a Background layer or a plain one. `extra` more pixel
 * layers go into the hidden group (to grow the nesting without touching the top level).
 */
function documentModel({ background, extra = 0 }: { background: boolean; extra?: number }): FakeModel {
  const model = new FakeModel(() => {});
  let at = 0;
  const layer = (name: string, kind: FakeLayer["kind"], visible = true): FakeLayer => {
    at += 7;
    return { id: model.newLayerId(), name, kind, visible, opacity: 60 + at, left: at, top: at, right: at + 40, bottom: at + 30, color: [at, 0, 0, 255] };
  };
  const group = (name: string, children: FakeLayer[], visible = true): FakeLayer => ({ ...layer(name, "group", visible), left: 0, top: 0, right: 0, bottom: 0, children });
  const inner = group("Inner", [layer("B", "pixel"), layer("C", "pixel", false), ...Array.from({ length: extra }, (_, i) => layer(`More ${i}`, "pixel"))], false);
  const outer = group("Outer", [layer("A", "pixel"), inner, group("Empty", [])]);
  const bottom = background ? { ...layer("Background", "background"), left: 0, top: 0, right: 320, bottom: 240 } : layer("Base", "pixel");
  const layers = [layer("Title", "text"), outer, layer("Hidden", "pixel", false), bottom];
  model.add({ name: "Tree", width: 320, height: 240, layers, active: [layers[0]!.id], selection: null, dirty: false });
  return model;
}

// biome-ignore lint/suspicious/noExplicitAny: an envelope is whatever the script answered
const envelope = (model: FakeModel, op: Operation, params: Record<string, unknown> = {}, quirks: StubQuirks = {}): any =>
  JSON.parse(runExtendScript(model, buildScript(op, params), new Map(), quirks).text);

/** The same call with the tree read through the DOM only. */
// biome-ignore lint/suspicious/noExplicitAny: an envelope is whatever the script answered
const throughDom = (model: FakeModel, op: Operation, params: Record<string, unknown> = {}): any => envelope(model, op, { ...params, layerTree: "dom" });

const ids = (model: FakeModel): number[] => {
  const out: number[] = [];
  const walk = (ls: FakeLayer[]): void => {
    for (const l of ls) {
      out.push(l.id);
      walk(l.children ?? []);
    }
  };
  walk(model.docs[0]!.layers);
  return out;
};

describe("the layer tree read through the ActionManager", () => {
  it.each([true, false])("equals the DOM walk, with nested, hidden and empty groups (Background layer: %s)", (background) => {
    const model = documentModel({ background });
    const read = envelope(model, "document.tree");
    expect(read.notes).toBeUndefined();
    expect(read).toEqual(throughDom(model, "document.tree"));
    // Generator indices: the bottom layer is 0 and the top-most takes the last slot (9 layers and 3 dividers).
    expect(read.result.layers.map((l: { index: number }) => l.index)).toEqual([11, 10, 1, 0]);
    expect(read.result.layers.at(-1).kind).toBe(background ? "background" : "pixel");
    // A whole-document pixmap asks for every slot of the stack.
    const [pixmap] = runExtendScript(model, buildScript("pixmap", { scale: 1, maxDimension: 100 })).pixmaps;
    expect(pixmap).toMatchObject({ firstLayer: 0, lastLayer: 11 });
  });

  it("answers every layer read the same way as the DOM walk: layer.get, layer.active, layer.select and the hidden layers of a pixmap", () => {
    const model = documentModel({ background: true });
    for (const id of ids(model)) {
      expect(envelope(model, "layer.get", { layerId: id })).toEqual(throughDom(model, "layer.get", { layerId: id }));
    }
    expect(envelope(model, "layer.select", { ids: ids(model).slice(1, 3) })).toEqual({ ok: true, result: null });
    expect(envelope(model, "layer.active")).toEqual(throughDom(model, "layer.active"));
    expect(envelope(model, "layer.active").result.layers).toHaveLength(2);
    const hidden = (params: Record<string, unknown>): number[] => runExtendScript(model, buildScript("pixmap", { scale: 1, maxDimension: 100, ...params })).pixmaps[0]!.hidden;
    expect(hidden({})).toEqual(hidden({ layerTree: "dom" }));
    // The hidden group (its own slot and the two layers in it) and the hidden top-level layer.
    expect(hidden({})).toHaveLength(4);
    expect(envelope(model, "layer.get", { layerId: 999 }).error).toMatchObject({ code: "LAYER_NOT_FOUND" });
  });

  it("names a fill layer `fill` and a fill drawn through a vector mask `shape`; the DOM walk, which cannot tell them apart, names both `shape`", () => {
    const model = new FakeModel(() => {});
    const layer = (name: string, kind: FakeLayer["kind"]): FakeLayer => ({ id: model.newLayerId(), name, kind, visible: true, opacity: 100, left: 0, top: 0, right: 320, bottom: 240, color: [0, 0, 255, 255] });
    // The fill layer is top-most and so one of the two layers the ActionManager read checks against the DOM.
    const layers = [layer("Fill", "fill"), layer("Shape", "shape"), layer("Background", "background")];
    model.add({ name: "Fills", width: 320, height: 240, layers, active: [layers[0]!.id], selection: null, dirty: false });
    const read = envelope(model, "document.tree");
    expect(read.notes).toBeUndefined();
    expect(read.result.layers.map((l: { kind: string }) => l.kind)).toEqual(["fill", "shape", "background"]);
    expect(throughDom(model, "document.tree").result.layers.map((l: { kind: string }) => l.kind)).toEqual(["shape", "shape", "background"]);
  });

  it("reads the DOM only for the top level it checks, however deep the document", () => {
    const reads = (extra: number, layerTree?: string): number =>
      runExtendScript(documentModel({ background: true, extra }), buildScript("document.tree", layerTree ? { layerTree } : {})).domLayerReads;
    expect(reads(20)).toBe(reads(0));
    expect(reads(20, "dom")).toBeGreaterThan(reads(0, "dom"));
    expect(reads(0)).toBeLessThan(reads(0, "dom"));
  });

  it.each<[string, StubQuirks, RegExp]>([
    ["numberOfLayers counts the Background layer", { countsBackground: true }, /it read 12 layers where numberOfLayers and hasBackgroundLayer say 13/],
    ["putIndex counts from the top", { indexFromTop: true }, /a group's end comes before its start/],
    ["layerKind means something else", { layerKind: 3 }, /top-level layer 3 reads .*"text".* where the DOM reads .*"background"/],
    ["layerKind answers a code the bridge does not know", { layerKind: 99 }, /layerKind 99/],
  ])("falls back to the DOM walk and says so in the envelope when %s", (_, quirks, reason) => {
    const model = documentModel({ background: true });
    const read = envelope(model, "document.tree", {}, quirks);
    expect(read.result).toEqual(throughDom(model, "document.tree").result);
    expect(read.notes).toHaveLength(1);
    expect(read.notes[0]).toMatch(/^layer tree read through the DOM: the ActionManager read was not trusted: /);
    expect(read.notes[0]).toMatch(reason);
  });

  it("reads a nested layer whose ActionManager read fails through the DOM, and says so", () => {
    const model = documentModel({ background: false });
    const a = model.docs[0]!.layers[1]!.children![0]!;
    const read = envelope(model, "document.tree", {}, { unreadable: [a.id] });
    expect(read.result).toEqual(throughDom(model, "document.tree").result);
    expect(read.notes).toEqual([expect.stringMatching(new RegExp(`^layer ${a.id} read through the DOM: the ActionManager read failed`))]);
  });

  it("the bridge logs a script's note once as a warning, then at debug level", () => {
    const lines: Array<[string, unknown]> = [];
    const log = { warn: (o: unknown) => lines.push(["warn", o]), debug: (o: unknown) => lines.push(["debug", o]) } as unknown as Logger;
    const onNotes = noteLogger(log);
    const text = JSON.stringify({ ok: true, result: 1, notes: ["layer tree read through the DOM: because", 7] });
    expect(readEnvelope(text, "document.tree", onNotes)).toBe(1);
    expect(readEnvelope(text, "document.tree", onNotes)).toBe(1);
    expect(lines).toEqual([
      ["warn", expect.objectContaining({ operation: "document.tree", note: "layer tree read through the DOM: because" })],
      ["debug", expect.objectContaining({ note: "layer tree read through the DOM: because" })],
    ]);
  });
});
