import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createBridge } from "../../src/bridge/bridge.js";
import { Subject, type Observable } from "rxjs";
import type { Harness } from "../helpers/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import { closeReceivers, Receiver, signedWith, type Received } from "../helpers/webhook-receiver.js";

const rect = { x: 1, y: 2, width: 3, height: 4 };
const secret = "whsec-test-secret";
const verifies = (delivery: Received): boolean => signedWith(secret, delivery);

afterEach(closeReceivers);

interface HookView {
  id: string;
  enabled: boolean;
  disabledReason?: string;
  delivered: number;
  dropped: number;
  queued: number;
}

async function hooks(harness: Harness): Promise<HookView[]> {
  return ((await (await harness.http("/status")).json()) as { webhooks: { hooks: HookView[] } }).webhooks.hooks;
}

describe("webhooks", () => {
  it("a loopback receiver (allowed by the flag) gets signed deliveries that verify, in order", async () => {
    const receiver = await Receiver.start();
    const harness = await startOnSharedEditor({ webhooks: { allowPrivate: true, hooks: [{ url: receiver.url, types: ["selection:changed"], secret }] } });
    const other = await harness.connect();
    const sent = [rect, { ...rect, x: 9 }, null];
    for (const each of sent) await other.call("selection:set", { rect: each });
    const deliveries = await receiver.count(3);
    expect(deliveries.map((d) => JSON.parse(d.body).data)).toEqual(sent);
    expect(deliveries.every(verifies)).toBe(true);
    expect(deliveries.map((d) => d.headers["x-bridge-event"])).toEqual(["selection:changed", "selection:changed", "selection:changed"]);
    const ids = deliveries.map((d) => d.headers["x-bridge-delivery"]);
    expect(new Set(ids).size).toBe(3);
    expect(deliveries.map((d) => JSON.parse(d.body).id)).toEqual(ids);
    // A body altered in transit no longer verifies.
    expect(verifies({ ...deliveries[0]!, body: deliveries[0]!.body.replace('"x":1', '"x":2') })).toBe(false);
  });

  it("a receiver answering 500 twice then 200 gets the same delivery again, with the attempts in the delivery log", async () => {
    const receiver = await Receiver.start((n, res) => res.writeHead(n <= 2 ? 500 : 200).end());
    const harness = await startOnSharedEditor({
      limits: { webhookRetryInitialMs: 20 },
      webhooks: { allowPrivate: true, hooks: [{ url: receiver.url, types: ["selection:changed"], secret }] },
    });
    const other = await harness.connect();
    await other.call("selection:set", { rect });
    const attempts = await receiver.count(3);
    expect(new Set(attempts.map((d) => d.headers["x-bridge-delivery"])).size).toBe(1);
    expect(attempts.every(verifies)).toBe(true);
    const [hook] = await hooks(harness);
    let log = (await (await harness.http(`/webhooks/${hook!.id}/deliveries`)).json()) as { deliveries: Array<{ attempt: number; status: number; ok: boolean }> };
    while (log.deliveries.length < 3) log = (await (await harness.http(`/webhooks/${hook!.id}/deliveries`)).json()) as typeof log;
    expect(log.deliveries.map(({ attempt, status, ok }) => ({ attempt, status, ok }))).toEqual([
      { attempt: 1, status: 500, ok: false },
      { attempt: 2, status: 500, ok: false },
      { attempt: 3, status: 200, ok: true },
    ]);
    expect((await harness.http("/webhooks/nope/deliveries")).status).toBe(404);
  });

  it("a receiver that never answers is disabled after the limit and shows in /status", async () => {
    const receiver = await Receiver.start(() => {}); // never answers
    const harness = await startOnSharedEditor({
      limits: { webhookTimeoutMs: 100, webhookRetryInitialMs: 10, webhookDisableAfterFailures: 3 },
      webhooks: { allowPrivate: true, hooks: [{ url: receiver.url, types: ["selection:changed"], secret }] },
    });
    const other = await harness.connect();
    await other.call("selection:set", { rect });
    let [hook] = await hooks(harness);
    while (hook!.enabled) [hook] = await hooks(harness);
    expect(hook!.disabledReason).toMatch(/^3 failed attempts in a row \(last: no answer within 100 ms\)$/);
    const ready = await harness.http("/ready");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "degraded", reasons: [{ component: "webhooks", status: "degraded", message: "1 webhook disabled after failed deliveries" }] });
    expect(receiver.received).toHaveLength(3);
    // Disabled, it keeps what it could not deliver (bounded), and sends nothing.
    await other.call("selection:set", { rect: null });
    while (hook!.queued < 2) [hook] = await hooks(harness);
    expect(hook).toMatchObject({ enabled: false, queued: 2 });
    expect(receiver.received).toHaveLength(3);
  });

  // The attempt's deadline is far past the test's own timeout: a close that waited for it fails the test, however
  // slowly a loaded machine starts the bridge.
  it("closing the bridge aborts an attempt in flight instead of waiting for its deadline", async () => {
    const gone: Array<Promise<void>> = [];
    const receiver = await Receiver.start(); // answers nothing until the request ends, which it never does
    receiver.server.removeAllListeners("request");
    receiver.server.on("request", (req) => gone.push(new Promise((resolve) => req.socket.once("close", () => resolve()))));
    const harness = await startOnSharedEditor({ limits: { webhookTimeoutMs: 30 * 60_000 }, webhooks: { allowPrivate: true, hooks: [{ url: receiver.url, types: ["selection:changed"], secret }] } });
    const other = await harness.connect();
    await other.call("selection:set", { rect });
    while (gone.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await harness.bridge.close();
    await gone[0];
  });

  it("a webhook with a documentId gets only events about that document, and events naming none", async () => {
    const host = new EmittingHost();
    const receiver = await Receiver.start();
    await startOnSharedEditor({ host, webhooks: { allowPrivate: true, hooks: [{ url: receiver.url, types: ["layer:previewChange", "selection:changed"], secret, documentId: 7 }] } });
    const preview = (documentId: number) => ({ documentId, layer: { id: 2, name: "L", index: 0 }, image: { format: "png", width: 1, height: 1, bytes: ONE_PIXEL_PNG } });
    host.previews.next(preview(8));
    host.previews.next(preview(7));
    host.selections.next(rect);
    const deliveries = await receiver.count(2);
    expect(deliveries.map((d) => [d.headers["x-bridge-event"], JSON.parse(d.body).data.documentId])).toEqual([
      ["layer:previewChange", 7],
      ["selection:changed", undefined],
    ]);
  });

  it("a full queue drops its oldest waiting delivery and counts it", async () => {
    const hanging: ServerResponse[] = [];
    const receiver = await Receiver.start((_n, res) => hanging.push(res));
    const harness = await startOnSharedEditor({ limits: { webhookQueueEvents: 2 }, webhooks: { allowPrivate: true, hooks: [{ url: receiver.url, types: ["selection:changed"], secret }] } });
    const other = await harness.connect();
    for (let x = 1; x <= 4; x++) await other.call("selection:set", { rect: { ...rect, x } });
    await receiver.count(1);
    // Events reach the webhook as the editor emits them, possibly after the calls answered: read until all four came.
    let [hook] = await hooks(harness);
    while (hook!.dropped < 2) [hook] = await hooks(harness);
    expect(hook).toMatchObject({ queued: 2, dropped: 2 });
    hanging.shift()!.writeHead(200).end();
    const [first, second] = await receiver.count(2);
    // The one in flight was kept; of the three that waited behind it the oldest two were dropped, the newest goes next.
    expect([JSON.parse(first!.body).data.x, JSON.parse(second!.body).data.x]).toEqual([1, 4]);
  });

  it("more webhooks than maxWebhooks, a bad URL or an unknown type fail the start with BAD_REQUEST", async () => {
    const receiver = await Receiver.start();
    const hook = { url: receiver.url, types: ["selection:changed"] };
    const cases = [
      { hooks: [hook, hook], details: { maxWebhooks: 1 } },
      { hooks: [{ ...hook, url: "ftp://example.com/x" }], details: { url: "ftp://example.com/x" } },
      { hooks: [{ ...hook, types: ["nope:never"] }], details: { type: "nope:never" } },
      { hooks: [{ ...hook, types: ["#ready"] }], details: { type: "#ready" } },
    ];
    for (const { hooks: given, details } of cases) {
      // A scripted editor: the refusal is about the configuration, and four editor processes cost a loaded machine
      // most of the test's time.
      const bridge = createBridge({
        listen: { host: "127.0.0.1", port: 0 },
        host: new ScriptedHost(),
        limits: { maxWebhooks: 1 },
        webhooks: { allowPrivate: true, hooks: given },
      });
      await expect(bridge.start()).rejects.toMatchObject({ code: "BAD_REQUEST", details });
    }
  });

  it("a private or loopback URL is refused without --allow-private-webhooks", async () => {
    for (const url of ["http://127.0.0.1:9/hook", "http://[::1]:9/hook", "http://10.0.0.8/hook", "http://localhost:9/hook"]) {
      // A scripted editor: the refusal is about the URL, and four embedded editor processes took a loaded machine past the timeout.
      const bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 }, host: new ScriptedHost(), webhooks: { hooks: [{ url, types: ["selection:changed"] }] } });
      // A failed start has already stopped what it started.
      await expect(bridge.start(), url).rejects.toMatchObject({ code: "FORBIDDEN", details: { capability: "webhook:private-url" } });
    }
  });
});

/** 1×1 transparent PNG. */
const ONE_PIXEL_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

/** A scripted editor whose previews and selection events the test emits directly. */
class EmittingHost extends ScriptedHost {
  readonly previews = new Subject<unknown>();
  readonly selections = new Subject<unknown>();

  override events(type: string): Observable<unknown> | undefined {
    if (type === "layer:previewChange") return this.previews.asObservable();
    if (type === "selection:changed") return this.selections.asObservable();
    return undefined;
  }
}
