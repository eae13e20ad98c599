import { Writable } from "node:stream";
import { pino } from "pino";
import type { Logger } from "../../src/logger.js";
import { describe, expect, it } from "vitest";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { eventually } from "../helpers/gc.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import type { Frame } from "../helpers/ws-client.js";
import { BinaryTestClient } from "../helpers/binary-ws.js";

/** A pino logger writing parsed lines into `lines`, so tests read what the bridge logged. */
function capturingLogger(lines: Array<Record<string, unknown>>): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n")) if (line.trim() !== "") lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return pino({ level: "info" }, sink);
}

const isResponse = (f: Frame): boolean => f.id !== undefined && f.type === undefined;

describe("a client's frame rate", () => {
  it("frames past the rate are answered TOO_MANY_REQUESTS with retryAfterMs and not dispatched, while another client is served", async () => {
    // One frame per 10 s after a burst of 5: whatever runs in this test, the bucket cannot refill by more than a frame or two.
    const limits = { clientFramesPerSecond: 0.1, clientFrameBurst: 5 };
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits });
    const flooder = await harness.connect();
    const bystander = await harness.connect();
    const FRAMES = 40;
    const started = performance.now();
    for (let i = 0; i < FRAMES; i++) flooder.sendRaw(JSON.stringify({ id: `f${i}`, method: "getServerInfo" }));
    flooder.sendRaw("[]"); // no id: refused with an `error` event
    await flooder.nth(isResponse, FRAMES);
    await flooder.next((f) => f.type === "error");
    const refilled = Math.ceil(((performance.now() - started) / 1000) * limits.clientFramesPerSecond);

    const responses = flooder.frames.filter(isResponse);
    expect(responses).toHaveLength(FRAMES); // each frame answered exactly once
    const served = responses.filter((f) => f.ok === true);
    const refused = responses.filter((f) => f.ok === false);
    expect(served.length).toBeGreaterThanOrEqual(limits.clientFrameBurst);
    expect(served.length).toBeLessThanOrEqual(limits.clientFrameBurst + refilled);
    for (const f of refused) {
      expect(f.error!.code).toBe("TOO_MANY_REQUESTS");
      expect(f.error!.retryable).toBe(true);
      expect(f.error!.details).toMatchObject({ limit: "clientFramesPerSecond", max: limits.clientFramesPerSecond, burst: limits.clientFrameBurst });
      expect(f.error!.details!["retryAfterMs"]).toBeGreaterThan(0);
      expect(f.error!.details!["retryAfterMs"]).toBeLessThanOrEqual(1000 / limits.clientFramesPerSecond);
    }
    const notice = flooder.frames.find((f) => f.type === "error")!;
    expect((notice.data as { code: string }).code).toBe("TOO_MANY_REQUESTS");

    // Refused frames never reached the dispatcher: only the served calls were counted.
    const metrics = await (await harness.http("/metrics")).text();
    const counted = metrics
      .split("\n")
      .filter((l) => l.startsWith("bridge_request_duration_seconds_count") && l.includes('method="getServerInfo"') && l.includes('transport="ws"'))
      .reduce((n, l) => n + Number(l.split(" ").at(-1)), 0);
    expect(counted).toBe(served.length);

    // Another client has a bucket of its own.
    expect((await bystander.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
    expect(flooder.ws.readyState).toBe(flooder.ws.OPEN); // below the abuse count: refused, not closed
  });

  it("a client that keeps flooding past the abuse count is closed with 1008, and resuming does not refill its bucket", async () => {
    const limits = { clientFramesPerSecond: 0.1, clientFrameBurst: 2, clientFrameAbuseRejections: 20, clientFrameAbuseWindowMs: 60_000 };
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits });
    const flooder = await harness.connect();
    const bystander = await harness.connect();
    const id = flooder.hello.clientId;
    for (let i = 0; i < 100; i++) flooder.sendRaw(JSON.stringify({ id: `f${i}`, method: "getServerInfo" }));
    const closed = await flooder.closed;
    expect(closed).toEqual({ code: 1008, reason: "too many frames" });
    // Frames read before the close were answered: the burst served, the rest refused, and nothing answered twice.
    const responses = flooder.frames.filter(isResponse);
    expect(new Set(responses.map((f) => f.id)).size).toBe(responses.length);
    expect(responses.filter((f) => f.error?.code === "TOO_MANY_REQUESTS").length).toBeGreaterThanOrEqual(limits.clientFrameAbuseRejections - 1);
    expect((await bystander.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");

    // The logical client stays resumable, with its bucket and its count of refusals: the next frame is refused
    // and closes the socket again at once.
    const back = await harness.connect(`/ws?resume=${id}`);
    expect(back.hello.resumed).toBe(true);
    const answer = await back.send("getServerInfo");
    expect(answer.error?.code).toBe("TOO_MANY_REQUESTS");
    expect((await back.closed).code).toBe(1008);
  });

  it("after clientFramePauseAfter refusals in a row the socket is not read for clientFramePauseMs, while others are served", async () => {
    const limits = { clientFramesPerSecond: 0.1, clientFrameBurst: 1, clientFramePauseAfter: 5, clientFramePauseMs: 60_000 };
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits });
    const flooder = await harness.connect();
    const bystander = await harness.connect();
    expect((await flooder.send("getServerInfo", undefined, "first")).ok).toBe(true);
    // Five refusals in a row: answered, then the socket is paused.
    for (let i = 0; i < 5; i++) expect((await flooder.send("getServerInfo", undefined, `r${i}`)).error?.code).toBe("TOO_MANY_REQUESTS");
    flooder.sendRaw(JSON.stringify({ id: "waits", method: "getServerInfo" }));
    // The bystander's round trips show the bridge reading and answering meanwhile; the paused frame stays unread.
    expect((await bystander.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
    for (let i = 0; i < 5; i++) expect((await harness.http("/health")).status).toBe(200);
    expect(flooder.frames.some((f) => f.id === "waits")).toBe(false);
    expect(flooder.ws.readyState).toBe(flooder.ws.OPEN);
    // The paused socket would not read a close handshake for the rest of its pause (the client gives up after 30 s).
    flooder.ws.terminate();
  });

  it("a client refused fewer times than clientFramePauseAfter in a row is still read: its next frame is answered", async () => {
    const limits = { clientFramesPerSecond: 0.1, clientFrameBurst: 1, clientFramePauseAfter: 5, clientFramePauseMs: 60_000 };
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits });
    const client = await harness.connect();
    expect((await client.send("getServerInfo")).ok).toBe(true);
    for (let i = 0; i < 4; i++) expect((await client.send("getServerInfo")).error?.code).toBe("TOO_MANY_REQUESTS");
    expect((await client.send("getServerInfo")).error?.code).toBe("TOO_MANY_REQUESTS");
    // That fifth refusal in a row paused the socket, which would not read a close handshake for the rest of the pause.
    client.ws.terminate();
  });

  it("an answer still being computed when the 1008 close comes is kept for the resume, not lost", async () => {
    const limits = { clientFramesPerSecond: 0.1, clientFrameBurst: 1, clientFrameAbuseRejections: 5, clientFrameAbuseWindowMs: 60_000 };
    const host = new ScriptedHost();
    const harness = await startOnSharedEditor({ host, limits });
    const flooder = await harness.connect();
    const id = flooder.hello.clientId;
    host.hold();
    // The one admitted call waits in the editor while the rest of the flood closes the socket.
    flooder.sendRaw(JSON.stringify({ id: "slow", method: "document:list" }));
    for (let i = 0; i < 20; i++) flooder.sendRaw(JSON.stringify({ id: `f${i}`, method: "getServerInfo" }));
    expect((await flooder.closed).code).toBe(1008);
    expect(flooder.frames.some((f) => f.id === "slow")).toBe(false);
    host.release();
    const back = await harness.connect(`/ws?resume=${id}`);
    expect(back.hello).toMatchObject({ resumed: true });
    const slow = await back.next((f) => f.id === "slow");
    expect(slow.ok).toBe(true);
  });

  it("binary parts of a request refused for the rate are dropped quietly, never counted as malformed", async () => {
    const limits = { clientFramesPerSecond: 0.1, clientFrameBurst: 1, maxMalformedFrames: 3 };
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits });
    const client = await BinaryTestClient.open(`ws://127.0.0.1:${harness.bridge.port}/ws?binary=1`);
    try {
      expect((await client.request("first", "getServerInfo")).frame.ok).toBe(true);
      const REFUSED = 10;
      for (let i = 0; i < REFUSED; i++) {
        client.ws.send(JSON.stringify({ id: `imp${i}`, method: "layer:importImage", params: { image: { binary: 0 }, position: { x: 0, y: 0 } } }));
        client.sendPart(`imp${i}`, 0, new Uint8Array([1, 2, 3]));
      }
      for (let i = 0; i < REFUSED; i++) expect((await client.answer(`imp${i}`)).frame.error?.code).toBe("TOO_MANY_REQUESTS");
      // A request after the flood is answered on the same socket: no 1007, no `error` event about stray parts.
      const last = await client.request("last", "getServerInfo");
      expect(last.frame.error?.code).toBe("TOO_MANY_REQUESTS");
      expect(client.ws.readyState).toBe(client.ws.OPEN);
      expect(client.messages.filter((m) => "text" in m && m.text.type === "error")).toEqual([]);
    } finally {
      client.ws.close();
      await client.closed;
    }
  });

  it("the default rate admits a pipelined burst of a thousand calls from one client", async () => {
    const harness = await startOnSharedEditor({ host: new ScriptedHost() });
    const client = await harness.connect();
    for (let i = 0; i < 1_000; i++) client.sendRaw(JSON.stringify({ id: `b${i}`, method: "getServerInfo" }));
    await client.nth(isResponse, 1_000);
    // Past 64 in flight the in-flight limit answers; the frame rate never does.
    expect(client.frames.filter((f) => f.error?.details?.["limit"] === "clientFramesPerSecond")).toHaveLength(0);
  });
});

