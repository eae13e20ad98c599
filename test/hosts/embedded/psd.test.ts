import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writePsdBuffer } from "ag-psd";
import type { Layer } from "ag-psd";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostLayer } from "../../../src/protocol/index.js";
import { connectedHost, ctx, exportDocument, exportLayer, layersOf, pixelAt, rawPixels, runJs } from "./helpers.js";

function solid(width: number, height: number, rgba: [number, number, number, number]): { width: number; height: number; data: Uint8ClampedArray } {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { width, height, data };
}

/** Top to bottom: Offset (past the canvas edge), Empty, group G (50 %) with Red and hidden Blue, Background. */
function fixturePsd(): Buffer {
  const children: Layer[] = [
    { name: "Background", id: 3, imageData: solid(40, 30, [255, 255, 255, 255]) },
    {
      name: "G",
      id: 10,
      opacity: 128 / 255,
      blendMode: "normal",
      opened: true,
      children: [
        { name: "Blue", id: 12, left: 20, top: 10, hidden: true, opacity: 200 / 255, blendMode: "multiply", imageData: solid(10, 10, [0, 0, 255, 255]) },
        { name: "Red", id: 11, left: 5, top: 5, imageData: solid(10, 10, [255, 0, 0, 255]) },
      ],
    },
    { name: "Empty", id: 20 },
    { name: "Offset", id: 21, left: -4, top: 26, imageData: solid(8, 8, [0, 255, 0, 255]) },
  ];
  return writePsdBuffer({ width: 40, height: 30, imageData: solid(40, 30, [255, 255, 255, 255]), children });
}

const shape = (layer: HostLayer): unknown => ({
  id: layer.id,
  index: layer.index,
  name: layer.name,
  kind: layer.kind,
  visible: layer.visible,
  opacity: layer.opacity,
  blendMode: layer.blendMode,
  bounds: layer.bounds,
});

