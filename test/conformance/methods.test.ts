import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, test } from "vitest";
import { METHOD_SCHEMAS, SPEC_METHODS, type BuiltinMethodName, type HostLayer } from "../../src/protocol/index.js";
import { bridgesFor, itFor, conformanceMatrix } from "./_editors.js";
import type { ConformanceTransport, Outcome } from "./_transports.js";

function expectResult<M extends BuiltinMethodName>(method: M, outcome: Outcome): unknown {
  if (!outcome.ok) throw new Error(`${method} failed: ${JSON.stringify(outcome.error)}`);
  const parsed = METHOD_SCHEMAS[method].result.safeParse(outcome.result);
  if (!parsed.success) throw new Error(`${method} result does not match its schema: ${parsed.error.message}`);
  return outcome.result;
}

function flatten(layers: HostLayer[]): HostLayer[] {
  return layers.flatMap((l) => [l, ...flatten(l.children ?? [])]);
}

const onePixelPng = async (): Promise<string> =>
  `data:image/png;base64,${(await sharp({ create: { width: 8, height: 6, channels: 4, background: "#00ff00" } }).png().toBuffer()).toString("base64")}`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "bridge-conformance-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const MATRIX = conformanceMatrix({ gimpPool: true });

describe.each(MATRIX)("built-in methods over $label", ({ editor, transport: { name, make } }) => {
  const it = itFor(editor);
  let t: ConformanceTransport;
  const call = (method: BuiltinMethodName, params?: Record<string, unknown>): Promise<Outcome> => t.call(method, params);

  // A case that changes anything gets a fresh bridge, so cases stay independent; the cases that only read the
  // sample (first in this describe) share one.
  const bridges = bridgesFor(editor, make);
  const setup = async (): Promise<void> => {
    t = await bridges.fresh();
  };
  const reading = async (): Promise<void> => {
    t = await bridges.reading();
  };

  it("document:current describes the sample document", async () => {
    await reading();
    const doc = expectResult("document:current", await call("document:current")) as { name: string; width: number };
    expect(doc.name).toBe(editor.sampleName);
    expect(doc.width).toBeGreaterThan(0);
  });

  it("document:list and document:layers return schema-valid documents and layer trees", async () => {
    await reading();
    const docs = expectResult("document:list", await call("document:list")) as unknown[];
    expect(docs).toHaveLength(1);
    const tree = expectResult("document:layers", await call("document:layers")) as HostLayer[];
    expect(flatten(tree).some((l) => l.kind === "group")).toBe(true);
  });

  it("every layer found by index has the id it was listed with", async () => {
    await reading();
    const layers = flatten(expectResult("document:layers", await call("document:layers")) as HostLayer[]);
    for (const layer of layers) {
      const byIndex = expectResult("layer:getInfoByIndex", await call("layer:getInfoByIndex", { layerIndex: layer.index })) as HostLayer;
      expect(byIndex.id).toBe(layer.id);
      const byId = expectResult("layer:getInfoById", await call("layer:getInfoById", { layerId: layer.id })) as HostLayer;
      expect(byId.index).toBe(layer.index);
    }
  });

  it("layer:getInfo without a reference returns the active layer, with children on request", async () => {
    await reading();
    const doc = expectResult("document:current", await call("document:current")) as { activeLayerIds: number[] };
    const layer = expectResult("layer:getInfo", await call("layer:getInfo")) as HostLayer;
    expect(layer.id).toBe(doc.activeLayerIds[0]);
    const group = flatten(expectResult("document:layers", await call("document:layers")) as HostLayer[]).find(
      (l) => l.kind === "group",
    )!;
    const withChildren = expectResult("layer:getInfo", await call("layer:getInfo", { layerId: group.id, getChildren: true })) as HostLayer;
    expect(withChildren.children?.length).toBeGreaterThan(0);
  });

  it("layer:getCurrentPreview returns a PNG preview no longer than 300 px", async () => {
    await reading();
    const preview = expectResult("layer:getCurrentPreview", await call("layer:getCurrentPreview")) as { width: number; height: number };
    expect(Math.max(preview.width, preview.height)).toBeLessThanOrEqual(300);
  });

  it("image:exportDocument returns a decodable image scaled to maxSize", async () => {
    await reading();
    const image = expectResult("image:exportDocument", await call("image:exportDocument", { format: "jpeg", maxSize: 200 })) as {
      data: string;
      width: number;
      height: number;
      format: string;
    };
    expect(image.format).toBe("jpeg");
    expect(Math.max(image.width, image.height)).toBe(200);
    const meta = await sharp(Buffer.from(image.data.split(",")[1]!, "base64")).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", image.width, image.height]);
  });

  it("image:exportLayer and image:getPreview export one layer", async () => {
    await reading();
    const layer = expectResult("layer:getInfo", await call("layer:getInfo")) as HostLayer;
    const exported = expectResult("image:exportLayer", await call("image:exportLayer", { layerId: layer.id })) as { bounds: unknown };
    expect(exported.bounds).toEqual(layer.bounds);
    expectResult("image:getPreview", await call("image:getPreview", { layerSpec: layer.id }));
    expectResult("image:getPreview", await call("image:getPreview", { layerSpec: "current", maxSize: 64 }));
  });

  test.runIf(editor.name === "embedded")("what the embedded editor cannot do yet answers NOT_SUPPORTED naming the capability", async () => {
    await reading();
    if (t.supports("jsx:run")) {
      // Scripts run (test/conformance/scripts.test.ts); only languages other than JavaScript are refused.
      const script = await call("jsx:run", { script: "1+1", language: "script-fu" });
      expect(script.error?.code).toBe("NOT_SUPPORTED");
      expect(script.error?.details?.["capability"]).toBe("jsx:run");
    }
  });

  test.runIf(name === "ws")("getServerInfo, server:clients and server:ping answer over WS", async () => {
    await reading();
    const info = expectResult("getServerInfo", await call("getServerInfo")) as { name: string; hostVersion: string; plugins: unknown[] };
    expect(info.name).toBe("image-editor-bridge");
    expect(info.hostVersion).toMatch(new RegExp(editor.name));
    expect(info.plugins).toEqual([]);
    const { clients } = expectResult("server:clients", await call("server:clients")) as { clients: unknown[] };
    expect(clients).toHaveLength(1);
    expect(expectResult("server:ping", await call("server:ping"))).toMatchObject({ pong: true });
  });

  it("selection:set then selection:getArea returns the clipped rectangle, and null after clearing", async () => {
    await setup();
    expect(expectResult("selection:getArea", await call("selection:getArea"))).toBeNull();
    expectResult("selection:set", await call("selection:set", { rect: { x: 10, y: 20, width: 30, height: 40 } }));
    expect(expectResult("selection:getArea", await call("selection:getArea"))).toEqual({ x: 10, y: 20, width: 30, height: 40 });
    expectResult("selection:set", await call("selection:set", { rect: null }));
    expect(expectResult("selection:getArea", await call("selection:getArea"))).toBeNull();
  });

  it("layer:select makes layers active", async () => {
    await setup();
    const layers = flatten(expectResult("document:layers", await call("document:layers")) as HostLayer[]);
    const target = layers[layers.length - 1]!;
    expectResult("layer:select", await call("layer:select", { ids: [target.id] }));
    const doc = expectResult("document:current", await call("document:current")) as { activeLayerIds: number[] };
    expect(doc.activeLayerIds).toEqual([target.id]);
  });

  it("layer:importImage imports a data URI as a new active layer", async () => {
    await setup();
    const layer = expectResult(
      "layer:importImage",
      await call("layer:importImage", { image: await onePixelPng(), name: "Imported", position: { x: 5, y: 6 } }),
    ) as HostLayer;
    expect(layer.name).toBe("Imported");
    expect(layer.rect).toEqual({ x: 5, y: 6, width: 8, height: 6 });
    const doc = expectResult("document:current", await call("document:current")) as { activeLayerIds: number[] };
    expect(doc.activeLayerIds).toEqual([layer.id]);
  });

  it("document:export writes TIFF, chosen by extension or by format", async () => {
    await setup();
    for (const [file, params] of [
      [`${editor.label.replace(" ×", "x")}-${name}-flat.tiff`, {}],
      [`${editor.label.replace(" ×", "x")}-${name}-flat.img`, { format: "tiff" }],
    ] as const) {
      const path = join(dir, file);
      const exported = expectResult("document:export", await call("document:export", { path, ...params })) as { format: string; width: number };
      expect(exported.format).toBe("tiff");
      const meta = await sharp(path).metadata();
      expect([meta.format, meta.width]).toEqual(["tiff", exported.width]);
    }
    const unknown = await call("document:export", { path: join(dir, `${editor.label.replace(" ×", "x")}-${name}-flat.img`) });
    expect(unknown.error?.code).toBe("BAD_REQUEST");
  });

  it("document:create, document:save, document:open and document:export work with real files", async () => {
    await setup();
    const created = expectResult("document:create", await call("document:create", { width: 40, height: 30, name: "New" })) as {
      id: number;
    };
    const current = expectResult("document:current", await call("document:current")) as { id: number };
    expect(current.id).toBe(created.id);
    const psd = join(dir, `${editor.label.replace(" ×", "x")}-${name}-saved.psd`);
    expect(expectResult("document:save", await call("document:save", { savePath: psd }))).toEqual({ path: psd, format: "psd" });
    const png = join(dir, `${editor.label.replace(" ×", "x")}-${name}-export.png`);
    const exported = expectResult("document:export", await call("document:export", { path: png })) as { size: number };
    expect((await stat(png)).size).toBe(exported.size);
    const opened = expectResult("document:open", await call("document:open", { path: psd })) as { width: number; height: number };
    expect([opened.width, opened.height]).toEqual([40, 30]);
    const closed = expectResult("document:close", await call("document:close")) as { documentId: number };
    expect(closed.documentId).not.toBe(created.id);
  });

  if (name === "ws") it("layer:getInfoBySelectionIndex walks the active layers in index order", async () => {
    await setup();
    const layers = flatten(expectResult("document:layers", await call("document:layers")) as HostLayer[]);
    const chosen = [layers[3]!, layers[0]!];
    expectResult("layer:select", await call("layer:select", { ids: chosen.map((l) => l.id) }));
    const first = expectResult("layer:getInfoBySelectionIndex", await call("layer:getInfoBySelectionIndex", { selectionIndex: 0 }));
    const second = expectResult("layer:getInfoBySelectionIndex", await call("layer:getInfoBySelectionIndex", { selectionIndex: 1 }));
    expect([(first as HostLayer).id, (second as HostLayer).id]).toEqual([layers[0]!.id, layers[3]!.id]);
    expect((await call("layer:getInfoBySelectionIndex", { selectionIndex: 2 })).error?.code).toBe("LAYER_NOT_FOUND");
  });

});

describe("method coverage", () => {
  it("every spec method has params and result schemas", () => {
    expect(SPEC_METHODS).toHaveLength(23);
    for (const method of SPEC_METHODS) expect(METHOD_SCHEMAS[method]).toBeDefined();
  });
});
