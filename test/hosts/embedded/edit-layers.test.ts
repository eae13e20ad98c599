/**
 * The embedded editor's layer and mask edits, called on the editor directly: the exact pixels fills, clears,
 * merges and masks make, what locked layers refuse (with nothing changed), ids never reused, and a PSD saved after
 * the edits read back by ag-psd and by the editor with the same layers, groups, masks, modes and locks.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPsd, writePsdBuffer } from "ag-psd";
import type { Layer } from "ag-psd";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EditOp } from "../../../src/hosts/edits.js";
import { ensureCanvasFactory } from "../../../src/hosts/embedded/psd.js";
import type { HostAdapter, Rgba } from "../../../src/hosts/host.js";
import type { HostLayer } from "../../../src/protocol/index.js";
import { connectedHost, ctx, exportDocument, exportLayer, failureOf, layersOf, pixelAt, rawPixels, SAMPLE } from "./helpers.js";

const RED: Rgba = [255, 0, 0, 255];
const TRANSPARENT: Rgba = [0, 0, 0, 0];

let host: HostAdapter;
let dir: string;

beforeEach(async () => {
  host = await connectedHost();
  dir = await mkdtemp(join(tmpdir(), "edit-layers-"));
});
afterEach(async () => {
  await host.close();
  await rm(dir, { recursive: true, force: true });
});

async function edit(edit: EditOp, documentId?: number): Promise<{ revision: number; layerId?: number | undefined }> {
  const id = documentId ?? (await host.getDocument(ctx(), undefined)).id;
  return host.edit!(ctx(), { documentId: id, edit });
}

const layer = async (id: number, documentId?: number): Promise<HostLayer> => {
  const found = (await layersOf(host, documentId)).find((l) => l.id === id);
  if (found === undefined) throw new Error(`no layer ${id}`);
  return found;
};

/** A new transparent document of `width × height`, active. */
async function blank(width: number, height: number): Promise<number> {
  return (await host.createDocument!(ctx(), { width, height, name: "Blank", background: TRANSPARENT })).id;
}

const revision = async (): Promise<number> => (await host.getDocument(ctx(), undefined)).revision ?? 0;

