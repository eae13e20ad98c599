import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPsd } from "ag-psd";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { HostDocument, HostLayer } from "../../src/protocol/index.js";
import { itFor } from "./_editors.js";
import { EDIT_MATRIX, editSession, expectRefused, expectResult, exportComposite, flatten, paintedComposite, type EditSession } from "./_edits.js";

const WHITE = [255, 255, 255, 255];

/** A point of the embedded editor's 800×600 sample at the same place in a sample of `width` × `height` (GIMP's is 320×240). */
const scaled = ({ width, height }: { width: number; height: number }, x: number, y: number): [number, number] => [Math.round((x * width) / 800), Math.round((y * height) / 600)];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "bridge-edit-document-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each(EDIT_MATRIX)("document edits over $label", ({ editor, transport: { name, make } }) => {
  const it = itFor(editor);
  let s: EditSession;
  const setup = async (options?: Parameters<typeof editSession>[2]): Promise<void> => {
    s = await editSession(editor, make, options);
  };
  const doc = (outcome: Parameters<typeof expectResult>[1], method: Parameters<typeof expectResult>[0]) => expectResult(method, outcome) as HostDocument;

  it("document:resize by percent, by width alone (aspect kept, bicubic by default) and by resolution alone", async () => {
    await setup();
    if (!(await s.supports("document:resize", { percent: 50 }))) return;
    const before = await s.current();
    // The sample's background, as this editor shows it.
    const grey = (await paintedComposite(s)).at(2, before.height - 2);
    const label = await s.layer("Label");
    const half = doc(await s.call("document:resize", { percent: 50 }), "document:resize");
    expect(half).toMatchObject({ width: before.width / 2, height: before.height / 2, revision: before.revision! + 1, resolution: before.resolution });
    const scaled = await s.layer("Label");
    expect(scaled.bounds.left).toBe(Math.round(label.bounds.left / 2));
    expect(Math.abs(scaled.rect.width - label.rect.width / 2)).toBeLessThanOrEqual(1);
    const narrow = doc(await s.call("document:resize", { width: 200 }), "document:resize");
    expect([narrow.width, narrow.height]).toEqual([200, Math.round((before.height * 200) / before.width)]);
    const dpi = doc(await s.call("document:resize", { resolution: 300 }), "document:resize");
    expect(dpi).toMatchObject({ width: 200, height: narrow.height, resolution: 300, revision: before.revision! + 3 });
    const image = await exportComposite(s);
    expect([image.width, image.height]).toEqual([200, narrow.height]);
    if (editor.paints) expect(image.at(2, narrow.height - 2)).toEqual(grey);
  });

  it("document:resizeCanvas, document:crop and document:trim change the canvas around the pixels", async () => {
    await setup();
    if (await s.supports("document:resizeCanvas", { width: 1000, height: 800 })) {
      const label = await s.layer("Label");
      const { width, height } = await s.current();
      const grey = (await paintedComposite(s)).at(5, height - 5);
      const grown = doc(await s.call("document:resizeCanvas", { width: 1000, height: 800 }), "document:resizeCanvas");
      expect([grown.width, grown.height]).toEqual([1000, 800]);
      // Centred: the old canvas lands at (dx, dy).
      const [dx, dy] = [Math.round((1000 - width) / 2), Math.round((800 - height) / 2)];
      expect((await s.layer("Label")).bounds).toMatchObject({ left: label.bounds.left + dx, top: label.bounds.top + dy });
      expect((await s.layer("Background")).rect).toEqual({ x: 0, y: 0, width: 1000, height: 800 });
      let image = await paintedComposite(s);
      if (editor.paints) expect(image.at(5, 5)).toEqual(WHITE);
      if (editor.paints) expect(image.at(dx + 5, dy + height - 5)).toEqual(grey);
      const wider = doc(await s.call("document:resizeCanvas", { width: 1100, height: 800, anchor: "topLeft", fillColor: "#ff0000" }), "document:resizeCanvas");
      expect(wider.width).toBe(1100);
      image = await paintedComposite(s);
      if (editor.paints) expect(image.at(1050, 400)).toEqual([255, 0, 0, 255]);
      if (editor.paints) expect(image.at(5, 5)).toEqual(WHITE);
    }
    if (await s.supports("document:crop", { rect: { x: 0, y: 0, width: 10, height: 10 } })) {
      const label = await s.layer("Label");
      const cropped = doc(await s.call("document:crop", { rect: { x: label.rect.x, y: label.rect.y, width: 300, height: 200 } }), "document:crop");
      expect([cropped.width, cropped.height]).toEqual([300, 200]);
      expect((await s.layer("Label")).rect).toMatchObject({ x: 0, y: 0, width: label.rect.width });
      const before = (await s.current()).revision!;
      await expectRefused(s, await s.call("document:crop"), "BAD_REQUEST", before);
      expectResult("selection:set", await s.call("selection:set", { rect: { x: 10, y: 5, width: 50, height: 20 } }));
      const toSelection = doc(await s.call("document:crop"), "document:crop");
      expect([toSelection.width, toSelection.height]).toEqual([50, 20]);
      expect(expectResult("selection:getArea", await s.call("selection:getArea"))).toEqual({ x: 0, y: 0, width: 50, height: 20 });
      const image = await exportComposite(s);
      expect([image.width, image.height]).toEqual([50, 20]);
    }
    if (await s.supports("document:trim")) {
      const size = await s.current();
      const opaque = doc(await s.call("document:trim"), "document:trim");
      expect([opaque.width, opaque.height, opaque.revision]).toEqual([size.width, size.height, size.revision! + 1]);
      expectResult("document:create", await s.call("document:create", { width: 120, height: 90, background: "transparent" }));
      const pixels = await sharp({ create: { width: 30, height: 20, channels: 4, background: "#00ff00" } }).png().toBuffer();
      expectResult("layer:importImage", await s.call("layer:importImage", { image: `data:image/png;base64,${pixels.toString("base64")}`, position: { x: 40, y: 50 } }));
      const trimmed = doc(await s.call("document:trim"), "document:trim");
      expect([trimmed.width, trimmed.height]).toEqual([30, 20]);
      const image = await paintedComposite(s);
      if (editor.paints) expect(image.at(0, 0)).toEqual([0, 255, 0, 255]);
    }
  });

  it("document:rotate and document:flip turn and mirror every layer", async () => {
    await setup();
    if (await s.supports("document:rotate", { angle: 90 })) {
      const label = await s.layer("Label");
      const { width, height } = await s.current();
      const turned = doc(await s.call("document:rotate", { angle: 90 }), "document:rotate");
      expect([turned.width, turned.height]).toEqual([height, width]);
      // Clockwise: (x, y) → (height − y, x).
      expect((await s.layer("Label")).rect).toEqual({ x: height - label.rect.y - label.rect.height, y: label.rect.x, width: label.rect.height, height: label.rect.width });
      expectResult("document:rotate", await s.call("document:rotate", { angle: -90 }));
      expect((await s.layer("Label")).rect).toEqual(label.rect);
      const upright = await paintedComposite(s);
      const tilted = doc(await s.call("document:rotate", { angle: 30 }), "document:rotate");
      const r = Math.PI / 6;
      expect([tilted.width, tilted.height]).toEqual([Math.ceil(width * Math.cos(r) + height * Math.sin(r)), Math.ceil(width * Math.sin(r) + height * Math.cos(r))]);
      const image = await paintedComposite(s);
      if (editor.paints) expect(image.at(0, 0)).toEqual(WHITE);
      // The centre stays the centre.
      const [a, b] = [image.at(Math.floor(tilted.width / 2), Math.floor(tilted.height / 2)), upright.at(width / 2, height / 2)];
      if (editor.paints) for (let c = 0; c < 4; c++) expect(Math.abs(a[c]! - b[c]!)).toBeLessThanOrEqual(4);
    }
    if (await s.supports("document:flip", { direction: "horizontal" })) {
      const label = await s.layer("Label");
      const size = await s.current();
      const { width } = size;
      const before = await paintedComposite(s);
      expectResult("document:flip", await s.call("document:flip", { direction: "horizontal" }));
      expect((await s.layer("Label")).rect).toMatchObject({ x: width - label.rect.x - label.rect.width, y: label.rect.y });
      const after = await paintedComposite(s);
      if (editor.paints) for (const [x, y] of [scaled(size, 50, 60), scaled(size, 400, 300), scaled(size, 700, 450)]) expect(after.at(width - 1 - x, y)).toEqual(before.at(x, y));
    }
  });

  it("document:duplicate and document:flatten", async () => {
    await setup();
    if (await s.supports("document:duplicate")) {
      const original = await s.current();
      const copy = doc(await s.call("document:duplicate"), "document:duplicate");
      expect(copy.id).not.toBe(original.id);
      expect(copy).toMatchObject({ name: `${original.name} copy`, width: original.width, height: original.height });
      expect((await s.current()).id).toBe(copy.id);
      const layers = flatten(expectResult("document:layers", await s.call("document:layers")) as HostLayer[]);
      const source = flatten(expectResult("document:layers", await s.call("document:layers", { documentId: original.id })) as HostLayer[]);
      expect(layers.map((l) => [l.name, l.kind, l.bounds])).toEqual(source.map((l) => [l.name, l.kind, l.bounds]));
      const named = doc(await s.call("document:duplicate", { documentId: original.id, name: "Variant B" }), "document:duplicate");
      expect(named.name).toBe("Variant B");
      expect(expectResult("document:list", await s.call("document:list"))).toHaveLength(3);
      // The copy is its own document: changing it leaves the original as it was.
      const pixels = await sharp({ create: { width: 8, height: 8, channels: 4, background: "#0000ff" } }).png().toBuffer();
      expectResult("layer:importImage", await s.call("layer:importImage", { documentId: named.id, image: `data:image/png;base64,${pixels.toString("base64")}` }));
      const again = flatten(expectResult("document:layers", await s.call("document:layers", { documentId: original.id })) as HostLayer[]);
      expect(again.map((l) => l.name)).toEqual(source.map((l) => l.name));
    }
    if (await s.supports("document:flatten")) {
      const before = await paintedComposite(s);
      const flat = doc(await s.call("document:flatten"), "document:flatten");
      const layers = expectResult("document:layers", await s.call("document:layers")) as HostLayer[];
      expect(layers).toHaveLength(1);
      expect(layers[0]).toMatchObject({ kind: "background", rect: { x: 0, y: 0, width: flat.width, height: flat.height } });
      const after = await paintedComposite(s);
      for (const [x, y] of editor.paints ? [scaled(flat, 50, 60), scaled(flat, 400, 300), scaled(flat, 300, 430)] : []) {
        const [a, b] = [after.at(x, y), before.at(x, y)];
        for (let c = 0; c < 4; c++) expect(Math.abs(a[c]! - b[c]!)).toBeLessThanOrEqual(1);
      }
    }
  });

  it("a document saved after these edits reopens with the same tree and size, and ag-psd reads it", async () => {
    await setup();
    if (!(await s.supports("document:rotate", { angle: 90 }))) return;
    expectResult("document:resize", await s.call("document:resize", { percent: 50 }));
    expectResult("document:rotate", await s.call("document:rotate", { angle: 90 }));
    expectResult("document:resizeCanvas", await s.call("document:resizeCanvas", { width: 320, height: 420 }));
    expectResult("document:crop", await s.call("document:crop", { rect: { x: 5, y: 5, width: 300, height: 400 } }));
    const edited = await s.current();
    const tree = flatten(expectResult("document:layers", await s.call("document:layers")) as HostLayer[]);
    const path = join(dir, `${editor.label.replace(" ×", "x")}-${name}-edited.psd`);
    expectResult("document:save", await s.call("document:save", { savePath: path }));
    const opened = expectResult("document:open", await s.call("document:open", { path })) as HostDocument;
    expect([opened.width, opened.height]).toEqual([edited.width, edited.height]);
    const reopened = flatten(expectResult("document:layers", await s.call("document:layers")) as HostLayer[]);
    // GIMP's PSD loader gives every layer an alpha channel, so its background comes back as a pixel layer.
    const reloaded = (kind: string): string => (editor.name === "gimp" && kind === "background" ? "pixel" : kind);
    expect(reopened.map((l) => [l.name, l.kind, l.bounds])).toEqual(tree.map((l) => [l.name, reloaded(l.kind), l.bounds]));
    const psd = readPsd(await readFile(path), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
    expect([psd.width, psd.height]).toEqual([300, 400]);
    expect((psd.children ?? []).map((l) => l.name).reverse()).toEqual(["Label", "Product", "Background"]);
  });
});

