import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { FramePacer, frameRateRefusal } from "../../src/client/_internal/frame-pacer.js";
import { isBridgeError, type BridgeError } from "../../src/client/index.js";
import { startBridge } from "../helpers/bridge.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import { connect, onCleanup, record } from "./_support.js";

interface Answer {
  readonly id: string;
  readonly ok: boolean;
  readonly error?: { code: string; details?: Record<string, unknown> };
}

/** Every answer the bridge sent to sockets of this class, in order: what the client saw before the SDK handled it. */
const answers: Answer[] = [];

/** ws's WebSocket, recording the answers it receives. */
class RecordingWebSocket extends WebSocket {
  constructor(...args: ConstructorParameters<typeof WebSocket>) {
    super(...args);
    this.on("message", (data, isBinary) => {
      if (isBinary) return;
      const frame = JSON.parse(String(data)) as Record<string, unknown>;
      if (typeof frame["id"] === "string" && typeof frame["ok"] === "boolean") answers.push(frame as unknown as Answer);
    });
  }
}

const refusals = (): Answer[] => answers.filter((a) => a.ok === false && a.error?.code === "TOO_MANY_REQUESTS");

describe("requests refused for the client's frame rate", () => {
  it("are sent again after the bridge's retryAfterMs, paced to its rate, and all succeed", async () => {
    answers.length = 0;
    // 20 frames per second after a burst of 2: ten requests at once take about 400 ms.
    const limits = { clientFramesPerSecond: 20, clientFrameBurst: 2 };
    const harness = await startBridge({ host: new ScriptedHost(), limits });
    const client = connect(harness.bridge.url, { WebSocket: RecordingWebSocket as typeof WebSocket });
    await client.ready();
    const CALLS = 10;
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: CALLS }, () => client.getServerInfo()));
    const elapsedMs = performance.now() - started;

    expect(results.every((r) => r.name === "image-editor-bridge")).toBe(true);
    // The burst went through; the rest were refused once, then waited for the bucket rather than being refused again.
    const refused = refusals();
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeLessThanOrEqual(CALLS - limits.clientFrameBurst);
    expect(new Set(refused.map((a) => a.id)).size).toBe(refused.length);
    // Paced to the bridge's rate: the eight after the burst cannot have been served faster than 20 a second.
    expect(elapsedMs).toBeGreaterThanOrEqual(((CALLS - limits.clientFrameBurst - 1) * 1000) / limits.clientFramesPerSecond);
    expect(client.state).toBe("open");
  });

  it("with rateLimitRetries 0 the caller gets the refusal with a typed retryAfterMs", async () => {
    answers.length = 0;
    const limits = { clientFramesPerSecond: 0.1, clientFrameBurst: 1 };
    const harness = await startBridge({ host: new ScriptedHost(), limits });
    const client = connect(harness.bridge.url, { rateLimitRetries: 0 });
    await client.ready();
    const outcomes = await Promise.allSettled([client.getServerInfo(), client.getServerInfo()]);
    expect(outcomes[0]!.status).toBe("fulfilled");
    expect(outcomes[1]!.status).toBe("rejected");
    const error = (outcomes[1] as PromiseRejectedResult).reason as BridgeError;
    expect(isBridgeError(error)).toBe(true);
    expect(error.code).toBe("TOO_MANY_REQUESTS");
    expect(error.details).toMatchObject({ limit: "clientFramesPerSecond", max: 0.1, burst: 1 });
    expect(error.retryAfterMs).toBeGreaterThan(0);
    expect(error.retryAfterMs).toBeLessThanOrEqual(10_000);
    expect(error.retryAfterMs).toBe(error.details!["retryAfterMs"]);
  });

  it("a request refused more often than rateLimitRetries fails with the last refusal", async () => {
    // A bridge that refuses every request: the retries must stop, each after the wait it named.
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => server.once("listening", resolve));
    onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const seen = new Map<string, number[]>();
    server.on("connection", (ws) => {
      ws.send(JSON.stringify({ type: "connected", data: { clientId: "c".repeat(32), resumed: false, protocolVersion: 1, features: [] } }));
      ws.on("message", (data) => {
        const { id } = JSON.parse(String(data)) as { id: string };
        seen.set(id, [...(seen.get(id) ?? []), performance.now()]);
        const error = { code: "TOO_MANY_REQUESTS", message: "slow down", retryable: true, details: { limit: "clientFramesPerSecond", max: 1000, burst: 1, retryAfterMs: 30 } };
        ws.send(JSON.stringify({ id, ok: false, error }));
      });
    });
    const { port } = server.address() as AddressInfo;
    const client = connect(`ws://127.0.0.1:${port}/ws`, { rateLimitRetries: 2 });
    await client.ready();
    const error = (await client.getServerInfo().catch((e: unknown) => e)) as BridgeError;
    expect(error.code).toBe("TOO_MANY_REQUESTS");
    expect(error.retryAfterMs).toBe(30);
    const times = [...seen.values()];
    expect(times).toHaveLength(1);
    expect(times[0]).toHaveLength(3); // the first send and two retries
    for (let i = 1; i < times[0]!.length; i++) expect(times[0]![i]! - times[0]![i - 1]!).toBeGreaterThanOrEqual(25);
  });
});

