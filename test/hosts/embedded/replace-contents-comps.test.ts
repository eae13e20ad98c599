/**
 * `layer:replaceContents` and layer comps on the embedded editor, at the host's edit interface: a smart object with
 * a rotation and a scale (a PSD made with ag-psd) takes a new image through its transform and is saved as a smart
 * object whose embedded file is that image; pixel layers take an image by each fit; the comps of a PSD Photoshop
 * made (psd-tools' `layer_comps.psd`) list, apply, and survive being made, changed, deleted and saved.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPsd, writePsdBuffer, type Layer, type Psd } from "ag-psd";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EditImage, EditOp } from "../../../src/hosts/edits.js";
import type { HostAdapter } from "../../../src/hosts/host.js";
import { ensureCanvasFactory } from "../../../src/hosts/embedded/psd.js";
import { quadrants, smartObjectLayer, turnedCorners } from "../../helpers/psd-smart.js";
import { connectedHost, ctx, exportLayer, failureOf, layerNamed, layersOf, pixelAt, rawPixels } from "./helpers.js";


const CORPUS = join(import.meta.dirname, "../../fixtures/psd/psd-tools");

const asImage = async (bytes: Buffer): Promise<EditImage> => {
  const meta = await sharp(bytes).metadata();
  return { bytes: new Uint8Array(bytes), format: meta.format!, width: meta.width!, height: meta.height! };
};

const FRAME = { width: 40, height: 20 };
const SCALE = 1.5;
const ANGLE = 30;
const CENTRE = { x: 60, y: 50 };
const SMART_ID = "20953ddb-9391-11ec-b4f1-c15674f50bc4";

/** A 120×100 PSD: a smart object "Photo" (a 40×20 embedded PNG, scaled 150 % and turned 30°) above a white background. */
async function smartObjectPsd(path: string): Promise<void> {
  ensureCanvasFactory();
  const embedded = await quadrants(FRAME.width, FRAME.height);
  const frame = { ...FRAME, scale: SCALE, degrees: ANGLE, centre: CENTRE };
  const { layer: photo, file } = smartObjectLayer("Photo", SMART_ID, embedded, frame, { opacity: 0.8, blendMode: "multiply" });
  const background: Layer = { name: "Background", imageData: { width: 120, height: 100, data: new Uint8ClampedArray(120 * 100 * 4).fill(255) } };
  const psd: Psd = { width: 120, height: 100, children: [background, photo], linkedFiles: [{ ...file, name: "photo.png" }] };
  await writeFile(path, writePsdBuffer(psd));
}

let host: HostAdapter;
let dir: string;

beforeAll(async () => {
  host = await connectedHost();
  dir = await mkdtemp(join(tmpdir(), "replace-contents-"));
});
afterAll(async () => {
  await host.close();
  await rm(dir, { recursive: true, force: true });
});

const edit = (documentId: number, op: EditOp) => host.edit!(ctx(), { documentId, edit: op });

