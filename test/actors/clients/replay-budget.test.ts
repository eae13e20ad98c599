import { describe, expect, it } from "vitest";
import { LogicalClient } from "../../../src/actors/clients/client.js";
import type { ClientSocket } from "../../../src/actors/clients/port.js";
import { ReplayBudget } from "../../../src/actors/clients/replay-budget.js";
import { resolveLimits } from "../../../src/limits.js";
import { startBridge, type Harness } from "../../helpers/bridge.js";
import { eventually } from "../../helpers/gc.js";
import { ScriptedHost } from "../../helpers/scripted-host.js";
import { waitForClient, type TestClient } from "../../helpers/ws-client.js";

/** Connects a client subscribed to selection changes, then drops its socket and waits until the bridge sees it detached. */
async function detachedSubscriber(harness: Harness, observer: TestClient): Promise<string> {
  const client = await harness.connect();
  await client.call("event:subscribe", { type: "selection:changed" });
  const id = client.hello.clientId;
  await client.close();
  await waitForClient(observer, id, "detached");
  return id;
}

async function resume(harness: Harness, id: string): Promise<TestClient> {
  const back = await harness.connect(`/ws?resume=${id}`);
  await eventually(() => back.frames.length >= 1 + back.hello.replayed!, "the replay");
  return back;
}

describe("the total replay budget of detached clients", () => {
  it("drops the longest-detached client's replay first: its resume reports everything as lost, newer clients keep theirs", async () => {
    // Each client keeps its last 10 events; the total holds about 25 events, so three full buffers do not fit but two do.
    const probe = await startBridge({ host: new ScriptedHost() });
    const sizer = await probe.connect();
    await sizer.call("event:subscribe", { type: "selection:changed" });
    await sizer.call("selection:set", { rect: { x: 10, y: 0, width: 1, height: 1 } });
    const eventBytes = Buffer.byteLength(JSON.stringify(await sizer.next((f) => f.type === "selection:changed")));
    const limits = { replayBufferEvents: 10, replayTotalBytes: 25 * eventBytes };

    const harness = await startBridge({ host: new ScriptedHost(), limits });
    const driver = await harness.connect();
    const oldest = await detachedSubscriber(harness, driver);
    const middle = await detachedSubscriber(harness, driver);
    const newest = await detachedSubscriber(harness, driver);
    const CHANGES = 20;
    for (let x = 10; x < 10 + CHANGES; x++) await driver.call("selection:set", { rect: { x, y: 0, width: 1, height: 1 } });

    const first = await resume(harness, oldest);
    expect(first.hello).toMatchObject({ resumed: true, replayed: 0, lost: CHANGES });
    for (const id of [middle, newest]) {
      const back = await resume(harness, id);
      const replayed = back.events("selection:changed");
      expect(back.hello).toMatchObject({ resumed: true, replayed: 10, lost: CHANGES - 10 });
      expect((replayed.at(-1)!.data as { x: number }).x).toBe(10 + CHANGES - 1); // the newest are kept
      const seqs = replayed.map((f) => f.seq!);
      expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    }
    // The dropped client is served again after its resume, and keeps replay again when it detaches.
    await first.call("selection:set", { rect: { x: 1, y: 1, width: 1, height: 1 } });
    expect((await first.next((f) => f.type === "selection:changed")).seq).toBe(CHANGES + 1);
  });

  it("caps the per-client replay at the total when replayBufferBytes is larger", async () => {
    const TOTAL = 1_000;
    const harness = await startBridge({ host: new ScriptedHost(), limits: { replayBufferBytes: 1024 * 1024, replayTotalBytes: TOTAL } });
    const driver = await harness.connect();
    const id = await detachedSubscriber(harness, driver);
    const CHANGES = 50;
    for (let x = 1; x <= CHANGES; x++) await driver.call("selection:set", { rect: { x, y: 0, width: 1, height: 1 } });
    const back = await resume(harness, id);
    const replayed = back.events("selection:changed");
    expect(replayed.length).toBeGreaterThan(0);
    expect(replayed.reduce((n, f) => n + Buffer.byteLength(JSON.stringify(f)), 0)).toBeLessThanOrEqual(TOTAL);
    expect(back.hello.lost).toBe(CHANGES - replayed.length);
    expect((replayed.at(-1)!.data as { x: number }).x).toBe(CHANGES);
  });

  it("gives every byte back when clients resume or are disposed", () => {
    const limits = resolveLimits({ replayTotalBytes: 100 });
    const budget = new ReplayBudget(limits.replayTotalBytes);
    const socket = (): ClientSocket => ({ send: () => {}, binary: false, sendBinary: () => {}, bufferedAmount: 0, close: () => {} });
    const make = (id: string): LogicalClient => {
      const own = socket();
      const client = new LogicalClient(id, "root", own, limits, () => {}, undefined, undefined, budget);
      client.detach(own); // detached in the order made: a is the oldest
      return client;
    };
    const [a, b, c] = [make("a"), make("b"), make("c")];
    // 34 bytes each: three clients' first responses already pass the total.
    for (let i = 0; i < 5; i++) for (const client of [a, b, c]) client.deliverResponse(`{"id":"${i}","ok":true,"result":null}`);
    expect(budget.used).toBeLessThanOrEqual(100);
    expect(budget.dropped).toBeGreaterThan(0);
    const batchA = a.attach(socket());
    expect(batchA).toEqual({ frames: [], lost: 5 }); // the oldest was dropped whole
    c.dispose();
    const batchB = b.attach(socket());
    expect(batchB.frames.length + batchB.lost).toBe(5);
    expect(budget.used).toBe(0);
    a.dispose();
    b.dispose();
  });
});
