/**
 * Hostile documents and scripts get named errors, not `INTERNAL` or gigabytes: a tiny PSD declaring a huge layer,
 * a PSD nested thousands of groups deep, exports past the encoder's pixel limit, layers grown past the document
 * limit by scripts or imports, and a script that grows an array until it runs out of memory.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writePsdBuffer } from "ag-psd";
import type { Layer } from "ag-psd";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MAX_DOCUMENT_PIXELS, DEFAULT_MAX_PSD_GROUP_DEPTH, ENCODER_MAX_PIXELS } from "../../../src/hosts/embedded/index.js";
import { SCRIPT_MEMORY_LIMIT_BYTES } from "../../../src/hosts/embedded/scripts/index.js";
import { startBridge } from "../../helpers/bridge.js";
import { connectedHost, ctx, importBytes, layersOf, runJs, solidPng, failureOf } from "./helpers.js";

/**
 * A PSD built byte by byte: an RGB canvas of `canvas` pixels and one layer record covering `layer` pixels whose
 * four channels hold no data (a reader allocating the layer's buffer up front pays for all of it). The merged
 * image section is raw and empty. 1×1 canvas and 22000×22000 layer: 123 bytes.
 */
function hollowPsd(canvas: { width: number; height: number }, layer: { width: number; height: number; name?: string }): Buffer {
  const name = Buffer.from(layer.name ?? "");
  const namePadded = Buffer.alloc(Math.ceil((name.length + 1) / 4) * 4);
  namePadded[0] = name.length;
  name.copy(namePadded, 1);
  const record = Buffer.alloc(16 + 2 + 4 * 6 + 12 + 4);
  let at = 0;
  at = record.writeInt32BE(0, at); // top
  at = record.writeInt32BE(0, at); // left
  at = record.writeInt32BE(layer.height, at); // bottom
  at = record.writeInt32BE(layer.width, at); // right
  at = record.writeUInt16BE(4, at);
  for (const id of [-1, 0, 1, 2]) {
    at = record.writeInt16BE(id, at);
    at = record.writeUInt32BE(0, at); // no channel data
  }
  at += record.write("8BIMnorm", at, "latin1");
  at = record.writeUInt8(255, at); // opacity
  at += 3; // clipping, flags, filler
  at = record.writeUInt32BE(8 + namePadded.length, at); // extra data: mask (0), blending ranges (0), name
  const layerInfo = Buffer.concat([Buffer.from([0, 1]), record, Buffer.alloc(8), namePadded]);
  const layerInfoSection = Buffer.concat([u32(layerInfo.length), layerInfo]);
  const layerAndMask = Buffer.concat([layerInfoSection, u32(0)]); // + empty global mask info
  const header = Buffer.alloc(26);
  header.write("8BPS", 0, "latin1");
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(3, 12);
  header.writeUInt32BE(canvas.height, 14);
  header.writeUInt32BE(canvas.width, 18);
  header.writeUInt16BE(8, 22);
  header.writeUInt16BE(3, 24);
  return Buffer.concat([header, u32(0), u32(0), u32(layerAndMask.length), layerAndMask, Buffer.from([0, 0])]);
}

function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value);
  return b;
}

/** A 1×1 PSD whose one layer sits inside `depth` nested groups (ag-psd writes and reads this without recursion). */
function nestedPsd(depth: number): Buffer {
  let node: Layer = { name: "leaf", imageData: { width: 1, height: 1, data: new Uint8ClampedArray([255, 0, 0, 255]) } };
  for (let i = depth; i >= 1; i--) node = { name: `g${i}`, opened: true, children: [node] };
  return writePsdBuffer({ width: 1, height: 1, children: [node] });
}


