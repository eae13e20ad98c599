import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstValueFrom } from "rxjs";
import type { Observable } from "rxjs";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostAdapter } from "../../../src/hosts/host.js";
import { SCRIPT_MAX_OUTPUT_BYTES, SCRIPT_MAX_SOURCE_BYTES } from "../../../src/hosts/embedded/scripts/index.js";
import type { HostRect } from "../../../src/protocol/index.js";
import { connectedHost, ctx, exportDocument, pixelAt, rawPixels, runJs, failureOf } from "./helpers.js";

// The default deadline only bounds a broken test: a script with two cutouts takes seconds on a loaded 2-core machine.
const run = (host: HostAdapter, source: string, timeoutMs = 60_000): Promise<unknown> => runJs(host, source, timeoutMs);


describe("embedded host: scripts", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "embedded-scripts-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("returns the completion value as JSON; undefined becomes null", async () => {
    const host = await connectedHost();
    expect(await run(host, "1 + 1")).toBe(2);
    expect(await run(host, "({ a: [1, 'x', true, null] })")).toEqual({ a: [1, "x", true, null] });
    expect(await run(host, "undefined")).toBeNull();
  });

  it("reads the sample document through the editor API", async () => {
    const host = await connectedHost();
    const result = await run(
      host,
      `const doc = app.activeDocument;
       ({ name: doc.name, width: doc.width, top: doc.layers.map((l) => l.name),
          product: doc.layers.getByName("Product").layers.map((l) => [l.name, l.opacity]),
          active: doc.activeLayer.name, documents: app.documents.length })`,
    );
    expect(result).toEqual({
      name: "Sample",
      width: 800,
      top: ["Label", "Product", "Background"],
      product: [
        ["Subject", 100],
        ["Shadow", 60],
      ],
      active: "Subject",
      documents: 1,
    });
  });

  it("a script builds a document, selects, fills and exports it", async () => {
    const host = await connectedHost();
    const path = join(dir, "built.png");
    const result = await run(
      host,
      `const doc = app.documents.add(40, 30, "Built", "transparent");
       const layer = doc.artLayers.add("Red box");
       doc.selection.select({ x: 10, y: 5, width: 20, height: 10 });
       layer.fill("#ff0000");
       doc.selection.deselect();
       doc.exportDocument(${JSON.stringify(path)}).then((file) => ({ file, layers: doc.layers.map((l) => l.name), bounds: layer.bounds }))`,
    );
    expect(result).toMatchObject({
      file: { path, format: "png", width: 40, height: 30 },
      layers: ["Red box", "Layer 1"],
      bounds: { left: 10, top: 5, right: 30, bottom: 15 },
    });
    const image = await rawPixels(await sharp(path).toBuffer());
    expect(pixelAt(image, 10, 5)).toEqual([255, 0, 0, 255]);
    expect(pixelAt(image, 9, 5)[3]).toBe(0);
    expect((await host.getDocument(ctx(), undefined)).name).toBe("Built");
  });

  it("a script builds a product shot, selects the subject, removes the background and exports it", async () => {
    const host = await connectedHost();
    const path = join(dir, "cutout.png");
    const result = (await run(
      host,
      `const doc = app.documents.add(200, 150, "Shot", "#c8c8c8");
       const product = doc.artLayers.add("Product");
       doc.selection.selectEllipse({ x: 60, y: 40, width: 80, height: 60 });
       product.fill("#b01818");
       doc.selection.deselect();
       doc.flatten();
       (async () => {
         const found = await doc.selection.selectSubject();
         const subject = doc.selection.bounds;
         const removed = await doc.layers[0].removeBackground();
         const file = await doc.exportDocument(${JSON.stringify(path)});
         return { found, subject, removed, file };
       })()`,
    )) as { found: boolean; subject: { left: number; top: number; right: number; bottom: number }; removed: boolean };
    expect(result).toMatchObject({ found: true, removed: true });
    // The subject's outline is the ellipse, give or take the feathered edge.
    for (const [got, want] of [
      [result.subject.left, 60],
      [result.subject.top, 40],
      [result.subject.right, 140],
      [result.subject.bottom, 100],
    ] as const) {
      expect(Math.abs(got - want)).toBeLessThanOrEqual(3);
    }
    const image = await rawPixels(await sharp(path).toBuffer());
    expect(pixelAt(image, 100, 70)).toEqual([176, 24, 24, 255]);
    expect(pixelAt(image, 5, 5)[3]).toBe(0);
  });

  it("polygon and ellipse selections limit fills and clears to their shape", async () => {
    const host = await connectedHost();
    await run(
      host,
      `const doc = app.documents.add(40, 40, "Shapes", "white");
       doc.selection.select([[0, 0], [39, 0], [0, 39]]);
       doc.activeLayer.fill("#ff0000");
       const top = doc.artLayers.add("Top");
       doc.selection.selectEllipse({ x: 20, y: 20, width: 20, height: 20 });
       top.fill("#0000ff");
       top.clear();
       doc.selection.selectEllipse({ x: 20, y: 20, width: 20, height: 20 });
       doc.selection.fill([0, 255, 0]);`,
    );
    const image = await rawPixels((await exportDocument(host)).bytes);
    expect(pixelAt(image, 2, 2)).toEqual([255, 0, 0, 255]); // inside the triangle
    expect(pixelAt(image, 37, 2)).toEqual([255, 255, 255, 255]); // outside it
    expect(pixelAt(image, 30, 30)).toEqual([0, 255, 0, 255]); // ellipse centre: cleared blue, then green
    expect(pixelAt(image, 21, 21)).toEqual([255, 255, 255, 255]); // ellipse bbox corner, outside the ellipse
  });

  it("layer properties, translate, duplicate, remove and the active layer change the document", async () => {
    const host = await connectedHost();
    const result = await run(
      host,
      `const doc = app.activeDocument;
       const label = doc.layers.getByName("Label");
       label.name = "Title"; label.opacity = 50; label.visible = false; label.blendMode = "multiply";
       label.translate(5, -10);
       const copy = label.duplicate();
       doc.layers.getByName("Background").remove();
       doc.activeLayer = copy;
       ({ top: doc.layers.map((l) => l.name), copy: [copy.name, copy.opacity, copy.visible, copy.blendMode, copy.bounds],
          active: doc.activeLayer.name })`,
    );
    expect(result).toEqual({
      top: ["Title copy", "Title", "Product"],
      copy: ["Title copy", 50.2, false, "multiply", { left: 45, top: 30, right: 265, bottom: 70 }],
      active: "Title copy",
    });
    const doc = await host.getDocument(ctx(), undefined);
    expect(doc.isDirty).toBe(true);
    const { layers } = await host.getDocumentTree(ctx(), undefined);
    expect(layers.map((l) => l.name)).toEqual(["Title copy", "Title", "Product"]);
  });

  it("flatten leaves one Background holding the composite", async () => {
    const host = await connectedHost();
    const before = await rawPixels((await exportDocument(host)).bytes);
    expect(await run(host, "const d = app.activeDocument; d.flatten(); d.layers.map((l) => [l.name, l.kind])")).toEqual([["Background", "background"]]);
    const after = await rawPixels((await exportDocument(host)).bytes);
    expect(after.data.equals(before.data)).toBe(true);
  });

  it("host errors are catchable guest exceptions with their code", async () => {
    const host = await connectedHost();
    const result = await run(
      host,
      `const out = [];
       try { app.activeDocument.layerById(999) } catch (e) { out.push(e.name, e.code) }
       try { app.activeDocument.activeLayer.blendMode = "sparkle" } catch (e) { out.push(e.code) }
       try { app.documents.add(1e6, 1e6) } catch (e) { out.push(e.code) }
       try { app.activeDocument.layers.getByName("Product").fill("red") } catch (e) { out.push(e.code) }
       out`,
    );
    expect(result).toEqual(["BridgeError", "LAYER_NOT_FOUND", "BAD_REQUEST", "PAYLOAD_TOO_LARGE", "BAD_REQUEST"]);
  });

  it("an uncaught error is JSX_FAILED with message and line; a syntax error says so", async () => {
    const host = await connectedHost();
    const thrown = await failureOf(run(host, "const a = 1;\nthrow new TypeError('bad input');"));
    expect(thrown).toMatchObject({ code: "JSX_FAILED", details: { kind: "error", name: "TypeError", line: 2 } });
    expect(thrown.details?.["message"]).toContain("bad input");
    const host2 = await failureOf(run(host, "app.activeDocument.layerById(42)"));
    expect(host2).toMatchObject({ code: "JSX_FAILED", details: { kind: "error", code: "LAYER_NOT_FOUND" } });
    const syntax = await failureOf(run(host, "let x = ;"));
    expect(syntax).toMatchObject({ code: "JSX_FAILED", details: { kind: "syntax", line: 1 } });
  });

  it("an infinite loop is stopped at its deadline with TIMEOUT, and the editor keeps working", async () => {
    const host = await connectedHost();
    const failure = await failureOf(run(host, "while (true) {}", 200));
    expect(failure).toMatchObject({ code: "TIMEOUT", details: { timeoutMs: 200 } });
    expect(await run(host, "app.activeDocument.name")).toBe("Sample");
  });

  it("a waiting promise is also bound by the deadline; an aborted call stops the script", async () => {
    const host = await connectedHost();
    expect(await failureOf(run(host, "new Promise(() => {})", 200))).toMatchObject({ code: "JSX_FAILED", details: { kind: "error" } });
    const abort = new AbortController();
    abort.abort();
    const aborted = await failureOf(host.runScript!({ signal: abort.signal, caller: "test" }, { source: "for (;;) {}", language: "javascript", params: undefined, timeoutMs: 60_000 }));
    expect(aborted.code).toBe("TIMEOUT");
  });

  it("a 200 MB allocation fails inside the guest with kind memory; the next script runs", async () => {
    const host = await connectedHost();
    const typed = await failureOf(run(host, "new Uint8Array(200 * 1024 * 1024).length"));
    expect(typed).toMatchObject({ code: "JSX_FAILED", details: { kind: "memory" } });
    const strings = await failureOf(run(host, "let s = 'x'; const all = []; for (;;) { all.push(s.repeat(1 << 20)); }", 10_000));
    expect(strings).toMatchObject({ code: "JSX_FAILED", details: { kind: "memory" } });
    expect(await run(host, "[1, 2, 3].length")).toBe(3);
  });

  it("script limits are configurable per host: heap cap, reply size, declared source size, longest deadline", async () => {
    const roomy = await connectedHost();
    expect(await run(roomy, "new Uint8Array(30 * 1024 * 1024).length")).toBe(30 * 1024 * 1024);
    const host = await connectedHost({ scriptLimits: { memoryBytes: 24 * 1024 * 1024, maxReplyBytes: 1000, maxSourceBytes: 200 } });
    expect(await failureOf(run(host, "new Uint8Array(30 * 1024 * 1024).length"))).toMatchObject({ code: "JSX_FAILED", details: { kind: "memory" } });
    const reply = await run(host, "app.activeDocument.exportImage({ format: 'png' }).then(() => 'fits', (e) => [e.code, e.details.maxReplyBytes])");
    expect(reply).toEqual(["PAYLOAD_TOO_LARGE", 1000]);
    expect(host.scriptLanguage?.maxBytes).toBe(200);
    const hasty = await connectedHost({ scriptLimits: { maxTimeoutMs: 150 } });
    expect(await failureOf(run(hasty, "for (;;) {}", 60_000))).toMatchObject({ code: "TIMEOUT", details: { timeoutMs: 150 } });
  });

  it("the guest has no way to the host: no process, require, fetch or timers", async () => {
    const host = await connectedHost();
    const result = await run(
      host,
      `const out = [typeof process, typeof require, typeof fetch, typeof setTimeout, typeof __host, typeof __hostAsync];
       try { out.push(typeof constructor.constructor("return process")()) } catch (e) { out.push(e.name) }
       try { out.push(typeof (function () {}).constructor("return globalThis.process")()) } catch (e) { out.push(e.name) }
       out`,
    );
    expect(result).toEqual(["undefined", "undefined", "undefined", "undefined", "undefined", "undefined", "ReferenceError", "undefined"]);
  });

  it("deep recursion is JSX_FAILED kind stack, not a crash", async () => {
    const host = await connectedHost();
    expect(await failureOf(run(host, "function f(n) { return f(n + 1) + 1 } f(0)"))).toMatchObject({
      code: "JSX_FAILED",
      details: { kind: "stack" },
    });
    expect(await run(host, "2 * 21")).toBe(42);
  });

  it("results that are not JSON or too large are JSX_FAILED kind output", async () => {
    const host = await connectedHost();
    expect(await failureOf(run(host, "const a = {}; a.a = a; a"))).toMatchObject({ code: "JSX_FAILED", details: { kind: "output" } });
    const big = await failureOf(run(host, `'x'.repeat(${SCRIPT_MAX_OUTPUT_BYTES + 1})`));
    expect(big).toMatchObject({ code: "JSX_FAILED", details: { kind: "output", maxOutputBytes: SCRIPT_MAX_OUTPUT_BYTES } });
  });

  it("declares JavaScript in .js files, up to SCRIPT_MAX_SOURCE_BYTES", async () => {
    const host = await connectedHost();
    expect(host.scriptLanguage).toEqual({ names: ["javascript"], extension: ".js", label: "JavaScript", maxBytes: SCRIPT_MAX_SOURCE_BYTES });
  });

  it("params are the script's global params; without them params is an empty object", async () => {
    const host = await connectedHost();
    const source = "({ name: app.activeDocument.name, wanted: params.size * 2, keys: Object.keys(params) })";
    const withParams = await host.runScript!(ctx(), { source, language: "javascript", params: { size: 21 }, timeoutMs: 5000 });
    expect(withParams).toEqual({ name: "Sample", wanted: 42, keys: ["size"] });
    expect(await run(host, "params")).toEqual({});
  });

  it("a script's edits emit one coalesced set of live events when it ends", async () => {
    const host = await connectedHost();
    const changed: unknown[] = [];
    const sub = host.events("documentChanged")!.subscribe((data) => changed.push(data));
    const selection = firstValueFrom(host.events("selection:changed") as Observable<HostRect | null>);
    const preview = firstValueFrom(host.events("layer:previewChange")!);
    await run(
      host,
      `const doc = app.activeDocument;
       doc.selection.select([0, 0, 10, 10]);
       for (let i = 0; i < 20; i++) doc.activeLayer.fill([i, 0, 0]);`,
    );
    sub.unsubscribe();
    expect(changed).toEqual([{ documentId: 1, revision: expect.any(Number), pixels: true, selection: true, activeLayers: false, layers: false }]);
    expect(await selection).toEqual({ x: 0, y: 0, width: 10, height: 10 });
    expect(await preview).toMatchObject({ documentId: 1, layer: { name: "Subject" } });
  });

  it("edits made before a script fails still emit their events", async () => {
    const host = await connectedHost();
    const changed = firstValueFrom(host.events("documentChanged")!);
    await failureOf(run(host, "app.activeDocument.activeLayer.translate(3, 3); throw new Error('late')"));
    expect(await changed).toMatchObject({ documentId: 1, pixels: true });
  });
});
