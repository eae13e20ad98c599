import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { SAMPLE, WHITE, connectedHost, ctx, exportDocument, importBytes, layerNamed, pixelAt, rawPixels, solidPng } from "./helpers.js";

describe("embedded host: image export", () => {
  it.each(["png", "jpeg", "webp", "tiff"] as const)("exports the document as %s at the size asked for", async (format) => {
    const host = await connectedHost();
    const image = await host.exportDocumentImage(ctx(), { documentId: undefined, format, quality: 80, size: { width: 800, height: 600 } });
    const meta = await sharp(image.bytes).metadata();
    expect(meta.format).toBe(format);
    expect([meta.width, meta.height]).toEqual([800, 600]);
    expect(image).toMatchObject({ format, width: 800, height: 600, bounds: { left: 0, top: 0, right: 800, bottom: 600 } });
  });

  it("renders at exactly the size given, proportional or not; bounds stay the whole canvas", async () => {
    const host = await connectedHost();
    for (const size of [
      { width: 200, height: 150 },
      { width: 100, height: 20 },
      { width: 1600, height: 1200 },
    ]) {
      const image = await host.exportDocumentImage(ctx(), { documentId: 1, format: "png", size });
      expect([image.width, image.height]).toEqual([size.width, size.height]);
      const meta = await sharp(image.bytes).metadata();
      expect([meta.width, meta.height]).toEqual([size.width, size.height]);
      expect(image.bounds).toEqual({ left: 0, top: 0, right: 800, bottom: 600 });
    }
  });

  it("JPEG quality changes the bytes; TIFF keeps the alpha channel", async () => {
    const host = await connectedHost({ sample: false });
    await host.createDocument!(ctx(), { width: 64, height: 48, name: "Clear", background: [0, 0, 0, 0] });
    await importBytes(host, await solidPng(20, 20, [200, 10, 10, 255]), { position: { x: 5, y: 5 } });
    const low = await exportDocument(host, { format: "jpeg", quality: 5 });
    const high = await exportDocument(host, { format: "jpeg", quality: 100 });
    expect(low.bytes.byteLength).toBeLessThan(high.bytes.byteLength);
    const tiff = await rawPixels((await exportDocument(host, { format: "tiff" })).bytes);
    expect(pixelAt(tiff, 0, 0)[3]).toBe(0);
    expect(pixelAt(tiff, 10, 10)).toEqual([200, 10, 10, 255]);
  });

  it("the document composite shows the layers top over bottom", async () => {
    const host = await connectedHost();
    const image = await rawPixels((await exportDocument(host)).bytes);
    expect(pixelAt(image, 5, 5)).toEqual([238, 238, 238, 255]); // Background
    expect(pixelAt(image, 150, 60)).toEqual([37, 99, 235, 255]); // Label
    const [r, g, b, a] = pixelAt(image, 400, 290); // Subject centre: opaque, red-orange
    expect(a).toBe(255);
    expect(r!).toBeGreaterThan(200);
    expect(b!).toBeLessThan(120);
    expect(g!).toBeLessThan(r!);
  });

  it("a layer exports its own pixels covering its rect", async () => {
    const host = await connectedHost();
    const label = await layerNamed(host, "Label");
    const image = await host.exportLayerImage(ctx(), { documentId: 1, layerId: label.id, format: "png", size: { width: 220, height: 40 } });
    expect(image.bounds).toEqual(label.bounds);
    expect([image.width, image.height]).toEqual([220, 40]);
    const pixels = await rawPixels(image.bytes);
    expect(pixelAt(pixels, 110, 20)).toEqual([37, 99, 235, 255]);
    expect(pixelAt(pixels, 0, 0)[3]).toBeLessThan(255); // rounded corner
  });

  it("a group exports the composite of its children within the group's bounds, at the size given", async () => {
    const host = await connectedHost();
    const product = await layerNamed(host, "Product");
    const image = await host.exportLayerImage(ctx(), { documentId: 1, layerId: SAMPLE.product, format: "webp", size: { width: 100, height: 80 } });
    expect(image.bounds).toEqual(product.bounds);
    const meta = await sharp(image.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 100, 80]);
  });

  it("an empty layer exports as a 1×1 transparent image with zero-size bounds", async () => {
    const host = await connectedHost({ sample: false });
    const doc = await host.createDocument!(ctx(), { width: 30, height: 20, name: "Clear", background: [0, 0, 0, 0] });
    const image = await host.exportLayerImage(ctx(), { documentId: doc.id, layerId: doc.activeLayerIds[0]!, format: "png", size: { width: 1, height: 1 } });
    expect(image).toMatchObject({ width: 1, height: 1, bounds: { left: 0, top: 0, right: 0, bottom: 0 } });
    expect(pixelAt(await rawPixels(image.bytes), 0, 0)[3]).toBe(0);
  });

  it("a layer id the document does not have is LAYER_NOT_FOUND", async () => {
    const host = await connectedHost();
    await expect(host.exportLayerImage(ctx(), { documentId: 1, layerId: 99, format: "png", size: { width: 1, height: 1 } })).rejects.toMatchObject({
      code: "LAYER_NOT_FOUND",
      details: { layerId: 99, documentId: 1 },
    });
  });

  it("an outline is stroked over the layer in output pixels, clipped where it passes the layer", async () => {
    const host = await connectedHost({ sample: false });
    const { id } = await host.createDocument!(ctx(), { width: 400, height: 300, name: "Outline", background: WHITE });
    const layerId = await importBytes(host, await solidPng(100, 80, [0, 0, 255, 255]), { position: { x: 50, y: 50 } });
    // The selection starts inside the layer and runs past its right and bottom edges.
    await host.setSelection!(ctx(), { documentId: id, shape: { kind: "rect", rect: { x: 70, y: 60, width: 200, height: 200 } } });
    const outline = (await host.getSelectionOutline!(ctx(), { documentId: id, expand: 0 }))!;
    const stroke = { ...outline, color: [0, 255, 0, 255] as const, width: 2 };
    const full = await host.exportLayerImage(ctx(), { documentId: id, layerId, format: "png", size: { width: 100, height: 80 }, outline: stroke });
    expect(full.bounds).toEqual({ left: 50, top: 50, right: 150, bottom: 130 });
    const pixels = await rawPixels(full.bytes);
    expect([pixels.width, pixels.height]).toEqual([100, 80]);
    // On the left edge of the selection (x = 70 → column 20): green; away from it: the layer's blue.
    expect(pixelAt(pixels, 20, 40)).toEqual([0, 255, 0, 255]);
    expect(pixelAt(pixels, 60, 40)).toEqual([0, 0, 255, 255]);
    expect(pixelAt(pixels, 5, 5)).toEqual([0, 0, 255, 255]);
    // At half size the edge moves to column 10 and the stroke stays 2 output pixels wide.
    const half = await rawPixels(
      (await host.exportLayerImage(ctx(), { documentId: id, layerId, format: "png", size: { width: 50, height: 40 }, outline: stroke })).bytes,
    );
    expect(pixelAt(half, 10, 20)).toEqual([0, 255, 0, 255]);
    expect(pixelAt(half, 9, 20)).toEqual([0, 255, 0, 255]);
    expect(pixelAt(half, 12, 20)).toEqual([0, 0, 255, 255]);
  });

  it("an aborted call fails with TIMEOUT", async () => {
    const host = await connectedHost();
    const controller = new AbortController();
    controller.abort();
    await expect(
      host.exportDocumentImage({ signal: controller.signal, caller: "test" }, { documentId: undefined, format: "png", size: { width: 8, height: 6 } }),
    ).rejects.toMatchObject({ code: "TIMEOUT" });
  });
});
