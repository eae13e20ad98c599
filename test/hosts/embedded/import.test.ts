import { crc32 } from "node:zlib";
import sharp from "sharp";
import { firstValueFrom } from "rxjs";
import type { Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import type { HostLayer } from "../../../src/protocol/index.js";
import { connectedHost, ctx, flatten, pixelAt, rawPixels, solidPngDataUri } from "./helpers.js";

describe("embedded host: importing images", () => {
  it("a data URI lands above the active layer, centred, named, active, and marks the document dirty", async () => {
    const host = await connectedHost();
    const selection = firstValueFrom(host.events("layer:selectionChange")! as Observable<HostLayer[]>);
    const layer = await host.importImage!(ctx(), { image: await solidPngDataUri(20, 10, [0, 200, 0, 255]) });
    expect(layer).toMatchObject({ name: "Imported Layer", kind: "pixel", index: 2, bounds: { left: 390, top: 295, right: 410, bottom: 305 } });
    const names = flatten(await host.getLayers(ctx(), undefined)).map((l) => l.name);
    expect(names).toEqual(["Label", "Product", "Imported Layer", "Subject", "Shadow", "Background"]);
    expect((await selection).map((l) => l.id)).toEqual([layer.id]);
    expect(await host.currentDocument(ctx())).toMatchObject({ isDirty: true, activeLayerIds: [layer.id] });
    expect((await host.getLayer(ctx(), { ref: { by: "index", index: layer.index } }))?.id).toBe(layer.id);
    const image = await rawPixels((await host.exportDocumentImage(ctx(), { format: "png" })).bytes);
    expect(pixelAt(image, 400, 300)).toEqual([0, 200, 0, 255]);
  });

  it("layerId inserts above that layer; position and size place and resize the pixels", async () => {
    const host = await connectedHost();
    const layer = await host.importImage!(ctx(), {
      image: await solidPngDataUri(4, 4, [10, 20, 30, 255]),
      name: "Logo",
      layerId: 1,
      position: { x: 10, y: 20 },
      size: { width: 30, height: 15 },
    });
    expect(layer).toMatchObject({ name: "Logo", index: 4, rect: { x: 10, y: 20, width: 30, height: 15 } });
    expect(flatten(await host.getLayers(ctx(), undefined)).map((l) => l.name).slice(-2)).toEqual(["Logo", "Background"]);
  });

  it("layerIndex inserts above the layer at that index; bare base64 works too", async () => {
    const host = await connectedHost();
    const uri = await solidPngDataUri(3, 3, [1, 2, 3, 255]);
    const layer = await host.importImage!(ctx(), { image: uri.split(",")[1]!, layerIndex: 0 });
    expect(layer.index).toBe(0);
    expect((await host.getLayers(ctx(), undefined)).map((l) => l.name)[0]).toBe("Imported Layer");
  });

  it("JPEG and WebP data decode too", async () => {
    const host = await connectedHost();
    const create = { width: 6, height: 5, channels: 3 as const, background: "#808080" };
    const jpeg = await sharp({ create }).jpeg().toBuffer();
    const webp = await sharp({ create }).webp().toBuffer();
    expect((await host.importImage!(ctx(), { image: `data:image/jpeg;base64,${jpeg.toString("base64")}` })).rect).toMatchObject({ width: 6, height: 5 });
    expect((await host.importImage!(ctx(), { image: webp.toString("base64") })).rect).toMatchObject({ width: 6, height: 5 });
  });

  it("bad image data is BAD_REQUEST and adds no layer", async () => {
    const host = await connectedHost();
    const before = flatten(await host.getLayers(ctx(), undefined)).length;
    await expect(host.importImage!(ctx(), { image: "data:image/png;base64,AAAAAAAA" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(host.importImage!(ctx(), { image: "not an image!" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(host.importImage!(ctx(), { image: "data:text/plain;base64,aGVsbG8=" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>').toString("base64");
    await expect(host.importImage!(ctx(), { image: `data:image/svg+xml;base64,${svg}` })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(flatten(await host.getLayers(ctx(), undefined))).toHaveLength(before);
  });

  it("files and URLs are NOT_SUPPORTED in this version, naming the capability", async () => {
    const host = await connectedHost();
    for (const [image, capability] of [
      ["file:///tmp/a.png", "import:file"],
      ["/tmp/a.png", "import:file"],
      ["C:\\images\\a.png", "import:file"],
      ["https://example.com/a.png", "import:url"],
    ] as const) {
      await expect(host.importImage!(ctx(), { image })).rejects.toMatchObject({ code: "NOT_SUPPORTED", details: { capability } });
    }
  });

  it("an unknown target layer is LAYER_NOT_FOUND", async () => {
    const host = await connectedHost();
    const image = await solidPngDataUri(2, 2, [0, 0, 0, 255]);
    await expect(host.importImage!(ctx(), { image, layerId: 99 })).rejects.toMatchObject({ code: "LAYER_NOT_FOUND" });
    await expect(host.importImage!(ctx(), { image, layerIndex: 9 })).rejects.toMatchObject({ code: "LAYER_NOT_FOUND" });
  });

  it("an image whose header declares too many pixels is PAYLOAD_TOO_LARGE before decoding", async () => {
    const host = await connectedHost();
    // A real 1×1 PNG whose IHDR is patched to claim 20000×20000 (400 MP): only the header may be read.
    const png = await sharp({ create: { width: 1, height: 1, channels: 4, background: "#000" } }).png().toBuffer();
    png.writeUInt32BE(20000, 16);
    png.writeUInt32BE(20000, 20);
    png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
    await expect(host.importImage!(ctx(), { image: `data:image/png;base64,${png.toString("base64")}` })).rejects.toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
    });
  });
});
