import { describe, expect, it } from "vitest";
import { startBridge, waitForQueued } from "../../helpers/bridge.js";
import { ScriptedHost } from "../../helpers/scripted-host.js";
import { TRANSPORTS, type ConformanceTransport, type Outcome } from "../../conformance/_transports.js";
import type { BridgeOptions } from "../../../src/bridge/options.js";
import type { Harness } from "../../helpers/bridge.js";

/** A bridge on a scripted editor that is busy: one held call is running when this resolves. */
async function busyEditor(
  make: (h: Harness) => Promise<ConformanceTransport>,
  options: BridgeOptions = {},
): Promise<{ host: ScriptedHost; harness: Harness; t: ConformanceTransport; running: Promise<Outcome> }> {
  const host = new ScriptedHost();
  const harness = await startBridge({ ...options, host });
  const t = await make(harness);
  host.hold();
  const running = t.call("document:current");
  await host.whenStarted(1);
  return { host, harness, t, running };
}

describe.each(TRANSPORTS)("the editor mailbox over $name", ({ make }) => {
  it("a full mailbox answers HOST_BUSY (retryable) and the queued calls still complete", async () => {
    const { host, harness, t, running } = await busyEditor(make, { limits: { mailboxDepth: 2 } });
    // Queue calls until one is refused: over WS one client reaches its share of the mailbox first, over HTTP
    // (a lane per connection) the mailbox fills.
    const queued: Array<Promise<Outcome>> = [];
    let overflow: Outcome | undefined;
    while (overflow === undefined && queued.length < 4) {
      const call = t.call("document:current");
      const stop = new AbortController();
      overflow = await Promise.race([call, waitForQueued(harness, queued.length + 1, stop.signal).then(() => undefined)]);
      stop.abort();
      if (overflow === undefined) queued.push(call);
    }
    expect(queued.length).toBeGreaterThan(0);
    expect(overflow?.error).toMatchObject({ code: "HOST_BUSY", retryable: true });
    host.release();
    for (const outcome of [await running, ...(await Promise.all(queued))]) expect(outcome.ok).toBe(true);
  });

  it("a call past its deadline answers TIMEOUT; a mutation reports an unknown outcome", async () => {
    const host = new ScriptedHost();
    const t = await make(await startBridge({ host, limits: { callTimeoutMs: 150 } }));
    host.hold();
    const read = await t.call("document:current");
    expect(read.error).toMatchObject({ code: "TIMEOUT", retryable: true });
    const write = await t.call("selection:set", { rect: null });
    expect(write.error).toMatchObject({ code: "TIMEOUT", retryable: false, details: { outcome: "unknown" } });
    host.release();
    expect((await t.call("document:current")).ok).toBe(true);
  });

  it("a call that waited past its deadline in the queue is not started", async () => {
    const host = new ScriptedHost();
    host.ignoreAbort = true; // the running call hogs the editor past its own deadline
    const t = await make(await startBridge({ host, limits: { callTimeoutMs: 150, abortGraceMs: 60_000 } }));
    host.hold();
    const first = t.call("document:current");
    await host.whenStarted(1);
    const second = await t.call("document:current");
    expect(second.error).toMatchObject({ code: "TIMEOUT", details: { outcome: "not-started" } });
    expect((await first).error?.code).toBe("TIMEOUT");
    expect(host.calls).toHaveLength(1);
    host.release();
  });

  it("a call that leaves the queue with too little of its deadline left is not started", async () => {
    const host = new ScriptedHost();
    const t = await make(await startBridge({ host, limits: { callTimeoutMs: 2_000, callMinTimeLeftMs: 1_000 } }));
    host.hold();
    const first = t.call("document:current");
    await host.whenStarted(1);
    // Queued right behind it: when the first call's deadline frees the editor, this one has moments left.
    const second = await t.call("document:current");
    expect(second.error).toMatchObject({ code: "TIMEOUT", retryable: true, details: { outcome: "not-started", limit: "callMinTimeLeftMs", minLeftMs: 1_000 } });
    expect((await first).error?.code).toBe("TIMEOUT");
    expect(host.calls).toHaveLength(1);
    host.release();
    expect((await t.call("document:current")).ok).toBe(true);
  });

  it("losing the editor fails running and queued calls with HOST_UNAVAILABLE, then the bridge reconnects", async () => {
    const { host, harness, t, running } = await busyEditor(make, { limits: { reconnectInitialMs: 10 } });
    const queued = t.call("selection:getArea");
    await waitForQueued(harness, 1);
    host.lose("editor crashed", 1);
    for (const outcome of await Promise.all([running, queued])) {
      expect(outcome.error).toMatchObject({ code: "HOST_UNAVAILABLE", retryable: true });
    }
    host.release();
    await host.whenConnected(2);
    expect((await t.call("document:current")).ok).toBe(true);
  });
});

describe.each(TRANSPORTS)("shutdown over $name", ({ make }) => {
  it("queued calls fail with SHUTTING_DOWN while the running call may finish", async () => {
    const { host, harness, t, running } = await busyEditor(make);
    const queued = t.call("selection:getArea");
    await waitForQueued(harness, 1);
    const closed = harness.bridge.close();
    const refused = await queued;
    expect(refused.error).toMatchObject({ code: "SHUTTING_DOWN", retryable: true });
    if (refused.status !== undefined) expect(refused.status).toBe(503);
    host.release();
    expect((await running).ok).toBe(true);
    await closed;
  });
});

