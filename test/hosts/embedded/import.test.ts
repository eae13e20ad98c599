import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { crc32 } from "node:zlib";
import sharp from "sharp";
import { firstValueFrom } from "rxjs";
import type { Observable } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { isPrivateAddress, sniffImageFormat } from "../../../src/hosts/embedded/import.js";
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

  it("a local path and a file: URI import; file import can be disabled; a missing file is NOT_FOUND", async () => {
    const dir = await mkdtemp(join(tmpdir(), "bridge-import-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, "logo.png");
    await writeFile(path, Buffer.from((await solidPngDataUri(5, 4, [1, 2, 3, 255])).split(",")[1]!, "base64"));
    const host = await connectedHost();
    expect((await host.importImage!(ctx(), { image: path })).rect).toMatchObject({ width: 5, height: 4 });
    expect((await host.importImage!(ctx(), { image: pathToFileURL(path).href })).rect).toMatchObject({ width: 5, height: 4 });
    await expect(host.importImage!(ctx(), { image: join(dir, "missing.png") })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const locked = await connectedHost({ allowFileImport: false });
    await expect(locked.importImage!(ctx(), { image: path })).rejects.toMatchObject({ code: "FORBIDDEN", details: { capability: "import:file" } });
    await expect(locked.importImage!(ctx(), { image: pathToFileURL(path).href })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("an http URL imports from a private address only when allowed, following a bounded number of redirects", async () => {
    const png = Buffer.from((await solidPngDataUri(7, 3, [9, 9, 9, 255])).split(",")[1]!, "base64");
    const base = await serve((req, res) => {
      const hops = Number(/\/hop\/(\d+)/.exec(req.url ?? "")?.[1] ?? -1);
      if (hops > 0) res.writeHead(302, { location: `/hop/${hops - 1}` }).end();
      else if (req.url === "/missing") res.writeHead(404).end();
      else res.writeHead(200, { "content-type": "image/png" }).end(png);
    });
    const open = await connectedHost({ allowPrivateUrlImport: true, importLimits: { maxRedirects: 2 } });
    expect((await open.importImage!(ctx(), { image: `${base}/a.png` })).rect).toMatchObject({ width: 7, height: 3 });
    expect((await open.importImage!(ctx(), { image: `${base}/hop/2` })).rect).toMatchObject({ width: 7, height: 3 });
    await expect(open.importImage!(ctx(), { image: `${base}/hop/3` })).rejects.toMatchObject({ code: "BAD_REQUEST", details: { maxRedirects: 2 } });
    await expect(open.importImage!(ctx(), { image: `${base}/missing` })).rejects.toMatchObject({ code: "BAD_REQUEST", details: { status: 404 } });
    const closed = await connectedHost();
    await expect(closed.importImage!(ctx(), { image: `${base}/a.png` })).rejects.toMatchObject({ code: "FORBIDDEN", details: { capability: "import:private-url" } });
    await expect(closed.importImage!(ctx(), { image: `${base.replace("127.0.0.1", "localhost")}/a.png` })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("a URL body over the byte limit is cut off while streaming, declared or not", async () => {
    const big = Buffer.alloc(64 * 1024, 7);
    const base = await serve((req, res) => {
      if (req.url === "/declared") res.writeHead(200, { "content-length": big.length }).end(big);
      else {
        res.writeHead(200); // chunked: no length to check up front
        res.write(big.subarray(0, 32 * 1024));
        res.end(big.subarray(32 * 1024));
      }
    });
    const host = await connectedHost({ allowPrivateUrlImport: true, importLimits: { maxBytes: 40 * 1024 } });
    for (const path of ["/declared", "/chunked"]) {
      await expect(host.importImage!(ctx(), { image: `${base}${path}` })).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { maxBytes: 40 * 1024 } });
    }
  });

  it("a URL that does not answer in time is TIMEOUT", async () => {
    const base = await serve(() => {}); // never answers
    const host = await connectedHost({ allowPrivateUrlImport: true, importLimits: { urlTimeoutMs: 50 } });
    await expect(host.importImage!(ctx(), { image: `${base}/slow.png` })).rejects.toMatchObject({ code: "TIMEOUT", details: { timeoutMs: 50 } });
  });

  it("formats are sniffed from the bytes; svg and bmp are refused naming what they are", async () => {
    const host = await connectedHost();
    const bmp = Buffer.from(`424d${"00".repeat(60)}`, "hex").toString("base64");
    await expect(host.importImage!(ctx(), { image: `data:image/png;base64,${bmp}` })).rejects.toMatchObject({ code: "BAD_REQUEST", details: { detected: "bmp" } });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString("base64");
    await expect(host.importImage!(ctx(), { image: svg })).rejects.toMatchObject({ code: "BAD_REQUEST", details: { detected: "svg" } });
    const gif = await sharp({ create: { width: 2, height: 2, channels: 3, background: "#000" } }).gif().toBuffer();
    const tiff = await sharp({ create: { width: 2, height: 2, channels: 3, background: "#000" } }).tiff().toBuffer();
    expect([sniffImageFormat(gif), sniffImageFormat(tiff)]).toEqual(["gif", "tiff"]);
    expect((await host.importImage!(ctx(), { image: tiff.toString("base64") })).rect).toMatchObject({ width: 2, height: 2 });
  });

  it("base64 over the byte limit is PAYLOAD_TOO_LARGE before decoding", async () => {
    const host = await connectedHost({ importLimits: { maxBytes: 100 } });
    await expect(host.importImage!(ctx(), { image: await solidPngDataUri(64, 64, [0, 0, 0, 255]) })).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  });

  it("loopback, private, link-local, mapped and NAT64 addresses are private; public ones are not", () => {
    for (const address of ["127.0.0.1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "::", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "64:ff9b::a00:1", "ff02::1"]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) expect(isPrivateAddress(address), address).toBe(false);
  });
});

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((fn) => fn()));
});

/** A node:http server on 127.0.0.1 port 0, closed after the test; returns its base URL. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