describe("embedded host: named errors for hostile documents and scripts", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "embedded-named-errors-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function file(name: string, bytes: Buffer): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, bytes);
    return path;
  }

  it("a 123-byte PSD with a 1×1 canvas and an empty 22000×22000 layer is refused before its pixels exist", async () => {
    const bytes = hollowPsd({ width: 1, height: 1 }, { width: 22_000, height: 22_000, name: "huge" });
    expect(bytes.length).toBeLessThan(130);
    const path = await file("hollow.psd", bytes);
    const host = await connectedHost();
    const before = process.memoryUsage().arrayBuffers;
    const failure = await failureOf(host.openDocument!(ctx(), path));
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(100 * 1024 * 1024);
    expect(failure).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      details: { path, layer: "huge", layerIndex: 0, width: 22_000, height: 22_000, maxPixels: DEFAULT_MAX_DOCUMENT_PIXELS, limit: "maxDocumentPixels" },
    });
    expect(failure.message).toMatch(/Layer "huge" \(index 0\) of 22000×22000 exceeds 100000000 pixels/);
    expect((await host.listDocuments(ctx())).map((d) => d.name)).toEqual(["Sample"]);
    // The same file with a layer within the limit opens (the check does not refuse honest files).
    const small = await file("small.psd", hollowPsd({ width: 1, height: 1 }, { width: 20, height: 10, name: "fits" }));
    const opened = await host.openDocument!(ctx(), small);
    expect(opened).toMatchObject({ width: 1, height: 1 });
    expect((await layersOf(host, opened.id)).map((l) => l.name)).toEqual(["fits"]);
  });

  it("the per-layer limit follows maxDocumentPixels", async () => {
    const path = await file("mid.psd", hollowPsd({ width: 1, height: 1 }, { width: 300, height: 200, name: "mid" }));
    const host = await connectedHost({ maxDocumentPixels: 50_000 });
    const failure = await failureOf(host.openDocument!(ctx(), path));
    expect(failure).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { layer: "mid", width: 300, height: 200, maxPixels: 50_000 } });
    const roomy = await connectedHost({ maxDocumentPixels: 60_000 });
    expect(await roomy.openDocument!(ctx(), path)).toMatchObject({ width: 1, height: 1 });
  });

  it("a PSD nested 3,000 groups deep is refused as BAD_REQUEST naming the depth and the limit", async () => {
    const path = await file("deep.psd", nestedPsd(3000));
    const host = await connectedHost();
    const failure = await failureOf(host.openDocument!(ctx(), path));
    expect(failure).toMatchObject({
      code: "BAD_REQUEST",
      details: { path, depth: 3000, max: DEFAULT_MAX_PSD_GROUP_DEPTH, limit: "maxPsdGroupDepth" },
    });
    expect(failure.message).toMatch(/nests groups 3000 deep; at most 100/);
    // Up to the limit it opens, and the whole chain is there.
    const atLimit = await file("at-limit.psd", nestedPsd(DEFAULT_MAX_PSD_GROUP_DEPTH));
    const opened = await host.openDocument!(ctx(), atLimit);
    expect((await layersOf(host, opened.id)).length).toBe(DEFAULT_MAX_PSD_GROUP_DEPTH + 1);
    // The limit is an option.
    const strict = await connectedHost({ maxPsdGroupDepth: 3 });
    expect(await failureOf(strict.openDocument!(ctx(), await file("four.psd", nestedPsd(4))))).toMatchObject({
      code: "BAD_REQUEST",
      details: { depth: 4, max: 3 },
    });
    expect(await strict.openDocument!(ctx(), await file("three.psd", nestedPsd(3)))).toMatchObject({ width: 1 });
  });

  it("exports past the encoder's pixel limit are refused up front, naming it", async () => {
    expect(ENCODER_MAX_PIXELS).toBe(0x3fff * 0x3fff);
    // A 17000×17000 canvas (289 MP, allowed by a raised document limit) holding one small layer: nothing big is
    // in memory, and the export is refused before anything is composited.
    const path = await file("wide.psd", hollowPsd({ width: 17_000, height: 17_000 }, { width: 4, height: 4, name: "dot" }));
    const host = await connectedHost({ maxDocumentPixels: 300_000_000 });
    const doc = await host.openDocument!(ctx(), path);
    const whole = await failureOf(host.exportDocumentImage(ctx(), { documentId: doc.id, format: "png", size: { width: 17_000, height: 17_000 } }));
    expect(whole).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      details: { width: 17_000, height: 17_000, maxPixels: ENCODER_MAX_PIXELS, limit: "encoderMaxPixels" },
    });
    // Scaled down, the whole canvas would still go through the encoder first.
    const scaled = await failureOf(host.exportDocumentImage(ctx(), { documentId: doc.id, format: "png", size: { width: 17, height: 17 } }));
    expect(scaled).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { width: 17_000, height: 17_000, limit: "encoderMaxPixels" } });
    expect(scaled.message).toMatch(/^Document of 17000×17000 exceeds the encoder's limit of 268402689 pixels$/);
    // Its layer alone, and a document under the limit, export.
    const [dot] = await layersOf(host, doc.id);
    expect(await host.exportLayerImage(ctx(), { documentId: doc.id, layerId: dot!.id, format: "png", size: { width: 4, height: 4 } })).toMatchObject({ format: "png" });
    // A layer asked for at a size past the limit.
    const sample = await connectedHost();
    const [label] = await layersOf(sample);
    const documentId = (await sample.getDocument(ctx(), undefined)).id;
    const layer = await failureOf(sample.exportLayerImage(ctx(), { documentId, layerId: label!.id, format: "png", size: { width: 20_000, height: 20_000 } }));
    expect(layer).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { layerId: label!.id, maxPixels: ENCODER_MAX_PIXELS, limit: "encoderMaxPixels" } });
  });

  it("scripts cannot grow a layer past the document limit; imports cannot place one", async () => {
    const host = await connectedHost({ maxDocumentPixels: 1_000_000 });
    // A layer moved far off the canvas, then filled over the canvas: the buffer would have to span both.
    const grown = await runJs(
      host,
      `const doc = app.activeDocument; const layer = doc.artLayers.add(); layer.translate(-5000, -5000);
       try { layer.fill('red'); layer.translate(5000, 5000); layer.fill('blue'); 'filled' } catch (e) { [e.code, e.details.limit, e.details.maxPixels] }`,
    );
    expect(grown).toEqual(["PAYLOAD_TOO_LARGE", "maxDocumentPixels", 1_000_000]);
    const png = await solidPng(4, 4, [0, 0, 255, 255]);
    const imported = await failureOf(importBytes(host, png, { size: { width: 2000, height: 1000 } }));
    expect(imported).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { width: 2000, height: 1000, maxPixels: 1_000_000, limit: "maxDocumentPixels" } });
    expect(await importBytes(host, png, { size: { width: 1000, height: 1000 } })).toBeGreaterThan(0);
  });

  it("a script growing an array until out of memory fails as JSX_FAILED kind memory, naming its limit", async () => {
    // At the default cap, an array of objects fills the heap so completely that the engine's own error cannot be
    // read back (it used to surface as kind "error" with the message "Error: ").
    const roomy = await connectedHost();
    const spent = await failureOf(runJs(roomy, "const a = []; for (;;) a.push({ n: a.length });", 30_000));
    expect(spent).toMatchObject({ code: "JSX_FAILED", details: { kind: "memory", memoryBytes: SCRIPT_MEMORY_LIMIT_BYTES } });
    expect(spent.message).toBe("Script ran out of its 64 MiB memory limit");
    expect(spent.details?.["message"]).toBe(spent.message);
    const limit = 24 * 1024 * 1024;
    const host = await connectedHost({ scriptLimits: { memoryBytes: limit } });
    for (const source of ["const a = []; for (;;) a.push({ n: a.length });", "const a = []; for (;;) a.push(a.length);"]) {
      const failure = await failureOf(runJs(host, source, 30_000));
      expect(failure).toMatchObject({ code: "JSX_FAILED", details: { kind: "memory", memoryBytes: limit, line: 1 } });
      expect(failure.message).toBe("Script ran out of its 24 MiB memory limit (InternalError: out of memory)");
    }
    expect(await runJs(host, "[1, 2, 3].length")).toBe(3);
    expect(await runJs(roomy, "[1, 2, 3].length")).toBe(3);
  });
});