describe("layer:replaceContents on a smart object", () => {
  it("draws the new image through the placed layer's transform and saves it as the smart object's embedded file", async () => {
    const path = join(dir, "smart.psd");
    await smartObjectPsd(path);
    const doc = await host.openDocument!(ctx(), path);
    const photo = await layerNamed(host, "Photo", doc.id);
    expect(photo.kind).toBe("smartObject");
    // A new image of another shape and size: `fill` makes its corners the frame's.
    const replacement = await quadrants(64, 64);
    await edit(doc.id, { op: "layer:replaceContents", layerId: photo.id, image: await asImage(replacement), fit: "fill", alignment: [0.5, 0.5], box: null });
    const after = await layerNamed(host, "Photo", doc.id);
    expect(after).toMatchObject({ kind: "smartObject", opacity: photo.opacity, blendMode: photo.blendMode, index: photo.index });
    // Its pixels: the bounding box of the turned frame (within 1 px), and each quadrant's colour just inside its corner.
    const corners = turnedCorners(FRAME.width, FRAME.height, SCALE, ANGLE, CENTRE.x, CENTRE.y);
    const xs = corners.filter((_, i) => i % 2 === 0);
    const ys = corners.filter((_, i) => i % 2 === 1);
    expect(Math.abs(after.rect.x - Math.min(...xs))).toBeLessThanOrEqual(1);
    expect(Math.abs(after.rect.y - Math.min(...ys))).toBeLessThanOrEqual(1);
    expect(Math.abs(after.rect.x + after.rect.width - Math.max(...xs))).toBeLessThanOrEqual(1);
    expect(Math.abs(after.rect.y + after.rect.height - Math.max(...ys))).toBeLessThanOrEqual(1);
    const pixels = await rawPixels((await exportLayer(host, after.id, doc.id)).bytes);
    const expected = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0]];
    const cx = (xs[0]! + xs[2]!) / 2;
    const cy = (ys[0]! + ys[2]!) / 2;
    for (let i = 0; i < 4; i++) {
      // 3 px from the corner towards the centre: inside the quadrant that corner belongs to.
      const [x, y] = [xs[i]!, ys[i]!];
      const d = Math.hypot(cx - x, cy - y);
      const px = Math.round(x + ((cx - x) / d) * 3 - after.rect.x - 0.5);
      const py = Math.round(y + ((cy - y) / d) * 3 - after.rect.y - 0.5);
      expect(pixelAt(pixels, px, py).slice(0, 3)).toEqual(expected[i]);
      // 2 px outside the corner, away from the centre: nothing.
      const ox = Math.round(x - ((cx - x) / d) * 2 - after.rect.x - 0.5);
      const oy = Math.round(y - ((cy - y) / d) * 2 - after.rect.y - 0.5);
      if (ox >= 0 && oy >= 0 && ox < pixels.width && oy < pixels.height) expect(pixelAt(pixels, ox, oy)[3]).toBe(0);
    }
    // Saved: still a smart object, its transform the frame's corners, its embedded file the new image.
    const saved = join(dir, "smart-saved.psd");
    // Nothing of the file is lost by the save (the smart object, its embedded file, its opacity and blend mode).
    expect(await host.saveLosses!(ctx(), { documentId: doc.id, path: saved })).toEqual([]);
    await host.saveDocument!(ctx(), { documentId: doc.id, path: saved, backup: false });
    const psd = readPsd(await readFile(saved), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
    const layer = psd.children!.find((l) => l.name === "Photo")!;
    expect(layer.placedLayer).toBeDefined();
    expect(layer.placedLayer!.width).toBe(64);
    expect(layer.placedLayer!.height).toBe(64);
    for (const [i, v] of layer.placedLayer!.transform.entries()) expect(Math.abs(v - corners[i]!)).toBeLessThan(0.01);
    const file = psd.linkedFiles?.find((f) => f.id === layer.placedLayer!.id);
    expect(psd.linkedFiles?.map((f) => f.id)).toContain(layer.placedLayer!.id);
    expect(Buffer.from(file!.data!).equals(replacement)).toBe(true);
    await host.closeDocument!(ctx(), doc.id);
  });

  it("with contain, keeps the image's shape inside the frame; a perspective transform is NOT_SUPPORTED naming it", async () => {
    const path = join(dir, "smart-contain.psd");
    await smartObjectPsd(path);
    const doc = await host.openDocument!(ctx(), path);
    const photo = await layerNamed(host, "Photo", doc.id);
    // A square into the 40×20 frame: 20×20 in the middle, so the content is 30 px square on the document.
    await edit(doc.id, { op: "layer:replaceContents", layerId: photo.id, image: await asImage(await quadrants(50, 50)), fit: "contain", alignment: [0.5, 0.5], box: null });
    const saved = join(dir, "smart-contain-saved.psd");
    await host.saveDocument!(ctx(), { documentId: doc.id, path: saved, backup: false });
    const psd = readPsd(await readFile(saved), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
    const t = psd.children!.find((l) => l.name === "Photo")!.placedLayer!.transform;
    expect(Math.hypot(t[2]! - t[0]!, t[3]! - t[1]!)).toBeCloseTo(30, 6);
    expect(Math.hypot(t[6]! - t[0]!, t[7]! - t[1]!)).toBeCloseTo(30, 6);
    expect((t[0]! + t[4]!) / 2).toBeCloseTo(CENTRE.x, 6);
    await host.closeDocument!(ctx(), doc.id);

    // The same file with its fourth corner pulled out of the parallelogram.
    ensureCanvasFactory();
    const bent = readPsd(await readFile(path), { useImageData: true });
    const placed = bent.children!.find((l) => l.name === "Photo")!.placedLayer!;
    placed.transform = placed.transform.map((v, i) => (i === 4 ? v + 6 : v));
    const bentPath = join(dir, "smart-perspective.psd");
    await writeFile(bentPath, writePsdBuffer(bent));
    const bentDoc = await host.openDocument!(ctx(), bentPath);
    const bentLayer = await layerNamed(host, "Photo", bentDoc.id);
    const failure = await failureOf(edit(bentDoc.id, { op: "layer:replaceContents", layerId: bentLayer.id, image: await asImage(await quadrants(8, 8)), fit: "fill", alignment: [0.5, 0.5], box: null }));
    expect(failure).toMatchObject({ code: "NOT_SUPPORTED", details: { transform: "perspective", capability: "layer:replaceContents" } });
    await host.closeDocument!(ctx(), bentDoc.id);
  });
});

