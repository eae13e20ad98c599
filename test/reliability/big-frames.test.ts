/**
 * Large WebSocket text frames against the bridge as users run it (the CLI in a child process). Text frames carry
 * JSON only and have a limit of their own (`maxTextFrameBytes`), far below `maxPayloadBytes`: a frame over it is
 * refused from its header, with an answer naming binary parts, before it is buffered or parsed. Sixteen clients
 * sending 90 MB text frames at once are all answered at once (before, they were admitted one at a time and parsed
 * on the bridge's thread), the memory of the bridge stays flat, and another client's `/health` answers throughout.
 * The SDK sends a large image given as a data URI as a binary part by itself, so it is imported, not refused.
 */
import { randomBytes } from "node:crypto";
import sharp from "sharp";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { Connection } from "../../src/client/index.js";
import { DEFAULT_LIMITS } from "../../src/limits.js";
import { mib, startBridgeProcess, type BridgeProcess } from "../helpers/bridge-process.js";
import { RawWsClient } from "../helpers/raw-ws.js";
import { TestClient } from "../helpers/ws-client.js";

const MiB = 1024 * 1024;
/** The audit's frames: each just under the old `maxPayloadBytes`. */
const FRAME_BYTES = 90 * 1024 * 1024;
const SENDERS = 16;
/** What each sender writes per step: the frame is streamed, never held whole by the test. */
const CHUNK = Buffer.alloc(1 * MiB, "x");
/** Generous bounds that only a stall of several seconds or unbounded buffering can pass (see abuse.test.ts). */
const HEALTH_WORST_MS = 4_000;
const RSS_GROWTH_BOUND = 128 * MiB;

/**
 * One child bridge for the file, started by the first case: none of them ends or changes what another reads (the
 * first, which bounds memory, runs on it fresh; the others take a baseline of their own or bound nothing).
 */
let bridge: Promise<BridgeProcess> | undefined;
const raws: RawWsClient[] = [];
const clients: TestClient[] = [];
const sdks: Connection[] = [];

afterEach(async () => {
  for (const raw of raws.splice(0)) raw.destroy();
  for (const client of clients.splice(0)) client.ws.terminate();
  await Promise.all(sdks.splice(0).map((sdk) => sdk.close()));
});
afterAll(async () => {
  await (await bridge)?.stop();
  bridge = undefined;
});

function sharedBridge(): Promise<BridgeProcess> {
  bridge ??= startBridgeProcess();
  return bridge;
}

/** A masked text-frame header announcing `length` bytes, with a zero mask key (the payload goes as written). */
function textHeader(length: number): Buffer {
  const header = Buffer.alloc(14);
  header[0] = 0x81;
  header[1] = 0x80 | 127;
  header.writeBigUInt64BE(BigInt(length), 2);
  return header; // the last four bytes: the mask key 0
}

/**
 * Streams one `FRAME_BYTES` text frame (a valid `getServerInfo` request padded with `x`) as fast as the bridge
 * reads it, until it is all written or the connection closes.
 */
async function streamBigFrame(raw: RawWsClient, idFirst: boolean): Promise<void> {
  const head = idFirst ? '{"id":"big","method":"getServerInfo","params":{"pad":"' : '{"method":"getServerInfo","params":{"pad":"';
  const tail = idFirst ? '"}}' : '"},"id":"big"}';
  // Header and the payload's first bytes in one write, as a client library sends a frame: the bridge reads the
  // request's id from the bytes that come in the same read as the header.
  raw.write(Buffer.concat([textHeader(FRAME_BYTES), Buffer.from(head)]));
  let left = FRAME_BYTES - head.length - tail.length;
  let closed = false;
  raw.socket.once("close", () => (closed = true));
  while (left > 0 && !closed) {
    const step = Math.min(left, CHUNK.length);
    left -= step;
    if (!raw.socket.write(CHUNK.subarray(0, step))) {
      await new Promise<void>((resume) => {
        raw.socket.once("drain", resume);
        raw.socket.once("close", resume);
      });
    }
  }
  if (!closed) raw.write(Buffer.from(tail));
}

