import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { crc32 } from "node:zlib";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { BridgeOptions } from "../../src/bridge/options.js";
import { METHOD_SCHEMAS, type HostLayer } from "../../src/protocol/index.js";
import { itFor, conformanceMatrix } from "./_editors.js";
import type { ConformanceTransport, Outcome } from "./_transports.js";

let dir: string;
let png: Buffer;
let server: Server;
let base: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "bridge-import-conf-"));
  png = await sharp({ create: { width: 12, height: 9, channels: 4, background: "#3366ff" } }).png().toBuffer();
  await writeFile(join(dir, "blue.png"), png);
  server = createServer((req, res) => {
    if (req.url === "/big") res.writeHead(200).end(Buffer.alloc(8192));
    else res.writeHead(200, { "content-type": "image/png" }).end(png);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const MATRIX = conformanceMatrix();

describe.each(MATRIX)("layer:importImage over $label", ({ editor, transport: { make } }) => {
  const it = itFor(editor);
  let t: ConformanceTransport;
  const setup = async (options?: BridgeOptions): Promise<void> => {
    t = await make(await editor.start(options));
  };
  const imported = (outcome: Outcome): HostLayer => {
    if (!outcome.ok) throw new Error(`import failed: ${JSON.stringify(outcome.error)}`);
    return METHOD_SCHEMAS["layer:importImage"].result.parse(outcome.result);
  };
  const importing = (image: string, extra: Record<string, unknown> = {}): Promise<Outcome> => t.call("layer:importImage", { image, ...extra });

  it("a data URI and bare base64 import as layers of the image's size", async () => {
    await setup();
    expect(imported(await importing(`data:image/png;base64,${png.toString("base64")}`)).rect).toMatchObject({ width: 12, height: 9 });
    expect(imported(await importing(png.toString("base64"), { position: { x: 3, y: 4 } })).rect).toEqual({ x: 3, y: 4, width: 12, height: 9 });
  });

  it("a local path and a file: URI import", async () => {
    await setup();
    const path = join(dir, "blue.png");
    expect(imported(await importing(path, { name: "From path" })).name).toBe("From path");
    expect(imported(await importing(pathToFileURL(path).href, { size: { width: 24, height: 18 } })).rect).toMatchObject({ width: 24, height: 18 });
  });

  it("a missing file is NOT_FOUND", async () => {
    await setup();
    expect((await importing(join(dir, "nope.png"))).error?.code).toBe("NOT_FOUND");
  });

  it("file import disabled is FORBIDDEN", async () => {
    await setup({ imports: { allowFile: false } });
    const outcome = await importing(join(dir, "blue.png"));
    expect(outcome.error?.code).toBe("FORBIDDEN");
    expect(outcome.error?.details?.["capability"]).toBe("import:file");
  });

  it("an http URL on loopback is refused by default and imports when private targets are allowed", async () => {
    await setup();
    const refused = await importing(`${base}/blue.png`);
    expect(refused.error?.code).toBe("FORBIDDEN");
    expect(refused.error?.details?.["capability"]).toBe("import:private-url");
    await setup({ imports: { allowPrivateUrl: true } });
    expect(imported(await importing(`${base}/blue.png`)).rect).toMatchObject({ width: 12, height: 9 });
  });

  it("bad base64 and an unknown format are BAD_REQUEST", async () => {
    await setup();
    expect((await importing("data:image/png;base64,@@@not-base64@@@")).error?.code).toBe("BAD_REQUEST");
    const bmp = await importing(Buffer.from(`BM${"\0".repeat(60)}`, "latin1").toString("base64"));
    expect(bmp.error?.code).toBe("BAD_REQUEST");
    expect(bmp.error?.details?.["detected"]).toBe("bmp");
  });

  it("too many pixels and too many bytes are PAYLOAD_TOO_LARGE", async () => {
    await setup({ imports: { allowPrivateUrl: true }, limits: { maxImportBytes: 4096 } });
    const bomb = Buffer.from(png);
    bomb.writeUInt32BE(30000, 16);
    bomb.writeUInt32BE(30000, 20);
    bomb.writeUInt32BE(crc32(bomb.subarray(12, 29)), 29);
    expect((await importing(bomb.toString("base64"))).error?.code).toBe("PAYLOAD_TOO_LARGE");
    const bytes = await importing(Buffer.alloc(6000, 0x89).toString("base64"));
    expect(bytes.error?.code).toBe("PAYLOAD_TOO_LARGE");
    expect((await importing(`${base}/big`)).error?.code).toBe("PAYLOAD_TOO_LARGE");
  });
});