describe("stack edits", () => {
  it("creates transparent, filled and group layers under fresh ids that are never given again", async () => {
    const before = await revision();
    const made = await edit({ op: "layer:create", kind: "pixel", name: "Empty", place: { above: SAMPLE.label } });
    expect(made.revision).toBe(before + 1);
    const empty = await layer(made.layerId!);
    expect(empty).toMatchObject({ name: "Empty", kind: "pixel", opacity: 100, blendMode: "normal", locked: false, fillOpacity: 100, rect: { width: 0, height: 0 } });
    expect((await host.getDocument(ctx(), undefined)).activeLayerIds).toEqual([made.layerId]);
    const filled = await edit({ op: "layer:create", kind: "pixel", name: "Red", fillColor: [255, 0, 0, 128], place: { to: "bottom" } }).catch((e: unknown) => e);
    // Nothing goes below the background layer.
    expect(filled).toMatchObject({ code: "BAD_REQUEST", details: { layerId: SAMPLE.background } });
    const red = await edit({ op: "layer:create", kind: "pixel", name: "Red", fillColor: [255, 0, 0, 128], place: { above: SAMPLE.background } });
    expect((await layer(red.layerId!)).rect).toEqual({ x: 0, y: 0, width: 800, height: 600 });
    const group = await edit({ op: "layer:create", kind: "group", name: "G", place: { parent: SAMPLE.product } });
    expect(await layer(group.layerId!)).toMatchObject({ kind: "group", blendMode: "pass through", children: [] });
    await edit({ op: "layer:delete", layerId: group.layerId! });
    const again = await edit({ op: "layer:create", kind: "group", name: "G2", place: { to: "top" } });
    expect(again.layerId).toBeGreaterThan(group.layerId!);
    expect(await failureOf(edit({ op: "layer:update", layerId: group.layerId!, name: "x" }))).toMatchObject({ code: "LAYER_NOT_FOUND" });
  });

  it("updates name, visibility, opacity as a byte, blend mode, lock and fill opacity", async () => {
    await edit({ op: "layer:update", layerId: SAMPLE.subject, name: "Ball", visible: false, opacity: 40, blendMode: "multiply", locked: true, fillOpacity: 25 });
    expect(await layer(SAMPLE.subject)).toMatchObject({ name: "Ball", visible: false, opacity: 40, blendMode: "multiply", locked: true, fillOpacity: 25.1 });
    // Fields left out stay as they are.
    await edit({ op: "layer:update", layerId: SAMPLE.subject, locked: false });
    expect(await layer(SAMPLE.subject)).toMatchObject({ name: "Ball", visible: false, opacity: 40, locked: false });
    expect(await failureOf(edit({ op: "layer:update", layerId: SAMPLE.subject, blendMode: "pass through" }))).toMatchObject({ code: "BAD_REQUEST" });
  });

  it("deletes a layer, keeping the active layers valid, and refuses the document's last layer", async () => {
    await edit({ op: "layer:delete", layerId: SAMPLE.subject });
    const doc = await host.getDocument(ctx(), undefined);
    expect(doc.activeLayerIds).toEqual([SAMPLE.shadow]);
    const id = await blank(4, 4);
    const only = (await layersOf(host, id))[0]!;
    const before = await revision();
    expect(await failureOf(edit({ op: "layer:delete", layerId: only.id }, id))).toMatchObject({ code: "BAD_REQUEST" });
    expect(await revision()).toBe(before);
  });

  it("duplicates a group deeply under new ids, sharing nothing the original can change", async () => {
    const copy = await edit({ op: "layer:duplicate", layerId: SAMPLE.product, name: "Product copy", place: { above: SAMPLE.product } });
    const made = await layer(copy.layerId!);
    const original = await layer(SAMPLE.product);
    expect(made.children!.map((c) => c.name)).toEqual(original.children!.map((c) => c.name));
    const ids = [made.id, ...made.children!.map((c) => c.id)];
    expect(Math.min(...ids)).toBeGreaterThan(SAMPLE.label);
    expect(made.children!.map((c) => c.rect)).toEqual(original.children!.map((c) => c.rect));
    // Filling the copy leaves the original's pixels alone.
    const before = await rawPixels((await exportLayer(host, SAMPLE.subject)).bytes);
    await edit({ op: "layer:fill", layerId: made.children![0]!.id, color: RED, opacity: 100, blendMode: "normal" });
    expect(await rawPixels((await exportLayer(host, SAMPLE.subject)).bytes)).toEqual(before);
    expect((await host.getDocument(ctx(), undefined)).activeLayerIds).toEqual([copy.layerId]);
  });

  it("moves a layer, and refuses a group into its own child with nothing changed", async () => {
    await edit({ op: "layer:move", layerId: SAMPLE.label, place: { parent: SAMPLE.product } });
    expect((await layer(SAMPLE.product)).children!.map((c) => c.id)).toEqual([SAMPLE.label, SAMPLE.subject, SAMPLE.shadow]);
    const inner = await edit({ op: "layer:create", kind: "group", name: "Inner", place: { parent: SAMPLE.product } });
    const before = await revision();
    const tree = JSON.stringify(await layersOf(host));
    expect(await failureOf(edit({ op: "layer:move", layerId: SAMPLE.product, place: { parent: inner.layerId! } }))).toMatchObject({ code: "BAD_REQUEST" });
    expect(JSON.stringify(await layersOf(host))).toBe(tree);
    expect(await revision()).toBe(before);
  });

  it("groups layers where the top-most was and ungroups them in order", async () => {
    const group = await edit({ op: "layer:group", layerIds: [SAMPLE.label, SAMPLE.subject], name: "Both" });
    const top = (await host.getDocumentTree(ctx(), undefined)).layers;
    expect(top.map((l) => l.id)).toEqual([group.layerId, SAMPLE.product, SAMPLE.background]);
    expect(top[0]!.children!.map((c) => c.id)).toEqual([SAMPLE.label, SAMPLE.subject]);
    await edit({ op: "layer:ungroup", layerId: group.layerId! });
    expect((await host.getDocumentTree(ctx(), undefined)).layers.map((l) => l.id)).toEqual([SAMPLE.label, SAMPLE.subject, SAMPLE.product, SAMPLE.background]);
    expect((await host.getDocument(ctx(), undefined)).activeLayerIds).toEqual([SAMPLE.label, SAMPLE.subject]);
  });
});

