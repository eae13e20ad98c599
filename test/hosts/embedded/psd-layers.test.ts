import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initializeCanvas, readPsd } from "ag-psd";
import type { Layer } from "ag-psd";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPsdFile } from "../../../src/hosts/embedded/psd-file/sections.js";
import { restrictedChannelsOf } from "../../../src/hosts/embedded/psd-file/layers.js";
import { connectedHost, ctx, exportDocument, layerNamed, layersOf, pixelAt, rawPixels, runJs } from "./helpers.js";

const FIXTURES = join(import.meta.dirname, "../../fixtures/psd/psd-tools");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "psd-layers-"));
  initializeCanvas(
    (width: number, height: number) => ({ width, height }) as never,
    (width: number, height: number) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) }) as never,
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A corpus file copied where a test may save over it. */
async function copyOf(name: string): Promise<string> {
  const path = join(dir, name.replaceAll("/", "_"));
  await copyFile(join(FIXTURES, name), path);
  return path;
}

/** The records of a PSD on disk, read independently of the editor (no pixels). */
async function recordsOf(path: string): Promise<{ psd: ReturnType<typeof readPsd>; layers: Layer[] }> {
  const psd = readPsd(await readFile(path), { useImageData: true, skipLayerImageData: true, skipCompositeImageData: true, useRawThumbnail: true });
  const layers: Layer[] = [];
  const walk = (list: readonly Layer[]): void => {
    for (const layer of list) {
      layers.push(layer);
      if (layer.children) walk(layer.children);
    }
  };
  walk(psd.children ?? []);
  return { psd, layers };
}

