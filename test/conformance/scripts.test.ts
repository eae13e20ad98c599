import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { METHOD_SCHEMAS, type BuiltinMethodName, type HostLayer } from "../../src/protocol/index.js";
import type { Harness } from "../helpers/bridge.js";
import { itFor, conformanceMatrix } from "./_editors.js";
import type { ConformanceTransport, Outcome } from "./_transports.js";

function expectResult(method: BuiltinMethodName, outcome: Outcome): unknown {
  if (!outcome.ok) throw new Error(`${method} failed: ${JSON.stringify(outcome.error)}`);
  const parsed = METHOD_SCHEMAS[method].result.safeParse(outcome.result);
  if (!parsed.success) throw new Error(`${method} result does not match its schema: ${parsed.error.message}`);
  return outcome.result;
}

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "bridge-scripts-"));
  await writeFile(join(dir, "resize-label.js"), "const l = app.activeDocument.layers.getByName(params.layer); l.translate(params.dx, 0); l.bounds");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const MATRIX = conformanceMatrix();

describe.each(MATRIX)("scripts over $label", ({ editor, transport: { name, make } }) => {
  const it = itFor(editor);
  // The script API (`app`, `params`) and the sandbox limits are the embedded editor's; the others run their own language.
  const embedded = editor.name === "embedded";
  let harness: Harness;
  let t: ConformanceTransport;
  const call = (method: BuiltinMethodName, params?: Record<string, unknown>): Promise<Outcome> => t.call(method, params);
  const setup = async (): Promise<void> => {
    harness = await editor.start({ scriptDirs: [dir] });
    t = await make(harness);
  };

  it("jsx:run and jsx:execute are reachable over WS only", async () => {
    await setup();
    expect(t.supports("jsx:run")).toBe(name === "ws");
    expect(t.supports("jsx:execute")).toBe(name === "ws");
    if (name === "http") {
      const response = await harness.http("/jsx/run", { method: "POST", body: JSON.stringify({ script: "1" }) });
      expect(response.status).toBe(404);
    }
  });

  test.runIf(embedded && name === "ws")("a script builds a document, selects, fills and exports it", async () => {
    await setup();
    const path = join(dir, `built-${name}.png`);
    const script = `
      const doc = app.documents.add(64, 48, "Scripted", "white");
      const layer = doc.artLayers.add("Fill");
      doc.selection.select({ x: 8, y: 8, width: 16, height: 16 });
      layer.fill("#0000ff");
      doc.exportDocument(${JSON.stringify(path)}, { format: "png" }).then((file) => ({ file, selection: doc.selection.bounds }))`;
    const { result } = expectResult("jsx:run", await call("jsx:run", { script })) as { result: { file: { width: number }; selection: unknown } };
    expect(result.file.width).toBe(64);
    expect(result.selection).toEqual({ left: 8, top: 8, right: 24, bottom: 24 });
    const { data, info } = await sharp(path).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number): number[] => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
    expect(at(10, 10)).toEqual([0, 0, 255]);
    expect(at(30, 30)).toEqual([255, 255, 255]);
    const doc = expectResult("document:current", await call("document:current")) as { name: string };
    expect(doc.name).toBe("Scripted");
    const layers = expectResult("document:layers", await call("document:layers")) as HostLayer[];
    expect(layers.map((l) => l.name)).toEqual(["Fill", "Background"]);
  });

  test.runIf(embedded && name === "ws")("an infinite loop answers TIMEOUT and the bridge keeps serving", async () => {
    await setup();
    const outcome = await call("jsx:run", { script: "for (;;) {}", timeoutMs: 300 });
    expect(outcome.error).toMatchObject({ code: "TIMEOUT", details: { timeoutMs: 300 } });
    expectResult("document:current", await call("document:current"));
  });

  test.runIf(embedded && name === "ws")("a 200 MB allocation answers JSX_FAILED kind memory and the bridge keeps serving", async () => {
    await setup();
    const outcome = await call("jsx:run", { script: "const big = new ArrayBuffer(200 * 1024 * 1024); big.byteLength" });
    expect(outcome.error).toMatchObject({ code: "JSX_FAILED", source: "jsx", details: { kind: "memory" } });
    expect(expectResult("jsx:run", await call("jsx:run", { script: "'still here'" }))).toEqual({ result: "still here" });
  });

  test.runIf(embedded && name === "ws")("constructor.constructor('return process')() finds no process", async () => {
    await setup();
    const outcome = await call("jsx:run", { script: "constructor.constructor('return process')()" });
    expect(outcome.error).toMatchObject({ code: "JSX_FAILED", details: { kind: "error", name: "ReferenceError" } });
    const typeOf = expectResult("jsx:run", await call("jsx:run", { script: "[typeof process, typeof require, typeof fetch]" }));
    expect(typeOf).toEqual({ result: ["undefined", "undefined", "undefined"] });
  });

  test.runIf(embedded && name === "ws")("jsx:execute runs a named script with params and refuses names outside the folders", async () => {
    await setup();
    const outcome = await call("jsx:execute", { name: "resize-label", params: { layer: "Label", dx: 10 } });
    expect(expectResult("jsx:execute", outcome)).toEqual({ result: { left: 50, top: 40, right: 270, bottom: 80 } });
    expect((await call("jsx:execute", { name: "../etc/passwd" })).error).toMatchObject({ code: "BAD_REQUEST" });
    expect((await call("jsx:execute", { name: "absent" })).error).toMatchObject({ code: "NOT_FOUND" });
  });

  test.runIf(embedded && name === "ws")("a script's error is JSX_FAILED with the line", async () => {
    await setup();
    const outcome = await call("jsx:run", { script: "1;\n2;\nnull.x" });
    expect(outcome.error).toMatchObject({ code: "JSX_FAILED", details: { kind: "error", line: 3 } });
  });
});