describe("pixel edits", () => {
  it("fills the selection with an opacity and a blend mode, soft edges partly", async () => {
    const id = await blank(10, 10);
    const made = await edit({ op: "layer:create", kind: "pixel", name: "Paint", place: { to: "top" } }, id);
    await host.setSelection!(ctx(), { documentId: id, shape: { kind: "rect", rect: { x: 2, y: 2, width: 3, height: 3 } } });
    await edit({ op: "layer:fill", layerId: made.layerId!, color: RED, opacity: 50, blendMode: "normal" }, id);
    expect((await layer(made.layerId!, id)).rect).toEqual({ x: 2, y: 2, width: 3, height: 3 });
    const image = await rawPixels((await exportDocument(host, { documentId: id })).bytes);
    expect(pixelAt(image, 3, 3)).toEqual([255, 0, 0, 128]);
    expect(pixelAt(image, 1, 1)).toEqual([0, 0, 0, 0]);
    // Multiply over grey: 128 · 200 / 255.
    await host.setSelection!(ctx(), { documentId: id, shape: null });
    await edit({ op: "layer:fill", layerId: made.layerId!, color: [200, 200, 200, 255], opacity: 100, blendMode: "normal" }, id);
    await edit({ op: "layer:fill", layerId: made.layerId!, color: [128, 64, 255, 255], opacity: 100, blendMode: "multiply" }, id);
    const multiplied = await rawPixels((await exportDocument(host, { documentId: id })).bytes);
    expect(pixelAt(multiplied, 0, 0)).toEqual([100, 50, 200, 255]);
  });

  it("clears the selection to transparency, turning a cleared background into a pixel layer", async () => {
    const doc = await host.getDocument(ctx(), undefined);
    await host.setSelection!(ctx(), { documentId: doc.id, shape: { kind: "rect", rect: { x: 0, y: 0, width: 10, height: 10 } } });
    await edit({ op: "layer:clear", layerId: SAMPLE.background });
    const background = await layer(SAMPLE.background);
    expect(background.kind).toBe("pixel");
    const image = await rawPixels((await exportLayer(host, SAMPLE.background)).bytes);
    expect(pixelAt(image, 5, 5)[3]).toBe(0);
    expect(pixelAt(image, 20, 20)).toEqual([238, 238, 238, 255]);
  });

  it("merges layers into one normal layer that renders as they did", async () => {
    const before = await rawPixels((await exportDocument(host)).bytes);
    const merged = await edit({ op: "layer:merge", layerIds: [SAMPLE.label, SAMPLE.product], name: "Label" });
    const tree = (await host.getDocumentTree(ctx(), undefined)).layers;
    expect(tree.map((l) => l.id)).toEqual([merged.layerId, SAMPLE.background]);
    expect(tree[0]).toMatchObject({ name: "Label", kind: "pixel", opacity: 100, blendMode: "normal" });
    const after = await rawPixels((await exportDocument(host)).bytes);
    let worst = 0;
    for (let i = 0; i < before.data.length; i++) worst = Math.max(worst, Math.abs(before.data[i]! - after.data[i]!));
    expect(worst).toBeLessThanOrEqual(1);
    expect(await failureOf(edit({ op: "layer:update", layerId: SAMPLE.label, name: "x" }))).toMatchObject({ code: "LAYER_NOT_FOUND" });
    expect((await host.getDocument(ctx(), undefined)).activeLayerIds).toEqual([merged.layerId]);
  });
});

