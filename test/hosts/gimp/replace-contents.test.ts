import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGimpHost } from "../../../src/hosts/gimp/index.js";
import type { HostLayer, HostRect } from "../../../src/protocol/index.js";
import { startSuiteBridge } from "../../helpers/bridge.js";
import type { TestClient } from "../../helpers/ws-client.js";
import { GIMP_BINARY, GIMP_SKIP, sharedGimpAttach } from "./_support.js";

/**
 * `layer:replaceContents` on a real GIMP 2.10 against the embedded editor: the same document, layer and image on
 * both, then the layer's rectangle compared exactly (both round the fitted rectangle the same way) and its pixels
 * within a tolerance: GIMP scales with its cubic interpolation, the embedded editor with sharp's Lanczos, which
 * rings more at a hard edge. On this picture the mean differs by about 2 levels, and a pixel beside the block's
 * edge (a step of up to 190 levels) by up to about 80: mean |Δ| ≤ 3, max ≤ 96 per channel. Where nothing is scaled
 * (`none`) the pixels are equal (to 1 level). Each replacement is one revision on both (on
 * GIMP one undo group by construction, `br-edit`: GIMP's PDB cannot count undo steps), one history step on the
 * embedded editor. One GIMP (the run's shared one) and one embedded editor for the file.
 */
const MEAN_TOLERANCE = 3;
const MAX_TOLERANCE = 96;

/** A 50×30 picture: gradients, with an opaque block whose edges test the scalers. */
async function picture(): Promise<string> {
  const W = 50;
  const H = 30;
  const data = Buffer.alloc(W * H * 4);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 4;
      const block = x >= 20 && x < 34 && y >= 8 && y < 20;
      data[i] = block ? 230 : Math.round((x / (W - 1)) * 220);
      data[i + 1] = block ? 40 : Math.round((y / (H - 1)) * 200);
      data[i + 2] = 90;
      data[i + 3] = 255;
    }
  }
  const png = await sharp(data, { raw: { width: W, height: H, channels: 4 } }).png().toBuffer();
  return `data:image/png;base64,${png.toString("base64")}`;
}

interface Editor {
  client: TestClient;
  close(): Promise<void>;
}

type Layer = HostLayer & { revision: number };

const flatten = (layers: readonly HostLayer[]): HostLayer[] => layers.flatMap((l) => [l, ...flatten(l.children ?? [])]);

/** Mean and largest difference (levels) of two RGBA buffers of one size. */
function difference(a: Buffer, b: Buffer): { mean: number; max: number } {
  let sum = 0;
  let max = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    sum += d;
    max = Math.max(max, d);
  }
  return { mean: sum / a.length, max };
}

interface Case {
  readonly name: string;
  readonly params: { fit: "contain" | "cover" | "fill" | "none"; alignment: string; box?: HostRect };
  readonly scaled: boolean;
}

const CASES: readonly Case[] = [
  { name: "contain, centred, in the layer's bounds", params: { fit: "contain", alignment: "center" }, scaled: true },
  { name: "cover, left, in a box", params: { fit: "cover", alignment: "left", box: { x: 10, y: 6, width: 40, height: 40 } }, scaled: true },
  { name: "fill, in a box", params: { fit: "fill", alignment: "center", box: { x: 4, y: 4, width: 70, height: 25 } }, scaled: true },
  { name: "contain, bottom right, in a box", params: { fit: "contain", alignment: "bottomRight", box: { x: 2, y: 3, width: 33, height: 41 } }, scaled: true },
  { name: "none, top left, cut to a box", params: { fit: "none", alignment: "topLeft", box: { x: 5, y: 5, width: 30, height: 20 } }, scaled: false },
  { name: "none, centred, in the layer's bounds", params: { fit: "none", alignment: "center" }, scaled: false },
];