describe("embedded host: what real PSD layers are and what a save keeps", () => {
  it.each([
    ["layers/type-layer.psd", "text"],
    ["layers/smartobject-layer.psd", "smartObject"],
    ["layers/levels.psd", "adjustment"],
    ["layers/solid-color-fill.psd", "fill"],
    ["layers/gradient-fill.psd", "fill"],
    ["layers/pattern-fill.psd", "fill"],
  ])("%s reports its top layer as %s", async (file, kind) => {
    const host = await connectedHost({ sample: false });
    await host.openDocument!(ctx(), join(FIXTURES, file));
    expect((await layersOf(host))[0]?.kind).toBe(kind);
  });

  it("a shape layer (a fill drawn through a vector path) reports shape", async () => {
    const host = await connectedHost({ sample: false });
    await host.openDocument!(ctx(), join(FIXTURES, "clipping-mask.psd"));
    expect((await layerNamed(host, "Shape 1")).kind).toBe("shape");
  });

  it("a text layer saved unchanged keeps its text; the file says its merged image is real and carries a thumbnail", async () => {
    const host = await connectedHost({ sample: false });
    const source = await copyOf("layers/type-layer.psd");
    const doc = await host.openDocument!(ctx(), source);
    const saved = join(dir, "type-saved.psd");
    expect(await host.saveLosses!(ctx(), { documentId: doc.id, path: saved })).toEqual([]);
    await host.saveDocument!(ctx(), { documentId: doc.id, path: saved, backup: false });
    const before = await recordsOf(source);
    const after = await recordsOf(saved);
    expect(after.layers.map((layer) => layer.text?.text)).toEqual(before.layers.map((layer) => layer.text?.text));
    expect(after.layers.find((layer) => layer.text)?.text?.text).toBe(before.layers.find((layer) => layer.text)?.text?.text);
    expect(after.psd.imageResources?.versionInfo?.hasRealMergedData).toBe(true);
    // Unchanged: the file's own thumbnail, byte for byte.
    expect(after.psd.imageResources?.thumbnailRaw?.data).toEqual(before.psd.imageResources?.thumbnailRaw?.data);
    const reopened = await host.openDocument!(ctx(), saved);
    expect((await layersOf(host, reopened.id))[0]?.kind).toBe("text");
  });

  it("painting on a text layer rasterises it: the save names the text layer it would drop, and a lossy save writes pixels", async () => {
    const host = await connectedHost({ sample: false });
    const doc = await host.openDocument!(ctx(), await copyOf("layers/type-layer.psd"));
    const text = (await layersOf(host))[0]!;
    await runJs(host, `const doc = app.activeDocument; doc.selection.select({ x: 0, y: 0, width: 4, height: 4 }); doc.layerById(${text.id}).fill("#ff0000");`);
    expect((await layerNamed(host, text.name)).kind).toBe("pixel");
    const saved = join(dir, "type-painted.psd");
    const losses = await host.saveLosses!(ctx(), { documentId: doc.id, path: saved });
    expect(losses).toEqual([expect.objectContaining({ kind: "textLayers", count: 1, layerIds: [text.id] })]);
    await host.saveDocument!(ctx(), { documentId: doc.id, path: saved, backup: false });
    const after = await recordsOf(saved);
    expect(after.layers.some((layer) => layer.text !== undefined)).toBe(false);
    // Changed: a fresh thumbnail of the new picture.
    expect(after.psd.imageResources?.thumbnailRaw?.width).toBeGreaterThan(0);
  });

  it("moving a text layer moves its text with it", async () => {
    const host = await connectedHost({ sample: false });
    const doc = await host.openDocument!(ctx(), await copyOf("layers/type-layer.psd"));
    const text = (await layersOf(host))[0]!;
    await runJs(host, `app.activeDocument.layerById(${text.id}).translate(3, 2)`);
    expect((await layerNamed(host, text.name)).kind).toBe("text");
    const saved = join(dir, "type-moved.psd");
    expect(await host.saveLosses!(ctx(), { documentId: doc.id, path: saved })).toEqual([]);
    await host.saveDocument!(ctx(), { documentId: doc.id, path: saved, backup: false });
    const before = (await recordsOf(join(FIXTURES, "layers/type-layer.psd"))).layers.find((layer) => layer.text)!;
    const after = (await recordsOf(saved)).layers.find((layer) => layer.text)!;
    const [, , , , tx, ty] = before.text!.transform!;
    expect(after.text!.transform!.slice(4)).toEqual([tx! + 3, ty! + 2]);
    expect([after.left, after.top]).toEqual([before.left! + 3, before.top! + 2]);
  });

  it("a layer restricted to red and green (its one-channel blending restriction read from the bytes) leaves blue alone, and a save keeps the restriction", async () => {
    const host = await connectedHost({ sample: false });
    const doc = await host.openDocument!(ctx(), await copyOf("layer_effects.psd"));
    // Inside a black letter of the "Inner Glow" layer: red and green are the glowing black, blue the grey background's.
    const [r, g, b] = pixelAt(await rawPixels((await exportDocument(host)).bytes), 106, 185);
    expect(r).toBe(g);
    expect(r).toBeLessThan(100);
    expect(b).toBe(129);
    const saved = join(dir, "restricted-saved.psd");
    await host.saveDocument!(ctx(), { documentId: doc.id, path: saved, backup: false });
    const records = readPsdFile(new Uint8Array(await readFile(saved))).layers.layers;
    expect(records.filter((record) => restrictedChannelsOf(record)?.length).map((record) => [record.name, restrictedChannelsOf(record)])).toEqual([["Inner Glow", [2]]]);
  });

  it("a document changed between the loss check and the save is checked again", async () => {
    const host = await connectedHost({ sample: false });
    const doc = await host.openDocument!(ctx(), await copyOf("layers/type-layer.psd"));
    const text = (await layersOf(host))[0]!;
    const saved = join(dir, "type-raced.psd");
    expect(await host.saveLosses!(ctx(), { documentId: doc.id, path: saved })).toEqual([]);
    // Another client paints on the text layer before the save runs.
    await runJs(host, `app.activeDocument.layerById(${text.id}).fill("#00ff00")`);
    await expect(host.saveDocument!(ctx(), { documentId: doc.id, path: saved, backup: false })).rejects.toMatchObject({
      code: "WOULD_LOSE_DATA",
      details: { wouldLose: [expect.objectContaining({ kind: "textLayers", layerIds: [text.id] })] },
    });
  });
});