describe("mask edits", () => {
  it("adds a mask from the selection, changes it, applies it exactly and deletes one", async () => {
    const id = await blank(8, 8);
    const made = await edit({ op: "layer:create", kind: "pixel", name: "Paint", fillColor: RED, place: { to: "top" } }, id);
    const layerId = made.layerId!;
    await host.setSelection!(ctx(), { documentId: id, shape: { kind: "rect", rect: { x: 0, y: 0, width: 4, height: 8 } } });
    await edit({ op: "layer:addMask", layerId, from: "selection" }, id);
    expect((await layer(layerId, id)).mask).toEqual({ enabled: true, linked: true, density: 100, feather: 0 });
    expect(await failureOf(edit({ op: "layer:addMask", layerId, from: "revealAll" }, id))).toMatchObject({ code: "BAD_REQUEST", details: { mask: true } });
    let image = await rawPixels((await exportDocument(host, { documentId: id })).bytes);
    expect(pixelAt(image, 1, 1)).toEqual([255, 0, 0, 255]);
    expect(pixelAt(image, 6, 1)[3]).toBe(0);
    // Density 60: black hides 60 %, so 40 % of the layer shows there.
    await edit({ op: "layer:updateMask", layerId, density: 60, linked: false }, id);
    expect((await layer(layerId, id)).mask).toEqual({ enabled: true, linked: false, density: 60, feather: 0 });
    image = await rawPixels((await exportDocument(host, { documentId: id })).bytes);
    expect(pixelAt(image, 6, 1)[3]).toBe(Math.round(255 - 153));
    await edit({ op: "layer:updateMask", layerId, enabled: false }, id);
    image = await rawPixels((await exportDocument(host, { documentId: id })).bytes);
    expect(pixelAt(image, 6, 1)[3]).toBe(255);
    await edit({ op: "layer:applyMask", layerId }, id);
    const applied = await layer(layerId, id);
    expect(applied.mask).toBeUndefined();
    image = await rawPixels((await exportDocument(host, { documentId: id })).bytes);
    expect(pixelAt(image, 1, 1)).toEqual([255, 0, 0, 255]);
    expect(pixelAt(image, 6, 1)).toEqual([255, 0, 0, 102]);
    await edit({ op: "layer:addMask", layerId, from: "hideAll" }, id);
    image = await rawPixels((await exportDocument(host, { documentId: id })).bytes);
    expect(pixelAt(image, 1, 1)[3]).toBe(0);
    await edit({ op: "layer:deleteMask", layerId }, id);
    expect((await layer(layerId, id)).mask).toBeUndefined();
    expect(await failureOf(edit({ op: "layer:deleteMask", layerId }, id))).toMatchObject({ code: "BAD_REQUEST", details: { mask: false } });
  });
});

describe("locked layers", () => {
  it("refuse pixel, mask, position and blending edits with nothing changed, and allow the rest", async () => {
    await edit({ op: "layer:update", layerId: SAMPLE.subject, locked: true });
    const before = await revision();
    const refused: EditOp[] = [
      { op: "layer:fill", layerId: SAMPLE.subject, color: RED, opacity: 100, blendMode: "normal" },
      { op: "layer:clear", layerId: SAMPLE.subject },
      { op: "layer:move", layerId: SAMPLE.subject, place: { to: "top" } },
      { op: "layer:merge", layerIds: [SAMPLE.subject, SAMPLE.shadow], name: "M" },
      { op: "layer:addMask", layerId: SAMPLE.subject, from: "hideAll" },
      { op: "layer:update", layerId: SAMPLE.subject, opacity: 10 },
      { op: "layer:group", layerIds: [SAMPLE.subject], name: "G" },
    ];
    for (const op of refused) {
      expect(await failureOf(edit(op)), op.op).toMatchObject({ code: "BAD_REQUEST", details: { layerId: SAMPLE.subject, locked: true } });
    }
    // A layer inside a locked group is locked by it.
    await edit({ op: "layer:update", layerId: SAMPLE.subject, locked: false });
    await edit({ op: "layer:update", layerId: SAMPLE.product, locked: true });
    expect(await failureOf(edit(refused[0]!))).toMatchObject({ code: "BAD_REQUEST", details: { layerId: SAMPLE.product, locked: true } });
    expect(await revision()).toBe(before + 2);
    await edit({ op: "layer:update", layerId: SAMPLE.product, name: "Still renamable", visible: false });
    const copy = await edit({ op: "layer:duplicate", layerId: SAMPLE.product, name: "Copy", place: { to: "top" } });
    expect((await layer(copy.layerId!)).locked).toBe(true);
    await edit({ op: "layer:delete", layerId: SAMPLE.product });
  });
});

describe("rasterize", () => {
  it("draws a fill layer into pixels and drops its content from the saved file", async () => {
    ensureCanvasFactory();
    const fillLayer: Layer = { name: "Fill", vectorFill: { type: "color", color: { r: 0, g: 0, b: 255 } } };
    const base: Layer = { name: "Base", left: 0, top: 0, imageData: { width: 6, height: 4, data: new Uint8ClampedArray(6 * 4 * 4).fill(255) } };
    const source = join(dir, "fill.psd");
    await writeFile(source, writePsdBuffer({ width: 6, height: 4, children: [base, fillLayer] }));
    const doc = await host.openDocument!(ctx(), source);
    const fill = (await layersOf(host, doc.id)).find((l) => l.name === "Fill")!;
    expect(fill.kind).toBe("fill");
    await edit({ op: "layer:rasterize", layerId: fill.id }, doc.id);
    expect(await layer(fill.id, doc.id)).toMatchObject({ kind: "pixel", rect: { x: 0, y: 0, width: 6, height: 4 } });
    const image = await rawPixels((await exportLayer(host, fill.id, doc.id)).bytes);
    expect(pixelAt(image, 2, 2)).toEqual([0, 0, 255, 255]);
    expect(await failureOf(edit({ op: "layer:rasterize", layerId: fill.id }, doc.id))).toMatchObject({ code: "BAD_REQUEST" });
    const target = join(dir, "rasterized.psd");
    await host.saveDocument!(ctx(), { documentId: doc.id, path: target, backup: false });
    const read = readPsd(await readFile(target), { useImageData: true });
    const saved = read.children!.find((l) => l.name === "Fill")!;
    expect(saved.vectorFill).toBeUndefined();
    expect(saved.imageData?.width).toBe(6);
  });
});