/**
 * The least a fairness case holds its heavy call (ms), whatever the quick calls measured. The measurement is taken
 * before the hold: a load spike after it (a GC pause, the process descheduled on a doubly loaded machine) stretched
 * one quick call past three times the five measured, and the light client outweighed the heavy one
 * (`ABABBABAAB`). Held at least this long, a quick call would have to take a fifth of it for the verdict to change.
 */
const HELD_AT_LEAST_MS = 1_000;

/** Waits while a heavy call is held: three times what the quick calls cost (`quickMs`), and at least HELD_AT_LEAST_MS. */
const holdAgainst = (quickMs: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(3 * quickMs, HELD_AT_LEAST_MS)));

describe("mailbox fairness", () => {
  it("calls run FIFO per client, and the client that used the editor least goes next", async () => {
    const host = new ScriptedHost();
    const harness = await startBridge({ host });
    const [a, b, c] = [await harness.connect(), await harness.connect(), await harness.connect()];
    // What five quick calls cost on this machine now, measured by a third client (whose editor time does not
    // matter): A's first call is held three times that long (and at least HELD_AT_LEAST_MS), so the verdict does not
    // depend on the machine's speed.
    const started = performance.now();
    for (let i = 0; i < 5; i++) await c.send("document:current");
    const fiveQuickMs = performance.now() - started;
    const before = host.calls.length;
    host.hold();
    const pending = [a.send("document:current")];
    await host.whenStarted(before + 1);
    for (let i = 0; i < 4; i++) pending.push(a.send("document:current"));
    for (let i = 0; i < 5; i++) pending.push(b.send("document:current"));
    await waitForQueued(harness, 9);
    await holdAgainst(fiveQuickMs);
    host.release();
    await Promise.all(pending);
    const lanes = host.calls
      .slice(before)
      .map((call) => (call.lane === `client:${a.hello.clientId.slice(0, 8)}` ? "A" : "B"))
      .join("");
    // A's first call held the editor while the others were sent and queued; B's calls are answered at once, so
    // all five of them together use less editor time than that one call. Taking turns would have given AABABABABB.
    expect(lanes).toBe("ABBBBBAAAA");
  });

  it("a client whose call held the editor long waits behind clients that used it little", async () => {
    const host = new ScriptedHost();
    const harness = await startBridge({ host });
    const [heavy, x, y, meter] = [await harness.connect(), await harness.connect(), await harness.connect(), await harness.connect()];
    // What the light clients' six quick calls cost on this machine now, measured by a fourth client (whose editor
    // time does not matter): the heavy call is held three times that long (and at least HELD_AT_LEAST_MS), so a loaded
    // machine slowing the quick calls cannot make them outweigh it.
    const started = performance.now();
    for (let i = 0; i < 6; i++) await meter.send("document:current");
    const sixQuickMs = performance.now() - started;
    const before = host.calls.length;
    host.hold();
    // The heavy client's call holds the editor while its own next calls and the others' are queued behind it.
    const pending = [heavy.send("document:current")];
    await host.whenStarted(before + 1);
    for (let i = 0; i < 3; i++) pending.push(heavy.send("document:current"));
    for (let i = 0; i < 3; i++) pending.push(x.send("document:current"), y.send("document:current"));
    await waitForQueued(harness, 9);
    await holdAgainst(sixQuickMs);
    host.release();
    for (const frame of await Promise.all(pending)) expect(frame.ok).toBe(true);
    const heavyLane = `client:${heavy.hello.clientId.slice(0, 8)}`;
    const who = host.calls.slice(before).map((c) => (c.lane === heavyLane ? "H" : "L"));
    expect(who.join("")).toBe("HLLLLLLHHH");
  });

  it("a client past its in-flight limit gets TOO_MANY_REQUESTS while others proceed", async () => {
    const host = new ScriptedHost();
    const harness = await startBridge({ host, limits: { maxInFlightPerClient: 2 } });
    const [greedy, other] = [await harness.connect(), await harness.connect()];
    host.hold();
    const held = [greedy.send("document:current"), greedy.send("document:current")];
    const refused = await greedy.send("document:current");
    expect(refused.error).toMatchObject({ code: "TOO_MANY_REQUESTS", retryable: true });
    const fine = other.send("getServerInfo");
    expect((await fine).ok).toBe(true);
    host.release();
    for (const frame of await Promise.all(held)) expect(frame.ok).toBe(true);
  });

  it("calls that change nothing overlap on an editor that takes several; a mutation runs alone, in order", async () => {
    const host = Object.assign(new ScriptedHost(), { readConcurrency: 3 });
    const harness = await startBridge({ host });
    const [a, b] = [await harness.connect(), await harness.connect()];
    host.hold();
    const reads = [a.send("document:current"), b.send("document:current"), a.send("selection:getArea")];
    await host.whenStarted(3); // three reads run together
    const write = a.send("selection:set", { rect: null });
    const after = a.send("document:current");
    await waitForQueued(harness, 2);
    expect(host.calls).toHaveLength(3); // the mutation waits for the reads, the read behind it waits too
    host.release();
    await Promise.all([...reads, write, after]);
    // The mutation (which reads the document first) ran before the read queued behind it.
    expect(host.calls.map((c) => c.op).slice(-2)).toEqual(["setSelection", "getDocument"]);
  });
});
