import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstValueFrom, filter, type Observable } from "rxjs";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import type { HostAdapter, PreviewEvent } from "../../../src/hosts/host.js";
import { createPhotoshopHost } from "../../../src/hosts/photoshop/index.js";
import type { FakePhotoshop } from "../../fakes/photoshop/server.js";
import { ctx, hostOn, startFake } from "./_setup.js";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A connected host on a fresh fake, the sample document's id, and its layers by name. */
async function connected(): Promise<{ fake: FakePhotoshop; host: HostAdapter; documentId: number; id: (name: string) => number }> {
  const fake = await startFake();
  const host = hostOn(fake);
  await host.connect();
  const { document, layers } = await host.getDocumentTree(ctx(), undefined);
  const flat = layers.flatMap((l) => [l, ...(l.children ?? [])]);
  return { fake, host, documentId: document.id, id: (name) => flat.find((l) => l.name === name)!.id };
}

/** RGBA of one output pixel. */
async function pixelAt(bytes: Uint8Array, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * 4;
  return [...data.subarray(at, at + 4)];
}

describe("Photoshop documents", () => {
  it("getDocumentTree answers the document and its layer tree, top-most first in generator indices, in one evaluation", async () => {
    const { fake, host } = await connected();
    const before = fake.requests.length;
    const tree = await host.getDocumentTree(ctx(), undefined);
    expect(fake.requests.slice(before).map((r) => r.op)).toEqual(["document.tree"]);
    expect(tree.document).toMatchObject({ name: "Sample", width: 320, height: 240 });
    expect(tree.layers.map((l) => [l.name, l.index])).toEqual([
      ["Title", 5],
      ["Group G", 4],
      ["Background", 0],
    ]);
    expect(tree.layers[1]!.children!.map((l) => [l.name, l.index])).toEqual([
      ["A", 3],
      ["B", 2],
    ]);
    await expect(host.getDocumentTree(ctx(), 999)).rejects.toMatchObject({ code: "DOCUMENT_NOT_FOUND" });
  });

  it("createDocument fills with an opaque colour or leaves the document transparent, and refuses a translucent background naming the rule", async () => {
    const { fake, host } = await connected();
    const blue = await host.createDocument!(ctx(), { width: 20, height: 10, name: "Blue", background: [0x33, 0x66, 0xff, 255] });
    expect(blue).toMatchObject({ name: "Blue", width: 20, height: 10 });
    expect(fake.requests.at(-1)!.params).toMatchObject({ background: "#3366ff" });
    const image = await host.exportDocumentImage(ctx(), { documentId: blue.id, format: "png", size: { width: 20, height: 10 } });
    expect(await pixelAt(image.bytes, 5, 5)).toEqual([0x33, 0x66, 0xff, 255]);
    const clear = await host.createDocument!(ctx(), { width: 8, height: 8, name: "Clear", background: [255, 255, 255, 0] });
    expect(fake.requests.at(-1)!.params).toMatchObject({ background: "transparent" });
    expect((await host.getDocumentTree(ctx(), clear.id)).layers.map((l) => l.kind)).toEqual(["pixel"]);
    const sent = fake.requests.length;
    await expect(host.createDocument!(ctx(), { width: 8, height: 8, name: "Half", background: [0, 0, 0, 128] })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/alpha must be 0 or 255/),
    });
    expect(fake.requests.length).toBe(sent);
  });

  it("selectLayers and closeDocument answer nothing and change Photoshop's state", async () => {
    const { host, documentId, id } = await connected();
    expect(await host.selectLayers!(ctx(), { documentId, ids: [id("A"), id("B"), id("A")] })).toBeUndefined();
    expect((await host.getDocument(ctx(), documentId)).activeLayerIds).toEqual([id("A"), id("B")]);
    expect(await host.closeDocument!(ctx(), documentId)).toBeUndefined();
    await expect(host.getDocument(ctx(), undefined)).rejects.toMatchObject({ code: "NO_DOCUMENT" });
  });

  it("saveDocument has Photoshop write the PSD and keeps a copy of the replaced file beside it", async () => {
    const { host, documentId } = await connected();
    const dir = await mkdtemp(join(tmpdir(), "ps-save-"));
    dirs.push(dir);
    const path = join(dir, "out.psd");
    await writeFile(path, "previous");
    const saved = await host.saveDocument!(ctx(), { documentId, path, backup: true });
    expect(saved).toEqual({ path, format: "psd", backupPath: `${path}.bak` });
    expect(await readFile(`${path}.bak`, "utf8")).toBe("previous");
    expect((await readFile(path)).subarray(0, 4).toString("latin1")).toBe("8BPS");
    await expect(host.saveDocument!(ctx(), { documentId, path: join(dir, "out.png"), backup: false })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("Photoshop layers", () => {
  it("importLayer places the image at its size and position directly above the given layer, active, and removes the temporary file", async () => {
    const { fake, host, documentId, id } = await connected();
    const bytes = await sharp({ create: { width: 12, height: 9, channels: 4, background: "#3366ff" } }).jpeg().toBuffer();
    const image = { bytes, format: "jpeg" as const, width: 12, height: 9 };
    const options = { documentId, image, size: { width: 24, height: 18 }, position: { x: 3, y: 4 }, name: "Imported", aboveLayerId: id("B") };
    const layerId = await host.importLayer!(ctx(), options);
    const placed = fake.requests.filter((r) => r.op === "layer.place").at(-1)!.params as { path: string };
    expect(existsSync(placed.path)).toBe(false);
    const { document, layers } = await host.getDocumentTree(ctx(), documentId);
    expect(document.activeLayerIds).toEqual([layerId]);
    const group = layers.find((l) => l.name === "Group G")!;
    expect(group.children!.map((l) => l.name)).toEqual(["A", "Imported", "B"]);
    expect(group.children![1]).toMatchObject({ id: layerId, kind: "pixel", rect: { x: 3, y: 4, width: 24, height: 18 } });
    const exported = await host.exportLayerImage(ctx(), { documentId, layerId, format: "png", size: { width: 24, height: 18 } });
    // JPEG is lossy: the colour comes back within a few levels.
    const [r, g, b] = await pixelAt(exported.bytes, 12, 9);
    expect([Math.abs(r! - 0x33), Math.abs(g! - 0x66), Math.abs(b! - 0xff)].every((d) => d < 8)).toBe(true);

    const top = await host.importLayer!(ctx(), { ...options, size: { width: 12, height: 9 }, name: "On top", aboveLayerId: null });
    expect((await host.getDocumentTree(ctx(), documentId)).layers[0]).toMatchObject({ id: top, name: "On top" });
  });

  it("a Photoshop on another machine has no importLayer, no layer:replaceContents and no pattern fills: it cannot read this machine's temporary files", async () => {
    const host = createPhotoshopHost({ host: "192.0.2.1", port: 49494, password: "unused" });
    expect(host.filesystem).toBe("remote");
    expect(host.importLayer).toBeUndefined();
    expect(Object.keys(host.editCapabilities!)).not.toContain("layer:replaceContents");
    expect(Object.keys(host.editCapabilities!)).toContain("layerComp:create");
    // Refused before anything is sent to Photoshop.
    const image = { bytes: await sharp({ create: { width: 2, height: 2, channels: 3, background: "#000" } }).png().toBuffer(), format: "png", width: 2, height: 2 };
    const edit = { op: "layer:create", kind: "fill", name: "Pattern Fill 1", place: { to: "top" }, fill: { type: "pattern", name: "Pattern", image } };
    await expect(host.edit!(ctx(), { documentId: 1, edit: edit as never })).rejects.toMatchObject({
      code: "NOT_SUPPORTED",
      details: { editor: "photoshop", capability: "pattern fills", field: "fill.image", filesystem: "remote" },
    });
  });
});

describe("Photoshop images", () => {
  it("exportDocumentImage renders exactly the size asked, from a composite Photoshop scaled first, in every format including TIFF", async () => {
    const { fake, host } = await connected();
    const png = await host.exportDocumentImage(ctx(), { documentId: undefined, format: "png", size: { width: 64, height: 48 } });
    expect(png).toMatchObject({ format: "png", width: 64, height: 48, bounds: { left: 0, top: 0, right: 320, bottom: 240 } });
    expect(fake.requests.filter((r) => r.op === "pixmap").at(-1)!.params).toMatchObject({ scale: 0.2 });
    const odd = await host.exportDocumentImage(ctx(), { documentId: undefined, format: "jpeg", quality: 80, size: { width: 33, height: 17 } });
    expect(await sharp(odd.bytes).metadata()).toMatchObject({ format: "jpeg", width: 33, height: 17 });
    const tiff = await host.exportDocumentImage(ctx(), { documentId: undefined, format: "tiff", size: { width: 320, height: 240 } });
    expect(await sharp(tiff.bytes).metadata()).toMatchObject({ format: "tiff", width: 320, height: 240 });
    expect(fake.requests.filter((r) => r.op === "pixmap").at(-1)!.params).toMatchObject({ scale: 1 });
  });

  it("exportDocumentImage leaves hidden layers and the contents of hidden groups out of the composite", async () => {
    const { fake, host } = await connected();
    const [, group] = fake.model.docs[0]!.layers;
    const full = { documentId: undefined, format: "png", size: { width: 320, height: 240 } } as const;
    expect(await pixelAt((await host.exportDocumentImage(ctx(), full)).bytes, 50, 70)).not.toEqual([255, 255, 255, 255]);
    group!.children![0]!.visible = false;
    expect(await pixelAt((await host.exportDocumentImage(ctx(), full)).bytes, 50, 70)).toEqual([255, 255, 255, 255]);
    expect(await pixelAt((await host.exportDocumentImage(ctx(), full)).bytes, 150, 150)).not.toEqual([255, 255, 255, 255]);
    group!.visible = false;
    expect(await pixelAt((await host.exportDocumentImage(ctx(), full)).bytes, 150, 150)).toEqual([255, 255, 255, 255]);
  });

  it("exportLayerImage covers the layer's rect at exactly the size asked; an empty layer is 1×1 transparent with zero bounds", async () => {
    const { fake, host, documentId, id } = await connected();
    const title = await host.exportLayerImage(ctx(), { documentId, layerId: id("Title"), format: "webp", size: { width: 140, height: 20 } });
    expect(title).toMatchObject({ format: "webp", width: 140, height: 20, bounds: { left: 20, top: 10, right: 300, bottom: 50 } });
    const doc = fake.model.docs[0]!;
    doc.layers.unshift({ id: 77, name: "Empty", kind: "pixel", visible: true, opacity: 100, left: 0, top: 0, right: 0, bottom: 0, color: [0, 0, 0, 0] });
    const pixmaps = fake.requests.filter((r) => r.op === "pixmap").length;
    const empty = await host.exportLayerImage(ctx(), { documentId, layerId: 77, format: "png", size: { width: 1, height: 1 } });
    expect(empty).toMatchObject({ width: 1, height: 1, bounds: { left: 0, top: 0, right: 0, bottom: 0 } });
    expect(await pixelAt(empty.bytes, 0, 0)).toEqual([0, 0, 0, 0]);
    expect(fake.requests.filter((r) => r.op === "pixmap").length).toBe(pixmaps);
    await expect(host.exportLayerImage(ctx(), { documentId, layerId: 999, format: "png", size: { width: 1, height: 1 } })).rejects.toMatchObject({
      code: "LAYER_NOT_FOUND",
    });
  });

  it("an outline is stroked over the layer where it lies in the document", async () => {
    const { host, documentId, id } = await connected();
    // Title covers x 20–300, y 10–50: the outline's top edge (y = 20) crosses it at row 10 of a full-size export.
    const outline = { d: "M30 20 L70 20 L70 40 L30 40 Z", box: { x: 30, y: 20, width: 40, height: 20 }, color: [0, 0, 255, 255] as const, width: 2 };
    const size = { width: 280, height: 40 };
    const plain = await host.exportLayerImage(ctx(), { documentId, layerId: id("Title"), format: "png", size });
    const drawn = await host.exportLayerImage(ctx(), { documentId, layerId: id("Title"), format: "png", size, outline });
    expect(await pixelAt(plain.bytes, 20, 10)).toEqual([255, 0, 0, 255]);
    expect(await pixelAt(drawn.bytes, 20, 10)).toEqual([0, 0, 255, 255]);
    expect(await pixelAt(drawn.bytes, 5, 5)).toEqual([255, 0, 0, 255]);
  });
});

describe("Photoshop selection and actions", () => {
  it("getSelectionOutline answers path data and its box in document pixels, grown by expand, or null", async () => {
    const { host, documentId } = await connected();
    expect(await host.getSelectionOutline!(ctx(), { documentId, expand: 0 })).toBeNull();
    await host.setSelection!(ctx(), { documentId, shape: { kind: "rect", rect: { x: 30, y: 20, width: 40, height: 20 } } });
    const outline = await host.getSelectionOutline!(ctx(), { documentId: undefined, expand: 2 });
    expect(outline).toEqual({ d: expect.stringMatching(/^M28 18 /), box: { x: 28, y: 18, width: 44, height: 24 } });
  });

  it("autoCutout selects the layer's subject; removeBackground answers whether it masked one", async () => {
    const { host, documentId, id } = await connected();
    expect(await host.autoCutout!(ctx(), { documentId, layerId: id("Title") })).toBe(true);
    expect(await host.getSelection(ctx(), documentId)).toEqual({ x: 20, y: 10, width: 280, height: 40 });
    expect(await host.removeBackground!(ctx(), { documentId, layerId: id("A") })).toBe(true);
    await expect(host.removeBackground!(ctx(), { documentId, layerId: 999 })).rejects.toMatchObject({ code: "LAYER_NOT_FOUND" });
  });
});

describe("Photoshop scripts and events", () => {
  it("runScript sends jsx:run sources unchanged, gives jsx:execute its params as a variable, and answers Photoshop's text", async () => {
    const { fake, host } = await connected();
    expect(host.scriptLanguage).toEqual({ names: ["extendscript", "javascript"], extension: ".jsx", label: "ExtendScript", maxBytes: 1_000_000 });
    expect(host.scriptsReachFiles).toBe(true);
    expect(await host.runScript!(ctx(), { source: "1+1", language: "extendscript", params: undefined, timeoutMs: 1_000 })).toBe("2");
    expect(fake.requests.at(-1)!.script).toBe("1+1");
    fake.handlers.push((script, params) => (script.endsWith('"hi " + params.who') ? { text: `hi ${(params as { who: string }).who}` } : undefined));
    const answer = await host.runScript!(ctx(), { source: '"hi " + params.who', language: "javascript", params: { who: 'a"b' }, timeoutMs: 1_000 });
    expect(answer).toBe('hi a"b');
    fake.faults.neverAnswer = () => true;
    await expect(host.runScript!(ctx(), { source: "1+1", language: "extendscript", params: undefined, timeoutMs: 50 })).rejects.toMatchObject({
      code: "HOST_BUSY",
    });
  });

  it("layer:previewChange emits the active layer with a PNG preview at most 300 pixels on its longest edge", async () => {
    const { fake, host, documentId, id } = await connected();
    const previews = host.events("layer:previewChange") as Observable<PreviewEvent | null>;
    const next = firstValueFrom(previews.pipe(filter((e) => e?.layer.id === id("Background"))));
    await fake.waitForSubscription("imageChanged");
    await host.selectLayers!(ctx(), { documentId, ids: [id("Background")] });
    const event = (await next)!;
    expect(event).toMatchObject({ documentId, layer: { id: id("Background"), name: "Background", index: 0 } });
    expect(event.image).toMatchObject({ format: "png", width: 300, height: 225, bounds: { left: 0, top: 0, right: 320, bottom: 240 } });
    expect(await sharp(event.image.bytes).metadata()).toMatchObject({ format: "png", width: 300, height: 225 });
  });
});