describe("named errors through a bridge (the editor in its own process)", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "bridge-named-errors-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("the hollow PSD, the deep PSD and the out-of-memory script cross the process hop with their codes and details", async () => {
    const hollow = join(dir, "hollow.psd");
    const deep = join(dir, "deep.psd");
    await writeFile(hollow, hollowPsd({ width: 1, height: 1 }, { width: 22_000, height: 22_000, name: "huge" }));
    await writeFile(deep, nestedPsd(3000));
    const harness = await startBridge({ files: { roots: [dir] }, embedded: { maxPsdGroupDepth: 50, scriptLimits: { memoryBytes: 24 * 1024 * 1024 } } });
    const client = await harness.connect();
    const tooLarge = await client.send("document:open", { path: hollow });
    expect(tooLarge.ok).toBe(false);
    expect(tooLarge.error).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      details: { layer: "huge", layerIndex: 0, width: 22_000, height: 22_000, maxPixels: DEFAULT_MAX_DOCUMENT_PIXELS },
    });
    const nested = await client.send("document:open", { path: deep });
    expect(nested.error).toMatchObject({ code: "BAD_REQUEST", details: { depth: 3000, max: 50, limit: "maxPsdGroupDepth" } });
    const script = await client.send("jsx:run", { script: "const a = []; for (;;) a.push({ n: a.length });", timeoutMs: 30_000 });
    expect(script.error).toMatchObject({ code: "JSX_FAILED", details: { kind: "memory", memoryBytes: 24 * 1024 * 1024 } });
    expect(script.error?.message).toMatch(/ran out of its 24 MiB memory limit/);
    // The editor is still there.
    expect(await client.call("document:list")).toBeTruthy();
  });
});