describe("embedded host: files", () => {
  let dir = "";
  let fixture = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "embedded-host-"));
    fixture = join(dir, "fixture.psd");
    await writeFile(fixture, fixturePsd());
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("opens a PSD with its groups, ids, names, visibility, opacity, blend modes and offsets", async () => {
    const host = await connectedHost({ sample: false });
    const doc = await host.openDocument!(ctx(), fixture);
    expect(doc).toMatchObject({ name: "fixture.psd", width: 40, height: 30, filePath: fixture, isDirty: false });
    const layers = await layersOf(host);
    expect(layers.map((l) => [l.index, l.id, l.name, l.kind, l.visible])).toEqual([
      [0, 21, "Offset", "pixel", true],
      [1, 20, "Empty", "pixel", true],
      [2, 10, "G", "group", true],
      [3, 11, "Red", "pixel", true],
      [4, 12, "Blue", "pixel", false],
      [5, 3, "Background", "background", true],
    ]);
    const byName = new Map(layers.map((l) => [l.name, l]));
    expect(byName.get("G")?.opacity).toBe(50.2);
    expect(byName.get("Blue")).toMatchObject({ opacity: 78.4, blendMode: "multiply", bounds: { left: 20, top: 10, right: 30, bottom: 20 } });
    expect(byName.get("Offset")?.bounds).toEqual({ left: -4, top: 26, right: 4, bottom: 34 });
    expect(byName.get("Empty")?.bounds).toEqual({ left: 0, top: 0, right: 0, bottom: 0 });
    expect(byName.get("G")?.bounds).toEqual({ left: 5, top: 5, right: 30, bottom: 20 });
  });

  it("hidden layers are left out of the composite; group opacity applies to its children", async () => {
    const host = await connectedHost({ open: fixture });
    const image = await rawPixels((await exportDocument(host)).bytes);
    expect(pixelAt(image, 25, 15)).toEqual([255, 255, 255, 255]); // under the hidden Blue
    const [r, g, b] = pixelAt(image, 7, 7); // Red at 128/255 over white
    expect(r).toBe(255);
    expect(Math.abs(g! - 127)).toBeLessThanOrEqual(1);
    expect(Math.abs(b! - 127)).toBeLessThanOrEqual(1);
    expect(pixelAt(image, 0, 29)).toEqual([0, 255, 0, 255]); // Offset, clipped by the canvas
  });

  it("save then open round-trips the tree and every layer's pixels", async () => {
    const host = await connectedHost({ open: fixture });
    const saved = join(dir, "roundtrip.psd");
    expect(await host.saveDocument!(ctx(), { documentId: 1, path: saved, backup: true })).toEqual({ path: saved, format: "psd" });
    expect(await host.getDocument(ctx(), undefined)).toMatchObject({ filePath: saved, isDirty: false, name: "roundtrip.psd" });
    const before = await layersOf(host);
    const reopened = await host.openDocument!(ctx(), saved);
    const after = await layersOf(host, reopened.id);
    expect(after.map(shape)).toEqual(before.map(shape));
    for (const layer of before) {
      const a = await exportLayer(host, layer.id, 1);
      const b = await exportLayer(host, layer.id, reopened.id);
      expect((await rawPixels(b.bytes)).data.equals((await rawPixels(a.bytes)).data)).toBe(true);
    }
  });

  it("the sample survives a PSD round trip including the composite other readers show", async () => {
    const host = await connectedHost();
    const path = join(dir, "sample.psd");
    await host.saveDocument!(ctx(), { documentId: 1, path, backup: false });
    const original = await rawPixels((await exportDocument(host)).bytes);
    const reopened = await host.openDocument!(ctx(), path);
    const composite = await rawPixels((await exportDocument(host, { documentId: reopened.id })).bytes);
    expect(composite.data.equals(original.data)).toBe(true);
    expect((await host.getDocumentTree(ctx(), reopened.id)).layers.map((l) => l.name)).toEqual(["Label", "Product", "Background"]);
  });

  it("saving needs a .psd or .psb path: .png → BAD_REQUEST pointing to export", async () => {
    const host = await connectedHost();
    await expect(host.saveDocument!(ctx(), { documentId: 1, path: join(dir, "x.png"), backup: false })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("document:export"),
    });
  });

  it("opens a PNG as one Background layer", async () => {
    const host = await connectedHost({ sample: false });
    const path = join(dir, "plain.png");
    await sharp({ create: { width: 12, height: 7, channels: 3, background: "#336699" } }).png().toFile(path);
    const doc = await host.openDocument!(ctx(), path);
    expect(doc).toMatchObject({ name: "plain.png", width: 12, height: 7 });
    expect((await host.getDocumentTree(ctx(), doc.id)).layers.map((l) => [l.name, l.kind])).toEqual([["Background", "background"]]);
    expect(pixelAt(await rawPixels((await exportDocument(host)).bytes), 3, 3)).toEqual([51, 102, 153, 255]);
  });

  it("opening a missing file is NOT_FOUND; an unknown extension or a corrupt file is BAD_REQUEST; each names the path", async () => {
    const host = await connectedHost({ sample: false });
    const missing = join(dir, "missing.psd");
    await expect(host.openDocument!(ctx(), missing)).rejects.toMatchObject({ code: "NOT_FOUND", details: { path: missing } });
    const text = join(dir, "notes.txt");
    await writeFile(text, "hello");
    await expect(host.openDocument!(ctx(), text)).rejects.toMatchObject({ code: "BAD_REQUEST", details: { path: text } });
    const corrupt = join(dir, "corrupt.png");
    await writeFile(corrupt, "not a png");
    await expect(host.openDocument!(ctx(), corrupt)).rejects.toMatchObject({ code: "BAD_REQUEST", details: { path: corrupt } });
    expect(await host.listDocuments(ctx())).toEqual([]);
  });

  it("a file larger than maxDocumentPixels is PAYLOAD_TOO_LARGE", async () => {
    const host = await connectedHost({ sample: false, maxDocumentPixels: 1000 });
    await expect(host.openDocument!(ctx(), fixture)).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  });
});

/** 1-byte mask: left half shows, right half hides. */
function halfMask(width: number, height: number): { width: number; height: number; data: Uint8ClampedArray } {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) data.set(col < width / 2 ? [255, 255, 255, 255] : [0, 0, 0, 255], (row * width + col) * 4);
  }
  return { width, height, data };
}

/** Top to bottom: Masked (red, mask hides its right half), group Iso (normal, 50 %) with Mul (multiply), group Pass (pass through) with Mul2, Hidden, Background grey. */
function fidelityPsd(): Buffer {
  const children: Layer[] = [
    { name: "Background", id: 1, imageData: solid(40, 30, [128, 128, 128, 255]) },
    { name: "Hidden", id: 2, hidden: true, imageData: solid(40, 30, [0, 0, 0, 255]) },
    {
      name: "Pass",
      id: 3,
      blendMode: "pass through",
      opened: true,
      children: [{ name: "Mul2", id: 4, left: 0, top: 20, blendMode: "multiply", imageData: solid(10, 10, [255, 0, 0, 255]) }],
    },
    {
      name: "Iso",
      id: 5,
      blendMode: "normal",
      opacity: 128 / 255,
      opened: true,
      children: [{ name: "Mul", id: 6, left: 10, top: 20, blendMode: "multiply", imageData: solid(10, 10, [255, 0, 0, 255]) }],
    },
    {
      name: "Masked",
      id: 7,
      left: 20,
      top: 0,
      opacity: 128 / 255,
      blendMode: "screen",
      imageData: solid(10, 10, [255, 0, 0, 255]),
      mask: { left: 20, top: 0, right: 30, bottom: 10, defaultColor: 0, imageData: halfMask(10, 10) },
    },
  ];
  return writePsdBuffer({ width: 40, height: 30, imageData: solid(40, 30, [128, 128, 128, 255]), children });
}