describe("large text frames", () => {
  it("16 clients sending 90 MB text frames are each refused PAYLOAD_TOO_LARGE naming binary parts (on the request's id when the frame starts with it) and closed 1009, memory stays flat, /health answers", { timeout: 90_000 }, async () => {
    const served = await sharedBridge();
    const bystander = await TestClient.open(served.wsUrl);
    clients.push(bystander);
    await bystander.call("document:layers");
    served.reset();

    const senders = await Promise.all(Array.from({ length: SENDERS }, () => RawWsClient.open(served.port)));
    raws.push(...senders);
    // Half start with their id, as the SDK writes requests; the others name it at the end.
    const streams = senders.map((raw, i) => streamBigFrame(raw, i % 2 === 0));
    // Each is answered (an error event, or an answer on its id), whichever comes first.
    await Promise.all(senders.map((raw) => raw.until(() => raw.json().some((f) => f["type"] === "error" || f["id"] === "big"))));
    const refusal = { code: "PAYLOAD_TOO_LARGE", details: { limit: "maxTextFrameBytes", bytes: FRAME_BYTES, maxBytes: DEFAULT_LIMITS.maxTextFrameBytes, use: "binary parts" } };
    for (const [i, raw] of senders.entries()) {
      const answer = raw.json().find((f) => f["type"] === "error" || f["id"] === "big")!;
      if (i % 2 === 0) expect(answer).toMatchObject({ id: "big", ok: false, error: { ...refusal, requestId: "big" } });
      else expect(answer).toMatchObject({ type: "error", data: refusal });
      const error = (answer["error"] ?? answer["data"]) as { message: string };
      expect(error.message).toMatch(/binary part/);
    }
    await Promise.all(senders.map((raw) => raw.closed));
    for (const raw of senders) expect(raw.closeCode).toBe(1009);
    await Promise.all(streams);

    // The bystander was served throughout, and still is.
    expect((await bystander.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
    await served.morePings(3);
    const health = served.health();
    expect(health.failures).toEqual([]);
    expect(health.worstMs).toBeLessThan(HEALTH_WORST_MS);
    const rss = served.rss();
    if (rss !== undefined) expect(rss.growth, `RSS grew ${mib(rss.growth)} over ${mib(rss.baseline)}`).toBeLessThan(RSS_GROWTH_BOUND);
  });

  it("frames and bodies nested a million deep are refused naming maxJsonDepth, parsed off the bridge's thread; a large valid frame is answered; /health answers", { timeout: 90_000 }, async () => {
    const served = await sharedBridge();
    const bystander = await TestClient.open(served.wsUrl);
    clients.push(bystander);
    await bystander.call("document:layers");
    served.reset();
    // 2 MB each, under the text limit: on the bridge's thread each took two seconds to parse.
    const DEPTH = 1_000_000;
    const deep = `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`;
    const senders = await Promise.all(Array.from({ length: 8 }, () => TestClient.open(served.wsUrl)));
    clients.push(...senders);
    for (const sender of senders) sender.sendRaw(deep);
    const refusals = await Promise.all(senders.map((sender) => sender.next((f) => f.type === "error")));
    for (const refusal of refusals) expect(refusal).toMatchObject({ data: { code: "BAD_REQUEST", details: { limit: "maxJsonDepth", maxDepth: DEFAULT_LIMITS.maxJsonDepth } } });
    const body = await fetch(`${served.url}/selection/set`, { method: "POST", headers: { "content-type": "application/json" }, body: `{"rect":${deep}}` });
    expect(body.status).toBe(400);
    expect(await body.json()).toMatchObject({ code: "BAD_REQUEST", details: { limit: "maxJsonDepth" } });
    // A large valid frame (a 10,000-point polygon, 0.35 MB) is parsed off the thread too; the frame after it waits its turn and is answered as well.
    const polygon = Array.from({ length: 10_000 }, (_, i) => ({ x: 10 + (i % 100) * 0.5, y: 10 + Math.floor(i / 100) * 0.5 }));
    const [selected, after] = await Promise.all([bystander.send("selection:set", { polygon }), bystander.send("getServerInfo")]);
    expect(selected).toMatchObject({ ok: true });
    expect(after).toMatchObject({ ok: true });

    await served.morePings(3);
    const health = served.health();
    expect(health.failures).toEqual([]);
    expect(health.worstMs).toBeLessThan(HEALTH_WORST_MS);
  });

  it("the SDK imports an image given as a data URI larger than the text-frame limit: it goes as a binary part by itself", { timeout: 60_000 }, async () => {
    const served = await sharedBridge();
    // Noise does not compress: a 1400×1400 PNG of it is about 7.5 MiB, 10 MiB as base64.
    const side = 1400;
    const png = await sharp(randomBytes(side * side * 4), { raw: { width: side, height: side, channels: 4 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const dataUri = `data:image/png;base64,${png.toString("base64")}`;
    expect(dataUri.length).toBeGreaterThan(DEFAULT_LIMITS.maxTextFrameBytes);
    const sdk = new Connection({ url: served.url, WebSocket: WebSocket as never });
    sdks.push(sdk);
    await sdk.ready();
    // Without binary messages the same call is one text frame too large: it fails at once, on its id, saying why.
    const textOnly = new Connection({ url: served.url, WebSocket: WebSocket as never, binary: false });
    sdks.push(textOnly);
    await textOnly.ready();
    await expect(textOnly.invoke("layer:importImage", { image: dataUri })).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: "maxTextFrameBytes" } });
    const { bounds } = (await sdk.invoke("layer:importImage", { image: dataUri })) as { bounds: { left: number; top: number; right: number; bottom: number } };
    expect({ width: bounds.right - bounds.left, height: bounds.bottom - bounds.top }).toEqual({ width: side, height: side });
  });
});
