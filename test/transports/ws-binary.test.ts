import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { decodeBinaryFrame, type BinaryFrame } from "../../src/protocol/index.js";
import type { Harness } from "../helpers/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { BinaryTestClient } from "../helpers/binary-ws.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import { type Frame, refusedUpgrade, waitForClient, type TestClient } from "../helpers/ws-client.js";

/** The protocol 1.1 features every WebSocket connection announces. */
const EVERYWHERE = ["cancel", "progress", "batch", "edit", "history"];

const opened: BinaryTestClient[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((client) => client.close()));
});

async function binaryClient(harness: Harness, query = "binary=1"): Promise<BinaryTestClient> {
  const client = await BinaryTestClient.open(`ws://127.0.0.1:${harness.bridge.port}/ws?${query}`);
  opened.push(client);
  return client;
}

/** The bytes of a data URI. */
function dataUriBytes(uri: string): Buffer {
  expect(uri).toMatch(/^data:image\/png;base64,/);
  return Buffer.from(uri.slice(uri.indexOf(",") + 1), "base64");
}

/** The decoded RGBA pixels of an encoded image. */
async function pixels(encoded: Uint8Array): Promise<{ width: number; height: number; rgba: string }> {
  const { data, info } = await sharp(encoded).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  // Compared as one string: deep equality over megabytes of Buffer elements is slow.
  return { width: info.width, height: info.height, rgba: data.toString("base64") };
}

/** Exports over a binary connection: the JSON answer, then exactly one binary message, checked and decoded. */
async function binaryExport(client: BinaryTestClient, id: string, method: string, params: unknown): Promise<{ result: Record<string, unknown>; frame: BinaryFrame }> {
  const { frame, at } = await client.request(id, method, params);
  expect(frame).toMatchObject({ id, ok: true }); // a failure has no binary message to wait for
  const message = await client.binaryAfter(at);
  const decoded = decodeBinaryFrame(message);
  if (typeof decoded === "string") throw new Error(decoded);
  return { result: frame.result as Record<string, unknown>, frame: decoded };
}

/** A solid PNG made with sharp, to import. */
function solidPng(width: number, height: number, color: string): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: color } }).png().toBuffer();
}