describe("saving after edits", () => {
  it("writes a PSD that ag-psd and the editor read back with the same layers, groups, masks, modes and locks", async () => {
    ensureCanvasFactory();
    // A file with a fill opacity, a lock and a mask of its own, so stale records would show.
    const pixels = (color: number): Layer["imageData"] => ({ width: 8, height: 8, data: new Uint8ClampedArray(8 * 8 * 4).map((_, i) => (i % 4 === 3 ? 255 : color)) });
    const source = join(dir, "source.psd");
    const a: Layer = { name: "A", left: 0, top: 0, imageData: pixels(200), fillOpacity: 0.5, protected: { transparency: true, composite: true, position: true } };
    const b: Layer = { name: "B", left: 0, top: 0, imageData: pixels(100), mask: { left: 0, top: 0, right: 4, bottom: 4, defaultColor: 0, imageData: pixels(255) } };
    await writeFile(source, writePsdBuffer({ width: 8, height: 8, children: [b, a] }));
    const doc = await host.openDocument!(ctx(), source);
    const [la, lb] = await layersOf(host, doc.id);
    expect(la).toMatchObject({ name: "A", locked: true, fillOpacity: 49.8 });
    expect(lb!.mask).toEqual({ enabled: true, linked: true, density: 100, feather: 0 });
    await edit({ op: "layer:update", layerId: la!.id, locked: false, fillOpacity: 100, blendMode: "screen" }, doc.id);
    await edit({ op: "layer:deleteMask", layerId: lb!.id }, doc.id);
    const copy = await edit({ op: "layer:duplicate", layerId: la!.id, name: "A copy", place: { to: "top" } }, doc.id);
    const group = await edit({ op: "layer:group", layerIds: [copy.layerId!, la!.id], name: "G" }, doc.id);
    await edit({ op: "layer:update", layerId: copy.layerId!, locked: true, opacity: 50 }, doc.id);
    await edit({ op: "layer:update", layerId: group.layerId!, blendMode: "multiply" }, doc.id);
    await edit({ op: "layer:addMask", layerId: group.layerId!, from: "hideAll" }, doc.id);
    await edit({ op: "layer:updateMask", layerId: group.layerId!, density: 40, feather: 3 }, doc.id);
    const expected = await host.getDocumentTree(ctx(), doc.id);
    const target = join(dir, "saved.psd");
    await host.saveDocument!(ctx(), { documentId: doc.id, path: target, backup: false });

    const read = readPsd(await readFile(target), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
    const [savedB, savedGroup] = read.children!;
    expect(savedB).toMatchObject({ name: "B" });
    expect(savedB!.mask).toBeUndefined();
    expect(savedGroup).toMatchObject({ name: "G", blendMode: "multiply" });
    expect(savedGroup!.mask).toMatchObject({ defaultColor: 0, userMaskDensity: expect.closeTo(102 / 255, 3), userMaskFeather: 3 });
    const [savedA, savedCopy] = savedGroup!.children!;
    expect(savedA).toMatchObject({ name: "A", blendMode: "screen", protected: { composite: false, position: false } });
    expect(savedA!.fillOpacity ?? 1).toBe(1);
    expect(savedCopy).toMatchObject({ name: "A copy", protected: { composite: true, position: true } });
    expect(savedCopy!.id).toBe(copy.layerId);

    const reopened = await host.openDocument!(ctx(), target);
    const strip = (layers: readonly HostLayer[]): unknown => layers.map(({ id: _id, index: _index, children, ...rest }) => ({ ...rest, ...(children ? { children: strip(children) } : {}) }));
    expect(strip((await host.getDocumentTree(ctx(), reopened.id)).layers)).toEqual(strip(expected.layers));
  });
});
