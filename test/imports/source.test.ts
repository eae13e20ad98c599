import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { crc32 } from "node:zlib";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { UNCONFINED } from "../../src/files/index.js";
import { isPrivateAddress, probeImage, readImportSource, sniffImageFormat, type ImportPolicy } from "../../src/imports/index.js";

const signal = new AbortController().signal;

function policy(overrides: Partial<Omit<ImportPolicy, "limits">> & { limits?: Partial<ImportPolicy["limits"]> } = {}): ImportPolicy {
  return {
    allowFile: true,
    allowPrivateUrl: false,
    files: UNCONFINED,
    ...overrides,
    limits: { maxBytes: 64 * 1024 * 1024, maxPixels: 100_000_000, urlTimeoutMs: 20_000, maxRedirects: 5, ...overrides.limits },
  };
}

async function solidPng(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: "#102030" } }).png().toBuffer();
}

describe("import sources", () => {
  it("a data URI, bare base64, a local path and a file: URI all give the same bytes, sniffed as PNG", async () => {
    const png = await solidPng(5, 4);
    const dir = await mkdtemp(join(tmpdir(), "bridge-import-src-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, "logo.png");
    await writeFile(path, png);
    for (const [image, source] of [
      [`data:image/png;base64,${png.toString("base64")}`, "data"],
      [png.toString("base64"), "base64"],
      [path, "file"],
      [pathToFileURL(path).href, "file"],
    ] as const) {
      const read = await readImportSource(image, policy(), signal);
      expect([read.source, read.format, Buffer.from(read.bytes).equals(png)], source).toEqual([source, "png", true]);
    }
    await expect(readImportSource(join(dir, "missing.png"), policy(), signal)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(readImportSource(path, policy({ allowFile: false }), signal)).rejects.toMatchObject({ code: "FORBIDDEN", details: { capability: "import:file" } });
    await expect(readImportSource(path, policy({ files: { roots: [join(dir, "elsewhere")] } }), signal)).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("an http URL imports from a private address only when allowed, following a bounded number of redirects", async () => {
    const png = await solidPng(7, 3);
    const base = await serve((req, res) => {
      const hops = Number(/\/hop\/(\d+)/.exec(req.url ?? "")?.[1] ?? -1);
      if (hops > 0) res.writeHead(302, { location: `/hop/${hops - 1}` }).end();
      else if (req.url === "/missing") res.writeHead(404).end();
      else if (req.url === "/broken-redirect") res.writeHead(302, { location: "http://" }).end();
      else res.writeHead(200, { "content-type": "image/png" }).end(png);
    });
    const open = policy({ allowPrivateUrl: true, limits: { maxRedirects: 2 } });
    expect((await readImportSource(`${base}/a.png`, open, signal)).source).toBe("url");
    expect((await readImportSource(`${base}/hop/2`, open, signal)).format).toBe("png");
    await expect(readImportSource(`${base}/hop/3`, open, signal)).rejects.toMatchObject({ code: "BAD_REQUEST", details: { maxRedirects: 2 } });
    await expect(readImportSource(`${base}/missing`, open, signal)).rejects.toMatchObject({ code: "BAD_REQUEST", details: { status: 404 } });
    // A malformed URL, given or redirected to, is the caller's mistake, not INTERNAL.
    for (const bad of ["http://", "https://:99999/x.png"]) {
      await expect(readImportSource(bad, open, signal)).rejects.toMatchObject({ code: "BAD_REQUEST", details: { url: bad } });
    }
    await expect(readImportSource(`${base}/broken-redirect`, open, signal)).rejects.toMatchObject({ code: "BAD_REQUEST", details: { url: "http://" } });
    await expect(readImportSource(`${base}/a.png`, policy(), signal)).rejects.toMatchObject({ code: "FORBIDDEN", details: { capability: "import:private-url" } });
    await expect(readImportSource(`${base.replace("127.0.0.1", "localhost")}/a.png`, policy(), signal)).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("a URL body over the byte limit is cut off while streaming, declared or not; a silent server is TIMEOUT", async () => {
    const big = Buffer.alloc(64 * 1024, 7);
    const base = await serve((req, res) => {
      if (req.url === "/declared") res.writeHead(200, { "content-length": big.length }).end(big);
      else if (req.url === "/chunked") {
        res.writeHead(200); // chunked: no length to check up front
        res.write(big.subarray(0, 32 * 1024));
        res.end(big.subarray(32 * 1024));
      }
      // anything else never answers
    });
    const small = policy({ allowPrivateUrl: true, limits: { maxBytes: 40 * 1024, urlTimeoutMs: 50 } });
    for (const path of ["/declared", "/chunked"]) {
      await expect(readImportSource(`${base}${path}`, small, signal)).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { maxBytes: 40 * 1024 } });
    }
    await expect(readImportSource(`${base}/slow.png`, small, signal)).rejects.toMatchObject({ code: "TIMEOUT", details: { timeoutMs: 50 } });
  });

  it("formats are sniffed from the bytes; svg and bmp are refused naming what they are; base64 over the limit before decoding", async () => {
    const bmp = Buffer.from(`424d${"00".repeat(60)}`, "hex").toString("base64");
    await expect(readImportSource(`data:image/png;base64,${bmp}`, policy(), signal)).rejects.toMatchObject({ code: "BAD_REQUEST", details: { detected: "bmp" } });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString("base64");
    await expect(readImportSource(svg, policy(), signal)).rejects.toMatchObject({ code: "BAD_REQUEST", details: { detected: "svg" } });
    await expect(readImportSource("data:text/plain;base64,aGVsbG8=", policy(), signal)).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const gif = await sharp({ create: { width: 2, height: 2, channels: 3, background: "#000" } }).gif().toBuffer();
    const tiff = await sharp({ create: { width: 2, height: 2, channels: 3, background: "#000" } }).tiff().toBuffer();
    expect([sniffImageFormat(gif), sniffImageFormat(tiff)]).toEqual(["gif", "tiff"]);
    const png = await solidPng(64, 64);
    await expect(readImportSource(png.toString("base64"), policy({ limits: { maxBytes: 100 } }), signal)).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  });

  it("an image whose header declares too many pixels is PAYLOAD_TOO_LARGE from the header alone; sizes are upright", async () => {
    // A real 1×1 PNG whose IHDR is patched to claim 20000×20000 (400 MP): only the header may be read.
    const bomb = await solidPng(1, 1);
    bomb.writeUInt32BE(20000, 16);
    bomb.writeUInt32BE(20000, 20);
    bomb.writeUInt32BE(crc32(bomb.subarray(12, 29)), 29);
    const read = await readImportSource(bomb.toString("base64"), policy(), signal);
    await expect(probeImage(read, 100_000_000)).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { width: 20000, height: 20000 } });
    // A 6×2 JPEG stored sideways (EXIF orientation 6) is a 2×6 image once upright.
    const sideways = await sharp({ create: { width: 6, height: 2, channels: 3, background: "#777" } }).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const probed = await probeImage(await readImportSource(sideways.toString("base64"), policy(), signal), 100_000_000);
    expect([probed.width, probed.height]).toEqual([2, 6]);
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