describe("binary images over WebSocket", () => {
  it("binary and text clients side by side get identical pixels for a document export and a layer export", async () => {
    const harness = await startOnSharedEditor();
    const text = await harness.connect("/ws");
    const binary = await binaryClient(harness);

    const fromText = (await text.call<{ data: string; width: number; height: number; format: string }>("image:exportDocument", { format: "png" }));
    const { result, frame } = await binaryExport(binary, "doc-1", "image:exportDocument", { format: "png" });
    // The reference replaces the data URI; every other field is the text answer's.
    expect(result).toEqual({ ...fromText, data: { binary: 0, mime: "image/png", bytes: frame.payload.byteLength } });
    expect(frame.requestId).toBe("doc-1");
    expect(frame.index).toBe(0);
    const expected = await pixels(dataUriBytes(fromText.data));
    expect(await pixels(frame.payload)).toEqual(expected);
    expect(expected.width).toBe(fromText.width);

    const layers = await text.call<Array<{ id: number }>>("document:layers");
    const layerId = layers.at(-1)!.id;
    const textLayer = await text.call<{ data: string }>("image:exportLayer", { layerId, format: "png" });
    const binaryLayer = await binaryExport(binary, "layer-1", "image:exportLayer", { layerId, format: "png" });
    expect(await pixels(binaryLayer.frame.payload)).toEqual(await pixels(dataUriBytes(textLayer.data)));

    // Nothing but the two answers and their two binary messages reached the binary client after its handshake.
    const kinds = binary.messages.map((m) => ("binary" in m ? "binary" : m.text.type === "connected" ? "connected" : `answer:${m.text.id}`));
    expect(kinds).toEqual(["connected", "answer:doc-1", "binary", "answer:layer-1", "binary"]);
  });

  it("a numeric request id is named in the binary header by its digits and echoed as a number", async () => {
    const harness = await startOnSharedEditor();
    const binary = await binaryClient(harness);
    binary.ws.send(JSON.stringify({ id: 42, method: "image:exportDocument", params: { maxSize: 32 } }));
    const at = await binary.waitFor((m) => "text" in m && (m.text.id as unknown) === 42);
    expect((binary.messages[at] as { text: unknown }).text).toMatchObject({ id: 42, ok: true, result: { data: { binary: 0 } } });
    const decoded = decodeBinaryFrame(await binary.binaryAfter(at));
    expect(typeof decoded === "string" ? decoded : decoded.requestId).toBe("42");
  });

  it("connected announces features: binary with ?binary=1 and none otherwise; a text client still gets data URIs and only text frames", async () => {
    const harness = await startOnSharedEditor();
    const binary = await binaryClient(harness);
    const textRaw = await binaryClient(harness, "binary=0");
    const plain = await binaryClient(harness, "name=plain");
    // Cancel, progress, batch and edit are there for every connection; binary only where it was asked for.
    expect(binary.hello["features"]).toEqual(["binary", ...EVERYWHERE]);
    expect(textRaw.hello["features"]).toEqual(EVERYWHERE);
    expect(plain.hello["features"]).toEqual(EVERYWHERE);
    const { frame } = await plain.request("t1", "image:exportDocument", { format: "jpeg" });
    expect((frame.result as { data: string }).data).toMatch(/^data:image\/jpeg;base64,/);
    await plain.request("t2", "document:current");
    expect(plain.messages.every((m) => "text" in m)).toBe(true);
  });

  it("a bad binary switch refuses the upgrade with BAD_REQUEST", async () => {
    const harness = await startOnSharedEditor();
    const refused = await refusedUpgrade(`ws://127.0.0.1:${harness.bridge.port}/ws?binary=maybe`);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: "BAD_REQUEST", details: { param: "binary" } });
  });

  it("an image answered while the client was away is replayed as JSON and binary message on a binary resume, as a data URI on a text one", async () => {
    const host = new ScriptedHost();
    const harness = await startOnSharedEditor({ host });
    const observer = await harness.connect("/ws");
    const url = (query: string): string => `ws://127.0.0.1:${harness.bridge.port}/ws?${query}`;

    /** Sends an export from `client`, drops the socket while the editor holds the call, lets the answer land in the replay buffer. */
    const answerWhileAway = async (client: BinaryTestClient, id: string, clientId: string): Promise<void> => {
      host.hold();
      const started = host.calls.length;
      client.ws.send(JSON.stringify({ id, method: "image:exportDocument" }));
      await host.whenStarted(started + 1);
      client.ws.terminate();
      await waitForClient(observer, clientId, "detached");
      host.release();
      // The observer's call runs after the export in the same mailbox: once it is answered, the export was too.
      await observer.call("document:current");
    };

    const first = await binaryClient(harness);
    const clientId = first.hello["clientId"] as string;
    await answerWhileAway(first, "away-1", clientId);
    const binaryResume = await BinaryTestClient.open(url(`binary=1&resume=${clientId}`));
    opened.push(binaryResume);
    expect(binaryResume.hello).toMatchObject({ resumed: true, replayed: 2, lost: 0, features: ["binary", ...EVERYWHERE] });
    const { frame, at } = await binaryResume.answer("away-1");
    expect(frame.result).toMatchObject({ data: { binary: 0, mime: "image/png" }, width: 4, height: 3 });
    const decoded = decodeBinaryFrame(await binaryResume.binaryAfter(at));
    expect(typeof decoded === "string" ? decoded : (await pixels(decoded.payload)).width).toBe(4);

    await answerWhileAway(binaryResume, "away-2", clientId);
    const textResume = await BinaryTestClient.open(url(`resume=${clientId}`));
    opened.push(textResume);
    expect(textResume.hello).toMatchObject({ resumed: true, replayed: 1, features: EVERYWHERE });
    const { frame: text } = await textResume.answer("away-2");
    expect((await pixels(dataUriBytes((text.result as { data: string }).data))).width).toBe(4);
    expect(textResume.messages.every((m) => "text" in m)).toBe(true);
  });

  it("layer:importImage takes its image as the binary message after the request", async () => {
    const harness = await startOnSharedEditor();
    const binary = await binaryClient(harness);
    const png = await solidPng(40, 30, "#22aa44");
    binary.ws.send(JSON.stringify({ id: "imp", method: "layer:importImage", params: { image: { binary: 0 }, name: "from bytes", position: { x: 0, y: 0 } } }));
    binary.sendPart("imp", 0, png);
    const { frame } = await binary.answer("imp");
    expect(frame).toMatchObject({ ok: true, result: { name: "from bytes", rect: { width: 40, height: 30 } } });
    const layerId = (frame.result as { id: number }).id;
    const exported = await binaryExport(binary, "exp", "image:exportLayer", { layerId, format: "png" });
    expect(await pixels(exported.frame.payload)).toEqual(await pixels(png));
  });

  describe("template:render answers each variant's image as a binary part", () => {
    const SIZES = [
      [30, 20],
      [50, 24],
      [64, 10],
    ] as const;

    /** Variants of a document resized three ways; `extra` adds edits to the last one. */
    function renderParams(documentId: number, extra: unknown[] = []): Record<string, unknown> {
      const variants = SIZES.map(([width, height], n) => ({ id: `v${n}`, edits: [{ method: "document:resize", params: { width, height } }, ...(n === 2 ? extra : [])] }));
      return { template: { documentId }, variants, output: { format: "png" } };
    }

    type Variant = { id: string; ok: boolean; image: { data: { binary: number; mime: string; bytes: number } | string; width: number; height: number } };

    /** Checks the answer at message `at` and the three binary messages right after it; answers their payloads. */
    async function partsAfter(client: BinaryTestClient, at: number, id: string): Promise<Buffer[]> {
      await client.received(at + 4);
      const answer = (client.messages[at] as { text: Frame }).text;
      const variants = (answer.result as { variants: Variant[] }).variants;
      expect(variants.map((v) => [v.id, v.ok, v.image.data, v.image.width])).toEqual(
        SIZES.map(([width], n) => [`v${n}`, true, { binary: n, mime: "image/png", bytes: expect.any(Number) }, width]),
      );
      return [0, 1, 2].map((n) => {
        const message = client.messages[at + 1 + n]!;
        if (!("binary" in message)) throw new Error(`message ${at + 1 + n} is text: ${JSON.stringify(message.text)}`);
        const decoded = decodeBinaryFrame(message.binary);
        if (typeof decoded === "string") throw new Error(decoded);
        expect([decoded.requestId, decoded.index, decoded.payload.byteLength]).toEqual([id, n, (variants[n]!.image.data as { bytes: number }).bytes]);
        return Buffer.from(decoded.payload);
      });
    }

    it("the JSON answer comes first, then parts 0, 1, 2 naming the request, with the bytes of a text socket's and HTTP's data URIs", async () => {
      const harness = await startOnSharedEditor();
      const text = await harness.connect("/ws");
      const binary = await binaryClient(harness);
      const { id: documentId } = await text.call<{ id: number }>("document:create", { width: 40, height: 20, name: "template" });
      try {
        const { at } = await binary.request("job", "template:render", renderParams(documentId));
        const parts = await partsAfter(binary, at, "job");
        const kinds = binary.messages.map((m) => ("binary" in m ? "binary" : m.text.type === "connected" ? "connected" : `answer:${m.text.id}`));
        expect(kinds).toEqual(["connected", "answer:job", "binary", "binary", "binary"]);

        const inline = await text.call<{ variants: Variant[] }>("template:render", renderParams(documentId));
        const response = await harness.http("/template/render", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(renderParams(documentId)) });
        const overHttp = (await response.json()) as { variants: Variant[] };
        for (const [n, [width, height]] of SIZES.entries()) {
          expect(dataUriBytes(inline.variants[n]!.image.data as string).equals(parts[n]!)).toBe(true);
          expect(dataUriBytes(overHttp.variants[n]!.image.data as string).equals(parts[n]!)).toBe(true);
          expect(await pixels(parts[n]!)).toMatchObject({ width, height });
        }
      } finally {
        await text.call("document:close", { documentId });
      }
    });

    it("an answer made while the client was away is replayed whole on a binary resume: the JSON and all three parts", async () => {
      // The last variant imports an image from this server, which holds it until the client is gone.
      let release: () => void = () => {};
      let requested: () => void = () => {};
      const fetched = new Promise<void>((resolve) => (requested = resolve));
      const png = await solidPng(8, 8, "#3366cc");
      const server = createServer((_request, response) => {
        requested();
        release = () => response.end(png);
        response.writeHead(200, { "content-type": "image/png", "content-length": png.length });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const harness = await startOnSharedEditor({ imports: { allowPrivateUrl: true } });
      const observer = await harness.connect("/ws");
      const { id: documentId } = await observer.call<{ id: number }>("document:create", { width: 40, height: 20, name: "template" });
      try {
        const first = await binaryClient(harness);
        const clientId = first.hello["clientId"] as string;
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/photo.png`;
        first.ws.send(JSON.stringify({ id: "away", method: "template:render", params: renderParams(documentId, [{ method: "layer:importImage", params: { image: url } }]) }));
        await fetched;
        first.ws.terminate();
        await waitForClient(observer, clientId, "detached");
        release();
        // Answered once the client has no call in flight: the answer is in its replay buffer.
        for (;;) {
          const { clients } = await observer.call<{ clients: Array<{ idPrefix: string; inFlight: number }> }>("server:clients");
          if (clients.find((c) => clientId.startsWith(c.idPrefix))?.inFlight === 0) break;
          await new Promise((resolve) => setImmediate(resolve));
        }
        const resumed = await binaryClient(harness, `binary=1&resume=${clientId}`);
        expect(resumed.hello).toMatchObject({ resumed: true, replayed: 4, lost: 0 });
        const { at } = await resumed.answer("away");
        const parts = await partsAfter(resumed, at, "away");
        for (const [n, [width, height]] of SIZES.entries()) expect(await pixels(parts[n]!)).toMatchObject({ width, height });
      } finally {
        await observer.call("document:close", { documentId });
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  });

  describe("a bad binary part fails its request only; the connection and other clients carry on", () => {
    async function setup(limits = {}): Promise<{ harness: Harness; binary: BinaryTestClient; other: TestClient }> {
      const harness = await startOnSharedEditor({ limits });
      return { harness, binary: await binaryClient(harness), other: await harness.connect("/ws") };
    }

    async function carriesOn(binary: BinaryTestClient, other: TestClient, id: string): Promise<void> {
      expect((await binary.request(id, "document:current")).frame).toMatchObject({ ok: true, result: { name: "Sample" } });
      expect((await other.send("image:exportDocument", { format: "png", maxSize: 64 })).ok).toBe(true);
    }

    const importRequest = (id: string): string => JSON.stringify({ id, method: "layer:importImage", params: { image: { binary: 0 } } });

    it("a header naming another request", async () => {
      const { binary, other } = await setup();
      binary.ws.send(importRequest("a1"));
      binary.sendPart("zz", 0, await solidPng(4, 4, "#fff"));
      const { frame } = await binary.answer("a1");
      expect(frame.error).toMatchObject({ code: "BAD_REQUEST", requestId: "a1", method: "layer:importImage" });
      expect(frame.error!.message).toMatch(/expected binary part 0 of request a1, got part 0 of request zz/);
      await carriesOn(binary, other, "a1-next");
    });

    it("a header that is not the bridge's", async () => {
      const { binary, other } = await setup();
      binary.ws.send(importRequest("a2"));
      binary.ws.send(Buffer.from([9, 0, 0, 1, 65, 1, 2, 3]));
      const { frame } = await binary.answer("a2");
      expect(frame.error).toMatchObject({ code: "BAD_REQUEST" });
      expect(frame.error!.message).toMatch(/unknown binary header version 9/);
      await carriesOn(binary, other, "a2-next");
    });

    it("a missing part: the next text frame fails the waiting request and is itself answered", async () => {
      const { binary, other } = await setup();
      binary.ws.send(importRequest("a3"));
      const { frame: next } = await binary.request("a3-after", "document:current");
      expect(next).toMatchObject({ ok: true });
      const { frame } = await binary.answer("a3");
      expect(frame.error).toMatchObject({ code: "BAD_REQUEST" });
      expect(frame.error!.message).toMatch(/names 1 binary part\(s\), but a text message came before part 0/);
      await carriesOn(binary, other, "a3-next");
    });

    it("a part that never comes fails after binaryPartWaitMs", async () => {
      const { binary, other } = await setup({ binaryPartWaitMs: 100 });
      binary.ws.send(importRequest("a4"));
      const { frame } = await binary.answer("a4");
      expect(frame.error!.message).toMatch(/did not arrive within 100 ms/);
      await carriesOn(binary, other, "a4-next");
    });

    it("a part above maxBinaryPartBytes answers PAYLOAD_TOO_LARGE", async () => {
      const { binary, other } = await setup({ maxBinaryPartBytes: 1_000 });
      binary.ws.send(importRequest("a5"));
      binary.sendPart("a5", 0, Buffer.alloc(1_001));
      const { frame } = await binary.answer("a5");
      expect(frame.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { size: 1_001, maxBytes: 1_000 } });
      await carriesOn(binary, other, "a5-next");
    });

    it("a part within the transport's limit but above the import limit answers the import's PAYLOAD_TOO_LARGE", async () => {
      const png = await solidPng(64, 64, "#123456");
      const { binary, other } = await setup({ maxImportBytes: png.length - 1 });
      binary.ws.send(importRequest("a6"));
      binary.sendPart("a6", 0, png);
      const { frame } = await binary.answer("a6");
      expect(frame.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { source: "binary", size: png.length } });
      await carriesOn(binary, other, "a6-next");
    });

    it("bytes that are no image answer BAD_REQUEST like any other import source", async () => {
      const { binary, other } = await setup();
      binary.ws.send(importRequest("a7"));
      binary.sendPart("a7", 0, new TextEncoder().encode("%PDF-1.7 not an image"));
      const { frame } = await binary.answer("a7");
      expect(frame.error).toMatchObject({ code: "BAD_REQUEST", details: { source: "binary", detected: "pdf" } });
      await carriesOn(binary, other, "a7-next");
    });

    it("more parts than maxBinaryPartsPerRequest, or parts not numbered from 0, are refused before any byte is read", async () => {
      const { binary, other } = await setup();
      const { frame: many } = await binary.request("a8", "layer:importImage", { image: { binary: 0 }, name: { binary: 1 } });
      expect(many.error).toMatchObject({ code: "BAD_REQUEST", details: { limit: 1 } });
      const { frame: skipped } = await binary.request("a9", "layer:importImage", { image: { binary: 1 } });
      expect(skipped.error!.message).toMatch(/numbered 0 to 0/);
      await carriesOn(binary, other, "a9-next");
    });

    it("a socket that closes before the part fails the request, and a resume receives that answer", async () => {
      const { harness, binary, other } = await setup();
      const clientId = binary.hello["clientId"] as string;
      binary.ws.send(importRequest("a10"));
      binary.ws.terminate();
      await waitForClient(other, clientId, "detached");
      const resumed = await binaryClient(harness, `binary=1&resume=${clientId}`);
      expect(resumed.hello).toMatchObject({ resumed: true, replayed: 1 });
      const { frame } = await resumed.answer("a10");
      expect(frame.error).toMatchObject({ code: "BAD_REQUEST", requestId: "a10" });
      expect(frame.error!.message).toMatch(/connection closed before binary part 0 of request a10/);
      await carriesOn(resumed, other, "a10-next");
    });

    it("a binary message no request waits for is an error event", async () => {
      const { binary, other } = await setup();
      binary.sendPart("ghost", 0, Buffer.from([1, 2, 3]));
      const at = await binary.waitFor((m) => "text" in m && m.text.type === "error");
      expect((binary.messages[at] as { text: { data: unknown } }).text.data).toMatchObject({ code: "BAD_REQUEST" });
      expect(JSON.stringify((binary.messages[at] as { text: unknown }).text)).toMatch(/names request ghost/);
      await carriesOn(binary, other, "ghost-next");
    });

    it("{ binary: 0 } on a text connection (or over HTTP) says where binary parts work", async () => {
      const { harness, other } = await setup();
      const frame = await other.send("layer:importImage", { image: { binary: 0 } });
      expect(frame.error).toMatchObject({ code: "BAD_REQUEST", details: { param: "image", part: 0 } });
      expect(frame.error!.message).toMatch(/\?binary=1/);
      const http = await harness.http("/layer/import-image", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ image: { binary: 0 } }) });
      expect(http.status).toBe(400);
    });
  });
});