describe("layer:replaceContents on a pixel layer", () => {
  it("fits the image into the layer's bounds by contain, cover, fill and none, keeping opacity and place", async () => {
    const doc = await host.createDocument!(ctx(), { width: 100, height: 80, name: "Pixels", background: [255, 255, 255, 255] });
    const made = await edit(doc.id, { op: "layer:create", kind: "pixel", name: "Slot", fillColor: [0, 0, 0, 255], place: { to: "top" } });
    const slot = made.layerId!;
    // The slot becomes a 40×20 box at (10, 10): fill the selection-less layer, then crop it by a move and replace.
    await edit(doc.id, { op: "layer:update", layerId: slot, opacity: 50 });
    const box = { x: 10, y: 10, width: 40, height: 20 };
    const wide = await asImage(await quadrants(80, 20));
    const cases = [
      { fit: "contain" as const, rect: { x: 10, y: 15, width: 40, height: 10 } },
      { fit: "cover" as const, rect: { x: 10, y: 10, width: 40, height: 20 } },
      { fit: "fill" as const, rect: { x: 10, y: 10, width: 40, height: 20 } },
      { fit: "none" as const, rect: { x: 10, y: 10, width: 40, height: 20 } },
    ];
    for (const { fit, rect } of cases) {
      await edit(doc.id, { op: "layer:replaceContents", layerId: slot, image: wide, fit, alignment: [0.5, 0.5], box });
      const layer = (await layersOf(host, doc.id)).find((l) => l.id === slot)!;
      expect(layer.rect, fit).toEqual(rect);
      expect(layer.opacity).toBeCloseTo(50, 0);
      expect(layer.name).toBe("Slot");
    }
    // `none` shows the middle 40 px of the 80 px image: green above the middle on its right half, red on its left.
    const pixels = await rawPixels((await exportLayer(host, slot, doc.id)).bytes);
    expect(pixelAt(pixels, 5, 2).slice(0, 3)).toEqual([255, 0, 0]);
    expect(pixelAt(pixels, 35, 2).slice(0, 3)).toEqual([0, 255, 0]);
    await host.closeDocument!(ctx(), doc.id);
  });
});