// The refusals run after every other case: on the embedded editor, maxDocumentPixels makes an editor process of
// its own, so grouping these cases lets each setting's process be started once rather than at every alternation.
describe.each(EDIT_MATRIX)("document edit refusals over $label", ({ editor, transport: { name, make } }) => {
  const it = itFor(editor);
  let s: EditSession;

  it("bad sizes, a canvas past maxDocumentPixels and a stale ifRevision are refused by name and change nothing", async () => {
    s = await editSession(editor, make, { limits: { maxDocumentPixels: 1_000_000 } });
    if (await s.supports("document:resize", { percent: 50 })) {
      const { revision, width, height } = await s.current();
      await expectRefused(s, await s.call("document:resize", { width: 0 }), "BAD_REQUEST", revision!);
      await expectRefused(s, await s.call("document:resize", { width: 30_001 }), "BAD_REQUEST", revision!);
      // A percent that makes a side longer than 30 000 px.
      await expectRefused(s, await s.call("document:resize", { percent: Math.ceil(3_000_100 / width) }), "BAD_REQUEST", revision!);
      await expectRefused(s, await s.call("document:resizeCanvas", { width: 0, height: 10 }), "BAD_REQUEST", revision!);
      await expectRefused(s, await s.call("document:resizeCanvas", { width: 30_001, height: 10 }), "BAD_REQUEST", revision!);
      await expectRefused(s, await s.call("document:crop", { rect: { x: 900, y: 0, width: 10, height: 10 } }), "BAD_REQUEST", revision!);
      const stale = await s.call("document:resize", { percent: 50, ifRevision: revision! + 1 });
      await expectRefused(s, stale, "CONFLICT", revision!);
      if (name === "http") expect(stale.status).toBe(409);
      expect(await s.current()).toMatchObject({ width, height });
    }
    if (await s.supports("document:resizeCanvas", { width: 10, height: 10 })) {
      const { revision, width, height } = await s.current();
      const outcome = await s.call("document:resize", { width: 2000 });
      await expectRefused(s, outcome, "PAYLOAD_TOO_LARGE", revision!);
      expect(outcome.error?.details).toMatchObject({ limit: "maxDocumentPixels" });
      const canvas = await s.call("document:resizeCanvas", { width: 2000, height: 1000 });
      await expectRefused(s, canvas, "PAYLOAD_TOO_LARGE", revision!);
      expect(await s.current()).toMatchObject({ width, height });
    }
  });
});
