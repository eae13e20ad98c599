import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPsd, writePsdBuffer, type Layer } from "ag-psd";
import { readFile } from "node:fs/promises";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostAdapter } from "../../../src/hosts/host.js";
import { connectedHost, ctx, layersOf } from "./helpers.js";

function solid(width: number, height: number, rgba: [number, number, number, number]): { width: number; height: number; data: Uint8ClampedArray } {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { width, height, data };
}

/**
 * 40×30, bottom to top: white Background; Base, a red 10×10 square at (10, 10) with `baseOpacity`; Tint, blue over
 * the whole canvas, clipped to Base; Shade, black at 50 % multiply over the whole canvas, clipped too.
 */
function clippedPsd(baseOpacity = 1): Buffer {
  const children: Layer[] = [
    { name: "Background", imageData: solid(40, 30, [255, 255, 255, 255]) },
    { name: "Base", left: 10, top: 10, opacity: baseOpacity, imageData: solid(10, 10, [255, 0, 0, 255]) },
    { name: "Tint", clipping: true, imageData: solid(40, 30, [0, 0, 255, 255]) },
    { name: "Shade", clipping: true, opacity: 0.5, blendMode: "multiply", imageData: solid(40, 30, [0, 0, 0, 255]) },
  ];
  return writePsdBuffer({ width: 40, height: 30, children });
}

/** Each channel within 1 of what is expected (opacities are stored as bytes: 50 % is 127 or 128). */
function expectNear(actual: number[], expected: number[]): void {
  expect(actual.map((v, i) => Math.abs(v - expected[i]!) <= 1)).toEqual(expected.map(() => true));
}

describe("clipping masks", () => {
  let host: HostAdapter;
  let dir: string;

  beforeAll(async () => {
    host = await connectedHost({ sample: false });
    dir = await mkdtemp(join(tmpdir(), "bridge-clipping-"));
  });
  afterAll(async () => {
    await host?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const open = async (name: string, bytes: Buffer): Promise<number> => {
    await writeFile(join(dir, name), bytes);
    return (await host.openDocument!(ctx(), join(dir, name))).id;
  };
  const pixel = async (documentId: number, x: number, y: number): Promise<number[]> => {
    const { bytes } = await host.exportDocumentImage(ctx(), { documentId, format: "png", size: { width: 40, height: 30 } });
    const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const at = (y * info.width + x) * 4;
    return [...data.subarray(at, at + 4)];
  };

  it("a clipped layer shows only where its base has pixels, with its own mode and opacity; the tree says clipped", async () => {
    const id = await open("clip.psd", clippedPsd());
    // Inside the square: blue, then 50 % multiply by black → half blue. Outside: the white background, untouched.
    expectNear(await pixel(id, 15, 15), [0, 0, 128, 255]);
    expect(await pixel(id, 2, 2)).toEqual([255, 255, 255, 255]);
    expect(await pixel(id, 25, 25)).toEqual([255, 255, 255, 255]);
    const layers = await layersOf(host, id);
    expect(layers.map((l) => [l.name, l.clipped])).toEqual([
      ["Shade", true],
      ["Tint", true],
      ["Base", false],
      ["Background", false],
    ]);
  });

  it("the base's opacity applies to the whole clipping group; a hidden base hides its clipped layers", async () => {
    const half = await open("half.psd", clippedPsd(0.5));
    // Half blue at 50 % over white: (255 + 0)/2, (255 + 0)/2, (255 + 128)/2.
    expectNear(await pixel(half, 15, 15), [128, 128, 191, 255]);
    const hidden = writePsdBuffer({
      width: 40,
      height: 30,
      children: [
        { name: "Background", imageData: solid(40, 30, [255, 255, 255, 255]) },
        { name: "Base", hidden: true, left: 10, top: 10, imageData: solid(10, 10, [255, 0, 0, 255]) },
        { name: "Tint", clipping: true, imageData: solid(40, 30, [0, 0, 255, 255]) },
      ],
    });
    expect(await pixel(await open("hidden.psd", hidden), 15, 15)).toEqual([255, 255, 255, 255]);
  });

  it("a save keeps the clipping (nothing reported lost for it) and the file reopens the same", async () => {
    const id = await open("keep.psd", clippedPsd());
    expect((await host.saveLosses!(ctx(), { documentId: id, path: join(dir, "kept.psd") })).map((l) => l.kind)).not.toContain("clipping");
    await host.saveDocument!(ctx(), { documentId: id, path: join(dir, "kept.psd"), backup: false });
    const saved = readPsd(await readFile(join(dir, "kept.psd")), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
    expect(saved.children?.map((l) => [l.name, l.clipping === true])).toEqual([
      ["Background", false],
      ["Base", false],
      ["Tint", true],
      ["Shade", true],
    ]);
    const again = await open("kept-copy.psd", await readFile(join(dir, "kept.psd")));
    expectNear(await pixel(again, 15, 15), [0, 0, 128, 255]);
  });
});

describe("fill opacity", () => {
  let host: HostAdapter;
  let dir: string;

  beforeAll(async () => {
    host = await connectedHost({ sample: false });
    dir = await mkdtemp(join(tmpdir(), "bridge-fill-"));
  });
  afterAll(async () => {
    await host?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("fades a layer's pixels like opacity does, and a save keeps it", async () => {
    const bytes = writePsdBuffer({
      width: 8,
      height: 8,
      children: [
        { name: "Background", imageData: solid(8, 8, [255, 255, 255, 255]) },
        { name: "Red", fillOpacity: 0.5, imageData: solid(8, 8, [255, 0, 0, 255]) },
      ],
    });
    await writeFile(join(dir, "fill.psd"), bytes);
    const id = (await host.openDocument!(ctx(), join(dir, "fill.psd"))).id;
    const exported = await host.exportDocumentImage(ctx(), { documentId: id, format: "png", size: { width: 8, height: 8 } });
    const { data } = await sharp(exported.bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expectNear([...data.subarray(0, 4)], [255, 128, 128, 255]);
    expect((await host.saveLosses!(ctx(), { documentId: id, path: join(dir, "fill-saved.psd") })).map((l) => l.kind)).not.toContain("fillOpacity");
    await host.saveDocument!(ctx(), { documentId: id, path: join(dir, "fill-saved.psd"), backup: false });
    const saved = readPsd(await readFile(join(dir, "fill-saved.psd")), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
    expect(Math.abs((saved.children?.[1]?.fillOpacity ?? 1) - 0.5)).toBeLessThan(0.01);
  });
});
