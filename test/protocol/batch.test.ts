import { describe, expect, it } from "vitest";
import { BatchResultSchema, type BatchEntry, type ProtocolError } from "../../src/protocol/index.js";
import { batch, bindBatch, BridgeImage, isBridgeError } from "../../src/client/index.js";
import { startBridge, type Harness } from "../helpers/bridge.js";
import { BinaryTestClient } from "../helpers/binary-ws.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import { connect } from "../client/_support.js";

/** What a batch answered: its entries, or the error refusing the whole batch (with the HTTP status over HTTP). */
type Answer = { ok: true; entries: BatchEntry[] } | { ok: false; error: ProtocolError; status?: number };

/** Sends one batch over a transport; the same cases run over WS (a request frame) and HTTP (`POST /batch`). */
interface BatchTransport {
  send(params: unknown): Promise<Answer>;
  /** The answer of the same call sent on its own, to compare a batch entry with. */
  single(method: string, params?: Record<string, unknown>): Promise<{ ok: boolean; error?: ProtocolError }>;
}

/** The answer checked against the published result schema: a test cannot pass on a shape clients could not parse. */
function entriesOf(result: unknown): BatchEntry[] {
  return BatchResultSchema.parse(result);
}

const TRANSPORTS = [
  {
    name: "ws",
    async make(harness: Harness): Promise<BatchTransport> {
      const client = await harness.connect();
      return {
        async send(params) {
          const frame = await client.send("batch", params);
          return frame.ok ? { ok: true, entries: entriesOf(frame.result) } : { ok: false, error: frame.error as ProtocolError };
        },
        async single(method, params) {
          const frame = await client.send(method, params);
          return frame.ok ? { ok: true } : { ok: false, error: frame.error as ProtocolError };
        },
      };
    },
  },
  {
    name: "http",
    async make(harness: Harness): Promise<BatchTransport> {
      return {
        async send(params) {
          const response = await harness.http("/batch", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params) });
          const body = (await response.json()) as unknown;
          return response.status === 200 ? { ok: true, entries: entriesOf(body) } : { ok: false, error: body as ProtocolError, status: response.status };
        },
        async single(method, params) {
          // Through WS: the built-ins used here have no HTTP route each; the dispatcher answers both the same.
          const client = await harness.connect();
          const frame = await client.send(method, params);
          return frame.ok ? { ok: true } : { ok: false, error: frame.error as ProtocolError };
        },
      };
    },
  },
] as const;

const rect = { x: 3, y: 4, width: 10, height: 5 };
/** Three calls whose middle one fails (no layer 999 in the scripted editor's document). */
const FAILING_MIDDLE = [
  { method: "document:current", id: "a" },
  { method: "layer:getInfoById", params: { layerId: 999 }, id: "b" },
  { method: "selection:getArea", id: 7 },
];

