import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { startBridge, type Harness } from "../helpers/bridge.js";
import { FaultHost, type Fault } from "../helpers/fault-host.js";
import { eventually } from "../helpers/gc.js";
import type { Frame, TestClient } from "../helpers/ws-client.js";

/** Short deadlines so faults resolve quickly; the reliability rules do not depend on their size. */
const FAST_LIMITS = { callTimeoutMs: 200, abortGraceMs: 50, reconnectInitialMs: 5, reconnectMaxMs: 20 };
/** Fault sequences tried by the property; bounded to keep the file near 10 s. */
const FAULT_RUNS = 25;

interface HealthBody {
  clients: unknown[];
  editor: { state: string; queued: number; running: number };
}

async function health(harness: Harness): Promise<HealthBody> {
  return (await (await harness.http("/status")).json()) as HealthBody;
}

/** The editor is ready again and its mailbox is empty: nothing queued, nothing running. */
async function drained(harness: Harness): Promise<void> {
  await eventually(async () => {
    const { editor: host } = await health(harness);
    return host.queued === 0 && host.running === 0 && (host.state === "ready" || host.state === "busy");
  }, "a drained, ready mailbox");
}

/** Every response frame for `id` this client received so far. */
const answersTo = (client: TestClient, id: string): Frame[] => client.frames.filter((f) => f.id === id);

const RETRYABLE = new Set(["TIMEOUT", "HOST_UNAVAILABLE", "HOST_BUSY"]);

