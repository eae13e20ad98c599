import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { createPhotoshopHost } from "../../../src/hosts/photoshop/index.js";
import { JSX_DIR, OPERATIONS } from "../../../src/hosts/photoshop/scripts.js";
import { startBridge } from "../../helpers/bridge.js";
import { bridgeOn, startFake } from "./_setup.js";

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
      expect(text.startsWith(`// @bridge-op ${op}\n`)).toBe(true);
      expect(text).toMatch(/function run\(/);
      expect(text).not.toMatch(/\balert\(|\bconfirm\(|\bprompt\(|DialogModes\.ALL/);
    }
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

  it("ellipse and polygon selections answer their clipped bounding box", async () => {
    const fake = await startFake();
    const host = createPhotoshopHost(fake.address);
    await host.connect();
    const c = { signal: AbortSignal.timeout(5_000), clientId: "test" };
    try {
      expect(await host.setSelectionShape!(c, { shape: { kind: "ellipse", rect: { x: -10, y: 5, width: 50, height: 20 } } })).toEqual({ x: 0, y: 5, width: 40, height: 20 });
      const polygon = { kind: "polygon" as const, points: [{ x: 10, y: 10 }, { x: 30, y: 12 }, { x: 20, y: 40 }] };
      expect(await host.setSelectionShape!(c, { shape: polygon })).toEqual({ x: 10, y: 10, width: 20, height: 30 });
      const request = fake.requests.filter((r) => r.op === "selection.shape").at(-1)!;
      expect(request.params).toMatchObject({ shape: polygon });
      await expect(host.setSelectionShape!(c, { shape: { kind: "polygon", points: [{ x: 1, y: 1 }] } })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    } finally {
      await host.close();
    }
  });

  it("jsx:run returns Photoshop's text; jsx:execute runs named scripts from scriptDirs only", async () => {
    const fake = await startFake();
    fake.handlers.push((script, params) =>
      script.endsWith('"hello " + params.who') ? { text: `hello ${(params as { who: string }).who}` } : undefined,
    );
    const harness = await startBridge({ host: createPhotoshopHost({ ...fake.address, scriptDirs: [dir] }) });
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