describe.skipIf(GIMP_SKIP !== undefined)("layer:replaceContents: GIMP against the embedded editor", () => {
  let gimp: Editor;
  let embedded: Editor;
  let image: string;
  const report: string[] = [];

  async function open(options: Parameters<typeof startSuiteBridge>[0]): Promise<Editor> {
    const harness = await startSuiteBridge(options);
    return { client: await harness.connect(), close: () => harness.close() };
  }

  beforeAll(async () => {
    const attach = await sharedGimpAttach();
    [gimp, embedded] = await Promise.all([open({ host: createGimpHost({ binary: GIMP_BINARY, attach, sample: "empty" }) }), open({})]);
    image = await picture();
  }, 180_000);
  afterAll(async () => {
    console.log(`replaceContents, embedded vs GIMP (mean / max |Δ|, levels): ${report.join("; ")}`);
    await Promise.all([gimp?.close(), embedded?.close()]);
  });

  /** A 96×64 document with a 60×40 layer "Slot" at (8, 6), at 60 % opacity, multiplied, with a mask. */
  async function slot(client: TestClient): Promise<{ documentId: number; layerId: number; revision: number }> {
    const doc = await client.call<{ id: number }>("document:create", { width: 96, height: 64, background: "white" });
    const made = await client.call<HostLayer>("layer:create", { documentId: doc.id, name: "Slot", fillColor: "#204080" });
    // The layer takes the 60×40 rectangle (a fill of a flat picture), then its appearance.
    const flat = `data:image/png;base64,${(await sharp({ create: { width: 6, height: 4, channels: 4, background: "#336699" } }).png().toBuffer()).toString("base64")}`;
    await client.call("layer:replaceContents", { documentId: doc.id, layerId: made.id, image: flat, fit: "fill", box: { x: 8, y: 6, width: 60, height: 40 } });
    await client.call("layer:update", { documentId: doc.id, layerId: made.id, opacity: 60, blendMode: "multiply" });
    const { revision } = await client.call<Layer>("layer:addMask", { documentId: doc.id, layerId: made.id, from: "revealAll" });
    return { documentId: doc.id, layerId: made.id, revision };
  }

  async function layerPixels(client: TestClient, documentId: number, layerId: number): Promise<{ data: Buffer; width: number; height: number }> {
    const { data: uri } = await client.call<{ data: string }>("image:exportLayer", { documentId, layerId, format: "png", scale: 1 });
    const { data, info } = await sharp(Buffer.from(uri.slice(uri.indexOf(",") + 1), "base64")).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  }

  it.each(CASES)("$name: the same rectangle, pixels within the tolerance, the layer kept, one step", async ({ name, params, scaled }) => {
    const results = await Promise.all(
      [gimp, embedded].map(async ({ client }) => {
        const { documentId, layerId, revision } = await slot(client);
        const layer = await client.call<Layer>("layer:replaceContents", { documentId, layerId, image, ...params });
        // Exports differ in whether a layer's opacity is in its pixels: compared at 100 %, once the 60 % was checked.
        const steps = layer.revision - revision;
        await client.call("layer:update", { documentId, layerId, opacity: 100 });
        return { documentId, layer, steps, pixels: await layerPixels(client, documentId, layerId) };
      }),
    );
    const [onGimp, onEmbedded] = results as [(typeof results)[0], (typeof results)[0]];
    expect(onGimp.layer.rect).toEqual(onEmbedded.layer.rect);
    for (const { layer, steps } of results) {
      expect(layer).toMatchObject({ name: "Slot", kind: "pixel", blendMode: "multiply" });
      expect(layer.opacity).toBeCloseTo(60, 0);
      expect(layer.mask).toBeDefined();
      expect(steps).toBe(1);
    }
    expect([onGimp.pixels.width, onGimp.pixels.height]).toEqual([onEmbedded.pixels.width, onEmbedded.pixels.height]);
    const { mean, max } = difference(onGimp.pixels.data, onEmbedded.pixels.data);
    report.push(`${name} ${mean.toFixed(2)} / ${max}`);
    if (scaled) {
      expect(mean).toBeLessThanOrEqual(MEAN_TOLERANCE);
      expect(max).toBeLessThanOrEqual(MAX_TOLERANCE);
    } else {
      expect(max).toBeLessThanOrEqual(1);
    }
    // One step of the embedded editor's history (before the opacity's), which undone gives the 60×40 rectangle back.
    const history = await embedded.client.call<{ current: number; steps: Array<{ method?: string }> }>("history:list", { documentId: onEmbedded.documentId });
    expect(history.steps.slice(-3).map((step) => step.method)).toEqual(["layer:addMask", "layer:replaceContents", "layer:update"]);
    await embedded.client.call("history:go", { documentId: onEmbedded.documentId, index: history.current - 2 });
    const back = flatten(await embedded.client.call<HostLayer[]>("document:layers", { documentId: onEmbedded.documentId })).find((l) => l.name === "Slot");
    expect(back?.rect).toEqual({ x: 8, y: 6, width: 60, height: 40 });
  }, 120_000);

  it("turns a text layer into a pixel layer of the image, keeping its name and place", async () => {
    const { client } = gimp;
    const doc = await client.call<{ id: number }>("document:create", { width: 96, height: 64, background: "white" });
    const top = await client.call<HostLayer>("layer:create", { documentId: doc.id, name: "Top", fillColor: "#ff000000" });
    const { fonts } = await client.call<{ fonts: Array<{ postScriptName: string }> }>("font:list");
    const font = fonts[0]?.postScriptName;
    expect(font, "GIMP lists a font (CI installs some)").toBeDefined();
    const text = await client.call<HostLayer>("layer:create", { documentId: doc.id, kind: "text", name: "Headline", text: "Sale", font, size: 20, below: top.id });
    expect(text.kind).toBe("text");
    const before = flatten(await client.call<HostLayer[]>("document:layers", { documentId: doc.id })).map((l) => l.name);
    const replaced = await client.call<HostLayer>("layer:replaceContents", { documentId: doc.id, layerId: text.id, image, fit: "fill", box: { x: 0, y: 0, width: 50, height: 30 } });
    expect(replaced).toMatchObject({ id: text.id, name: "Headline", kind: "pixel", rect: { x: 0, y: 0, width: 50, height: 30 } });
    const after = flatten(await client.call<HostLayer[]>("document:layers", { documentId: doc.id }));
    expect(after.map((l) => l.name)).toEqual(before);
    expect(after.find((l) => l.id === text.id)?.text).toBeUndefined();
    // At its own size, the pixels are the picture's.
    const { data } = await layerPixels(client, doc.id, text.id);
    const { data: source } = await sharp(Buffer.from(image.slice(image.indexOf(",") + 1), "base64")).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(difference(data, source).max).toBeLessThanOrEqual(1);
  }, 120_000);

  it("refuses a scaled image past maxDocumentPixels before anything changes", async () => {
    const { client } = gimp;
    const doc = await client.call<{ id: number }>("document:create", { width: 96, height: 64, background: "white" });
    const made = await client.call<Layer>("layer:create", { documentId: doc.id, name: "Slot", fillColor: "#204080" });
    const frame = await client.send("layer:replaceContents", { documentId: doc.id, layerId: made.id, image, fit: "cover", box: { x: 0, y: 0, width: 29_000, height: 29_000 } });
    expect(frame.ok).toBe(false);
    expect(frame.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: "maxDocumentPixels" } });
    const after = await client.call<HostLayer>("layer:getInfoById", { documentId: doc.id, layerId: made.id });
    expect(after.rect).toEqual(made.rect);
    expect((await client.call<{ id: number; revision: number }>("document:current")).revision).toBe(made.revision);
  }, 120_000);
});
