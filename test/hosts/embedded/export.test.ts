import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { connectedHost, ctx, pixelAt, rawPixels } from "./helpers.js";

describe("embedded host: image export", () => {
  it.each(["png", "jpeg", "webp"] as const)("exports the document as %s at canvas size", async (format) => {
    const host = await connectedHost();
    const image = await host.exportDocumentImage(ctx(), { format, quality: 80 });
    const meta = await sharp(image.bytes).metadata();
    expect(meta.format).toBe(format);
    expect([meta.width, meta.height]).toEqual([800, 600]);
    expect(image).toMatchObject({ format, width: 800, height: 600, bounds: { left: 0, top: 0, right: 800, bottom: 600 } });
  });

  it("maxSize bounds the longest edge and never enlarges; scale applies first", async () => {
    const host = await connectedHost();
    const small = await host.exportDocumentImage(ctx(), { format: "png", maxSize: 200 });
    expect([small.width, small.height]).toEqual([200, 150]);
    const meta = await sharp(small.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([200, 150]);
    const notEnlarged = await host.exportDocumentImage(ctx(), { format: "png", maxSize: 5000 });
    expect([notEnlarged.width, notEnlarged.height]).toEqual([800, 600]);
    const scaled = await host.exportDocumentImage(ctx(), { format: "png", scale: 0.5, maxSize: 300 });
    expect([scaled.width, scaled.height]).toEqual([300, 225]);
    const half = await host.exportDocumentImage(ctx(), { format: "png", scale: 0.25 });
    expect([half.width, half.height]).toEqual([200, 150]);
    expect(half.bounds).toEqual({ left: 0, top: 0, right: 800, bottom: 600 });
  });

  it("the document composite shows the layers top over bottom", async () => {
    const host = await connectedHost();
    const image = await rawPixels((await host.exportDocumentImage(ctx(), { format: "png" })).bytes);
    expect(pixelAt(image, 5, 5)).toEqual([238, 238, 238, 255]); // Background
    expect(pixelAt(image, 150, 60)).toEqual([37, 99, 235, 255]); // Label
    const [r, g, b, a] = pixelAt(image, 400, 290); // Subject centre: opaque, red-orange
    expect(a).toBe(255);
    expect(r!).toBeGreaterThan(200);
    expect(b!).toBeLessThan(120);
    expect(g!).toBeLessThan(r!);
  });

  it("a layer exports its own pixels cropped to its bounds", async () => {
    const host = await connectedHost();
    const label = await host.getLayer(ctx(), { ref: { by: "id", id: 5 } });
    const image = await host.exportLayerImage(ctx(), { format: "png", ref: { by: "id", id: 5 } });
    expect(image.bounds).toEqual(label!.bounds);
    expect([image.width, image.height]).toEqual([220, 40]);
    const pixels = await rawPixels(image.bytes);
    expect(pixelAt(pixels, 110, 20)).toEqual([37, 99, 235, 255]);
    expect(pixelAt(pixels, 0, 0)[3]).toBeLessThan(255); // rounded corner
  });

  it("a group exports the composite of its children within the group's bounds", async () => {
    const host = await connectedHost();
    const product = await host.getLayer(ctx(), { ref: { by: "id", id: 4 } });
    const image = await host.exportLayerImage(ctx(), { format: "webp", ref: { by: "index", index: 1 }, maxSize: 100 });
    expect(image.bounds).toEqual(product!.bounds);
    const meta = await sharp(image.bytes).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBe(100);
  });

  it("an empty layer exports as a 1×1 transparent image with zero-size bounds", async () => {
    const host = await connectedHost({ sample: false });
    await host.createDocument!(ctx(), { width: 30, height: 20, background: "transparent" });
    const image = await host.exportLayerImage(ctx(), { format: "png", ref: { by: "active" } });
    expect(image).toMatchObject({ width: 1, height: 1, bounds: { left: 0, top: 0, right: 0, bottom: 0 } });
    expect(pixelAt(await rawPixels(image.bytes), 0, 0)[3]).toBe(0);
  });

  it("exporting with nothing active is LAYER_NOT_FOUND; a bad scale is BAD_REQUEST", async () => {
    const host = await connectedHost();
    await host.selectLayers!(ctx(), { ids: [] });
    await expect(host.exportLayerImage(ctx(), { format: "png", ref: { by: "active" } })).rejects.toMatchObject({ code: "LAYER_NOT_FOUND" });
    await expect(host.exportDocumentImage(ctx(), { format: "png", scale: -1 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("an aborted call fails with TIMEOUT", async () => {
    const host = await connectedHost();
    const controller = new AbortController();
    controller.abort();
    await expect(host.exportDocumentImage({ signal: controller.signal, clientId: "t" }, { format: "png" })).rejects.toMatchObject({ code: "TIMEOUT" });
  });
});