describe("layer comps", () => {
  it("lists Photoshop's comps, applies each one's visibility and offsets, and keeps them through a save", async () => {
    const doc = await host.openDocument!(ctx(), join(CORPUS, "layer_comps.psd"));
    const list = await host.layerComps!(ctx(), { documentId: doc.id });
    expect(list.comps.map((c) => c.name)).toEqual(["Cheeky", "Scary"]);
    expect(list.comps[0]).toMatchObject({ comment: "Emoticon with tongue", captures: { visibility: true, position: true, appearance: true } });
    const [cheeky, scary] = list.comps;
    const named = async () => Object.fromEntries((await layersOf(host, doc.id)).map((l) => [`${l.name}#${l.id}`, l]));
    const before = await named();
    // Scary: the eyes 9 px to the right, the tongue (Фигура 4 / 5) hidden, the other mouth (копия) and Фигура 6 shown.
    await edit(doc.id, { op: "layerComp:apply", compId: scary!.id });
    const s = await named();
    expect(s["Фигура 2#9"]!.rect.x).toBe(before["Фигура 2#9"]!.rect.x + 9);
    expect(s["Фигура 3#7"]!.rect.x).toBe(before["Фигура 3#7"]!.rect.x + 9);
    expect(s["Фигура 4#16"]!.visible).toBe(false);
    expect(s["Фигура 5#18"]!.visible).toBe(false);
    expect(s["Фигура 4 копия#20"]!.visible).toBe(true);
    expect(s["Фигура 6#19"]!.visible).toBe(true);
    expect((await host.layerComps!(ctx(), { documentId: doc.id })).lastApplied).toBe(scary!.id);
    // Cheeky: back where the file had them (the file was saved with Cheeky applied).
    await edit(doc.id, { op: "layerComp:apply", compId: cheeky!.id });
    const c = await named();
    for (const key of Object.keys(before)) {
      expect(c[key]!.rect, key).toEqual(before[key]!.rect);
      expect(c[key]!.visible, key).toBe(before[key]!.visible);
    }
    // Made, saved and read back: the new comp, and each layer's state under it.
    await edit(doc.id, { op: "layerComp:apply", compId: scary!.id });
    const made = await edit(doc.id, { op: "layerComp:create", name: "Scary copy", comment: null, captures: { visibility: true, position: true, appearance: false } });
    await edit(doc.id, { op: "layerComp:delete", compId: cheeky!.id });
    const saved = join(dir, "comps-saved.psd");
    expect(await host.saveLosses!(ctx(), { documentId: doc.id, path: saved })).toEqual([]);
    await host.saveDocument!(ctx(), { documentId: doc.id, path: saved, backup: false });
    ensureCanvasFactory();
    const psd = readPsd(await readFile(saved), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
    expect(psd.imageResources!.layerComps!.list.map((comp) => [comp.name, comp.capturedInfo])).toEqual([
      ["Scary", 7],
      ["Scary copy", 3],
    ]);
    const reopened = await host.openDocument!(ctx(), saved);
    await edit(reopened.id, { op: "layerComp:apply", compId: cheeky!.id }).then(
      () => expect.unreachable("Cheeky was deleted"),
      (error: { code?: string }) => expect(error.code).toBe("NOT_FOUND"),
    );
    // The copy was captured with Scary applied: moving a layer then applying the copy puts it back.
    const eye = (await layersOf(host, reopened.id)).find((l) => l.id === 9)!;
    await edit(reopened.id, { op: "layer:transform", layerId: 9, dx: -5, dy: 4, scaleX: 100, scaleY: 100, angle: 0, flip: "none", anchor: { x: 0, y: 0 }, resample: "bilinear" });
    await edit(reopened.id, { op: "layerComp:apply", compId: made.compId! });
    expect((await layersOf(host, reopened.id)).find((l) => l.id === 9)!.rect).toEqual(eye.rect);
    // And undo takes a comp edit back as one step.
    await edit(reopened.id, { op: "layerComp:delete", compId: made.compId! });
    expect((await host.layerComps!(ctx(), { documentId: reopened.id })).comps.map((comp) => comp.name)).toEqual(["Scary"]);
    await host.history!(ctx(), { op: "undo", documentId: reopened.id, steps: 1 });
    expect((await host.layerComps!(ctx(), { documentId: reopened.id })).comps.map((comp) => comp.name)).toEqual(["Scary", "Scary copy"]);
    await host.closeDocument!(ctx(), reopened.id);
    await host.closeDocument!(ctx(), doc.id);
  });
});