describe("editor faults", () => {
  it("an editor that answers after the deadline: TIMEOUT once, the late answer is dropped, the next call runs", async () => {
    const host = new FaultHost();
    const harness = await startBridge({ host, limits: FAST_LIMITS });
    const client = await harness.connect();
    host.inject({ kind: "late" });
    const answer = await client.send("document:current", undefined, "late-1");
    expect(answer.error).toMatchObject({ code: "TIMEOUT", retryable: true, requestId: "late-1" });
    expect((await client.call<{ name: string }>("document:current")).name).toBe("Scripted");
    await drained(harness);
    expect(answersTo(client, "late-1")).toHaveLength(1);
  });

  it("an editor that never answers and ignores aborts: TIMEOUT, its slot is freed after the grace, queued calls still end", async () => {
    const host = new FaultHost();
    const harness = await startBridge({ host, limits: FAST_LIMITS });
    const a = await harness.connect();
    const b = await harness.connect();
    host.inject({ kind: "hang" });
    const stuck = a.send("document:current", undefined, "stuck");
    await eventually(async () => (await health(harness)).editor.running === 1, "the stuck call to start");
    const queued = [1, 2, 3].map((n) => b.send("document:list", undefined, `q${n}`));
    const viaHttp = harness.http("/document/current");
    const all = await Promise.all([stuck, ...queued]);
    for (const frame of all) {
      if (!frame.ok) expect(RETRYABLE.has(frame.error!.code), frame.error!.code).toBe(true);
    }
    expect(all[0]!.error?.code).toBe("TIMEOUT");
    expect([200, 503, 504]).toContain((await viaHttp).status);
    await drained(harness);
    expect((await b.call<unknown[]>("document:list")).length).toBe(1);
  });

  it("the editor disappearing mid-call fails running and queued calls once with HOST_UNAVAILABLE and the session reconnects", async () => {
    const host = new FaultHost();
    const harness = await startBridge({ host, limits: FAST_LIMITS });
    const a = await harness.connect();
    const b = await harness.connect();
    host.inject({ kind: "vanish" });
    host.hold(); // keep the queued calls queued until the editor is gone
    const running = a.send("document:current", undefined, "gone");
    const queued = [1, 2].map((n) => b.send("document:list", undefined, `later${n}`));
    const frames = await Promise.all([running, ...queued]);
    host.release();
    for (const frame of frames) expect(frame.error).toMatchObject({ code: "HOST_UNAVAILABLE", retryable: true });
    await host.whenConnected(2);
    await drained(harness);
    expect((await a.call<{ name: string }>("document:current")).name).toBe("Scripted");
    expect(answersTo(a, "gone")).toHaveLength(1);
  });

  it("calls made while the editor cannot be reached answer HOST_UNAVAILABLE at once, then work once it is back", async () => {
    const host = new FaultHost();
    const harness = await startBridge({ host, limits: { ...FAST_LIMITS, reconnectInitialMs: 30, reconnectMaxMs: 60 } });
    const client = await harness.connect();
    host.lose("editor crashed", 4);
    const during = await client.send("document:list");
    expect(during.error).toMatchObject({ code: "HOST_UNAVAILABLE", retryable: true });
    await host.whenConnected(2);
    await drained(harness);
    expect((await client.call<unknown[]>("document:list")).length).toBe(1);
  });

  it("an editor that answers twice settles the call once", async () => {
    const host = new FaultHost();
    const harness = await startBridge({ host, limits: FAST_LIMITS });
    const client = await harness.connect();
    host.inject({ kind: "twice" }, { kind: "twice" });
    const first = await client.send("document:current", undefined, "twice-ws");
    expect(first).toMatchObject({ ok: true, result: { name: "Scripted" } });
    const viaHttp = await harness.http("/document/current");
    expect(((await viaHttp.json()) as { name: string }).name).toBe("Scripted");
    await client.call("getServerInfo");
    expect(answersTo(client, "twice-ws")).toHaveLength(1);
  });

  it("garbage answers and non-Error throws end the call once, unserializable ones as INTERNAL without leaking what was thrown", async () => {
    const host = new FaultHost();
    // As in production: results are not checked against their schemas, so garbage reaches the serializer.
    const harness = await startBridge({ host, limits: FAST_LIMITS, checkResults: false });
    const client = await harness.connect();
    const circular: Record<string, unknown> = { name: "loop" };
    circular["self"] = circular;
    const faults: Fault[] = [
      { kind: "garbage", value: { nope: true } },
      { kind: "garbage", value: undefined },
      { kind: "garbage", value: 10n },
      { kind: "garbage", value: circular },
      { kind: "throw", value: "secret-string-thrown" },
      { kind: "throw", value: null },
      { kind: "throw", value: undefined },
      { kind: "reject", value: 42 },
      { kind: "reject", value: Symbol("secret-symbol") },
      { kind: "reject", value: { code: "UNAUTHORIZED", message: "secret-forged-code", retryable: true } },
      { kind: "reject", value: Object.assign(new Error("secret-error-message"), { code: "HOST_BUSY" }) },
    ];
    for (const [i, fault] of faults.entries()) {
      host.inject(fault);
      const frame = await client.send("document:current", undefined, `g${i}`);
      const text = JSON.stringify(frame);
      expect(text).not.toMatch(/secret|\n\s+at /);
      if (fault.kind === "garbage" && (typeof fault.value === "bigint" || fault.value === circular)) {
        expect(frame.error).toMatchObject({ code: "INTERNAL", message: "Internal error" });
      } else if (fault.kind !== "garbage") {
        // A thrown value that is not a BridgeError cannot choose its own code.
        expect(frame.error).toMatchObject({ code: "INTERNAL", message: "Internal error", retryable: false });
      }
      host.inject(fault);
      const response = await harness.http("/document/current");
      expect(await response.text()).not.toMatch(/secret|\n\s+at /);
    }
    await client.call("getServerInfo");
    for (const i of faults.keys()) expect(answersTo(client, `g${i}`)).toHaveLength(1);
    await drained(harness);
  });

  it("with result checks on (development, tests), an answer its schema does not describe fails loudly as INTERNAL", async () => {
    const host = new FaultHost();
    const harness = await startBridge({ host, limits: FAST_LIMITS, checkResults: true });
    const client = await harness.connect();
    host.inject({ kind: "garbage", value: { nope: true } });
    const frame = await client.send("document:current");
    expect(frame.error).toMatchObject({
      code: "INTERNAL",
      message: "The result of document:current does not match its published schema",
      details: { issues: expect.arrayContaining([expect.objectContaining({ path: "id" })]) },
    });
    expect((await client.send("document:current")).ok).toBe(true);
  });

  it("random sequences of faults across four clients: every call ends exactly once and the mailbox drains", async () => {
    const host = new FaultHost();
    const harness = await startBridge({ host, limits: FAST_LIMITS });
    const clients = await Promise.all([1, 2, 3, 4].map(() => harness.connect()));
    const fault = fc.oneof(
      fc.constant<Fault>({ kind: "late" }),
      fc.constant<Fault>({ kind: "hang" }),
      fc.constant<Fault>({ kind: "vanish" }),
      fc.constant<Fault>({ kind: "twice" }),
      fc.constant<Fault>({ kind: "throw", value: "x" }),
      fc.constant<Fault>({ kind: "garbage", value: { odd: 1 } }),
    );
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fault, { minLength: 1, maxLength: 4 }), fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 8 }), async (faults, who) => {
        round++;
        host.inject(...faults);
        const sent = who.map((c, i) => ({ client: clients[c]!, id: `p${round}-${i}` }));
        const frames = await Promise.all(sent.map(({ client, id }) => client.send("document:current", undefined, id)));
        for (const frame of frames) {
          if (!frame.ok) expect(["TIMEOUT", "HOST_UNAVAILABLE", "HOST_BUSY", "INTERNAL"]).toContain(frame.error!.code);
        }
        await drained(harness);
        for (const { client, id } of sent) expect(answersTo(client, id)).toHaveLength(1);
      }),
      { numRuns: FAULT_RUNS },
    );
    host.clear();
    await drained(harness);
    expect((await clients[0]!.call<{ name: string }>("document:current")).name).toBe("Scripted");
  });
});
