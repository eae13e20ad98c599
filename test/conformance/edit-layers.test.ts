/**
 * The layer and mask edits of the editing vocabulary on every present editor, over WebSocket and HTTP: each result
 * read back with `document:layers` / `layer:getInfoById` and checked in the pixels of an export. An editor that
 * does not make an edit (its `getServerInfo` `editors[].edits` lacks it) must answer `NOT_SUPPORTED` naming itself
 * and the edit, and one that cannot honour a field (listed `unsupported`) must answer it naming the field; the case
 * then checks that and stops. Cases start from the sample document (a group and a few pixel layers) and do not
 * depend on its exact content.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPsd, writePsdBuffer } from "ag-psd";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { ensureCanvasFactory } from "../../src/hosts/embedded/psd.js";
import { METHOD_SCHEMAS, type BuiltinMethodName, type HostDocument, type HostLayer } from "../../src/protocol/index.js";
import type { Harness } from "../helpers/bridge.js";
import { itFor, conformanceMatrix } from "./_editors.js";
import type { ConformanceTransport, Outcome } from "./_transports.js";

/** Largest difference of one channel between an editor's render and the expected colour. */
const TOLERANCE = 3;

function expectResult(method: BuiltinMethodName, outcome: Outcome): unknown {
  if (!outcome.ok) throw new Error(`${method} failed: ${JSON.stringify(outcome.error)}`);
  return METHOD_SCHEMAS[method].result.parse(outcome.result);
}

function expectError(outcome: Outcome, code: string, details?: Record<string, unknown>): void {
  expect(outcome.ok, JSON.stringify(outcome.result)).toBe(false);
  expect(outcome.error?.code).toBe(code);
  if (details !== undefined) expect(outcome.error?.details).toMatchObject(details);
}

interface Pixels {
  readonly data: Buffer;
  readonly width: number;
  readonly height: number;
}

const decode = async (uri: string): Promise<Pixels> => {
  const { data, info } = await sharp(Buffer.from(uri.split(",")[1]!, "base64")).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
};
/** What `painted()` answers on an editor that paints nothing: no pixels, none of them read. */
const UNPAINTED: Pixels = { data: Buffer.alloc(0), width: 0, height: 0 };
const at = (image: Pixels, x: number, y: number): number[] => [...image.data.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 4)];
const near = (actual: readonly number[], expected: readonly number[]): boolean => actual.every((v, i) => Math.abs(v - expected[i]!) <= TOLERANCE);
/** Whether two renders are the same bytes (a fast compare: a slow deep one lets an HTTP keep-alive connection lapse). */
const same = (a: Pixels, b: Pixels): boolean => a.data.equals(b.data);
const mix = (a: readonly number[], b: readonly number[], t: number): number[] => a.map((v, i) => Math.round(v * t + b[i]! * (1 - t)));
/** `mix` as GIMP 2.10 composes, in linear light: colour channels are mixed as light, then encoded as sRGB again. */
const linearMix = (a: readonly number[], b: readonly number[], t: number): number[] => {
  const light = (v: number): number => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
  const srgb = (v: number): number => Math.round(255 * (v <= 0.0031308 ? v * 12.92 : 1.055 * v ** (1 / 2.4) - 0.055));
  return a.map((v, i) => (i === 3 ? Math.round(v * t + b[i]! * (1 - t)) : srgb(light(v) * t + light(b[i]!) * (1 - t))));
};

const MATRIX = conformanceMatrix();

