import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { BridgeImage, isBridgeImage, type WebSocketConstructor } from "../../src/client/index.js";
import { encodeBinaryHeader } from "../../src/protocol/index.js";
import { saveTo } from "../../src/index.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { connect, onCleanup } from "./_support.js";

type Kind = "text" | "binary";

/** `ws`'s WebSocket, recording whether each message received and sent was binary: what actually crossed the wire. */
function recordingSocket(): { WebSocket: WebSocketConstructor; kinds: Kind[]; sent: Kind[] } {
  const kinds: Kind[] = [];
  const sent: Kind[] = [];
  class Recording extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      this.on("message", (_data, isBinary) => kinds.push(isBinary ? "binary" : "text"));
    }
    override send(data: string | Uint8Array): void {
      sent.push(typeof data === "string" ? "text" : "binary");
      super.send(data);
    }
  }
  return { WebSocket: Recording as unknown as WebSocketConstructor, kinds, sent };
}

async function rgba(bytes: Uint8Array): Promise<string> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return `${info.width}x${info.height}:${data.toString("base64")}`;
}

describe("client SDK and binary images", () => {
  it("negotiates binary by default and gives images as bytes; binary: false keeps text frames and gives the same pixels", async () => {
    const harness = await startOnSharedEditor();
    const binaryWire = recordingSocket();
    const textWire = recordingSocket();
    const binary = connect(harness.bridge.url, { WebSocket: binaryWire.WebSocket });
    const text = connect(harness.bridge.url, { WebSocket: textWire.WebSocket, binary: false });
    expect((await binary.ready()).features).toEqual(["binary", "cancel", "progress", "batch", "edit", "history"]);
    expect((await text.ready()).features).toEqual(["cancel", "progress", "batch", "edit", "history"]);

    const fromBinary = await binary.image.exportDocument({ format: "png" });
    const fromText = await text.image.exportDocument({ format: "png" });
    expect(binaryWire.kinds).toEqual(["text", "text", "binary"]); // handshake, answer, the image
    expect(textWire.kinds).toEqual(["text", "text"]);
    for (const image of [fromBinary, fromText]) {
      expect(isBridgeImage(image)).toBe(true);
      expect(image).toBeInstanceOf(BridgeImage);
      expect(image.bytes).toBeInstanceOf(Uint8Array);
      expect(image.mime).toBe("image/png");
    }
    expect(await rgba(fromBinary.bytes)).toBe(await rgba(fromText.bytes));
    expect({ width: fromBinary.width, height: fromBinary.height, bounds: fromBinary.bounds }).toEqual({
      width: fromText.width,
      height: fromText.height,
      bounds: fromText.bounds,
    });
    // The data URI a text client always had is still there, built on demand, and JSON is the protocol's ImageResult.
    expect(fromBinary.data).toBe(`data:image/png;base64,${Buffer.from(fromBinary.bytes).toString("base64")}`);
    expect(JSON.parse(JSON.stringify(fromBinary))).toEqual({ data: fromBinary.data, format: "png", width: fromBinary.width, height: fromBinary.height, bounds: fromBinary.bounds });
    const blob = fromText.blob();
    expect(blob.type).toBe("image/png");
    expect(Buffer.from(await blob.arrayBuffer()).equals(Buffer.from(fromText.bytes))).toBe(true);

    const layers = await text.document.layers();
    const layerId = layers.at(-1)!.id;
    const layerBinary = await binary.image.exportLayer({ layerId, format: "webp", quality: 100 });
    const layerText = await text.image.exportLayer({ layerId, format: "webp", quality: 100 });
    expect(layerBinary.mime).toBe("image/webp");
    expect(await rgba(layerBinary.bytes)).toBe(await rgba(layerText.bytes));
  });

  it("template:render's variant images come as binary parts and are BridgeImages with a text connection's bytes", async () => {
    const harness = await startOnSharedEditor();
    const binaryWire = recordingSocket();
    const binary = connect(harness.bridge.url, { WebSocket: binaryWire.WebSocket });
    const text = connect(harness.bridge.url, { binary: false });
    const doc = await binary.invoke("document:create", { width: 40, height: 20, name: "template" });
    const sizes = [
      [30, 20],
      [50, 24],
      [64, 10],
    ] as const;
    const params = {
      template: { documentId: doc.id },
      variants: sizes.map(([width, height], n) => ({ id: `v${n}`, edits: [{ method: "document:resize", params: { width, height } }] })),
      output: { format: "png" as const },
    };
    const sentBefore = binaryWire.kinds.length;
    const fromBinary = await binary.invoke("template:render", params);
    // The answer, then one binary message per variant.
    expect(binaryWire.kinds.slice(sentBefore)).toEqual(["text", "binary", "binary", "binary"]);
    const fromText = await text.invoke("template:render", params);
    await binary.invoke("document:close", { documentId: doc.id });
    expect(fromBinary.variants.map((v) => [v.id, v.ok])).toEqual([
      ["v0", true],
      ["v1", true],
      ["v2", true],
    ]);
    for (const [n, [width, height]] of sizes.entries()) {
      const image = fromBinary.variants[n]!.image!;
      const inline = fromText.variants[n]!.image!;
      expect(isBridgeImage(image)).toBe(true);
      expect(isBridgeImage(inline)).toBe(true); // a text connection's data URI, made an image by the SDK alike
      expect({ width: image.width, height: image.height, mime: image.mime }).toEqual({ width, height, mime: "image/png" });
      expect(Buffer.from(image.bytes).equals(Buffer.from(inline.bytes))).toBe(true);
      expect((await sharp(image.bytes).metadata()).width).toBe(width);
    }
  });

  it("an answer with several images waits for all its parts; a part missing or cut off fails that request only", async () => {
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    onCleanup(() => new Promise<void>((done) => server.close(() => done())));
    await new Promise<void>((done) => server.once("listening", done));
    let misbehave: "none" | "out-of-order" | "cut" = "none";
    const reference = (n: number) => ({ data: { binary: n, mime: "image/png", bytes: n + 1 }, format: "png", width: n + 1, height: 1, bounds: { left: 0, top: 0, right: n + 1, bottom: 1 } });
    server.on("connection", (socket) => {
      socket.send(JSON.stringify({ type: "connected", data: { clientId: "c", resumed: false, protocolVersion: 1, server: { name: "stand-in", version: "0" }, features: ["binary"] } }));
      socket.on("message", (data) => {
        const { id, method } = JSON.parse(String(data)) as { id: string; method: string };
        if (method !== "template:render") return socket.send(JSON.stringify({ id, ok: true, result: { name: "ok" } }));
        const variants = [0, 1, 2].map((n) => ({ id: `v${n}`, ok: true, image: reference(n) }));
        socket.send(JSON.stringify({ id, ok: true, result: { variants: [variants[0], { id: "bad", ok: false }, ...variants.slice(1)] } }));
        const part = (n: number) => Buffer.concat([encodeBinaryHeader(id, n), Buffer.alloc(n + 1, n + 10)]);
        socket.send(part(0));
        if (misbehave === "cut") return socket.terminate();
        socket.send(part(misbehave === "out-of-order" ? 2 : 1));
        socket.send(part(misbehave === "out-of-order" ? 1 : 2));
      });
    });
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const client = connect(url, { reconnect: false });
    await client.ready();
    const params = { template: { documentId: 1 }, variants: [{}] };
    const answer = (await client.invoke("template:render", params)) as { variants: Array<{ id: string; image?: unknown }> };
    expect(answer.variants.map((v) => v.id)).toEqual(["v0", "bad", "v1", "v2"]);
    for (const [at, n] of [
      [0, 0],
      [2, 1],
      [3, 2],
    ] as const) {
      const image = answer.variants[at]!.image as BridgeImage;
      expect(isBridgeImage(image)).toBe(true);
      expect({ width: image.width, bytes: [...image.bytes] }).toEqual({ width: n + 1, bytes: new Array(n + 1).fill(n + 10) });
    }
    misbehave = "out-of-order";
    await expect(client.invoke("template:render", params)).rejects.toMatchObject({ code: "CONNECTION_LOST", message: expect.stringMatching(/did not match/) });
    expect(await client.invoke("document:current")).toEqual({ name: "ok" }); // the stray part is ignored, the connection carries on
    misbehave = "cut";
    await expect(client.invoke("template:render", params)).rejects.toMatchObject({ code: "CONNECTION_LOST", message: expect.stringMatching(/closed before the images/) });
  });

  it("importImage takes bytes: a binary part on a binary connection, a data URI on a text one, a Blob on either", async () => {
    const harness = await startOnSharedEditor();
    const binaryWire = recordingSocket();
    const textWire = recordingSocket();
    const binary = connect(harness.bridge.url, { WebSocket: binaryWire.WebSocket });
    const text = connect(harness.bridge.url, { WebSocket: textWire.WebSocket, binary: false });
    const png = new Uint8Array(await sharp({ create: { width: 20, height: 10, channels: 4, background: "#0a64c8" } }).png().toBuffer());

    const viaPart = await binary.layer.importImage({ image: png, name: "part", position: { x: 0, y: 0 } });
    expect(binaryWire.sent).toEqual(["text", "binary"]);
    const viaUri = await text.layer.importImage({ image: png.buffer as ArrayBuffer, name: "uri", position: { x: 0, y: 0 } });
    expect(textWire.sent).toEqual(["text"]);
    const viaBlob = await binary.layer.importImage({ image: new Blob([png], { type: "image/png" }), name: "blob", position: { x: 0, y: 0 } });
    for (const layer of [viaPart, viaUri, viaBlob]) expect(layer.rect).toEqual({ x: 0, y: 0, width: 20, height: 10 });
    expect([viaPart.name, viaUri.name, viaBlob.name]).toEqual(["part", "uri", "blob"]);
    for (const layer of [viaPart, viaUri, viaBlob]) {
      expect(await rgba((await binary.image.exportLayer({ layerId: layer.id, format: "png" })).bytes)).toBe(await rgba(png));
    }
  });

  it("a refused import reports the bridge's error to the caller and the connection carries on", async () => {
    const harness = await startOnSharedEditor({ limits: { maxBinaryPartBytes: 64 } });
    const binary = connect(harness.bridge.url);
    const png = new Uint8Array(await sharp({ create: { width: 20, height: 10, channels: 4, background: "#000" } }).png().toBuffer());
    await expect(binary.layer.importImage({ image: png })).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE", method: "layer:importImage" });
    expect((await binary.document.current()).name).toBe("Sample");
  });

  it("saveTo writes an image's bytes to a file in Node", async () => {
    const harness = await startOnSharedEditor();
    const client = connect(harness.bridge.url);
    const dir = await mkdtemp(join(tmpdir(), "ieb-save-"));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    const image = await client.image.exportDocument({ format: "jpeg", maxSize: 100 });
    await saveTo(image, join(dir, "doc.jpg"));
    const written = await readFile(join(dir, "doc.jpg"));
    expect(written.equals(Buffer.from(image.bytes))).toBe(true);
    expect((await sharp(written).metadata()).format).toBe("jpeg");
    await expect(saveTo(image, join(dir, "missing", "doc.jpg"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("an image that does not follow its answer fails that request only: a binary message naming another request, a socket cut before the bytes", async () => {
    // A stand-in bridge on loopback that answers each export with a reference, then misbehaves as the test says.
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    onCleanup(() => new Promise<void>((done) => server.close(() => done())));
    await new Promise<void>((done) => server.once("listening", done));
    let misbehave: "wrong-id" | "cut" = "wrong-id";
    server.on("connection", (socket) => {
      socket.send(JSON.stringify({ type: "connected", data: { clientId: "c", resumed: false, protocolVersion: 1, server: { name: "stand-in", version: "0" }, features: ["binary"] } }));
      socket.on("message", (data) => {
        const { id, method } = JSON.parse(String(data)) as { id: string; method: string };
        if (method !== "image:exportDocument") return socket.send(JSON.stringify({ id, ok: true, result: { name: "ok" } }));
        const result = { data: { binary: 0, mime: "image/png", bytes: 3 }, format: "png", width: 1, height: 1, bounds: { left: 0, top: 0, right: 1, bottom: 1 } };
        socket.send(JSON.stringify({ id, ok: true, result }));
        if (misbehave === "cut") socket.terminate();
        else socket.send(Buffer.concat([encodeBinaryHeader("someone-else", 0), Buffer.from([1, 2, 3])]));
      });
    });
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const client = connect(url, { reconnect: false });
    await client.ready();
    await expect(client.image.exportDocument()).rejects.toMatchObject({ code: "CONNECTION_LOST", retryable: true, details: { outcome: "unknown" } });
    expect(await client.invoke("document:current")).toEqual({ name: "ok" }); // the connection carries on
    misbehave = "cut";
    await expect(client.image.exportDocument()).rejects.toMatchObject({ code: "CONNECTION_LOST", message: expect.stringMatching(/closed before the image/) });
  });
});