describe("embedded host: PSD fidelity", () => {
  let dir = "";
  let fixture = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "embedded-psd-"));
    fixture = join(dir, "fidelity.psd");
    await writeFile(fixture, fidelityPsd());
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("masks, blend modes, pass-through and isolated groups and opacity render as an editor does", async () => {
    const host = await connectedHost({ open: fixture });
    const image = await rawPixels((await exportDocument(host)).bytes);
    // Masked: screen of red at 128/255 over grey where the mask shows; grey where it hides.
    const screened = Math.round(128 + (255 - 128) * (128 / 255));
    const [r, g] = pixelAt(image, 21, 5);
    expect(Math.abs(r! - screened)).toBeLessThanOrEqual(1);
    expect(g).toBe(128);
    expect(pixelAt(image, 28, 5)).toEqual([128, 128, 128, 255]);
    // Pass-through: multiply sees the grey below the group → (128, 0, 0).
    expect(pixelAt(image, 5, 25)).toEqual([128, 0, 0, 255]);
    // Isolated: multiply has nothing below inside the group → plain red at 50 % over grey.
    const [ir, ig] = pixelAt(image, 15, 25);
    expect(Math.abs(ir! - 192)).toBeLessThanOrEqual(1);
    expect(Math.abs(ig! - 64)).toBeLessThanOrEqual(1);
    // Hidden layer is left out.
    expect(pixelAt(image, 35, 15)).toEqual([128, 128, 128, 255]);
    // The layer's own export applies its mask: the right half is transparent.
    const masked = (await host.getDocumentTree(ctx(), undefined)).layers.find((l) => l.name === "Masked")!;
    const own = await rawPixels((await exportLayer(host, masked.id)).bytes);
    expect(pixelAt(own, 1, 5)).toEqual([255, 0, 0, 255]);
    expect(pixelAt(own, 8, 5)[3]).toBe(0);
  });

  it("save and reopen keeps groups, visibility, exact opacity, blend modes, offsets and masks: the composite is pixel-exact", async () => {
    const host = await connectedHost({ open: fixture });
    await runJs(host, "app.activeDocument.layers.getByName('Background').opacity = 50");
    const saved = join(dir, "fidelity-roundtrip.psd");
    await host.saveDocument!(ctx(), { documentId: 1, path: saved, backup: false });
    const before = await layersOf(host);
    const composite = await rawPixels((await exportDocument(host)).bytes);
    const reopened = await host.openDocument!(ctx(), saved);
    const after = await layersOf(host, reopened.id);
    expect(after.map(shape)).toEqual(before.map(shape));
    expect(after.find((l) => l.name === "Background")?.opacity).toBe(50.2);
    expect(after.find((l) => l.name === "Masked")?.blendMode).toBe("screen");
    expect(after.find((l) => l.name === "Pass")?.blendMode).toBe("pass through");
    const again = await rawPixels((await exportDocument(host, { documentId: reopened.id })).bytes);
    expect(again.data.equals(composite.data)).toBe(true);
    // The mask survives as a mask (the layer's own pixels are still whole), not baked into the pixels.
    const masked = await runJs(host, "app.activeDocument.layers.getByName('Masked').info().hasMask");
    expect(masked).toBe(true);
  });

  it("a plain stack composited by libvips matches the JS compositor within one level", async () => {
    const host = await connectedHost({ sample: false });
    await runJs(
      host,
      `const doc = app.documents.add(64, 48, "Plain", "#336699");
        const a = doc.artLayers.add("A"); doc.selection.select({ x: 4, y: 4, width: 40, height: 30 }); a.fill([255, 128, 0, 100]);
        const b = doc.artLayers.add("B"); doc.selection.select({ x: 20, y: 10, width: 40, height: 30 }); b.fill([10, 200, 90, 255]);
        doc.selection.deselect();`,
    );
    const viaLibvips = await rawPixels((await exportDocument(host)).bytes);
    // `dissolve` on an opaque layer draws every pixel (as normal) but is not a plain stack: the same pixels through
    // the JS compositor.
    await runJs(host, "app.activeDocument.layers.getByName('B').blendMode = 'dissolve'");
    const viaJs = await rawPixels((await exportDocument(host)).bytes);
    let worst = 0;
    for (let i = 0; i < viaJs.data.length; i++) worst = Math.max(worst, Math.abs(viaJs.data[i]! - viaLibvips.data[i]!));
    expect(worst).toBeLessThanOrEqual(1);
    expect(pixelAt(viaJs, 30, 20)).not.toEqual(pixelAt(viaJs, 2, 2));
  });
});
