/**
 * The embedded editor's memory budget: documents, imports, opens, exports, scripts and the segmentation model are
 * charged before they allocate, refused with PAYLOAD_TOO_LARGE naming the budget when they would not fit, and
 * closing documents gives the memory back.
 */
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writePsdBuffer } from "ag-psd";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EditorMemoryUse, HostAdapter } from "../../../src/hosts/host.js";
import { MODEL_SESSION_BYTES } from "../../../src/hosts/embedded/cutout/index.js";
import { connectedHost, ctx, importBytes, runJs, solidPng, WHITE, failureOf } from "./helpers.js";

const MiB = 1024 * 1024;
/** A 1000×1000 opaque document: one RGBA layer of 4,000,000 bytes. */
const SIDE = 1000;
const DOC_BYTES = SIDE * SIDE * 4;


function use(host: HostAdapter): EditorMemoryUse {
  const memory = host.memoryUse?.();
  if (memory === undefined) throw new Error("the embedded editor reports its memory");
  return memory;
}

const create = (host: HostAdapter) => host.createDocument!(ctx(), { width: SIDE, height: SIDE, name: "big", background: WHITE });

describe("embedded editor: memory budget", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "embedded-memory-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("charges new documents, refuses the one that would not fit, and gives the memory back on close", async () => {
    const budget = 3 * DOC_BYTES + DOC_BYTES / 2;
    const host = await connectedHost({ sample: false, memoryBudgetBytes: budget });
    expect(use(host)).toEqual({ budgetBytes: budget, usedBytes: 0, documentBytes: 0, workingBytes: 0, modelBytes: 0, historyBytes: 0, documents: 0 });
    const docs = [await create(host), await create(host), await create(host)];
    expect(use(host)).toMatchObject({ usedBytes: 3 * DOC_BYTES, documentBytes: 3 * DOC_BYTES, documents: 3 });
    const refused = await failureOf(create(host));
    expect(refused).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      details: { limit: "editorMemoryBudgetBytes", bytes: DOC_BYTES, usedBytes: 3 * DOC_BYTES, budgetBytes: budget, width: SIDE, height: SIDE },
    });
    expect(refused.message).toMatch(/^Creating a document of 1000×1000 needs 3\.8 MiB but the editor has 1\.9 MiB of its 13 MiB memory budget free/);
    expect((await host.listDocuments(ctx())).length).toBe(3);
    await host.closeDocument!(ctx(), docs[0]!.id);
    expect(use(host)).toMatchObject({ usedBytes: 2 * DOC_BYTES, documents: 2 });
    expect(await create(host)).toMatchObject({ width: SIDE });
    // A fully transparent document starts empty: it costs nothing.
    expect(await host.createDocument!(ctx(), { width: SIDE, height: SIDE, name: "clear", background: [0, 0, 0, 0] })).toMatchObject({ width: SIDE });
  });

  it("charges an import at its decoded size before decoding: a 4×4 PNG asked for at a huge size is refused", async () => {
    const host = await connectedHost({ sample: false, memoryBudgetBytes: 2 * DOC_BYTES });
    const doc = await create(host);
    const png = await solidPng(4, 4, [0, 0, 255, 255]);
    const refused = await failureOf(importBytes(host, png, { documentId: doc.id, size: { width: 2000, height: 1000 } }));
    expect(refused).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: "editorMemoryBudgetBytes", bytes: 2000 * 1000 * 4, usedBytes: DOC_BYTES } });
    expect(use(host)).toMatchObject({ usedBytes: DOC_BYTES, workingBytes: 0 });
    // One that fits is placed, and its layer is then the document's.
    await importBytes(host, png, { documentId: doc.id, size: { width: 500, height: 500 } });
    expect(use(host)).toMatchObject({ documentBytes: DOC_BYTES + 500 * 500 * 4, workingBytes: 0 });
  });

  it("charges an open from the file's headers before its pixels are read", async () => {
    // A real PSD with two 1000×1000 layers: 8,000,000 bytes of pixels declared by its records.
    const layer = (name: string) => ({ name, imageData: { width: SIDE, height: SIDE, data: new Uint8ClampedArray(DOC_BYTES).fill(200) } });
    const path = join(dir, "two-layers.psd");
    await writeFile(path, writePsdBuffer({ width: SIDE, height: SIDE, children: [layer("a"), layer("b")] }));
    const tight = await connectedHost({ sample: false, memoryBudgetBytes: 6 * MiB });
    const refused = await failureOf(tight.openDocument!(ctx(), path));
    expect(refused).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: "editorMemoryBudgetBytes", path, stage: "layers", bytes: 2 * DOC_BYTES } });
    expect(use(tight)).toMatchObject({ usedBytes: 0, documents: 0 });
    const roomy = await connectedHost({ sample: false, memoryBudgetBytes: 40 * MiB });
    const opened = await roomy.openDocument!(ctx(), path);
    expect(opened).toMatchObject({ width: SIDE });
    // The pixels, and the file itself: a PSD keeps it to save back in its own mode.
    const fileBytes = (await stat(path)).size;
    expect(use(roomy)).toMatchObject({ documentBytes: 2 * DOC_BYTES + fileBytes, workingBytes: 0, documents: 1 });
  });

  it("charges an export's canvas while it runs and gives it back after", async () => {
    const host = await connectedHost({ sample: false, memoryBudgetBytes: 2 * DOC_BYTES + DOC_BYTES / 2 });
    const doc = await create(host);
    // Scaled, the whole canvas is composited first: 4 MB + the output.
    const refused = await failureOf(host.exportDocumentImage(ctx(), { documentId: doc.id, format: "png", size: { width: 900, height: 900 } }));
    expect(refused).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: "editorMemoryBudgetBytes", bytes: DOC_BYTES + 900 * 900 * 4 } });
    expect(refused.message).toMatch(/^Exporting a document of 1000×1000 needs/);
    // At a small size it fits, and nothing stays charged after.
    const small = await host.exportDocumentImage(ctx(), { documentId: doc.id, format: "png", size: { width: 100, height: 100 } });
    expect(small.width).toBe(100);
    expect(use(host)).toMatchObject({ usedBytes: DOC_BYTES, workingBytes: 0 });
  });

  it("charges what scripts create and fill; the refusal reaches the script as a catchable error", async () => {
    const host = await connectedHost({ sample: false, memoryBudgetBytes: DOC_BYTES + DOC_BYTES / 2 });
    const result = await runJs(
      host,
      `const made = [];
       try { for (;;) made.push(app.documents.add(${SIDE}, ${SIDE})); }
       catch (e) { [made.length, e.code, e.details.limit] }`,
    );
    expect(result).toEqual([1, "PAYLOAD_TOO_LARGE", "editorMemoryBudgetBytes"]);
    // Filling a new layer over the canvas needs a canvas-sized buffer, which no longer fits.
    const filled = await runJs(
      host,
      `const layer = app.activeDocument.artLayers.add();
       try { layer.fill('red'); 'filled' } catch (e) { [e.code, e.details.limit, e.details.bytes] }`,
    );
    expect(filled).toEqual(["PAYLOAD_TOO_LARGE", "editorMemoryBudgetBytes", DOC_BYTES]);
    expect(use(host)).toMatchObject({ documentBytes: DOC_BYTES, workingBytes: 0 });
  });

  it("charges the segmentation model's session before loading it: `model` is refused, `auto` falls back", async () => {
    const budget = DOC_BYTES + 100 * MiB;
    expect(budget).toBeLessThan(MODEL_SESSION_BYTES);
    const host = await connectedHost({ sample: false, memoryBudgetBytes: budget });
    const doc = await create(host);
    const [layer] = (await host.getDocumentTree(ctx(), doc.id)).layers;
    const model = await failureOf(host.removeBackground!(ctx(), { documentId: doc.id, layerId: layer!.id, method: "model" }));
    expect(model).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: "editorMemoryBudgetBytes", what: "Loading the segmentation model", bytes: MODEL_SESSION_BYTES } });
    const auto = await host.removeBackground!(ctx(), { documentId: doc.id, layerId: layer!.id });
    expect(typeof auto === "object" && auto.method).not.toBe("model");
    expect(use(host)).toMatchObject({ modelBytes: 0, workingBytes: 0 });
  });
});
