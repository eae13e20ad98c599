import { describe, expect, test } from "vitest";
import { FontCatalogue } from "../../../src/hosts/embedded/text/catalogue.js";
import type { EditOp } from "../../../src/hosts/edits.js";
import { ContentBuilder, type EmbeddedDocument, type LayerMask, type PixelLayer } from "../../../src/hosts/embedded/document.js";
import { editOps } from "../../../src/hosts/embedded/edits/index.js";
import { newWork, planLayer, runWork } from "../../../src/hosts/embedded/edits/geometry.js";
import { EditorMemory } from "../../../src/hosts/embedded/memory.js";
import { emptyRaster, solidRaster, type Raster } from "../../../src/hosts/embedded/raster.js";
import { turnPlane } from "../../../src/hosts/embedded/resample.js";
import { selectionMask, selectShape } from "../../../src/hosts/embedded/selection.js";
import { DocumentStore } from "../../../src/hosts/embedded/store.js";
import { checkpoint } from "../../../src/hosts/embedded/work.js";
import { isBridgeError } from "../../../src/protocol/index.js";
import { ctx } from "./helpers.js";

/** A raster whose pixel (x, y) is (x, y, 7, 255) — every pixel tells where it came from. */
function coordinates(width: number, height: number): Raster {
  const raster = emptyRaster(width, height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raster.data.set([x, y, 7, 255], (y * width + x) * 4);
  return raster;
}

/** The pixel at document (x, y) of a layer, or undefined outside its buffer. */
function pixelAt(layer: PixelLayer, x: number, y: number): number[] | undefined {
  const px = x - layer.left;
  const py = y - layer.top;
  if (px < 0 || py < 0 || px >= layer.width || py >= layer.height) return undefined;
  return [...layer.data.subarray((py * layer.width + px) * 4, (py * layer.width + px) * 4 + 4)];
}

/** An editor over one document: `Layer` (the coordinates raster at 10, 20) above a 40×30 grey background. */
function editor(options: { maxDocumentPixels?: number; layer?: Raster; left?: number; top?: number } = {}) {
  const store = new DocumentStore();
  const b = new ContentBuilder(40, 30);
  const background = b.pixel("Background", solidRaster(40, 30, [100, 100, 100, 255]), { kind: "background" });
  const layer = b.pixel("Layer", options.layer ?? coordinates(4, 3), { left: options.left ?? 10, top: options.top ?? 20 });
  const doc = store.add(b.build([layer, background], [layer.id]), { name: "Test" });
  const memory = new EditorMemory(1 << 30, () => store.list());
  const changes: string[] = [];
  const ops = editOps({
    maxDocumentPixels: options.maxDocumentPixels ?? 100_000_000,
    fonts: new FontCatalogue(),
    memory,
    store,
    document: (id) => store.get(id),
    changed: (changedDoc, _changes, method) => {
      changedDoc.revision++;
      changes.push(method);
    },
    documentAdded: () => {},
    checkpoint,
  });
  const edit = (op: EditOp, documentId = doc.id) => ops.edit(ctx(), { documentId, edit: op });
  const layerOf = (d: EmbeddedDocument = doc, name = "Layer"): PixelLayer => d.layers.find((l) => l.name === name) as PixelLayer;
  return { store, doc, edit, layerOf, changes, backgroundId: background.id, layerId: layer.id };
}

const transform = (layerId: number, fields: Partial<Extract<EditOp, { op: "layer:transform" }>>): EditOp => ({
  op: "layer:transform",
  layerId,
  dx: 0,
  dy: 0,
  scaleX: 100,
  scaleY: 100,
  angle: 0,
  flip: "none",
  anchor: { x: 0, y: 0 },
  resample: "bicubic",
  ...fields,
});

describe("quarter turns move every pixel exactly", () => {
  test("turnPlane by 90° clockwise puts the left column on top, read bottom-up", () => {
    const raster = coordinates(3, 2);
    const turned = turnPlane({ ...raster, channels: 4 }, [0, -1, 1, 0], () => {});
    expect([turned.width, turned.height]).toEqual([2, 3]);
    // Clockwise: the bottom-left pixel (0, 1) lands at the top-left.
    const at = (x: number, y: number) => [...turned.data.subarray((y * 2 + x) * 4, (y * 2 + x) * 4 + 2)];
    expect(at(0, 0)).toEqual([0, 1]);
    expect(at(1, 0)).toEqual([0, 0]);
    expect(at(0, 2)).toEqual([2, 1]);
    expect(at(1, 2)).toEqual([2, 0]);
  });
});

describe("layer:transform", () => {
  test("a move shifts by whole pixels without resampling (the same buffer)", async () => {
    const e = editor();
    const before = e.layerOf().data;
    await e.edit(transform(e.layerId, { dx: 3.4, dy: -2 }));
    expect(e.layerOf()).toMatchObject({ left: 13, top: 18, width: 4, height: 3 });
    expect(e.layerOf().data).toBe(before);
    expect(e.doc.revision).toBe(1);
  });

  test("rotates 90° clockwise about its top-left corner, exactly", async () => {
    const e = editor();
    await e.edit(transform(e.layerId, { angle: 90, anchor: { x: 10, y: 20 } }));
    const layer = e.layerOf();
    // (10 + i, 20 + j) → (10 − j − 1, 20 + i): the box 4×3 at (10, 20) becomes 3×4 at (7, 20).
    expect(layer).toMatchObject({ left: 7, top: 20, width: 3, height: 4 });
    for (let j = 0; j < 3; j++) for (let i = 0; i < 4; i++) expect(pixelAt(layer, 10 - j - 1, 20 + i)?.slice(0, 2)).toEqual([i, j]);
  });

  test("scales, then rotates, then flips: 200% nearest with a horizontal flip about the centre", async () => {
    const e = editor();
    await e.edit(transform(e.layerId, { scaleX: 200, scaleY: 200, flip: "horizontal", anchor: { x: 12, y: 21.5 }, resample: "nearest" }));
    const layer = e.layerOf();
    // The 4×3 box about its centre (12, 21.5) doubles to 8×6 at (8, 18.5) → rounded to (8, 19), then mirrored in place.
    expect(layer).toMatchObject({ left: 8, top: 19, width: 8, height: 6 });
    for (let y = 0; y < 6; y++) for (let x = 0; x < 8; x++) expect(pixelAt(layer, 8 + x, 19 + y)?.slice(0, 2)).toEqual([3 - Math.floor(x / 2), Math.floor(y / 2)]);
  });

  test("another angle resamples with premultiplied alpha: edges keep their colour, the area stays", async () => {
    const e = editor({ layer: solidRaster(20, 10, [200, 40, 10, 255]), left: 5, top: 5 });
    await e.edit(transform(e.layerId, { angle: 30, anchor: { x: 15, y: 10 } }));
    const layer = e.layerOf();
    const rad = (30 * Math.PI) / 180;
    // The turned box's extent about the anchor, whole pixels out.
    const halfW = (20 * Math.cos(rad) + 10 * Math.sin(rad)) / 2;
    const halfH = (20 * Math.sin(rad) + 10 * Math.cos(rad)) / 2;
    expect(layer.left).toBe(Math.floor(15 - halfW));
    expect(layer.left + layer.width).toBe(Math.ceil(15 + halfW));
    expect(layer.top).toBe(Math.floor(10 - halfH));
    expect(layer.top + layer.height).toBe(Math.ceil(10 + halfH));
    let area = 0;
    for (let i = 0; i < layer.width * layer.height; i++) {
      const a = layer.data[i * 4 + 3]!;
      area += a / 255;
      // Interpolating straight colour would darken edges towards the transparent black around them.
      if (a > 0) expect([...layer.data.subarray(i * 4, i * 4 + 3)]).toEqual([200, 40, 10]);
    }
    expect(Math.abs(area - 200) / 200).toBeLessThan(0.02);
  });

  test("a group transforms every layer in it", async () => {
    const store = new DocumentStore();
    const b = new ContentBuilder(40, 30);
    const a = b.pixel("A", coordinates(2, 2), { left: 0, top: 0 });
    const c = b.pixel("C", coordinates(2, 2), { left: 10, top: 10 });
    const group = b.group("G", [a, c]);
    const doc = store.add(b.build([group], [group.id]), { name: "G" });
    const ops = editOps({
      maxDocumentPixels: 1e8,
      fonts: new FontCatalogue(),
      memory: new EditorMemory(1 << 30, () => store.list()),
      store,
      document: (id) => store.get(id),
      changed: () => {},
      documentAdded: () => {},
      checkpoint,
    });
    await ops.edit(ctx(), { documentId: doc.id, edit: transform(group.id, { flip: "horizontal", anchor: { x: 20, y: 0 } }) });
    expect(a).toMatchObject({ left: 38, top: 0 });
    expect(c).toMatchObject({ left: 28, top: 10 });
    expect(pixelAt(a, 38, 0)?.slice(0, 2)).toEqual([1, 0]);
  });

  test("a linked mask turns with its layer; an unlinked one stays", async () => {
    const layer = { ...new ContentBuilder(10, 10).pixel("L", coordinates(2, 1), { left: 0, top: 0 }) };
    layer.mask = { x: 0, y: 0, width: 2, height: 1, data: Uint8Array.from([10, 20]), defaultColor: 0 };
    const work = newWork();
    const g = { sx: 1, sy: 1, q: [-1, 0, 0, 1] as const, tx: 2, ty: 0, resample: "nearest" as const };
    planLayer(work, layer, [layer], g, "linked");
    await runWork(work, { what: "test", maxPixels: 1e6, memory: new EditorMemory(1e9, () => []) }, () => {});
    expect([...layer.mask.data]).toEqual([20, 10]);
    const unlinked = { ...new ContentBuilder(10, 10).pixel("U", coordinates(2, 1)) };
    unlinked.mask = { x: 0, y: 0, width: 2, height: 1, data: Uint8Array.from([10, 20]), defaultColor: 0, linked: false } as LayerMask;
    const again = newWork();
    planLayer(again, unlinked, [unlinked], g, "linked");
    await runWork(again, { what: "test", maxPixels: 1e6, memory: new EditorMemory(1e9, () => []) }, () => {});
    expect([...unlinked.mask!.data]).toEqual([10, 20]);
  });

  test("a result past maxDocumentPixels is refused before anything changes", async () => {
    const e = editor({ maxDocumentPixels: 2000 });
    const before = { ...e.layerOf() };
    const error = await e.edit(transform(e.layerId, { scaleX: 2000, scaleY: 2000 })).catch((err: unknown) => err);
    expect(isBridgeError(error) && error.code).toBe("PAYLOAD_TOO_LARGE");
    expect((error as { details: Record<string, unknown> }).details).toMatchObject({ limit: "maxDocumentPixels", maxPixels: 2000, width: 80, height: 60 });
    expect(e.layerOf()).toMatchObject({ left: before.left, top: before.top, width: before.width, data: before.data });
    expect(e.doc.revision).toBe(0);
  });
});

describe("a vector mask's path goes where its pixels go", () => {
  /** A closed path through `corners` (each knot's handles on its anchor), as ag-psd reads one. */
  const pathRecord = (corners: ReadonlyArray<readonly [number, number]>): PixelLayer["record"] =>
    ({ vectorMask: { paths: [{ open: false, fillRule: "even-odd", knots: corners.map(([x, y]) => ({ linked: true, points: [x, y, x, y, x, y] })) }] } }) as unknown as PixelLayer["record"];
  const anchors = (record: PixelLayer["record"]): number[][] =>
    (record?.vectorMask?.paths[0]?.knots ?? []).map((knot) => [Math.round(knot.points[2]! * 1000) / 1000, Math.round(knot.points[3]! * 1000) / 1000]);
  const handlesOnAnchors = (record: PixelLayer["record"]): boolean =>
    (record?.vectorMask?.paths[0]?.knots ?? []).every((k) => Math.abs(k.points[0]! - k.points[2]!) + Math.abs(k.points[5]! - k.points[3]!) < 1e-9);

  test("layer:transform turns the path with the layer (a quarter turn exactly), and a move shifts it", async () => {
    const e = editor();
    e.layerOf().record = pathRecord([[10, 20], [14, 20], [14, 23], [10, 23]]);
    await e.edit(transform(e.layerId, { angle: 90, anchor: { x: 10, y: 20 } }));
    // (x, y) → (10 − (y − 20), 20 + (x − 10)), as the pixels went.
    expect(anchors(e.layerOf().record)).toEqual([[10, 20], [10, 24], [7, 24], [7, 20]]);
    expect(handlesOnAnchors(e.layerOf().record)).toBe(true);
    await e.edit(transform(e.layerId, { dx: 2, dy: -1 }));
    expect(anchors(e.layerOf().record)).toEqual([[12, 19], [12, 23], [9, 23], [9, 19]]);
  });

  test("document:resize scales the path with the pixels, and document:crop moves a group's path", async () => {
    const e = editor();
    e.layerOf().record = pathRecord([[10, 20], [14, 20], [14, 24]]);
    await e.edit({ op: "document:resize", width: 20, height: 15, resolution: 72, resample: "bicubic" });
    expect(anchors(e.layerOf().record)).toEqual([[5, 10], [7, 10], [7, 12]]);
    const b = new ContentBuilder(1, 1);
    const group = b.group("Group", []);
    group.record = pathRecord([[4, 4], [8, 8]]);
    e.doc.layers.unshift(group);
    await e.edit({ op: "document:crop", rect: { x: 2, y: 3, width: 10, height: 10 } });
    expect(anchors(group.record)).toEqual([[2, 1], [6, 5]]);
    expect(anchors(e.layerOf().record)).toEqual([[3, 7], [5, 7], [5, 9]]);
  });
});

describe("document edits", () => {
  test("document:resize halves every layer and the selection; the same size changes only the resolution", async () => {
    const e = editor({ layer: solidRaster(4, 4, [0, 0, 255, 255]) });
    selectShape(e.doc, { kind: "rect", rect: { x: 10, y: 10, width: 20, height: 10 } });
    await e.edit({ op: "document:resize", width: 20, height: 15, resolution: 36, resample: "nearest" });
    expect(e.doc).toMatchObject({ width: 20, height: 15, resolution: 36, selection: { x: 5, y: 5, width: 10, height: 5 } });
    expect(e.layerOf()).toMatchObject({ left: 5, top: 10, width: 2, height: 2 });
    expect(e.layerOf(e.doc, "Background")).toMatchObject({ left: 0, top: 0, width: 20, height: 15 });
    const data = e.layerOf().data;
    await e.edit({ op: "document:resize", width: 20, height: 15, resolution: 300, resample: "bicubic" });
    expect(e.layerOf().data).toBe(data);
    expect(e.doc.resolution).toBe(300);
  });

  test("document:resizeCanvas grows the background with the fill colour and moves the other layers", async () => {
    const e = editor();
    await e.edit({ op: "document:resizeCanvas", width: 50, height: 40, offsetX: 5, offsetY: 10, fillColor: [255, 0, 0, 255] });
    const bg = e.layerOf(e.doc, "Background");
    expect(bg).toMatchObject({ left: 0, top: 0, width: 50, height: 40 });
    expect(pixelAt(bg, 0, 0)).toEqual([255, 0, 0, 255]);
    expect(pixelAt(bg, 5, 10)).toEqual([100, 100, 100, 255]);
    expect(pixelAt(bg, 44, 39)).toEqual([100, 100, 100, 255]);
    expect(pixelAt(bg, 45, 39)).toEqual([255, 0, 0, 255]);
    expect(e.layerOf()).toMatchObject({ left: 15, top: 30, width: 4, height: 3 });
  });

  test("document:crop crops every layer and the selection", async () => {
    const e = editor();
    selectShape(e.doc, { kind: "rect", rect: { x: 0, y: 0, width: 12, height: 22 } });
    await e.edit({ op: "document:crop", rect: { x: 11, y: 21, width: 20, height: 5 } });
    expect(e.doc).toMatchObject({ width: 20, height: 5, selection: { x: 0, y: 0, width: 1, height: 1 } });
    expect(e.layerOf()).toMatchObject({ left: 0, top: 0, width: 3, height: 2 });
    expect(pixelAt(e.layerOf(), 0, 0)?.slice(0, 2)).toEqual([1, 1]);
    expect(e.layerOf(e.doc, "Background")).toMatchObject({ width: 20, height: 5 });
  });

  test("document:rotate 90 turns the canvas and every layer exactly", async () => {
    const e = editor();
    await e.edit({ op: "document:rotate", angle: 90 });
    expect(e.doc).toMatchObject({ width: 30, height: 40 });
    // (x, y) → (H − 1 − y, x) with H = 30.
    const layer = e.layerOf();
    expect(layer).toMatchObject({ left: 30 - 23, top: 10, width: 3, height: 4 });
    expect(pixelAt(layer, 30 - 1 - 20, 10)?.slice(0, 2)).toEqual([0, 0]);
    expect(pixelAt(layer, 30 - 1 - 22, 13)?.slice(0, 2)).toEqual([3, 2]);
  });

  test("document:rotate by another angle grows the canvas; the background's new corners are white", async () => {
    const e = editor();
    await e.edit({ op: "document:rotate", angle: 30 });
    const rad = Math.PI / 6;
    expect(e.doc.width).toBe(Math.ceil(40 * Math.cos(rad) + 30 * Math.sin(rad)));
    expect(e.doc.height).toBe(Math.ceil(40 * Math.sin(rad) + 30 * Math.cos(rad)));
    const bg = e.layerOf(e.doc, "Background");
    expect(bg).toMatchObject({ left: 0, top: 0, width: e.doc.width, height: e.doc.height });
    expect(pixelAt(bg, 0, 0)).toEqual([255, 255, 255, 255]);
    expect(pixelAt(bg, Math.floor(e.doc.width / 2), Math.floor(e.doc.height / 2))).toEqual([100, 100, 100, 255]);
  });

  test("document:flip mirrors every layer across the canvas", async () => {
    const e = editor();
    await e.edit({ op: "document:flip", direction: "vertical" });
    const layer = e.layerOf();
    expect(layer).toMatchObject({ left: 10, top: 30 - 23, width: 4, height: 3 });
    expect(pixelAt(layer, 10, 7)?.slice(0, 2)).toEqual([0, 2]);
  });

  test("document:trim crops to the composite's pixels; document:flatten leaves one background", async () => {
    const e = editor();
    e.doc.layers.pop();
    await e.edit({ op: "document:trim" });
    expect(e.doc).toMatchObject({ width: 4, height: 3 });
    expect(e.layerOf()).toMatchObject({ left: 0, top: 0 });
    e.layerOf().visible = false;
    await e.edit({ op: "document:flatten" });
    expect(e.doc.layers).toHaveLength(1);
    expect(e.doc.layers[0]).toMatchObject({ kind: "background", name: "Background", width: 4, height: 3 });
    expect(pixelAt(e.doc.layers[0] as PixelLayer, 0, 0)).toEqual([255, 255, 255, 255]);
  });

  test("document:duplicate copies the document and its selection as a new active one", async () => {
    const e = editor();
    selectShape(e.doc, { kind: "ellipse", rect: { x: 0, y: 0, width: 10, height: 10 } });
    const made = await e.edit({ op: "document:duplicate", name: "Copy" });
    const copy = e.store.get(made.documentId!);
    expect(copy.id).not.toBe(e.doc.id);
    expect(e.store.active()).toBe(copy);
    expect(copy).toMatchObject({ name: "Copy", width: 40, height: 30 });
    expect(copy.layers.map((l) => l.name)).toEqual(["Layer", "Background"]);
    expect(selectionMask(copy)!.data).toEqual(selectionMask(e.doc)!.data);
    // Edits of the copy leave the original alone.
    await e.edit(transform(e.layerId, { dx: 5 }), copy.id);
    expect(e.layerOf().left).toBe(10);
  });
});

describe("selection edits", () => {
  const rect = { x: 10, y: 10, width: 10, height: 10 };
  const selected = (doc: EmbeddedDocument, x: number, y: number): number => {
    const mask = selectionMask(doc)!;
    const mx = x - mask.x;
    const my = y - mask.y;
    return mx >= 0 && my >= 0 && mx < mask.width && my < mask.height ? mask.data[my * mask.width + mx]! : 0;
  };

  test("expand and contract by Euclidean distance; border keeps a band across the edge", async () => {
    const e = editor();
    selectShape(e.doc, { kind: "rect", rect });
    await e.edit({ op: "selection:modify", how: "expand", pixels: 2 });
    expect(e.doc.selection).toEqual({ x: 8, y: 8, width: 14, height: 14 });
    // The corner is √8 away from the rectangle: a rounded corner.
    expect(selected(e.doc, 8, 8)).toBe(0);
    expect(selected(e.doc, 9, 9)).toBe(255);
    selectShape(e.doc, { kind: "rect", rect });
    await e.edit({ op: "selection:modify", how: "contract", pixels: 3 });
    expect(e.doc.selection).toEqual({ x: 13, y: 13, width: 4, height: 4 });
    selectShape(e.doc, { kind: "rect", rect });
    await e.edit({ op: "selection:modify", how: "border", pixels: 4 });
    expect(e.doc.selection).toEqual({ x: 8, y: 8, width: 14, height: 14 });
    expect(selected(e.doc, 15, 15)).toBe(0);
    expect(selected(e.doc, 11, 15)).toBe(255);
  });

  test("a selection touching the canvas edge does not shrink from it", async () => {
    const e = editor();
    await e.edit({ op: "selection:all" });
    await e.edit({ op: "selection:modify", how: "contract", pixels: 5 });
    expect(e.doc.selection).toEqual({ x: 0, y: 0, width: 40, height: 30 });
  });

  test("feather softens the edge symmetrically; smooth rounds corners", async () => {
    const e = editor();
    selectShape(e.doc, { kind: "rect", rect });
    await e.edit({ op: "selection:modify", how: "feather", pixels: 2 });
    expect(selected(e.doc, 15, 10)).toBeGreaterThan(100);
    expect(selected(e.doc, 15, 10)).toBeLessThan(200);
    expect(selected(e.doc, 15, 15)).toBe(255);
    expect(e.doc.selection!.x).toBeLessThan(10);
    selectShape(e.doc, { kind: "rect", rect });
    await e.edit({ op: "selection:modify", how: "smooth", pixels: 2 });
    expect(selected(e.doc, 10, 10)).toBe(0);
    expect(selected(e.doc, 11, 11)).toBe(255);
  });

  test("invert, clear, all", async () => {
    const e = editor();
    selectShape(e.doc, { kind: "rect", rect });
    await e.edit({ op: "selection:invert" });
    expect(e.doc.selection).toEqual({ x: 0, y: 0, width: 40, height: 30 });
    expect(selected(e.doc, 12, 12)).toBe(0);
    expect(selected(e.doc, 0, 0)).toBe(255);
    await e.edit({ op: "selection:clear" });
    expect(e.doc.selection).toBeNull();
    await e.edit({ op: "selection:invert" });
    expect(e.doc.selection).toEqual({ x: 0, y: 0, width: 40, height: 30 });
    await e.edit({ op: "selection:invert" });
    expect(e.doc.selection).toBeNull();
  });

  test("fromLayer takes the alpha; modes add, subtract and intersect", async () => {
    const e = editor();
    await e.edit({ op: "selection:fromLayer", layerId: e.layerId, mode: "replace" });
    expect(e.doc.selection).toEqual({ x: 10, y: 20, width: 4, height: 3 });
    selectShape(e.doc, { kind: "rect", rect: { x: 0, y: 0, width: 12, height: 21 } });
    await e.edit({ op: "selection:fromLayer", layerId: e.layerId, mode: "intersect" });
    expect(e.doc.selection).toEqual({ x: 10, y: 20, width: 2, height: 1 });
    await e.edit({ op: "selection:fromLayer", layerId: e.layerId, mode: "add" });
    expect(e.doc.selection).toEqual({ x: 10, y: 20, width: 4, height: 3 });
    await e.edit({ op: "selection:fromLayer", layerId: e.layerId, mode: "subtract" });
    expect(e.doc.selection).toBeNull();
  });

  test("fromColor: a contiguous region from a point, or a colour everywhere, within the tolerance", async () => {
    // Two red squares apart on a transparent layer.
    const raster = emptyRaster(20, 10);
    for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) {
      raster.data.set([250, 0, 0, 255], (y * 20 + x) * 4);
      raster.data.set([240, 10, 0, 255], (y * 20 + x + 10) * 4);
    }
    const e = editor({ layer: raster, left: 0, top: 0 });
    const base = { op: "selection:fromColor" as const, layerId: e.layerId, sampleMerged: false, mode: "replace" as const };
    await e.edit({ ...base, point: { x: 1, y: 1 }, tolerance: 20, contiguous: true });
    expect(e.doc.selection).toEqual({ x: 0, y: 0, width: 4, height: 4 });
    await e.edit({ ...base, color: [250, 0, 0, 255], tolerance: 10, contiguous: false });
    expect(e.doc.selection).toEqual({ x: 0, y: 0, width: 14, height: 4 });
    await e.edit({ ...base, color: [250, 0, 0, 255], tolerance: 9, contiguous: false });
    expect(e.doc.selection).toEqual({ x: 0, y: 0, width: 4, height: 4 });
    // The composite: the grey background around the squares is one region.
    await e.edit({ ...base, layerId: undefined, sampleMerged: true, point: { x: 30, y: 20 }, tolerance: 0, contiguous: true });
    expect(e.doc.selection).toEqual({ x: 0, y: 0, width: 40, height: 30 });
    expect(selected(e.doc, 1, 1)).toBe(0);
  });
});
