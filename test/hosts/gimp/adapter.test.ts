import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGimpHost } from "../../../src/hosts/gimp/index.js";
import type { HostLayer } from "../../../src/protocol/index.js";
import { startBridge } from "../../helpers/bridge.js";
import type { TestClient } from "../../helpers/ws-client.js";
import { GIMP_BINARY, GIMP_SKIP, sharedGimpAttach } from "./_support.js";

const flatten = (layers: HostLayer[]): HostLayer[] => layers.flatMap((l) => [l, ...flatten(l.children ?? [])]);

/** A bridge on the shared GIMP showing the sample document, and one WS client. */
async function sampleBridge(scriptDirs: string[] = []): Promise<TestClient> {
  const harness = await startBridge({
    host: createGimpHost({ binary: GIMP_BINARY, attach: await sharedGimpAttach(), sample: true, pollIntervalMs: 50, scriptDirs }),
  });
  return harness.connect();
}

describe.skipIf(GIMP_SKIP !== undefined)("the GIMP host", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "gimp-adapter-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reports GIMP's version and the sample tree in index order, a group before its children", async () => {
    const client = await sampleBridge();
    expect((await client.call<{ hostVersion: string }>("getServerInfo")).hostVersion).toMatch(/^gimp 2\.10\./);
    const layers = flatten(await client.call<HostLayer[]>("document:layers"));
    expect(layers.map((l) => [l.index, l.name, l.kind])).toEqual([
      [0, "Label", "pixel"],
      [1, "Product", "group"],
      [2, "Subject", "pixel"],
      [3, "Shadow", "pixel"],
      [4, "Background", "pixel"],
    ]);
    const shadow = layers[3]!;
    expect([shadow.opacity, shadow.blendMode, shadow.rect]).toEqual([60, "multiply", { x: 90, y: 170, width: 140, height: 30 }]);
    // A group's bounds are the union of its children.
    expect(layers[1]!.bounds).toEqual({ left: 90, top: 60, right: 230, bottom: 200 });
  });

  it("a layer export applies the layer's opacity and sits at the layer's bounds", async () => {
    const client = await sampleBridge();
    const layers = flatten(await client.call<HostLayer[]>("document:layers"));
    const shadow = layers.find((l) => l.name === "Shadow")!;
    const image = await client.call<{ data: string; bounds: unknown; width: number }>("image:exportLayer", { layerId: shadow.id, format: "png" });
    expect(image.bounds).toEqual(shadow.bounds);
    const { data, info } = await sharp(Buffer.from(image.data.split(",")[1]!, "base64")).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([140, 30, 4]);
    expect(data[3]).toBe(153); // 60 % of 255
  });

  it("saves XCF and PSD that reopen with the same layers, and refuses other layered formats", async () => {
    const client = await sampleBridge();
    for (const ext of ["xcf", "psd"]) {
      const path = join(dir, `sample.${ext}`);
      expect(await client.call("document:save", { savePath: path })).toEqual({ path, format: ext });
      const opened = await client.call<{ id: number; name: string; isDirty: boolean }>("document:open", { path });
      expect([opened.name, opened.isDirty]).toEqual([`sample.${ext}`, false]);
      const names = flatten(await client.call<HostLayer[]>("document:layers", { documentId: opened.id })).map((l) => l.name);
      expect(names).toEqual(["Label", "Product", "Subject", "Shadow", "Background"]);
    }
    const wrong = await client.send("document:save", { savePath: join(dir, "flat.png") });
    expect(wrong.error).toMatchObject({ code: "BAD_REQUEST" });
    const missing = await client.send("document:open", { path: join(dir, "none.psd") });
    expect(missing.error).toMatchObject({ code: "NOT_FOUND" });
  });

  it("answers the right codes for unknown documents and layers, and one active layer only", async () => {
    const client = await sampleBridge();
    expect((await client.send("document:layers", { documentId: 987_654 })).error?.code).toBe("DOCUMENT_NOT_FOUND");
    expect((await client.send("layer:getInfoById", { layerId: 987_654 })).error?.code).toBe("LAYER_NOT_FOUND");
    expect((await client.send("layer:getInfoByIndex", { layerIndex: 99 })).error?.code).toBe("LAYER_NOT_FOUND");
    const layers = flatten(await client.call<HostLayer[]>("document:layers"));
    const two = await client.send("layer:select", { ids: [layers[0]!.id, layers[2]!.id] });
    expect(two.error).toMatchObject({ code: "NOT_SUPPORTED", details: { capability: "layer:select:multiple" } });
    await client.call("document:close");
    expect((await client.send("document:current")).error?.code).toBe("NO_DOCUMENT");
  });

  it("selection:getPath returns the outline as SVG, grown by expand, and keeps the selection", async () => {
    const client = await sampleBridge();
    expect(await client.call("selection:getPath")).toBeNull();
    await client.call("selection:set", { rect: { x: 20, y: 30, width: 50, height: 40 } });
    const path = await client.call<{ svg: string; x: number; y: number; width: number; height: number }>("selection:getPath", { expand: 5 });
    expect(path.svg).toContain("<svg");
    expect(path.svg).toMatch(/<path[^>]* d="M/);
    expect([path.x, path.y, path.width, path.height]).toEqual([15, 25, 60, 50]);
    expect(await client.call("selection:getArea")).toEqual({ x: 20, y: 30, width: 50, height: 40 });
  });

  it("image:exportLayerWithSelectedPath draws the selection outline onto the layer's pixels", async () => {
    const client = await sampleBridge();
    const background = flatten(await client.call<HostLayer[]>("document:layers")).find((l) => l.name === "Background")!;
    await client.call("selection:set", { rect: { x: 20, y: 30, width: 50, height: 40 } });
    const image = await client.call<{ data: string; width: number }>("image:exportLayerWithSelectedPath", { layerId: background.id, strokeWidth: 3 });
    const { data, info } = await sharp(Buffer.from(image.data.split(",")[1]!, "base64")).raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number): number[] => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
    expect(pixel(20, 50)).toEqual([255, 0, 0]); // on the outline
    expect(pixel(45, 50)).toEqual([236, 236, 240]); // inside, untouched
  });

  it("removes a plain background and cuts out a subject inside a hint", async () => {
    const client = await sampleBridge();
    const layers = flatten(await client.call<HostLayer[]>("document:layers"));
    const background = layers.find((l) => l.name === "Background")!;
    expect(await client.call("action:removeBackground", { layerId: background.id })).toEqual({ success: true });
    const area = await client.call<{ width: number } | null>("selection:getArea");
    // The background was uniform, so nothing of it is left selected after the inversion.
    expect(area).toBeNull();
    const subject = layers.find((l) => l.name === "Subject")!;
    await client.call("selection:set", { rect: { x: 80, y: 40, width: 160, height: 140 } });
    expect(await client.call("action:autoCutout", { layerId: subject.id })).toBe(true);
    expect(await client.call("selection:getArea")).not.toBeNull();
  });

  it("jsx:run evaluates Script-Fu as JSON and refuses JSX with NOT_SUPPORTED", async () => {
    const client = await sampleBridge();
    expect(await client.call("jsx:run", { script: '(list 1 2.5 "ü" #t (vector 3))', language: "script-fu" })).toEqual({
      result: [1, 2.5, "ü", true, [3]],
    });
    expect(await client.call("jsx:run", { script: "(+ 1 2) ; trailing comment", language: "script-fu" })).toEqual({ result: 3 });
    const failed = await client.send("jsx:run", { script: "(no-such-procedure)", language: "script-fu" });
    expect(failed.error).toMatchObject({ code: "JSX_FAILED", message: expect.stringContaining("no-such-procedure") });
    const jsx = await client.send("jsx:run", { script: "app.activeDocument.name" });
    expect(jsx.error).toMatchObject({ code: "NOT_SUPPORTED", details: { capability: "jsx:run" } });
  });

  it("jsx:execute runs a named Script-Fu file from a script folder with its params", async () => {
    await writeFile(join(dir, "area.scm"), '(* (cdr (assoc "w" params)) (cdr (assoc "h" params)))');
    const client = await sampleBridge([dir]);
    expect(await client.call("jsx:execute", { name: "area", params: { w: 3, h: 4.5 } })).toEqual({ result: 13.5 });
    expect((await client.send("jsx:execute", { name: "../area" })).error?.code).toBe("BAD_REQUEST");
    expect((await client.send("jsx:execute", { name: "missing" })).error?.code).toBe("NOT_FOUND");
  });

  it("polls GIMP for selection and active-layer changes made by scripts while a client subscribes", async () => {
    const client = await sampleBridge();
    await client.call("event:subscribe", { type: "selection:changed" });
    await client.call("event:subscribe", { type: "layer:selectionChange" });
    await client.call("event:subscribe", { type: "layer:previewChange" });
    // Script-Fu changes GIMP behind the adapter's back: only polling can see them.
    const script = (text: string) => client.call("jsx:run", { script: text, language: "script-fu" });
    await script("(gimp-image-select-rectangle (car (br-images)) CHANNEL-OP-REPLACE 5 6 7 8)");
    const selection = await client.next((f) => f.type === "selection:changed");
    expect(selection.data).toEqual({ x: 5, y: 6, width: 7, height: 8 });
    await script('(gimp-image-set-active-layer (car (br-images)) (car (gimp-image-get-layer-by-name (car (br-images)) "Label")))');
    const active = await client.next((f) => f.type === "layer:selectionChange");
    expect((active.data as HostLayer[]).map((l) => l.name)).toEqual(["Label"]);
    const preview = await client.next((f) => f.type === "layer:previewChange" && (f.data as { name: string }).name === "Label");
    expect(preview.data).toMatchObject({ width: 200, height: 40, data: expect.stringMatching(/^data:image\/png;base64,/) });
  });

  it("document:export writes a flat JPEG and reports its size", async () => {
    const client = await sampleBridge();
    const path = join(dir, "flat.jpg");
    const result = await client.call<{ size: number; width: number; format: string }>("document:export", { path, quality: 80 });
    expect([result.format, result.width, (await stat(path)).size]).toEqual(["jpeg", 320, result.size]);
  });
});

