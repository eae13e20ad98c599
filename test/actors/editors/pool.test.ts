import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import type { HostDocument } from "../../../src/protocol/index.js";
import type { BridgeOptions } from "../../../src/bridge/options.js";
import { startBridge, waitForQueued, type Harness } from "../../helpers/bridge.js";
import { ScriptedHost } from "../../helpers/scripted-host.js";

const ROUTER_PLUGIN = fileURLToPath(new URL("../../plugins/fixtures/router", import.meta.url));

type PooledDoc = HostDocument & { editorId: string };

/**
 * A bridge with a pool of `editors` embedded editors, run inline: these cases check the pool's routing, which is the
 * same whether an editor runs in its own process or not, and starting two or three editor processes per case cost
 * most of their time. Crossing the process boundary is covered wherever one editor runs in its process.
 */
function startPool(editors: number, options: BridgeOptions = {}): Promise<Harness> {
  return startBridge({ ...options, editors, embedded: { isolation: "inline", ...options.embedded } });
}

describe("a pool of embedded editors", () => {
  it("gives each new client the least loaded editor and keeps it across a resume", async () => {
    const harness = await startPool(3);
    const a = await harness.connect("/ws?name=a");
    const b = await harness.connect("/ws?name=b");
    await harness.connect("/ws?name=c");
    const { clients, editors } = await a.call<{ clients: Array<{ name: string; editorId: string }>; editors: Array<{ id: string; clients: number }> }>(
      "server:clients",
    );
    expect(clients.map((x) => [x.name, x.editorId]).sort()).toEqual([
      ["a", "embedded-1"],
      ["b", "embedded-2"],
      ["c", "embedded-3"],
    ]);
    expect(editors.map((e) => [e.id, e.clients])).toEqual([
      ["embedded-1", 1],
      ["embedded-2", 1],
      ["embedded-3", 1],
    ]);
    // b's calls without a document go to its editor, which has none yet.
    expect((await b.send("document:current")).error).toMatchObject({ code: "NO_DOCUMENT" });
    const created = await b.call<PooledDoc>("document:create", { width: 10, height: 10 });
    expect(created.editorId).toBe("embedded-2");
    const id = b.hello.clientId;
    await b.close();
    const resumed = await harness.connect(`/ws?resume=${id}`);
    expect((await resumed.call<PooledDoc>("document:current")).id).toBe(created.id);
  });

  it("routes a call naming a document to its owner, and lists every editor's documents with unique ids", async () => {
    const harness = await startPool(3);
    const one = await harness.connect("/ws?editor=embedded-1");
    const two = await harness.connect("/ws?editor=embedded-2");
    const three = await harness.connect("/ws?editor=embedded-3");
    const d2 = await two.call<PooledDoc>("document:create", { width: 20, height: 10, name: "two" });
    const d3 = await three.call<PooledDoc>("document:create", { width: 30, height: 10, name: "three" });
    const list = await one.call<PooledDoc[]>("document:list");
    expect(list.map((d) => [d.name, d.editorId])).toEqual([
      ["Sample", "embedded-1"],
      ["two", "embedded-2"],
      ["three", "embedded-3"],
    ]);
    expect(new Set(list.map((d) => d.id)).size).toBe(3);
    // Client one works on embedded-1, but naming documents reaches their editors.
    // Unique ids: on embedded-1 this id is unknown, so an answer proves the call reached embedded-3.
    expect(await one.call("document:layers", { documentId: d3.id })).toHaveLength(1);
    await one.call("selection:set", { documentId: d2.id, rect: { x: 1, y: 1, width: 4, height: 4 } });
    expect(await two.call("selection:getArea")).toEqual({ x: 1, y: 1, width: 4, height: 4 });
    expect(await one.call("selection:getArea")).toBeNull();
    expect((await one.send("document:layers", { documentId: 987_654 })).error).toMatchObject({ code: "DOCUMENT_NOT_FOUND" });
    await one.call("document:close", { documentId: d3.id });
    expect((await one.send("document:layers", { documentId: d3.id })).error).toMatchObject({ code: "DOCUMENT_NOT_FOUND" });
  });

  it("refuses an unknown editor on WS and HTTP with BAD_REQUEST naming the editors", async () => {
    const harness = await startPool(2);
    await expect(harness.connect("/ws?editor=embedded-9")).rejects.toThrow(/400/);
    const response = await harness.http("/document/current?editor=gimp-1");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: "BAD_REQUEST", details: { editors: ["embedded-1", "embedded-2"] } });
    const byHeader = await harness.http("/document/current", { headers: { "X-Bridge-Editor": "embedded-2" } });
    expect(await byHeader.json()).toMatchObject({ code: "NO_DOCUMENT" });
  });

  it("HTTP calls without a client follow the most recently active document: open then export", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pool-open-"));
    const photo = join(dir, "photo.png");
    await sharp({ create: { width: 40, height: 30, channels: 4, background: "#3366ff" } }).png().toFile(photo);
    const harness = await startPool(2);
    const post = async (path: string, body: unknown): Promise<Response> =>
      harness.http(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    // A client on embedded-1 makes embedded-2 the least loaded: the opened document is placed there.
    await harness.connect();
    const opened = (await (await post("/document/open", { path: photo })).json()) as PooledDoc;
    expect(opened.editorId).toBe("embedded-2");
    const current = (await (await harness.http("/document/current")).json()) as PooledDoc;
    expect(current.id).toBe(opened.id);
    const exported = (await (await post("/image/export-document", { format: "png" })).json()) as { width: number; height: number };
    expect([exported.width, exported.height]).toEqual([40, 30]);
    // Naming the sample moves the "most recently active" document back to it.
    await harness.http("/document/layers?documentId=1");
    expect(((await (await harness.http("/document/current")).json()) as PooledDoc).id).toBe(1);
    await rm(dir, { recursive: true, force: true });
  });

  it("spreads new documents without a caller's editor across the pool", async () => {
    const harness = await startPool(3, { embedded: { sample: false } });
    const create = async (): Promise<PooledDoc> =>
      (await (await harness.http("/document/create", { method: "POST", headers: { "content-type": "application/json" }, body: '{"width":8,"height":8}' })).json()) as PooledDoc;
    const placed = [await create(), await create(), await create(), await create()].map((d) => d.editorId);
    expect(placed).toEqual(["embedded-1", "embedded-2", "embedded-3", "embedded-1"]);
  });

  it("shows every editor in getServerInfo, /status, /ready and /metrics", async () => {
    const harness = await startPool(2);
    const client = await harness.connect();
    const info = await client.call<{ editors: Array<{ id: string; kind: string; state: string; restarts: number; documents: number }> }>("getServerInfo");
    expect(info.editors.map((e) => [e.id, e.kind, e.state, e.restarts])).toEqual([
      ["embedded-1", "embedded", "ready", 0],
      ["embedded-2", "embedded", "ready", 0],
    ]);
    const status = (await (await harness.http("/status")).json()) as { editors: unknown[] };
    expect(status.editors).toHaveLength(2);
    const ready = await harness.http("/ready");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ok", reasons: [], editors: { total: 2, ready: 2 }, plugins: { loaded: 0, failed: 0 } });
    expect(await (await harness.http("/metrics")).text()).toMatch(/editors_ready\S* 2/);
  });

  it("state events come from the client's editor; events naming a document from every editor", async () => {
    const harness = await startPool(2);
    const one = await harness.connect("/ws?editor=embedded-1");
    const two = await harness.connect("/ws?editor=embedded-2");
    await one.call("event:subscribe", { type: "selection:changed" });
    await one.call("event:subscribe", { type: "documentChanged" });
    const doc = await two.call<PooledDoc>("document:create", { width: 10, height: 10 });
    const changed = one.next((f) => f.type === "documentChanged" && (f.data as { documentId: number }).documentId === doc.id);
    await two.call("selection:set", { rect: { x: 0, y: 0, width: 2, height: 2 } });
    expect((await changed).data).toMatchObject({ documentId: doc.id, selection: true });
    // The selection event of embedded-2's active document did not reach a client of embedded-1.
    const own = one.next((f) => f.type === "selection:changed");
    await one.call("selection:set", { rect: { x: 0, y: 0, width: 3, height: 3 } });
    expect((await own).data).toEqual({ x: 0, y: 0, width: 3, height: 3 });
    expect(one.events("selection:changed")).toHaveLength(1);
  });

  it("plugins route like clients and may name an editor", async () => {
    const harness = await startPool(2, { plugins: [ROUTER_PLUGIN] });
    const client = await harness.connect("/ws/router");
    const made = await client.call<PooledDoc>("router:create", { editor: "embedded-2" });
    expect(made.editorId).toBe("embedded-2");
    expect((await client.call<PooledDoc>("router:current", { editor: "embedded-2" })).id).toBe(made.id);
    expect((await client.call<PooledDoc>("router:current", { editor: "embedded-1" })).name).toBe("Sample");
    expect((await client.send("router:current", { editor: "nope" })).error).toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("fairness inside an editor's mailbox", () => {
  it("four clients with 64 calls each cannot starve a fifth", async () => {
    const host = new ScriptedHost();
    const harness = await startBridge({ host });
    const busy = await Promise.all([1, 2, 3, 4].map((n) => harness.connect(`/ws?name=busy${n}`)));
    const fifth = await harness.connect("/ws?name=fifth");
    const holder = await harness.connect("/ws?name=holder");
    host.hold();
    const first = holder.send("document:current");
    await host.whenStarted(1);
    const floods = busy.map((client) => Array.from({ length: 64 }, () => client.send("document:current")));
    // Every call of the four is either queued or refused before the fifth asks.
    await waitForQueued(harness, 4 * 32);
    const refused = await Promise.all(floods.map((calls) => Promise.all(calls.slice(32))));
    for (const outcomes of refused) for (const outcome of outcomes) expect(outcome.error).toMatchObject({ code: "HOST_BUSY", details: { scope: "client" } });
    const late = fifth.send("document:current");
    await waitForQueued(harness, 4 * 32 + 1);
    host.release();
    expect((await late).ok).toBe(true);
    expect((await first).ok).toBe(true);
    for (const calls of floods) for (const outcome of await Promise.all(calls.slice(0, 32))) expect(outcome.ok).toBe(true);
  });
});