describe("the client's copy of the bridge's bucket", () => {
  it("lets everything through until a refusal, then holds for retryAfterMs and releases at the rate, never more than the burst", () => {
    const pacer = new FramePacer();
    expect([pacer.take(0), pacer.take(0), pacer.take(0)]).toEqual([0, 0, 0]);
    const refusal = frameRateRefusal({ code: "TOO_MANY_REQUESTS", details: { limit: "clientFramesPerSecond", max: 10, burst: 3, retryAfterMs: 100 } })!;
    expect(refusal).toEqual({ retryAfterMs: 100, rate: 10, burst: 3 });
    pacer.refused(refusal, 1_000);
    expect(pacer.take(1_050)).toBe(50);
    expect(pacer.take(1_100)).toBe(0);
    expect(pacer.take(1_100)).toBe(100); // one frame per 100 ms at 10/s
    // A long pause refills the bucket up to its burst, not beyond.
    expect([pacer.take(5_000), pacer.take(5_000), pacer.take(5_000)]).toEqual([0, 0, 0]);
    expect(pacer.take(5_000)).toBe(100);
  });

  it("reads only frame-rate refusals", () => {
    expect(frameRateRefusal({ code: "TOO_MANY_REQUESTS", details: { limit: 64 } })).toBeUndefined(); // in-flight limit
    expect(frameRateRefusal({ code: "TOO_MANY_REQUESTS", details: { limit: "maxConnectionsPerAddress", retryAfterMs: 1000 } })).toBeUndefined();
    expect(frameRateRefusal({ code: "HOST_BUSY", details: { limit: "clientFramesPerSecond", retryAfterMs: 5 } })).toBeUndefined();
    expect(frameRateRefusal({ code: "TOO_MANY_REQUESTS", details: { limit: "clientFramesPerSecond", retryAfterMs: 5 } })).toEqual({ retryAfterMs: 5, rate: undefined, burst: undefined });
  });
});

describe("a socket closed for flooding (1008)", () => {
  it("resumes the same logical client, each 1008 in a row waiting one backoff step longer", async () => {
    // One frame a second, closed at the third refusal within a minute: the window outlives the test.
    const limits = { clientFramesPerSecond: 1, clientFrameBurst: 1, clientFrameAbuseRejections: 3, clientFrameAbuseWindowMs: 60_000 };
    const harness = await startBridge({ host: new ScriptedHost(), limits });
    const client = connect(harness.bridge.url, { rateLimitRetries: 0, reconnect: { initialDelayMs: 40, maxDelayMs: 5_000, jitter: 0 } });
    const hello = await client.ready();
    const closes = record(client, "$close");
    const reconnects = record(client, "$reconnecting");
    const opens = record(client, "$open");

    // The burst's one frame is served; then three refused at once, and the third refusal closes the socket.
    await client.getServerInfo();
    const flood = await Promise.allSettled(Array.from({ length: 3 }, () => client.getServerInfo()));
    for (const outcome of flood) expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: "TOO_MANY_REQUESTS" });
    expect(await closes.nth(1)).toMatchObject({ code: 1008, willReconnect: true });
    expect((await reconnects.nth(1)).delayMs).toBe(80); // attempt 1, one step later for the 1008
    const resumed = await opens.nth(1);
    expect(resumed).toMatchObject({ resumed: true, clientId: hello.clientId });

    // Still flooding within the bridge's window: the next refusal closes it again, and the wait doubles.
    void client.getServerInfo().catch(() => undefined);
    expect(await closes.nth(2)).toMatchObject({ code: 1008, willReconnect: true });
    expect((await reconnects.nth(2)).delayMs).toBe(160);
    expect(await opens.nth(2)).toMatchObject({ resumed: true, clientId: hello.clientId });
  });
});
