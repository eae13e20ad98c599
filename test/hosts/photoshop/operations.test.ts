import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { createPhotoshopHost } from "../../../src/hosts/photoshop/index.js";
import { parse } from "acorn";
import { buildScript, compactJsx, JSX_DIR, OPERATION_MARKER, OPERATIONS } from "../../../src/hosts/photoshop/operations.js";
import { startBridge } from "../../helpers/bridge.js";
import type { SelectionShape } from "../../../src/hosts/host.js";
import { bridgeOn, ctx, hostOn, startFake } from "./_setup.js";

let dir: string;
let outside: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ps-scripts-"));
  outside = await mkdtemp(join(tmpdir(), "ps-outside-"));
  await writeFile(join(dir, "greet.jsx"), '"hello " + params.who');
  await writeFile(join(outside, "secret.jsx"), "app.quit()");
  await symlink(join(outside, "secret.jsx"), join(dir, "escape.jsx"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe("Photoshop operations", () => {
  it("every operation file carries its marker, never opens dialogs, and returns the envelope through the shared prelude", () => {
    const lib = readFileSync(new URL("_lib.jsx", JSX_DIR), "utf8");
    expect(lib).toContain("DialogModes.NO");
    expect(lib).not.toMatch(/\balert\(|\bconfirm\(|\bprompt\(/);
    for (const op of OPERATIONS) {
      const text = readFileSync(new URL(`${op}.jsx`, JSX_DIR), "utf8");
      expect(text.startsWith(`${OPERATION_MARKER}${op}\n`)).toBe(true);
      expect(text).toMatch(/function run\(/);
      expect(text).not.toMatch(/\balert\(|\bconfirm\(|\bprompt\(|DialogModes\.ALL/);
    }
  });

  it("sends each file compacted: the same ES3 program on the same lines, without its comment lines and indentation", () => {
    /** The program's tree without positions: what the engine runs. */
    const program = (text: string): string =>
      JSON.stringify(parse(text, { ecmaVersion: 3, allowReturnOutsideFunction: true }), (key, value: unknown) => (["start", "end", "raw"].includes(key) ? undefined : value));
    const files = ["_lib.jsx", "_tree.jsx", "_effects.jsx", "_edit.jsx", "_content.jsx", ...OPERATIONS.map((op) => `${op}.jsx`)];
    let before = 0;
    let after = 0;
    for (const file of files) {
      const text = readFileSync(new URL(file, JSX_DIR), "utf8");
      const compact = compactJsx(text);
      expect(program(compact), file).toBe(program(text));
      expect(compact.split("\n").length, file).toBe(text.split("\n").length);
      expect(compact, file).not.toMatch(/^\s*\/\/(?! @bridge-op )/m);
      before += text.length;
      after += compact.length;
    }
    // The saving is real: a quarter of the bytes at least (a third when this was written).
    expect(after / before).toBeLessThan(0.75);
    // What is sent is the compacted text, marker first.
    const script = buildScript("document.get", {});
    expect(script).toContain(`${OPERATION_MARKER}document.get\n`);
  });

  it("sends each operation with the library declarations it reaches, on the lines they have in the whole libraries", () => {
    const compact = (file: string): string => compactJsx(readFileSync(new URL(file, JSX_DIR), "utf8"));
    const libraries = (op: string): string[] => ["_lib.jsx", "_tree.jsx", "_effects.jsx", ...(op.startsWith("edit.") ? ["_edit.jsx"] : []), ...(["edit.layer", "edit.filter"].includes(op) ? ["_content.jsx"] : [])];
    let whole = 0;
    let sent = 0;
    for (const op of OPERATIONS) {
      const full = ["var params = {};", ...libraries(op).map(compact), compact(`${op}.jsx`), "__bridgeMain();"].join("\n").split("\n");
      const script = buildScript(op, {});
      // What is left out is whole declarations: the rest is still a program Photoshop's ES3 engine parses.
      expect(() => parse(script, { ecmaVersion: 3, allowReturnOutsideFunction: true }), op).not.toThrow();
      const lines = script.split("\n");
      // Line for line the whole text, some declarations' lines emptied: an error's line number means the same line.
      expect(lines.length, op).toBe(full.length);
      lines.forEach((line, i) => {
        if (line !== full[i]) expect([op, i, line], full[i]).toEqual([op, i, ""]);
      });
      whole += full.join("\n").length;
      sent += lines.join("\n").length;
    }
    // A read of one document's facts needs no layer tree: a fifth of a tree read or less.
    expect(buildScript("document.get", {}).length).toBeLessThan(buildScript("document.tree", {}).length / 5);
    expect(sent / whole).toBeLessThan(0.75);
    // A declaration reached only by name in a string is sent too: suspendHistory runs "__editStep()".
    expect(buildScript("edit.mask", {})).toMatch(/\nfunction __editStep\(/);
  });

  it("maps a missing document to NO_DOCUMENT and a missing layer to LAYER_NOT_FOUND", async () => {
    const fake = await startFake();
    fake.model.docs = [];
    const client = await (await bridgeOn(fake)).connect();
    expect((await client.send("document:current")).error).toMatchObject({ code: "NO_DOCUMENT" });
    await fake.restart();
    const fresh = await (await bridgeOn(fake)).connect();
    expect((await fresh.send("layer:getInfoById", { layerId: 9999 })).error).toMatchObject({ code: "LAYER_NOT_FOUND" });
    expect((await fresh.send("document:layers", { documentId: 999 })).error).toMatchObject({ code: "DOCUMENT_NOT_FOUND" });
  });

  it("passes parameters as a JSON literal that survives quotes, backslashes and line separators", async () => {
    const fake = await startFake();
    const client = await (await bridgeOn(fake)).connect();
    const name = 'a"; app.quit(); //\\\u2028x';
    const created = await client.call<{ name: string }>("document:create", { width: 10, height: 10, name });
    expect(created.name).toBe(name);
    const request = fake.requests.find((r) => r.op === "document.create")!;
    expect(request.params).toMatchObject({ name });
    expect(request.script.split("\n")[0]).not.toContain("\u2028");
  });

  it("selection:getPath returns SVG, image:exportLayerWithSelectedPath draws it, and the actions answer", async () => {
    const fake = await startFake();
    const client = await (await bridgeOn(fake)).connect();
    expect(await client.call("selection:getPath")).toBeNull();
    await client.call("selection:set", { rect: { x: 30, y: 20, width: 40, height: 20 } });
    const path = await client.call<{ svg: string; width: number }>("selection:getPath", { expand: 2 });
    expect(path.svg).toMatch(/^<svg [^>]*viewBox="[^"]+"><path d="M[^"]+" fill-rule="evenodd"\/><\/svg>$/);
    expect(path.width).toBe(44);
    const layer = (await client.call<{ id: number }[]>("document:layers"))[0]!;
    const plain = await client.call<{ data: string }>("image:exportLayer", { layerId: layer.id });
    const drawn = await client.call<{ data: string }>("image:exportLayerWithSelectedPath", { layerId: layer.id, strokeColor: "#0000ff" });
    expect(drawn.data).not.toBe(plain.data);
    const { data, info } = await sharp(Buffer.from(drawn.data.split(",")[1]!, "base64")).raw().toBuffer({ resolveWithObject: true });
    // The outline's top edge (y = 20 in the document) crosses this layer at row 10 (it starts at y = 10).
    const at = (10 * info.width + 20) * info.channels;
    expect([data[at], data[at + 1], data[at + 2]]).toEqual([0, 0, 255]);
    expect(await client.call("action:autoCutout", { layerId: layer.id })).toBeTruthy();
    expect(await client.call("selection:getArea")).toEqual({ x: 20, y: 10, width: 280, height: 40 });
    expect(await client.call("action:removeBackground")).toMatchObject({ success: true });
  });

  it("rectangle, ellipse and polygon selections answer their clipped bounding box, and null clears", async () => {
    const fake = await startFake();
    const host = hostOn(fake);
    await host.connect();
    const documentId = fake.model.docs[0]!.id;
    const set = (shape: SelectionShape | null): Promise<unknown> => host.setSelection!(ctx(), { documentId, shape });
    expect(await set({ kind: "rect", rect: { x: 5, y: 6, width: 7, height: 8 } })).toEqual({ x: 5, y: 6, width: 7, height: 8 });
    expect(await set({ kind: "ellipse", rect: { x: -10, y: 5, width: 50, height: 20 } })).toEqual({ x: 0, y: 5, width: 40, height: 20 });
    const polygon = { kind: "polygon" as const, points: [{ x: 10, y: 10 }, { x: 30, y: 12 }, { x: 20, y: 40 }] };
    expect(await set(polygon)).toEqual({ x: 10, y: 10, width: 20, height: 30 });
    expect(fake.requests.filter((r) => r.op === "selection.set").at(-1)!.params).toMatchObject({ documentId, shape: polygon });
    expect(await set(null)).toBeNull();
    expect(await host.getSelection(ctx(), documentId)).toBeNull();
  });

  it("layer:importImage places local files and file: URIs in Photoshop, as it does data URIs", async () => {
    const fake = await startFake();
    const client = await (await bridgeOn(fake)).connect();
    const path = join(dir, "blue.png");
    await sharp({ create: { width: 12, height: 9, channels: 4, background: "#3366ff" } }).png().toFile(path);
    const fromPath = await client.call<{ id: number; name: string; rect: unknown }>("layer:importImage", { image: path, name: "From path", position: { x: 3, y: 4 } });
    expect(fromPath).toMatchObject({ name: "From path", rect: { x: 3, y: 4, width: 12, height: 9 } });
    const fromUri = await client.call<{ rect: unknown }>("layer:importImage", { image: pathToFileURL(path).href, size: { width: 24, height: 18 } });
    expect(fromUri.rect).toMatchObject({ width: 24, height: 18 });
    expect(fake.model.docs[0]!.layers.find((l) => l.id === fromPath.id)!.color).toEqual([0x33, 0x66, 0xff, 255]);
  });

  it("jsx:run returns Photoshop's text; jsx:execute runs named scripts from scriptDirs only", async () => {
    const fake = await startFake();
    fake.handlers.push((script, params) =>
      script.endsWith('"hello " + params.who') ? { text: `hello ${(params as { who: string }).who}` } : undefined,
    );
    const harness = await startBridge({ host: createPhotoshopHost(fake.address), scriptDirs: [dir] });
    const client = await harness.connect();
    expect(await client.call("jsx:run", { script: "1+1" })).toEqual({ result: "2" });
    expect((await client.send("jsx:run", { script: "1+1", language: "script-fu" })).error).toMatchObject({ code: "NOT_SUPPORTED" });
    expect(await client.call("jsx:execute", { name: "greet", params: { who: "you" } })).toEqual({ result: "hello you" });
    expect((await client.send("jsx:execute", { name: "../ps-outside/secret" })).error?.code).toBe("BAD_REQUEST");
    expect((await client.send("jsx:execute", { name: "escape" })).error?.code).toBe("FORBIDDEN");
    expect((await client.send("jsx:execute", { name: "missing" })).error?.code).toBe("NOT_FOUND");
    expect(fake.requests.some((r) => r.script.includes("app.quit"))).toBe(false);
  });
});
