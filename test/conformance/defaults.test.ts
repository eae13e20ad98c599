import sharp from "sharp";
import { beforeAll, describe, expect } from "vitest";
import type { HostDocument, HostLayer } from "../../src/protocol/index.js";
import { itFor, conformanceMatrix } from "./_editors.js";
import type { ConformanceTransport, Outcome } from "./_transports.js";

/*
 * Every optional field left out, on every editor: the defaults are decided once (in the methods), so each case
 * must answer the same way whichever editor runs behind the bridge.
 */

let png = "";
beforeAll(async () => {
  const bytes = await sharp({ create: { width: 10, height: 6, channels: 4, background: "#00ff00" } }).png().toBuffer();
  png = `data:image/png;base64,${bytes.toString("base64")}`;
});

const ok = <T>(outcome: Outcome): T => {
  if (!outcome.ok) throw new Error(`call failed: ${JSON.stringify(outcome.error)}`);
  return outcome.result as T;
};

/** Decoded RGBA of an image result. */
async function pixels(result: { data: string }): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(Buffer.from(result.data.split(",")[1]!, "base64")).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** The sibling list holding `id`, from the top-level list down. */
function siblingsOf(layers: readonly HostLayer[], id: number): readonly HostLayer[] | undefined {
  if (layers.some((layer) => layer.id === id)) return layers;
  for (const layer of layers) {
    const found = siblingsOf(layer.children ?? [], id);
    if (found) return found;
  }
  return undefined;
}

const MATRIX = conformanceMatrix();

describe.each(MATRIX)("defaults when optional fields are left out, over $label", ({ editor, transport: { make } }) => {
  const it = itFor(editor);
  let t: ConformanceTransport;
  const setup = async (): Promise<void> => {
    t = await make(await editor.start());
  };

  it("layer:importImage with only an image: centred on the canvas, above the active layer, named Imported Layer, active", async () => {
    await setup();
    const doc = ok<HostDocument>(await t.call("document:current"));
    const active = doc.activeLayerIds[0]!;
    const layer = ok<HostLayer>(await t.call("layer:importImage", { image: png }));
    expect(layer.name).toBe("Imported Layer");
    expect(layer.rect).toEqual({ x: Math.round((doc.width - 10) / 2), y: Math.round((doc.height - 6) / 2), width: 10, height: 6 });
    const tree = ok<HostLayer[]>(await t.call("document:layers"));
    const siblings = siblingsOf(tree, active)!.map((l) => l.id);
    expect(siblings.indexOf(layer.id)).toBe(siblings.indexOf(active) - 1);
    expect(ok<HostDocument>(await t.call("document:current")).activeLayerIds).toEqual([layer.id]);
  });

  it("image:exportLayerWithSelectedPath with no selection is the plain layer export", async () => {
    await setup();
    ok(await t.call("selection:set", { rect: null }));
    const plain = await pixels(ok(await t.call("image:exportLayer", {})));
    const withPath = await pixels(ok(await t.call("image:exportLayerWithSelectedPath", {})));
    expect([withPath.width, withPath.height]).toEqual([plain.width, plain.height]);
    expect(withPath.data.equals(plain.data)).toBe(true);
  });

  it("image:exportLayerWithSelectedPath draws the outline in the default colour, red, when something is selected", async () => {
    await setup();
    const layer = ok<HostLayer>(await t.call("layer:getInfo", {}));
    const { x, y, width, height } = layer.rect;
    ok(await t.call("selection:set", { rect: { x: x + width / 4, y: y + height / 4, width: width / 2, height: height / 2 } }));
    const image = await pixels(ok(await t.call("image:exportLayerWithSelectedPath", {})));
    let red = 0;
    for (let i = 0; i < image.data.length; i += 4) if (image.data[i]! > 200 && image.data[i + 1]! < 60 && image.data[i + 2]! < 60) red++;
    expect(red).toBeGreaterThan(0);
  });

  it("document:create with only a size: an Untitled-N name no open document has, on white", async () => {
    await setup();
    const names = ok<HostDocument[]>(await t.call("document:list")).map((d) => d.name);
    const doc = ok<HostDocument>(await t.call("document:create", { width: 20, height: 10 }));
    expect(doc.name).toMatch(/^Untitled-\d+$/);
    expect(names).not.toContain(doc.name);
    const image = await pixels(ok(await t.call("image:exportDocument", { documentId: doc.id })));
    expect([...image.data.subarray(0, 4)]).toEqual([255, 255, 255, 255]);
  });

  it("image:exportDocument without a format is PNG at the document's size; a preview without maxSize is at most 300 px", async () => {
    await setup();
    const doc = ok<HostDocument>(await t.call("document:current"));
    const image = ok<{ format: string; width: number; height: number; data: string }>(await t.call("image:exportDocument", {}));
    expect([image.format, image.width, image.height]).toEqual(["png", doc.width, doc.height]);
    expect(image.data.startsWith("data:image/png;base64,")).toBe(true);
    const preview = ok<{ width: number; height: number }>(await t.call("layer:getCurrentPreview", {}));
    expect(Math.max(preview.width, preview.height)).toBeLessThanOrEqual(300);
  });

  it("layer:getInfo without a reference is the active layer; selection:getPath without expand is expand 0", async () => {
    await setup();
    const doc = ok<HostDocument>(await t.call("document:current"));
    expect(ok<HostLayer>(await t.call("layer:getInfo", {})).id).toBe(doc.activeLayerIds[0]);
    ok(await t.call("selection:set", { rect: { x: 2, y: 2, width: 8, height: 6 } }));
    expect(ok(await t.call("selection:getPath", {}))).toEqual(ok(await t.call("selection:getPath", { expand: 0 })));
  });
});