describe.each(TRANSPORTS)("batch over $name", ({ make }) => {
  it("runs every call in order and answers one entry per call, a failed one in its place with its id", async () => {
    const host = new ScriptedHost();
    const transport = await make(await startBridge({ host }));
    const answer = await transport.send({ requests: FAILING_MIDDLE });
    expect(answer.ok).toBe(true);
    const entries = (answer as { entries: BatchEntry[] }).entries;
    expect(entries.map((e) => [e.id, e.ok])).toEqual([
      ["a", true],
      ["b", false],
      [7, true],
    ]);
    expect(entries[0]).toMatchObject({ result: { id: 1, name: "Scripted" } });
    expect(entries[1]).toMatchObject({ error: { code: "LAYER_NOT_FOUND", method: "layer:getInfoById", requestId: "b" } });
    expect(entries[2]).toEqual({ id: 7, ok: true, result: null });
    expect(host.calls.filter((c) => c.op === "getSelection")).toHaveLength(1);
  });

  it("with haltOnFailure stops at the first failure: later calls do not run and have no entry", async () => {
    const host = new ScriptedHost();
    const transport = await make(await startBridge({ host }));
    const answer = await transport.send({ requests: FAILING_MIDDLE, haltOnFailure: true });
    const entries = (answer as { entries: BatchEntry[] }).entries;
    expect(entries.map((e) => [e.id, e.ok])).toEqual([
      ["a", true],
      ["b", false],
    ]);
    expect(host.calls.filter((c) => c.op === "getSelection")).toHaveLength(0);
    // Without a failure, haltOnFailure changes nothing.
    const clean = await transport.send({ requests: [FAILING_MIDDLE[0], FAILING_MIDDLE[2]], haltOnFailure: true });
    expect((clean as { entries: BatchEntry[] }).entries.map((e) => e.ok)).toEqual([true, true]);
  });

  it("a mutation then a read in one batch: the read sees the mutation", async () => {
    const transport = await make(await startBridge({ host: new ScriptedHost() }));
    const answer = await transport.send({
      requests: [
        { method: "selection:getArea" },
        { method: "selection:set", params: { rect } },
        { method: "selection:getArea" },
        { method: "selection:set", params: { rect: null } },
        { method: "selection:getArea" },
      ],
    });
    const entries = (answer as { entries: BatchEntry[] }).entries;
    expect(entries.map((e) => (e.ok ? e.result : e.error))).toEqual([null, rect, rect, null, null]);
  });

  it("an entry is refused exactly as the same call sent alone: unknown method, bad params", async () => {
    const harness = await startBridge({ host: new ScriptedHost() });
    const transport = await make(harness);
    const calls = [
      { method: "layer:getInfoByld", params: { layerId: 2 } },
      { method: "layer:getInfoById", params: { layerId: "two" } },
    ];
    const answer = await transport.send({ requests: calls });
    const entries = (answer as { entries: BatchEntry[] }).entries;
    for (const [index, call] of calls.entries()) {
      const alone = await transport.single(call.method, call.params);
      const entry = entries[index]!;
      expect(entry.ok).toBe(false);
      const { requestId: _a, ...inBatch } = (entry as { error: ProtocolError }).error;
      const { requestId: _b, ...single } = alone.error!;
      expect(inBatch).toEqual(single);
    }
    expect(entries.map((e) => (e as { error: ProtocolError }).error.code)).toEqual(["UNKNOWN_METHOD", "BAD_REQUEST"]);
  });

  it("a batch inside a batch is refused as that entry's BAD_REQUEST; the other calls run", async () => {
    const transport = await make(await startBridge({ host: new ScriptedHost() }));
    const answer = await transport.send({
      requests: [{ method: "batch", params: { requests: [{ method: "document:current" }] }, id: "inner" }, { method: "document:current" }],
    });
    const entries = (answer as { entries: BatchEntry[] }).entries;
    expect(entries[0]).toMatchObject({ id: "inner", ok: false, error: { code: "BAD_REQUEST", message: "A batch may not contain a batch" } });
    expect(entries[1]).toMatchObject({ ok: true, result: { name: "Scripted" } });
  });

  it("past maxBatchRequests the whole batch is refused with BAD_REQUEST naming the limit, and nothing runs", async () => {
    const host = new ScriptedHost();
    const transport = await make(await startBridge({ host, limits: { maxBatchRequests: 3 } }));
    const call = { method: "document:current" };
    const refused = await transport.send({ requests: [call, call, call, call] });
    expect(refused).toMatchObject({ ok: false, error: { code: "BAD_REQUEST", method: "batch", details: { limit: 3, requests: 4 } } });
    if ("status" in refused) expect(refused.status).toBe(400);
    expect(host.calls).toHaveLength(0);
    const atLimit = await transport.send({ requests: [call, call, call] });
    expect((atLimit as { entries: BatchEntry[] }).entries.map((e) => e.ok)).toEqual([true, true, true]);
  });

  it("invalid batch params are refused with BAD_REQUEST listing the issue", async () => {
    const transport = await make(await startBridge({ host: new ScriptedHost() }));
    for (const params of [{}, { requests: [{ params: {} }] }, { requests: [], haltOnFailure: "yes" }]) {
      const answer = await transport.send(params);
      expect(answer).toMatchObject({ ok: false, error: { code: "BAD_REQUEST", message: expect.stringMatching(/^Invalid params for batch: /) } });
    }
    const empty = await transport.send({ requests: [] });
    expect(empty).toEqual({ ok: true, entries: [] });
  });
});

