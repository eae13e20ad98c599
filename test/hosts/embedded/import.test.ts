import sharp from "sharp";
import { firstValueFrom } from "rxjs";
import type { Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import type { HostLayer } from "../../../src/protocol/index.js";
import { SAMPLE, connectedHost, ctx, exportDocument, importBytes, layersOf, pixelAt, rawPixels, solidPng } from "./helpers.js";

describe("embedded host: importing images as layers", () => {
  it("places the pixels at the position, above the layer given, named, active, and marks the document dirty", async () => {
    const host = await connectedHost();
    const selection = firstValueFrom(host.events("layer:selectionChange")! as Observable<HostLayer[]>);
    const id = await importBytes(host, await solidPng(20, 10, [0, 200, 0, 255]), {
      name: "Badge",
      position: { x: 390, y: 295 },
      aboveLayerId: SAMPLE.subject,
    });
    const layers = await layersOf(host);
    expect(layers.map((l) => l.name)).toEqual(["Label", "Product", "Badge", "Subject", "Shadow", "Background"]);
    expect(layers.find((l) => l.id === id)).toMatchObject({ kind: "pixel", index: 2, bounds: { left: 390, top: 295, right: 410, bottom: 305 } });
    expect((await selection).map((l) => l.id)).toEqual([id]);
    expect(await host.getDocument(ctx(), undefined)).toMatchObject({ isDirty: true, activeLayerIds: [id] });
    const image = await rawPixels((await exportDocument(host)).bytes);
    expect(pixelAt(image, 400, 300)).toEqual([0, 200, 0, 255]);
  });

  it("aboveLayerId at the top level inserts there; null inserts at the top of the document", async () => {
    const host = await connectedHost();
    await importBytes(host, await solidPng(4, 4, [10, 20, 30, 255]), { name: "Logo", aboveLayerId: SAMPLE.background });
    await importBytes(host, await solidPng(3, 3, [1, 2, 3, 255]), { name: "Top", aboveLayerId: null });
    expect((await host.getDocumentTree(ctx(), undefined)).layers.map((l) => l.name)).toEqual(["Top", "Label", "Product", "Logo", "Background"]);
  });

  it("an aboveLayerId the document no longer has inserts at the top (the tree changed while decoding)", async () => {
    const host = await connectedHost();
    await importBytes(host, await solidPng(3, 3, [1, 2, 3, 255]), { name: "Late", aboveLayerId: 999 });
    expect((await host.getDocumentTree(ctx(), undefined)).layers[0]?.name).toBe("Late");
  });

  it("a size other than the header's scales the pixels to it", async () => {
    const host = await connectedHost();
    const id = await importBytes(host, await solidPng(4, 4, [10, 20, 30, 255]), { position: { x: 10, y: 20 }, size: { width: 30, height: 15 } });
    expect((await layersOf(host)).find((l) => l.id === id)?.rect).toEqual({ x: 10, y: 20, width: 30, height: 15 });
  });

  it.each(["jpeg", "webp", "gif", "tiff"] as const)("%s decodes too", async (format) => {
    const host = await connectedHost();
    const bytes = await sharp({ create: { width: 6, height: 5, channels: 3, background: "#808080" } })
      .toFormat(format)
      .toBuffer();
    const id = await importBytes(host, bytes);
    expect((await layersOf(host)).find((l) => l.id === id)?.rect).toMatchObject({ width: 6, height: 5 });
  });

  it("an EXIF-rotated JPEG lands upright; a size other than the header's is the layer's exact size", async () => {
    const host = await connectedHost();
    // Stored 40×20, orientation 6: shown turned a quarter, 20×40.
    const bytes = await sharp({ create: { width: 40, height: 20, channels: 3, background: "#808080" } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const upright = await importBytes(host, bytes);
    const scaled = await importBytes(host, bytes, { size: { width: 30, height: 90 } });
    const layers = await layersOf(host);
    expect(layers.find((l) => l.id === upright)?.rect).toMatchObject({ width: 20, height: 40 });
    expect(layers.find((l) => l.id === scaled)?.rect).toMatchObject({ width: 30, height: 90 });
  });

  it("bytes that do not decode are BAD_REQUEST and add no layer", async () => {
    const host = await connectedHost();
    const before = (await layersOf(host)).length;
    const png = await solidPng(8, 8, [0, 0, 0, 255]);
    const truncated = png.subarray(0, 40);
    await expect(
      host.importLayer!(ctx(), {
        documentId: 1,
        image: { bytes: truncated, format: "png", width: 8, height: 8 },
        size: { width: 8, height: 8 },
        position: { x: 0, y: 0 },
        name: "Broken",
        aboveLayerId: null,
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await layersOf(host)).toHaveLength(before);
  });

  it("a document closed while the image decodes is DOCUMENT_NOT_FOUND", async () => {
    const host = await connectedHost();
    const bytes = await solidPng(64, 64, [0, 0, 0, 255]);
    const pending = host.importLayer!(ctx(), {
      documentId: 1,
      image: { bytes, format: "png", width: 64, height: 64 },
      size: { width: 64, height: 64 },
      position: { x: 0, y: 0 },
      name: "Late",
      aboveLayerId: null,
    });
    await host.closeDocument!(ctx(), 1);
    await expect(pending).rejects.toMatchObject({ code: "DOCUMENT_NOT_FOUND" });
  });
});