let base = "";
let root = "";
beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "edit-layers-conf-")));
  root = join(base, "root");
  await mkdir(root, { recursive: true });
  ensureCanvasFactory();
  const white = { width: 12, height: 8, data: new Uint8ClampedArray(12 * 8 * 4).fill(255) };
  // A blue colour fill layer over white: what a rasterised fill must show.
  await writeFile(
    join(root, "fill.psd"),
    writePsdBuffer({ width: 12, height: 8, children: [{ name: "White", id: 1, left: 0, top: 0, imageData: white }, { name: "Blue", id: 2, vectorFill: { type: "color", color: { r: 0, g: 0, b: 255 } } }] }),
  );
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe.each(MATRIX)("layer and mask edits over $label", ({ editor, transport: { make } }) => {
  const it = itFor(editor);
  /** How this editor mixes a colour at partial opacity over what is below. */
  const blend = editor.name === "gimp" ? linearMix : mix;
  let harness: Harness;
  let t: ConformanceTransport;
  let edits: Record<string, { unsupported?: string[] }> = {};
  const call = (method: string, params?: Record<string, unknown>): Promise<Outcome> => t.call(method, params);
  const setup = async (): Promise<void> => {
    harness = await editor.start({ files: { roots: [root] } });
    t = await make(harness);
    // getServerInfo is WebSocket-only: its editor list says which edits each editor makes.
    const client = await harness.connect();
    const info = (await client.send("getServerInfo")).result as { editors?: Array<{ kind: string; edits?: Record<string, { unsupported?: string[] }> }> };
    edits = info.editors?.find((e) => e.kind === editor.name)?.edits ?? {};
  };

  /**
   * Whether the editor makes `method`; when it does not, checks that the call is refused as `NOT_SUPPORTED`
   * naming the editor and the edit (with `params`, valid ones) and that nothing changed.
   */
  const makes = async (method: BuiltinMethodName, params: Record<string, unknown>): Promise<boolean> => {
    if (edits[method] !== undefined) return true;
    const before = await revision();
    expectError(await call(method, params), "NOT_SUPPORTED", { editor: editor.name, capability: method });
    expect(await revision()).toBe(before);
    return false;
  };
  /** Whether the editor honours a field of an edit it makes; when not, checks the refusal names the field. */
  const honours = async (method: BuiltinMethodName, field: string, params: Record<string, unknown>): Promise<boolean> => {
    if (!(edits[method]?.unsupported ?? []).includes(field)) return true;
    expectError(await call(method, params), "NOT_SUPPORTED", { editor: editor.name, capability: method, field });
    return false;
  };

  const current = async (): Promise<HostDocument> => expectResult("document:current", await call("document:current")) as HostDocument;
  const revision = async (): Promise<number> => (await current()).revision ?? 0;
  const layers = async (): Promise<HostLayer[]> => expectResult("document:layers", await call("document:layers")) as HostLayer[];
  const info = async (layerId: number): Promise<HostLayer> => expectResult("layer:getInfoById", await call("layer:getInfoById", { layerId, getChildren: true })) as HostLayer;
  const composite = async (): Promise<Pixels> => decode((expectResult("image:exportDocument", await call("image:exportDocument", { format: "png" })) as { data: string }).data);
  /**
   * The composite for pixel checks that only run where the editor paints (`if (editor.paints) …`): on an editor that
   * paints nothing (the fake Photoshop) no pixel of it is compared, so it is not exported.
   */
  const painted = async (): Promise<Pixels> => (editor.paints ? composite() : UNPAINTED);
  const edited = async (method: BuiltinMethodName, params: Record<string, unknown>): Promise<HostLayer & { revision: number }> =>
    expectResult(method, await call(method, params)) as HostLayer & { revision: number };
  const firstGroup = async (): Promise<HostLayer> => {
    const group = (await layers()).find((l) => l.kind === "group" && (l.children?.length ?? 0) >= 1);
    if (group === undefined) throw new Error("the sample has no group");
    return group;
  };
  /** A new red layer covering the canvas at the top of the stack. */
  const redLayer = async (): Promise<HostLayer> => edited("layer:create", { name: "Red", fillColor: "#ff0000", to: "top" });

  it("layer:create makes transparent, filled and group layers, each default left out once", async () => {
    await setup();
    if (!(await makes("layer:create", {}))) return;
    const before = await revision();
    // Every default: a pixel layer, named Layer <n>, above the active layer, transparent.
    const plain = await edited("layer:create", {});
    expect(plain).toMatchObject({ kind: "pixel", revision: before + 1 });
    expect(plain.name).toMatch(/^Layer \d+$/);
    // GIMP has no empty layer: a new transparent one is a canvas-sized drawable (docs/editing.md).
    if (editor.name === "gimp") expect(plain.rect).toEqual({ x: 0, y: 0, width: (await current()).width, height: (await current()).height });
    else expect(plain.rect.width * plain.rect.height).toBe(0);
    expect((await current()).activeLayerIds).toEqual([plain.id]);
    const red = await redLayer();
    expect(await info(red.id)).toMatchObject({ name: "Red", kind: "pixel", rect: { x: 0, y: 0 } });
    expect((await layers())[0]!.id).toBe(red.id);
    expect(at(await composite(), 3, 3)).toEqual([255, 0, 0, 255]);
    const group = await edited("layer:create", { kind: "group", name: "Box", below: red.id });
    expect(await info(group.id)).toMatchObject({ kind: "group", name: "Box", blendMode: "pass through" });
    expect((await layers()).map((l) => l.id).slice(0, 2)).toEqual([red.id, group.id]);
    expect(new Set([plain.id, red.id, group.id]).size).toBe(3);
  });

  it("layer:update changes each field it is given and leaves the rest", async () => {
    await setup();
    if (!(await makes("layer:update", { name: "x" })) || !(await makes("layer:create", {}))) return;
    const below = await painted();
    const red = await redLayer();
    const renamed = await edited("layer:update", { layerId: red.id, name: "Renamed" });
    expect(renamed).toMatchObject({ name: "Renamed", opacity: 100, visible: true, blendMode: "normal" });
    await edited("layer:update", { layerId: red.id, opacity: 40 });
    const faded = await painted();
    if (editor.paints) expect(near(at(faded, 5, 5), blend([255, 0, 0, 255], at(below, 5, 5), 0.4)), JSON.stringify(at(faded, 5, 5))).toBe(true);
    await edited("layer:update", { layerId: red.id, visible: false, blendMode: "multiply" });
    const layer = await info(red.id);
    expect(layer).toMatchObject({ name: "Renamed", visible: false, blendMode: "multiply" });
    expect(layer.opacity).toBeCloseTo(40, 0);
    if (editor.paints) expect(at(await composite(), 5, 5)).toEqual(at(below, 5, 5));
    if (await honours("layer:update", "fillOpacity", { layerId: red.id, fillOpacity: 50 })) {
      expect((await edited("layer:update", { layerId: red.id, fillOpacity: 50 })).fillOpacity).toBeCloseTo(50, 0);
    }
    if (await honours("layer:update", "locked", { layerId: red.id, locked: true })) {
      expect((await edited("layer:update", { layerId: red.id, locked: true })).locked).toBe(true);
      // A locked layer refuses its pixels' edits, naming the lock, and nothing changes.
      const before = await revision();
      expectError(await call("layer:fill", { layerId: red.id, color: "#00ff00" }), "BAD_REQUEST", { layerId: red.id, locked: true });
      expect(await revision()).toBe(before);
      expect((await edited("layer:update", { layerId: red.id, locked: false })).locked).toBe(false);
    }
    expectError(await call("layer:update", { layerId: red.id, blendMode: "no such mode" }), "BAD_REQUEST");
  });

  it("layer:duplicate copies a group under new ids, layer:move places it, layer:delete removes it for good", async () => {
    await setup();
    const group = await firstGroup();
    if (!(await makes("layer:duplicate", { layerId: group.id }))) return;
    const copy = await edited("layer:duplicate", { layerId: group.id });
    expect(copy.name).toBe(`${group.name} copy`);
    // GIMP keeps layer names unique: the copied group's layers come back as `Subject #1` (docs/editing.md).
    const unsuffixed = (name: string): string => (editor.name === "gimp" ? name.replace(/ #\d+$/, "") : name);
    expect(copy.children!.map((c) => unsuffixed(c.name))).toEqual(group.children!.map((c) => c.name));
    const before = new Set([group.id, ...group.children!.map((c) => c.id)]);
    expect([copy.id, ...copy.children!.map((c) => c.id)].some((id) => before.has(id))).toBe(false);
    expect((await current()).activeLayerIds).toEqual([copy.id]);
    // Directly above the original by default.
    const top = (await layers()).map((l) => l.id);
    expect(top.indexOf(copy.id)).toBe(top.indexOf(group.id) - 1);
    if (await makes("layer:move", { layerId: copy.id, to: "top" })) {
      await edited("layer:move", { layerId: copy.id, to: "top" });
      expect((await layers())[0]!.id).toBe(copy.id);
      const child = copy.children![0]!;
      await edited("layer:move", { layerId: child.id, below: group.id });
      expect((await info(copy.id)).children!.map((c) => c.id)).not.toContain(child.id);
      await edited("layer:move", { layerId: child.id, parent: copy.id });
      expect((await info(copy.id)).children![0]!.id).toBe(child.id);
    }
    if (await makes("layer:delete", { layerId: copy.id })) {
      const deleted = expectResult("layer:delete", await call("layer:delete", { layerId: copy.id })) as { deleted: boolean };
      expect(deleted.deleted).toBe(true);
      expectError(await call("layer:getInfoById", { layerId: copy.id }), "LAYER_NOT_FOUND");
      expectError(await call("layer:update", { layerId: copy.id, name: "back" }), "LAYER_NOT_FOUND");
      const active = (await current()).activeLayerIds;
      const ids = new Set((await layers()).flatMap(function all(l: HostLayer): number[] {
        return [l.id, ...(l.children ?? []).flatMap(all)];
      }));
      expect(active.every((id) => ids.has(id))).toBe(true);
    }
  });

  it("layer:group gathers layers where the top-most was and layer:ungroup puts them back", async () => {
    await setup();
    if (!(await makes("layer:group", { ids: [(await layers())[0]!.id] })) || !(await makes("layer:create", {}))) return;
    const red = await redLayer();
    const plain = await edited("layer:create", { below: red.id });
    const group = await edited("layer:group", { ids: [plain.id, red.id] });
    expect(group.name).toMatch(/^Group \d+$/);
    expect(group.children!.map((c) => c.id)).toEqual([red.id, plain.id]);
    expect((await layers())[0]!.id).toBe(group.id);
    if (!(await makes("layer:ungroup", { layerId: group.id }))) return;
    const out = expectResult("layer:ungroup", await call("layer:ungroup", { layerId: group.id })) as { layers: HostLayer[] };
    expect(out.layers.map((l) => l.id)).toEqual([red.id, plain.id]);
    expect((await layers()).map((l) => l.id).slice(0, 2)).toEqual([red.id, plain.id]);
    expectError(await call("layer:getInfoById", { layerId: group.id }), "LAYER_NOT_FOUND");
    expectError(await call("layer:ungroup", { layerId: red.id }), "BAD_REQUEST");
  });

  it("layer:merge composites layers as they render into one, and merges a layer down", async () => {
    await setup();
    const top = await layers();
    if (!(await makes("layer:merge", { ids: [top[0]!.id, top[1]!.id] }))) return;
    const before = await painted();
    const merged = await edited("layer:merge", { ids: [top[0]!.id, top[1]!.id] });
    expect(merged).toMatchObject({ kind: "pixel", name: top[0]!.name, opacity: 100, blendMode: "normal" });
    expectError(await call("layer:getInfoById", { layerId: top[1]!.id }), "LAYER_NOT_FOUND");
    const after = await painted();
    let worst = 0;
    for (let i = 0; i < after.data.length; i++) worst = Math.max(worst, Math.abs(after.data[i]! - before.data[i]!));
    if (editor.paints) expect(worst).toBeLessThanOrEqual(TOLERANCE);
    // One layer named: merged into the layer below it, keeping that one's name.
    if (!(await makes("layer:create", {}))) return;
    const red = await edited("layer:create", { name: "Red", fillColor: "#ff000080", above: merged.id });
    const down = await edited("layer:merge", { layerId: red.id });
    expect(down.name).toBe(merged.name);
    expect((await layers()).length).toBe(top.length - 1);
  });

  it("layer:fill and layer:clear work inside the selection, or on the whole layer", async () => {
    await setup();
    if (!(await makes("layer:fill", { layerId: (await layers())[0]!.id, color: "#00ff00" })) || !(await makes("layer:create", {}))) return;
    const plain = await edited("layer:create", { to: "top" });
    const below = await painted();
    expectResult("selection:set", await call("selection:set", { rect: { x: 10, y: 10, width: 20, height: 20 } }));
    // opacity and blendMode left out: 100 and normal.
    await edited("layer:fill", { layerId: plain.id, color: "#00ff00" });
    let image = await painted();
    if (editor.paints) expect(at(image, 15, 15)).toEqual([0, 255, 0, 255]);
    if (editor.paints) expect(at(image, 5, 5)).toEqual(at(below, 5, 5));
    await edited("layer:fill", { layerId: plain.id, color: "#0000ff", opacity: 50 });
    if (editor.paints) expect(near(at(await composite(), 15, 15), blend([0, 0, 255, 255], [0, 255, 0, 255], 0.5))).toBe(true);
    if (await makes("layer:clear", { layerId: plain.id })) {
      await edited("layer:clear", { layerId: plain.id });
      image = await painted();
      if (editor.paints) expect(at(image, 15, 15)).toEqual(at(below, 15, 15));
    }
    expectResult("selection:set", await call("selection:set", { rect: null }));
    await edited("layer:fill", { layerId: plain.id, color: "#00ff00", blendMode: "normal", opacity: 100 });
    image = await painted();
    if (editor.paints) expect(at(image, 0, 0)).toEqual([0, 255, 0, 255]);
    if (editor.paints) expect(at(image, image.width - 1, image.height - 1)).toEqual([0, 255, 0, 255]);
    if (edits["layer:clear"] !== undefined) {
      const cleared = await edited("layer:clear", { layerId: plain.id });
      // GIMP has no empty layer: a cleared one keeps its extent (docs/editing.md); what shows is checked below.
      if (editor.name === "gimp") expect(cleared.rect).toEqual(plain.rect);
      else expect(cleared.rect.width * cleared.rect.height).toBe(0);
      if (editor.paints) expect(same(await composite(), below)).toBe(true);
    }
    const group = await firstGroup();
    expectError(await call("layer:fill", { layerId: group.id, color: "#00ff00" }), "BAD_REQUEST");
  });

  it("layer:addMask, updateMask, applyMask and deleteMask change what shows", async () => {
    await setup();
    if (!(await makes("layer:addMask", { layerId: (await layers())[0]!.id })) || !(await makes("layer:create", {}))) return;
    const below = await composite();
    const red = await redLayer();
    // Nothing selected: the mask reveals all by default.
    const revealed = await edited("layer:addMask", { layerId: red.id });
    expect(revealed.mask).toMatchObject({ enabled: true, linked: true });
    expect(revealed.mask!.density).toBeCloseTo(100, 0);
    expect(at(await composite(), 40, 40)).toEqual([255, 0, 0, 255]);
    expectError(await call("layer:addMask", { layerId: red.id }), "BAD_REQUEST");
    if (await makes("layer:deleteMask", { layerId: red.id })) {
      expect((await edited("layer:deleteMask", { layerId: red.id })).mask).toBeUndefined();
      expectError(await call("layer:deleteMask", { layerId: red.id }), "BAD_REQUEST");
    } else return;
    // Something selected: the mask shows the selection by default.
    expectResult("selection:set", await call("selection:set", { rect: { x: 0, y: 0, width: 20, height: 20 } }));
    await edited("layer:addMask", { layerId: red.id });
    let image = await composite();
    expect(at(image, 5, 5)).toEqual([255, 0, 0, 255]);
    expect(at(image, 40, 40)).toEqual(at(below, 40, 40));
    if (!(await makes("layer:updateMask", { layerId: red.id, density: 50 }))) return;
    if (await honours("layer:updateMask", "density", { layerId: red.id, density: 50 })) {
      const half = await edited("layer:updateMask", { layerId: red.id, density: 50 });
      expect(half.mask!.density).toBeCloseTo(50, 0);
      if (editor.paints) expect(near(at(await composite(), 40, 40), mix([255, 0, 0, 255], at(below, 40, 40), 0.5))).toBe(true);
      await edited("layer:updateMask", { layerId: red.id, density: 100 });
    }
    if (await honours("layer:updateMask", "enabled", { layerId: red.id, enabled: false })) {
      expect((await edited("layer:updateMask", { layerId: red.id, enabled: false })).mask!.enabled).toBe(false);
      expect(at(await composite(), 40, 40)).toEqual([255, 0, 0, 255]);
      await edited("layer:updateMask", { layerId: red.id, enabled: true });
    }
    if (await honours("layer:updateMask", "linked", { layerId: red.id, linked: false })) {
      expect((await edited("layer:updateMask", { layerId: red.id, linked: false })).mask!.linked).toBe(false);
    }
    if (await honours("layer:updateMask", "feather", { layerId: red.id, feather: 2 })) {
      expect((await edited("layer:updateMask", { layerId: red.id, feather: 2 })).mask!.feather).toBeCloseTo(2, 0);
      await edited("layer:updateMask", { layerId: red.id, feather: 0 });
    }
    if (!(await makes("layer:applyMask", { layerId: red.id }))) return;
    const applied = await edited("layer:applyMask", { layerId: red.id });
    expect(applied.mask).toBeUndefined();
    expect(applied.rect).toMatchObject({ x: 0, y: 0, width: 20, height: 20 });
    image = await composite();
    expect(at(image, 5, 5)).toEqual([255, 0, 0, 255]);
    expect(at(image, 40, 40)).toEqual(at(below, 40, 40));
    expectResult("selection:set", await call("selection:set", { rect: null }));
    await edited("layer:addMask", { layerId: red.id, from: "hideAll" });
    expect(same(await composite(), below)).toBe(true);
  });

  it("layer:rasterize draws a fill layer into pixels, and a save keeps the edits", async () => {
    await setup();
    const doc = expectResult("document:open", await call("document:open", { path: join(root, "fill.psd") })) as HostDocument;
    const fill = (await layers()).find((l) => l.name === "Blue")!;
    if (!(await makes("layer:rasterize", { layerId: fill.id }))) return;
    expect(fill.kind).toBe("fill");
    const pixel = await edited("layer:rasterize", { layerId: fill.id });
    expect(pixel).toMatchObject({ id: fill.id, kind: "pixel", rect: { x: 0, y: 0, width: 12, height: 8 } });
    if (editor.paints) expect(at(await composite(), 6, 4)).toEqual([0, 0, 255, 255]);
    // A pixel layer has nothing to rasterize: refused on every editor (Photoshop itself would change nothing).
    expectError(await call("layer:rasterize", { layerId: fill.id }), "BAD_REQUEST", { kind: "pixel" });
    await edited("layer:update", { layerId: fill.id, blendMode: "multiply", opacity: 50 });
    const target = join(root, `saved-${editor.editors}-${t.name}.psd`);
    expectResult("document:save", await call("document:save", { documentId: doc.id, savePath: target, allowLossy: true }));
    const read = readPsd(await readFile(target), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
    const saved = read.children!.find((l) => l.name === "Blue")!;
    expect(saved).toMatchObject({ blendMode: "multiply" });
    expect(saved.vectorFill).toBeUndefined();
    const reopened = expectResult("document:open", await call("document:open", { path: target })) as HostDocument;
    const back = (expectResult("document:layers", await call("document:layers", { documentId: reopened.id })) as HostLayer[]).find((l) => l.name === "Blue")!;
    expect(back).toMatchObject({ kind: "pixel", blendMode: "multiply", rect: { width: 12, height: 8 } });
    expect(back.opacity).toBeCloseTo(50, 0);
  });

  it("bad input changes nothing: an unknown layer, a group into its own child, a stale ifRevision", async () => {
    await setup();
    if (!(await makes("layer:move", { layerId: 1, to: "top" })) || !(await makes("layer:create", {}))) return;
    const group = await firstGroup();
    const inner = await edited("layer:create", { kind: "group", parent: group.id });
    const before = await revision();
    const tree = await layers();
    expectError(await call("layer:update", { layerId: 987_654, name: "x" }), "LAYER_NOT_FOUND");
    expectError(await call("layer:move", { layerId: group.id, parent: inner.id }), "BAD_REQUEST");
    expectError(await call("layer:delete", { layerId: group.id, ifRevision: before - 1 }), "CONFLICT", { revision: before, ifRevision: before - 1 });
    expectError(await call("layer:merge", { ids: [group.id, inner.id] }), "BAD_REQUEST");
    expect(await revision()).toBe(before);
    expect(await layers()).toEqual(tree);
    // The revision the caller saw: accepted.
    await edited("layer:update", { layerId: inner.id, name: "Inner", ifRevision: before });
    expect(await revision()).toBe(before + 1);
  });

  it("several clients: a layer one deletes is LAYER_NOT_FOUND for the other, and its revision is stale", async () => {
    await setup();
    const other = await make(harness);
    if (!(await makes("layer:delete", { layerId: (await layers())[0]!.id })) || !(await makes("layer:create", {}))) return;
    const red = await redLayer();
    const seen = await revision();
    expectResult("layer:delete", await other.call("layer:delete", { layerId: red.id }));
    expectError(await call("layer:update", { layerId: red.id, name: "mine" }), "LAYER_NOT_FOUND");
    const all = (list: HostLayer[]): HostLayer[] => list.flatMap((l) => [l, ...all(l.children ?? [])]);
    // Any layer will do: the edit is refused before it is looked at.
    const plain = all(await layers())[0]!;
    expectError(await call("layer:update", { layerId: plain.id, name: "mine", ifRevision: seen }), "CONFLICT");
    expect(await revision()).toBe(seen + 1);
  });
});