describe("batch and the in-flight limit (WS: HTTP callers have no logical client)", () => {
  it("each call counts while it runs, the batch itself does not: a call past the limit fails TOO_MANY_REQUESTS", async () => {
    const host = new ScriptedHost();
    const harness = await startBridge({ host, limits: { maxInFlightPerClient: 1 } });
    const client = await harness.connect();
    host.hold();
    const held = client.send("document:current", undefined, "held");
    await host.whenStarted(1);
    const full = await client.send("batch", { requests: [{ method: "getServerInfo", id: "x" }, { method: "document:list" }] });
    const entries = entriesOf(full.result);
    expect(entries.map((e) => (e.ok ? "ok" : e.error.code))).toEqual(["TOO_MANY_REQUESTS", "TOO_MANY_REQUESTS"]);
    expect(entries[0]).toMatchObject({ id: "x", error: { retryable: true, details: { limit: 1 } } });
    // The same answer a separate call gets.
    const alone = await client.send("getServerInfo");
    expect(alone.error).toMatchObject({ code: "TOO_MANY_REQUESTS", message: (entries[0] as { error: ProtocolError }).error.message });
    host.release();
    expect((await held).ok).toBe(true);
    // With the slot free, a batch of several calls runs them all under a limit of 1: one call in flight at a time.
    const next = await client.send("batch", { requests: [{ method: "getServerInfo" }, { method: "document:current" }, { method: "document:list" }] });
    expect(entriesOf(next.result).map((e) => e.ok)).toEqual([true, true, true]);
    // A batch's running call holds the slot: a separate call sent meanwhile is refused.
    host.hold();
    const started = host.whenStarted(host.calls.length + 1);
    const running = client.send("batch", { requests: [{ method: "document:current" }] });
    await started;
    expect((await client.send("getServerInfo")).error).toMatchObject({ code: "TOO_MANY_REQUESTS" });
    host.release();
    expect(entriesOf((await running).result).map((e) => e.ok)).toEqual([true]);
  });

  it("a batch's calls go through the editor mailbox one after another, not all at once", async () => {
    const host = new ScriptedHost();
    const harness = await startBridge({ host });
    const client = await harness.connect();
    host.hold();
    const answer = client.send("batch", { requests: [{ method: "document:current" }, { method: "document:list" }] });
    await host.whenStarted(1);
    const status = (await (await harness.http("/status")).json()) as { editor: { queued: number; running: number } };
    expect(status.editor).toMatchObject({ queued: 0, running: 1 });
    host.release();
    expect(entriesOf((await answer).result).map((e) => e.ok)).toEqual([true, true]);
    expect(host.calls.map((c) => c.op)).toEqual(["getDocument", "listDocuments"]);
  });
});