describe("log lines about client mistakes", () => {
  it("are sampled per kind, and the lines suppressed are counted in one line", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const limits = { clientMistakeLogLines: 3, clientMistakeLogIntervalMs: 300 };
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits, logger: capturingLogger(lines) });
    const client = await harness.connect();
    const unknown = (l: Record<string, unknown>): boolean => l["msg"] === "call failed" && l["code"] === "UNKNOWN_METHOD";
    const summaries = (): Array<Record<string, unknown>> => lines.filter((l) => l["msg"] === "client mistake log lines suppressed" && l["kind"] === "UNKNOWN_METHOD");
    let sent = 0;
    // Unknown methods, one after another, until the first interval has ended: the next mistake writes its count
    // (and is itself the first line of the next interval).
    await eventually(async () => {
      sent++;
      expect((await client.send("no:such-method")).error?.code).toBe("UNKNOWN_METHOD");
      return summaries().length > 0;
    }, "the count of suppressed lines");
    const summary = summaries()[0]!;
    expect(summary).toMatchObject({ level: 40, limit: "clientMistakeLogLines", max: 3 });
    // Every mistake is either written or counted, and no interval wrote more than its share.
    const written = lines.filter(unknown).length;
    const counted = summaries().reduce((n, l) => n + (l["suppressed"] as number), 0);
    expect(written + counted).toBe(sent);
    expect(written).toBeLessThanOrEqual(limits.clientMistakeLogLines * (summaries().length + 1));
    expect(summary["suppressed"]).toBeGreaterThan(0);
    expect((await client.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
  });

  it("frames refused for the rate are sampled too: a flood writes a few lines, not one per frame", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const limits = { clientFramesPerSecond: 0.1, clientFrameBurst: 1, clientMistakeLogLines: 5, clientMistakeLogIntervalMs: 60_000 };
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits, logger: capturingLogger(lines) });
    const client = await harness.connect();
    for (let i = 0; i < 200; i++) client.sendRaw(JSON.stringify({ id: `f${i}`, method: "getServerInfo" }));
    await client.nth(isResponse, 200);
    expect(client.frames.filter((f) => f.error?.code === "TOO_MANY_REQUESTS").length).toBeGreaterThanOrEqual(198);
    expect(lines.filter((l) => l["code"] === "TOO_MANY_REQUESTS")).toHaveLength(5);
  });
});
