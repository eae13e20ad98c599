import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstValueFrom, filter, take, toArray } from "rxjs";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { HostCallContext, PreviewEvent } from "../../../src/hosts/host.js";
import { createGimpHost, type GimpHost } from "../../../src/hosts/gimp/index.js";
import type { HostLayer } from "../../../src/protocol/index.js";
import { startBridge } from "../../helpers/bridge.js";
import { GIMP_BINARY, GIMP_SKIP, sharedGimpAttach } from "./_support.js";

const flatten = (layers: readonly HostLayer[]): HostLayer[] => layers.flatMap((l) => [l, ...flatten(l.children ?? [])]);
const ctx: HostCallContext = { signal: new AbortController().signal, caller: "test" };

/** RGBA pixels of an encoded image. */
async function pixels(bytes: Uint8Array): Promise<{ width: number; height: number; at(x: number, y: number): number[] }> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, at: (x, y) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)] };
}

describe.skipIf(GIMP_SKIP !== undefined)("the GIMP host", () => {
  let dir: string;
  let hosts: GimpHost[] = [];

  /** A host on the shared GIMP, connected: every connect closes all images and builds the sample document. */
  async function sampleHost(): Promise<GimpHost> {
    const host = createGimpHost({ binary: GIMP_BINARY, attach: await sharedGimpAttach(), sample: true, pollIntervalMs: 50 });
    hosts.push(host);
    await host.connect();
    return host;
  }
  const layerNamed = async (host: GimpHost, name: string): Promise<HostLayer> =>
    flatten((await host.getDocumentTree(ctx, undefined)).layers).find((l) => l.name === name)!;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "gimp-adapter-"));
  });
  afterEach(async () => {
    await Promise.all(hosts.map((h) => h.close()));
    hosts = [];
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reports GIMP's version and the sample tree in index order, a group before its children, in one read", async () => {
    const host = createGimpHost({ binary: GIMP_BINARY, attach: await sharedGimpAttach(), sample: true });
    hosts.push(host);
    expect((await host.connect()).hostVersion).toMatch(/^gimp 2\.10\./);
    const { document, layers } = await host.getDocumentTree(ctx, undefined);
    expect([document.name, document.width, document.height]).toEqual(["Sample", 320, 240]);
    const flat = flatten(layers);
    expect(flat.map((l) => [l.index, l.name, l.kind])).toEqual([
      [0, "Label", "pixel"],
      [1, "Product", "group"],
      [2, "Subject", "pixel"],
      [3, "Shadow", "pixel"],
      [4, "Background", "background"],
    ]);
    expect(document.activeLayerIds).toEqual([flat[2]!.id]);
    const shadow = flat[3]!;
    expect([shadow.opacity, shadow.blendMode, shadow.rect]).toEqual([60, "multiply", { x: 90, y: 170, width: 140, height: 30 }]);
    // A group's bounds are the union of its children.
    expect(flat[1]!.bounds).toEqual({ left: 90, top: 60, right: 230, bottom: 200 });
    expect(await host.getDocument(ctx, document.id)).toEqual(document);
  });

  it("a layer export applies the layer's opacity, sits at the layer's bounds and has exactly the size asked", async () => {
    const host = await sampleHost();
    const shadow = await layerNamed(host, "Shadow");
    const documentId = (await host.getDocument(ctx, undefined)).id;
    const image = await host.exportLayerImage(ctx, { documentId, layerId: shadow.id, format: "png", size: { width: 140, height: 30 } });
    expect(image.bounds).toEqual(shadow.bounds);
    const png = await pixels(image.bytes);
    expect([png.width, png.height, png.at(0, 0)[3]]).toEqual([140, 30, 153]); // 60 % of 255
    const half = await host.exportLayerImage(ctx, { documentId, layerId: shadow.id, format: "webp", size: { width: 70, height: 15 } });
    expect([half.format, half.width, half.height, (await sharp(half.bytes).metadata()).format]).toEqual(["webp", 70, 15, "webp"]);
  });

  it("an empty group reads as empty and exports as one transparent pixel with zero bounds", async () => {
    const host = await sampleHost();
    const { document } = await host.getDocumentTree(ctx, undefined);
    const id = (await host.runScript!(ctx, {
      source: `(let ((g (car (gimp-layer-group-new ${document.id})))) (gimp-image-insert-layer ${document.id} g 0 0) g)`,
      language: "script-fu",
      params: undefined,
      timeoutMs: 10_000,
    })) as number;
    const group = flatten((await host.getDocumentTree(ctx, document.id)).layers).find((l) => l.id === id)!;
    expect([group.kind, group.rect, group.children]).toEqual(["group", { x: 0, y: 0, width: 0, height: 0 }, []]);
    const image = await host.exportLayerImage(ctx, { documentId: document.id, layerId: id, format: "png", size: { width: 1, height: 1 } });
    expect([image.width, image.height, image.bounds]).toEqual([1, 1, { left: 0, top: 0, right: 0, bottom: 0 }]);
    expect((await pixels(image.bytes)).at(0, 0)[3]).toBe(0);
  });

  it("exports the composite at exactly the size asked, in PNG, JPEG and TIFF", async () => {
    const host = await sampleHost();
    for (const format of ["png", "jpeg", "tiff"] as const) {
      const image = await host.exportDocumentImage(ctx, { documentId: undefined, format, quality: 80, size: { width: 160, height: 120 } });
      const meta = await sharp(image.bytes).metadata();
      expect([image.format, meta.format, meta.width, meta.height, image.bounds]).toEqual([format, format, 160, 120, { left: 0, top: 0, right: 320, bottom: 240 }]);
    }
  });

  it("exports carry the document's resolution, and 16-bit and indexed documents (saved as PNG, not XCF) the same pixels", async () => {
    const host = await sampleHost();
    const { document } = await host.getDocumentTree(ctx, undefined);
    const script = (source: string) => host.runScript!(ctx, { source, language: "script-fu", params: undefined, timeoutMs: 10_000 });
    await script(`(gimp-image-set-resolution ${document.id} 150 150)`);
    const size = { width: 320, height: 240 };
    const label = await layerNamed(host, "Label");
    const exports = async () => ({
      png: await host.exportDocumentImage(ctx, { documentId: document.id, format: "png", size }),
      jpeg: await host.exportDocumentImage(ctx, { documentId: document.id, format: "jpeg", quality: 90, size }),
      layer: await host.exportLayerImage(ctx, { documentId: document.id, layerId: label.id, format: "png", size: { width: 200, height: 40 } }),
    });
    const eight = await exports();
    for (const image of Object.values(eight)) expect((await sharp(image.bytes).metadata()).density).toBe(150);
    const rgba = async (bytes: Uint8Array) => sharp(bytes).ensureAlpha().toColourspace("srgb").raw().toBuffer();
    const reference = { png: await rgba(eight.png.bytes), layer: await rgba(eight.layer.bytes) };
    // The same picture in what the bridge leaves to GIMP's PNG export, as near as the conversion allows: indexing
    // moves colours to the palette's (about 5 on average here), 16-bit composites round differently where layers
    // blend (about 2), so the mean difference is what is bounded. Rows or pixels out of place are off by tens.
    for (const convert of [
      // GIMP indexes no image with layer groups: the sample's group is merged first (the picture stays the same).
      `(begin (gimp-image-merge-layer-group ${document.id} (car (gimp-image-get-layer-by-name ${document.id} "Product")))
        (gimp-image-convert-indexed ${document.id} CONVERT-DITHER-NONE CONVERT-PALETTE-GENERATE 255 FALSE FALSE ""))`,
      `(gimp-image-convert-precision ${document.id} PRECISION-U16-GAMMA)`,
    ]) {
      await script(convert);
      const other = await exports();
      for (const key of ["png", "layer"] as const) {
        const pixels = await rgba(other[key].bytes);
        expect(pixels.length, `${convert}: ${key}`).toBe(reference[key].length);
        const total = pixels.reduce((sum, value, i) => sum + Math.abs(value - reference[key][i]!), 0);
        expect(total / pixels.length, `${convert}: ${key}`).toBeLessThan(8);
      }
      expect((await sharp(other.png.bytes).metadata()).density, convert).toBe(150);
      if (convert.includes("indexed")) await script(`(gimp-image-convert-rgb ${document.id})`);
    }
  });

  it("saves XCF and PSD that reopen with the same layers, and refuses other layered formats", async () => {
    const host = await sampleHost();
    const documentId = (await host.getDocument(ctx, undefined)).id;
    for (const ext of ["xcf", "psd"]) {
      const path = join(dir, `sample.${ext}`);
      expect(await host.saveDocument!(ctx, { documentId, path, backup: false })).toEqual({ path, format: ext });
      const opened = await host.openDocument!(ctx, path);
      expect([opened.name, opened.isDirty, opened.filePath]).toEqual([`sample.${ext}`, false, path]);
      // The opened image becomes the one calls without a document id target.
      const { document, layers } = await host.getDocumentTree(ctx, undefined);
      expect(document.id).toBe(opened.id);
      expect(flatten(layers).map((l) => l.name)).toEqual(["Label", "Product", "Subject", "Shadow", "Background"]);
    }
    await expect(host.saveDocument!(ctx, { documentId, path: join(dir, "flat.png"), backup: false })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await writeFile(join(dir, "broken.psd"), "not a PSD");
    await expect(host.openDocument!(ctx, join(dir, "broken.psd"))).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("creates a document in the background colour asked, transparent when its alpha is 0, and closes it", async () => {
    const host = await sampleHost();
    const red = await host.createDocument!(ctx, { width: 40, height: 30, name: "Red", background: [255, 0, 0, 255] });
    expect([red.name, red.width, red.height]).toEqual(["Red", 40, 30]);
    expect((await host.getDocument(ctx, undefined)).id).toBe(red.id);
    const image = await host.exportDocumentImage(ctx, { documentId: red.id, format: "png", size: { width: 40, height: 30 } });
    expect((await pixels(image.bytes)).at(5, 5)).toEqual([255, 0, 0, 255]);
    const clear = await host.createDocument!(ctx, { width: 10, height: 10, name: "Clear", background: [0, 0, 0, 0] });
    const transparent = await host.exportDocumentImage(ctx, { documentId: clear.id, format: "png", size: { width: 10, height: 10 } });
    expect((await pixels(transparent.bytes)).at(5, 5)[3]).toBe(0);
    await host.closeDocument!(ctx, clear.id);
    expect((await host.listDocuments(ctx)).map((d) => d.name)).toEqual(["Sample", "Red"]);
  });

  it("a reconnect to an attached GIMP keeps its images: the sample resets it at the host's first connect only", async () => {
    const host = await sampleHost();
    const kept = await host.createDocument!(ctx, { width: 20, height: 10, name: "Kept", background: [0, 0, 255, 255] });
    // What the bridge does after a call ran out its deadline or the socket dropped: connect again to the same GIMP.
    await host.connect();
    expect((await host.listDocuments(ctx)).map((d) => [d.id, d.name])).toEqual([
      [expect.any(Number), "Sample"],
      [kept.id, "Kept"],
    ]);
    // A new host on the same GIMP is a new start: its first connect resets it.
    expect((await (await sampleHost()).listDocuments(ctx)).map((d) => d.name)).toEqual(["Sample"]);
  });

  it("answers the right codes for unknown documents and layers, and one active layer only", async () => {
    const host = await sampleHost();
    const { document, layers } = await host.getDocumentTree(ctx, undefined);
    await expect(host.getDocumentTree(ctx, 987_654)).rejects.toMatchObject({ code: "DOCUMENT_NOT_FOUND" });
    const size = { width: 1, height: 1 };
    await expect(host.exportLayerImage(ctx, { documentId: document.id, layerId: 987_654, format: "png", size })).rejects.toMatchObject({ code: "LAYER_NOT_FOUND" });
    const flat = flatten(layers);
    await expect(host.selectLayers!(ctx, { documentId: document.id, ids: [flat[0]!.id, flat[2]!.id] })).rejects.toMatchObject({
      code: "NOT_SUPPORTED",
      details: { capability: "layer:select:multiple" },
    });
    await host.selectLayers!(ctx, { documentId: document.id, ids: [flat[0]!.id, flat[0]!.id] });
    expect((await host.getDocument(ctx, document.id)).activeLayerIds).toEqual([flat[0]!.id]);
    await host.closeDocument!(ctx, document.id);
    await expect(host.getDocument(ctx, undefined)).rejects.toMatchObject({ code: "NO_DOCUMENT" });
  });

  it("imports an image scaled to its size, at its position, directly above a layer inside its group, and makes it active", async () => {
    const host = await sampleHost();
    const documentId = (await host.getDocument(ctx, undefined)).id;
    const shadow = await layerNamed(host, "Shadow");
    const bytes = await sharp({ create: { width: 4, height: 2, channels: 3, background: { r: 0, g: 200, b: 0 } } }).jpeg().toBuffer();
    const image = { bytes, format: "jpeg" as const, width: 4, height: 2 };
    const size = { width: 40, height: 20 };
    const id = await host.importLayer!(ctx, { documentId, image, size, position: { x: 7, y: 9 }, name: "Green", aboveLayerId: shadow.id });
    const { document, layers } = await host.getDocumentTree(ctx, documentId);
    expect(flatten(layers).map((l) => l.name)).toEqual(["Label", "Product", "Subject", "Green", "Shadow", "Background"]);
    const green = flatten(layers).find((l) => l.id === id)!;
    expect([green.rect, document.activeLayerIds]).toEqual([{ x: 7, y: 9, ...size }, [id]]);
    const top = await host.importLayer!(ctx, { documentId, image, size, position: { x: 0, y: 0 }, name: "Top", aboveLayerId: null });
    expect(flatten((await host.getDocumentTree(ctx, documentId)).layers)[0]!.id).toBe(top);
    const broken = { bytes: new Uint8Array([1, 2, 3]), format: "png" as const, width: 1, height: 1 };
    await expect(host.importLayer!(ctx, { documentId, image: broken, size, position: { x: 0, y: 0 }, name: "x", aboveLayerId: null })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
  });

  it("sets rectangle, ellipse and polygon selections, a polygon too large for one request included", async () => {
    const host = await sampleHost();
    const documentId = (await host.getDocument(ctx, undefined)).id;
    const rect = { x: 20, y: 30, width: 50, height: 40 };
    expect(await host.setSelection!(ctx, { documentId, shape: { kind: "rect", rect } })).toEqual(rect);
    expect(await host.getSelection(ctx, undefined)).toEqual(rect);
    const ellipse = { x: 100, y: 100, width: 60, height: 40 };
    expect(await host.setSelection!(ctx, { documentId, shape: { kind: "ellipse", rect: ellipse } })).toEqual(ellipse);
    const triangle = [
      { x: 50, y: 50 },
      { x: 150, y: 50 },
      { x: 100, y: 130 },
    ];
    const bounds = await host.setSelection!(ctx, { documentId, shape: { kind: "polygon", points: triangle } });
    expect(bounds).toMatchObject({ x: 50, y: 50, width: 100 });
    // 10 000 points on a circle: about 200 KB of coordinates.
    const circle = Array.from({ length: 10_000 }, (_, i) => ({ x: 160 + 50.123456 * Math.cos(i / 1591.55), y: 120 + 50.123456 * Math.sin(i / 1591.55) }));
    const round = await host.setSelection!(ctx, { documentId, shape: { kind: "polygon", points: circle } });
    expect(round).toMatchObject({ x: 110, y: 70 });
    expect(await host.setSelection!(ctx, { documentId, shape: null })).toBeNull();
    expect(await host.getSelection(ctx, documentId)).toBeNull();
  });

  it("outlines the selection as path data in document pixels, grown by expand, and keeps the selection", async () => {
    const host = await sampleHost();
    const documentId = (await host.getDocument(ctx, undefined)).id;
    expect(await host.getSelectionOutline!(ctx, { documentId: undefined, expand: 0 })).toBeNull();
    await host.setSelection!(ctx, { documentId, shape: { kind: "rect", rect: { x: 20, y: 30, width: 50, height: 40 } } });
    const outline = await host.getSelectionOutline!(ctx, { documentId, expand: 5 });
    expect(outline?.d).toMatch(/^M/);
    expect(outline?.box).toEqual({ x: 15, y: 25, width: 60, height: 50 });
    expect(await host.getSelection(ctx, documentId)).toEqual({ x: 20, y: 30, width: 50, height: 40 });
  });

  it("strokes an outline over a layer export, in output pixels", async () => {
    const host = await sampleHost();
    const documentId = (await host.getDocument(ctx, undefined)).id;
    const background = await layerNamed(host, "Background");
    await host.setSelection!(ctx, { documentId, shape: { kind: "rect", rect: { x: 20, y: 30, width: 50, height: 40 } } });
    const outline = (await host.getSelectionOutline!(ctx, { documentId, expand: 0 }))!;
    const image = await host.exportLayerImage(ctx, {
      documentId,
      layerId: background.id,
      format: "png",
      size: { width: 320, height: 240 },
      outline: { ...outline, color: [255, 0, 0, 255], width: 3 },
    });
    const png = await pixels(image.bytes);
    expect(png.at(20, 50)).toEqual([255, 0, 0, 255]); // on the outline
    expect(png.at(45, 50)).toEqual([236, 236, 240, 255]); // inside, untouched
  });

  it("removes a plain background and cuts out a subject inside a hint", async () => {
    const host = await sampleHost();
    const documentId = (await host.getDocument(ctx, undefined)).id;
    const background = await layerNamed(host, "Background");
    expect(await host.removeBackground!(ctx, { documentId, layerId: background.id })).toBe(true);
    // The background was uniform, so nothing of it is left selected after the inversion.
    expect(await host.getSelection(ctx, documentId)).toBeNull();
    const subject = await layerNamed(host, "Subject");
    await host.setSelection!(ctx, { documentId, shape: { kind: "rect", rect: { x: 80, y: 40, width: 160, height: 140 } } });
    expect(await host.autoCutout!(ctx, { documentId, layerId: subject.id })).toBe(true);
    expect(await host.getSelection(ctx, documentId)).not.toBeNull();
  });

  it("runs Script-Fu answering JSON, with params bound as an association list", async () => {
    const host = await sampleHost();
    const run = (source: string, params?: Record<string, unknown>) => host.runScript!(ctx, { source, language: "script-fu", params, timeoutMs: 10_000 });
    expect(await run('(list 1 2.5 "ü" #t (vector 3))')).toEqual([1, 2.5, "ü", true, [3]]);
    expect(await run("(+ 1 2) ; trailing comment")).toBe(3);
    await expect(run("(no-such-procedure)")).rejects.toMatchObject({ code: "JSX_FAILED", message: expect.stringContaining("no-such-procedure") });
    expect(await run('(* (cdr (assoc "w" params)) (cdr (assoc "h" params)))', { w: 3, h: 4.5 })).toBe(13.5);
    expect(await run('(cdr (assoc "s" params))', { s: '") (gimp-quit 0) ("' })).toBe('") (gimp-quit 0) ("');
    expect(host.scriptLanguage).toMatchObject({ names: ["script-fu"], extension: ".scm" });
  });

  it("polls GIMP for selection and active-layer changes made by scripts while someone subscribes", async () => {
    const host = await sampleHost();
    const selection = firstValueFrom(host.events("selection:changed")!);
    const active = firstValueFrom(host.events("layer:selectionChange")!);
    const previews = firstValueFrom(
      host.events("layer:previewChange")!.pipe(
        filter((e) => (e as PreviewEvent | null)?.layer.name === "Label"),
        take(1),
        toArray(),
      ),
    );
    // The first subscription queues the baseline poll at once, ahead of the scripts below.
    const run = (source: string) => host.runScript!(ctx, { source, language: "script-fu", params: undefined, timeoutMs: 10_000 });
    await run("(gimp-image-select-rectangle (car (br-images)) CHANNEL-OP-REPLACE 5 6 7 8)");
    expect(await selection).toEqual({ x: 5, y: 6, width: 7, height: 8 });
    await run('(gimp-image-set-active-layer (car (br-images)) (car (gimp-image-get-layer-by-name (car (br-images)) "Label")))');
    expect(((await active) as HostLayer[]).map((l) => l.name)).toEqual(["Label"]);
    const [preview] = (await previews) as PreviewEvent[];
    expect([preview!.image.format, preview!.image.width, preview!.image.height, preview!.layer.index]).toEqual(["png", 200, 40, 0]);
    expect((await sharp(preview!.image.bytes).metadata()).width).toBe(200);
  });

  it("a bridge relays the polled events to its subscribers, the preview as a data URI", async () => {
    const harness = await startBridge({ host: createGimpHost({ binary: GIMP_BINARY, attach: await sharedGimpAttach(), sample: true, pollIntervalMs: 50 }) });
    const client = await harness.connect();
    for (const type of ["selection:changed", "layer:previewChange"]) await client.call("event:subscribe", { type });
    // No `language`: Script-Fu is GIMP's own, the default.
    await client.call("jsx:run", { script: '(gimp-image-set-active-layer (car (br-images)) (car (gimp-image-get-layer-by-name (car (br-images)) "Label")))' });
    await client.call("jsx:run", { script: "(gimp-image-select-rectangle (car (br-images)) CHANNEL-OP-REPLACE 5 6 7 8)" });
    expect((await client.next((f) => f.type === "selection:changed")).data).toEqual({ x: 5, y: 6, width: 7, height: 8 });
    const preview = await client.next((f) => f.type === "layer:previewChange" && (f.data as { name?: string } | null)?.name === "Label");
    expect(preview.data).toMatchObject({ width: 200, height: 40, data: expect.stringMatching(/^data:image\/png;base64,/) });
  });
});