describe("batch and binary WebSockets", () => {
  it("answers images inside a batch as data URIs in the one text response, with no binary message", async () => {
    const harness = await startBridge({ host: new ScriptedHost() });
    const client = await BinaryTestClient.open(`ws://127.0.0.1:${harness.bridge.port}/ws?binary=1`);
    try {
      const alone = await client.request("alone", "image:exportDocument", { format: "png" });
      expect(alone.frame.result).toMatchObject({ data: { binary: 0 } });
      const { frame, at } = await client.request("b1", "batch", { requests: [{ method: "image:exportDocument", params: { format: "png" } }] });
      const [entry] = entriesOf(frame.result);
      expect(entry).toMatchObject({ ok: true, result: { format: "png", width: 4, height: 3, data: expect.stringMatching(/^data:image\/png;base64,/) } });
      const ping = await client.request("after", "getServerInfo");
      expect(ping.at).toBe(at + 1);
    } finally {
      await client.close();
    }
  });

  it("a call naming a binary part is refused in a batch with BAD_REQUEST saying why", async () => {
    const harness = await startBridge({ host: new ScriptedHost() });
    const client = await BinaryTestClient.open(`ws://127.0.0.1:${harness.bridge.port}/ws?binary=1`);
    try {
      const { frame } = await client.request("b1", "batch", {
        requests: [{ method: "layer:importImage", params: { image: { binary: 0 } } }, { method: "getServerInfo" }],
      });
      const entries = entriesOf(frame.result);
      expect(entries[0]).toMatchObject({ ok: false, error: { code: "BAD_REQUEST", details: { param: "image" }, message: expect.stringMatching(/binary part.*batch/) } });
      expect(entries[1]!.ok).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe("the SDK's batch()", () => {
  it("answers typed entries: results, BridgeErrors for failed calls, images as BridgeImages; haltOnFailure shortens them", async () => {
    const harness = await startBridge({ host: new ScriptedHost() });
    const client = connect(harness.bridge.url);
    await client.ready();
    const [set, area, missing, image] = await batch(client, [
      { method: "selection:set", params: { rect } },
      { method: "selection:getArea" },
      { method: "layer:getInfoById", params: { layerId: 999 }, id: "missing" },
      { method: "image:exportDocument", params: { format: "png" } },
    ]);
    expect(set).toEqual({ ok: true, result: rect });
    expect(area.ok && area.result).toEqual(rect);
    expect(missing.ok).toBe(false);
    if (!missing.ok) {
      expect(isBridgeError(missing.error)).toBe(true);
      expect(missing.error).toMatchObject({ code: "LAYER_NOT_FOUND", requestId: "missing" });
    }
    expect(missing.id).toBe("missing");
    expect(image.ok && image.result).toBeInstanceOf(BridgeImage);
    const halted = await batch(client, [{ method: "layer:getInfoById", params: { layerId: 999 } }, { method: "document:current" }], { haltOnFailure: true });
    expect(halted.map((e) => e.ok)).toEqual([false]);
    // Each call's params are typed from its method: tsc fails here if a wrong one stops being an error.
    // @ts-expect-error rect is a rectangle or null
    const [wrong] = await batch(client, [{ method: "selection:set", params: { rect: 5 } }]);
    expect(wrong).toMatchObject({ ok: false, error: { code: "BAD_REQUEST", method: "selection:set" } });
  });

  it("sends bytes inline as data URIs, since a batch carries no binary parts", async () => {
    const harness = await startBridge({ host: new ScriptedHost() });
    const client = connect(harness.bridge.url);
    await client.ready();
    // The scripted editor cannot import: NOT_SUPPORTED says the params passed validation and reached the editor
    // (bytes sent as they are would be BAD_REQUEST: not an image source).
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const [entry] = await batch(client, [{ method: "layer:importImage", params: { image: png } }]);
    expect(entry.ok).toBe(false);
    if (!entry.ok) expect(entry.error).toMatchObject({ code: "NOT_SUPPORTED", method: "layer:importImage" });
  });

  it("bound to a client (bindBatch) it sends the same batch and answers the same typed entries", async () => {
    const harness = await startBridge({ host: new ScriptedHost() });
    const client = connect(harness.bridge.url);
    await client.ready();
    const run = bindBatch(client);
    const [set, area] = await run([{ method: "selection:set", params: { rect } }, { method: "selection:getArea", id: "area" }]);
    expect([set, area]).toEqual([
      { ok: true, result: rect },
      { id: "area", ok: true, result: rect },
    ]);
    const halted = await run([{ method: "nope:nope" }, { method: "document:current" }], { haltOnFailure: true });
    expect(halted.map((e) => (e.ok ? "ok" : e.error.code))).toEqual(["UNKNOWN_METHOD"]);
  });

  it("rejects when the bridge refuses the batch itself", async () => {
    const harness = await startBridge({ host: new ScriptedHost(), limits: { maxBatchRequests: 1 } });
    const client = connect(harness.bridge.url);
    await client.ready();
    const refused = await batch(client, [{ method: "document:current" }, { method: "document:current" }]).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "BAD_REQUEST", details: { limit: 1, requests: 2 } });
  });
});
