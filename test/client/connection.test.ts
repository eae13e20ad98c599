import { describe, expect, it } from "vitest";
import { isBridgeError as isProtocolBridgeError } from "../../src/protocol/index.js";
import { WebSocket } from "ws";
import { clientIdPrefix } from "../../src/actors/clients/names.js";
import { BridgeError, type Connection, type ConnectionOptions } from "../../src/client/index.js";
import type { Harness } from "../helpers/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import { DropProxy } from "./_proxy.js";
import { collect, connect, onCleanup, record, waitForServerState } from "./_support.js";

const rect = (x: number) => ({ x, y: 1, width: 10, height: 10 });

async function setSelection(harness: Harness, x: number): Promise<void> {
  const response = await harness.http("/selection/set", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rect: rect(x) }),
  });
  expect(response.status).toBe(200);
}

async function proxyFor(harness: Harness): Promise<DropProxy> {
  const proxy = await DropProxy.start(harness.bridge.port);
  onCleanup(() => proxy.close());
  return proxy;
}

async function subscriptionsOf(observer: Connection, clientId: string): Promise<string[]> {
  const { clients } = await observer.server.clients();
  return clients.find((c) => c.idPrefix === clientIdPrefix(clientId))?.subscriptions ?? [];
}

describe("requests", () => {
  it("typed helpers call the built-in methods and return their results", async () => {
    const harness = await startOnSharedEditor();
    const client = connect(harness.bridge.url);
    const hello = await client.ready();
    expect(hello).toMatchObject({ resumed: false, protocolVersion: 1 });
    const doc = await client.document.current();
    expect(doc.name).toBe("Sample");
    const layers = await client.document.layers();
    const layer = await client.invoke("layer:getInfoById", { layerId: layers[0]!.id });
    expect(layer.id).toBe(layers[0]!.id);
    const info = await client.getServerInfo();
    expect(info.name).toBe("image-editor-bridge");
    expect(await client.selection.getArea()).toBeNull();
  });

  it("client.history undoes and redoes, and an atomic batch that fails undoes what it did", async () => {
    const harness = await startOnSharedEditor();
    const client = connect(harness.bridge.url);
    await client.selection.all();
    expect(await client.history.undo()).toMatchObject({ current: 0, length: 1 });
    expect(await client.selection.getArea()).toBeNull();
    expect(await client.history.redo()).toMatchObject({ current: 1, length: 1 });
    const { revision } = await client.document.current();
    const entries = await client.batch([{ method: "selection:clear" }, { method: "layer:update", params: { layerId: 99_999, visible: false } }], { atomic: true });
    expect(entries.map((entry) => (entry.ok ? "ok" : entry.error.code))).toEqual(["ROLLED_BACK", "LAYER_NOT_FOUND"]);
    expect(entries[1]!.ok || entries[1]!.error.details).toMatchObject({ rolledBack: 1 });
    expect(await client.selection.getArea()).not.toBeNull();
    expect((await client.document.current()).revision).toBe(revision);
    expect((await client.history.list()).steps.map((step) => step.method)).toEqual(["selection:all"]);
  });

  it("a failed request rejects with a BridgeError carrying the ProtocolError fields", async () => {
    const harness = await startOnSharedEditor();
    const client = connect(harness.bridge.url);
    const error = await client.layer.getInfoById({ layerId: 987654 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BridgeError);
    expect(error).toMatchObject({ code: "LAYER_NOT_FOUND", retryable: false, method: "layer:getInfoById", source: "host" });
    expect((error as BridgeError).requestId).toMatch(/./);
    // The protocol's brand check recognises client errors too.
    expect(isProtocolBridgeError(error)).toBe(true);
    const bad = await client.invoke("selection:set", { rect: { x: "no" } } as never).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: "BAD_REQUEST" });
    expect((bad as BridgeError).details?.["issues"]).toBeDefined();
  });

  it("a request with no answer in time rejects with TIMEOUT and outcome unknown", async () => {
    const host = new ScriptedHost();
    const harness = await startOnSharedEditor({ host });
    const client = connect(harness.bridge.url);
    await client.ready();
    host.hold();
    const error = await client.document.current(undefined, { timeoutMs: 30 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "TIMEOUT", method: "document:current", details: { timeoutMs: 30, outcome: "unknown" } });
    host.release();
    // The late answer is ignored and the connection keeps working.
    expect((await client.document.current()).name).toBe("Scripted");
  });

  it("an aborted request rejects with ABORTED; an already aborted signal sends nothing", async () => {
    const host = new ScriptedHost();
    const harness = await startOnSharedEditor({ host });
    const client = connect(harness.bridge.url);
    await client.ready();
    host.hold();
    const controller = new AbortController();
    const call = client.document.current(undefined, { signal: controller.signal });
    await host.whenStarted(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: "ABORTED", details: { outcome: "unknown" } });
    host.release();
    const before = host.calls.length;
    await expect(client.document.current(undefined, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: "ABORTED" });
    await client.getServerInfo(); // a round trip: nothing else reached the bridge
    expect(host.calls.length).toBe(before);
  });

  it("no more than maxInFlight requests are on the wire; the rest wait their turn in order", async () => {
    const host = new ScriptedHost();
    const harness = await startOnSharedEditor({ host });
    const observer = connect(harness.bridge.url);
    const client = connect(harness.bridge.url, { maxInFlight: 1 });
    const { clientId } = await client.ready();
    host.hold();
    const calls = [client.document.current(), client.selection.getArea(), client.document.list()] as const;
    await host.whenStarted(1);
    const { clients } = await observer.server.clients();
    expect(clients.find((c) => c.idPrefix === clientIdPrefix(clientId))?.inFlight).toBe(1);
    host.release();
    const [doc, area, list] = await Promise.all(calls);
    expect([doc.name, area, list.length]).toEqual(["Scripted", null, 1]);
    expect(host.calls.slice(-3).map((c) => c.op)).toEqual(["getDocument", "getSelection", "listDocuments"]);
  });

  it("close() disposes the logical client at once (4000) and fails what is pending", async () => {
    const host = new ScriptedHost();
    const harness = await startOnSharedEditor({ host });
    const observer = connect(harness.bridge.url);
    const client = connect(harness.bridge.url);
    const { clientId } = await client.ready();
    host.hold();
    const pending = client.document.current().catch((e: unknown) => e);
    await host.whenStarted(1);
    await client.close();
    await expect(pending).resolves.toMatchObject({ code: "CONNECTION_CLOSED" });
    await waitForServerState(observer, clientId, "disposed");
    expect(client.state).toBe("closed");
    await expect(client.getServerInfo()).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
    host.release();
  });
});

describe("subscriptions", () => {
  it("listeners are reference-counted onto the wire: the first subscribes, the last unsubscribes", async () => {
    const harness = await startOnSharedEditor();
    const client = connect(harness.bridge.url);
    const { clientId } = await client.ready();
    const a: unknown[] = [];
    const b: unknown[] = [];
    const offA = client.on("selection:changed", (data) => a.push(data));
    const offB = await client.subscribe("selection:changed", (data) => b.push(data));
    expect(await subscriptionsOf(client, clientId)).toEqual(["selection:changed"]);
    await setSelection(harness, 3);
    await client.subscribe("layer:selectionChange", () => {}); // a round trip after the event
    expect(a).toEqual([rect(3)]);
    expect(b).toEqual([rect(3)]);
    offA();
    expect(await subscriptionsOf(client, clientId)).toContain("selection:changed");
    await offB();
    expect(await subscriptionsOf(client, clientId)).toEqual(["layer:selectionChange"]);
  });

  it("once() listens for one event; a refused type rejects subscribe() and is reported on $error for on()", async () => {
    const harness = await startOnSharedEditor();
    const client = connect(harness.bridge.url);
    const { clientId } = await client.ready();
    const seen: unknown[] = [];
    client.once("selection:changed", (data) => seen.push(data));
    const all = collect(client, "selection:changed");
    await setSelection(harness, 1);
    await setSelection(harness, 2);
    await all.nth(2);
    expect(seen).toEqual([rect(1)]);
    await expect(client.subscribe("no-such-event", () => {})).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const errors = record(client, "$error");
    client.on("another-bogus", () => {});
    expect((await errors.nth(1)).code).toBe("BAD_REQUEST");
    expect(await subscriptionsOf(client, clientId)).toEqual(["selection:changed"]);
  });
});

describe("reconnect and resume", () => {
  it("a socket dropped by the network resumes the same client with no lost or duplicated events", async () => {
    const harness = await startOnSharedEditor();
    const proxy = await proxyFor(harness);
    const observer = connect(harness.bridge.url);
    const client = connect(proxy.url);
    const { clientId } = await client.ready();
    const events = collect<{ x: number }>(client, "selection:changed");
    const opens = record(client, "$open");
    const lost = record(client, "$lost");
    await client.subscribe("selection:changed", () => {});
    for (const x of [1, 2, 3]) await setSelection(harness, x);
    await events.nth(3);

    proxy.hold();
    proxy.drop();
    await waitForServerState(observer, clientId, "detached");
    for (const x of [4, 5, 6]) await setSelection(harness, x);
    // A request made while the socket is away waits and goes out after the resume.
    const queued = client.document.current();
    proxy.release();
    const reopened = await opens.nth(1); // recorded after the first handshake
    expect(reopened).toMatchObject({ clientId, resumed: true, replayed: 3, lost: 0 });
    expect((await queued).name).toBe("Sample");
    for (const x of [7, 8]) await setSelection(harness, x);
    await events.nth(8);
    expect(events.list.map((e) => e.data.x)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events.list.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(lost.list).toEqual([]);
    expect(client.clientId).toBe(clientId);
  });

  it("a request made just after the socket died locally waits for the resume instead of vanishing", async () => {
    const harness = await startOnSharedEditor();
    const sockets: WebSocket[] = [];
    class Tracked extends WebSocket {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        sockets.push(this);
      }
    }
    const client = connect(harness.bridge.url, { WebSocket: Tracked as unknown as ConnectionOptions["WebSocket"] });
    const { clientId } = await client.ready();
    const opens = record(client, "$open");
    sockets.at(-1)!.terminate();
    const doc = await client.document.current();
    expect(doc.name).toBe("Sample");
    expect(await opens.nth(1)).toMatchObject({ clientId, resumed: true });
  });

  it("an overflowed replay buffer is reported as $lost with the missing event count", async () => {
    const harness = await startOnSharedEditor({ limits: { replayBufferEvents: 2 } });
    const proxy = await proxyFor(harness);
    const observer = connect(harness.bridge.url);
    const client = connect(proxy.url);
    const { clientId } = await client.ready();
    const events = collect<{ x: number }>(client, "selection:changed");
    const lost = record(client, "$lost");
    await client.subscribe("selection:changed", () => {});
    await setSelection(harness, 1);
    await events.nth(1);
    proxy.hold();
    proxy.drop();
    await waitForServerState(observer, clientId, "detached");
    for (const x of [2, 3, 4, 5, 6]) await setSelection(harness, x);
    proxy.release();
    expect(await lost.nth(1)).toEqual({ reason: "replay-overflow", events: 3, frames: 3 });
    await events.nth(3);
    expect(events.list.map((e) => [e.seq, e.data.x])).toEqual([
      [1, 1],
      [5, 5],
      [6, 6],
    ]);
  });

  it("when the bridge forgot the client, subscriptions are renewed and $lost says to re-read state", async () => {
    const harness = await startOnSharedEditor({ limits: { resumeTtlMs: 20 } });
    const proxy = await proxyFor(harness);
    const observer = connect(harness.bridge.url);
    const client = connect(proxy.url);
    const { clientId } = await client.ready();
    const events = collect<{ x: number }>(client, "selection:changed");
    const lost = record(client, "$lost");
    const opens = record(client, "$open");
    await client.subscribe("selection:changed", () => {});
    proxy.hold();
    proxy.drop();
    await waitForServerState(observer, clientId, "disposed");
    await setSelection(harness, 9); // nobody receives this one
    proxy.release();
    expect(await lost.nth(1)).toEqual({ reason: "new-client", events: undefined });
    const hello = await opens.nth(1); // recorded after the first handshake
    expect(hello.resumed).toBe(false);
    expect(client.clientId).toBe(hello.clientId);
    expect(await subscriptionsOf(observer, hello.clientId)).toEqual(["selection:changed"]);
    await setSelection(harness, 10);
    await events.nth(1);
    expect(events.list).toEqual([{ data: rect(10), seq: 1 }]);
  });

  it("a request whose logical client was forgotten fails with CONNECTION_LOST (retryable, outcome unknown)", async () => {
    const host = new ScriptedHost();
    const harness = await startOnSharedEditor({ host, limits: { resumeTtlMs: 20 } });
    const proxy = await proxyFor(harness);
    const observer = connect(harness.bridge.url);
    const client = connect(proxy.url);
    const { clientId } = await client.ready();
    host.hold();
    const call = client.document.current();
    await host.whenStarted(1);
    proxy.hold();
    proxy.drop();
    await waitForServerState(observer, clientId, "disposed");
    proxy.release();
    await expect(call).rejects.toMatchObject({ code: "CONNECTION_LOST", retryable: true, details: { outcome: "unknown" } });
    host.release();
    expect((await client.document.current()).name).toBe("Scripted");
  });

  it("a socket taken over by another resume is not fought over: the connection ends", async () => {
    const harness = await startOnSharedEditor();
    const client = connect(harness.bridge.url);
    const { clientId } = await client.ready();
    const closes = record(client, "$close");
    const thief = connect(`${harness.bridge.wsUrl}?resume=${clientId}`);
    await thief.ready();
    expect(await closes.nth(1)).toMatchObject({ code: 4009, willReconnect: false });
    expect(client.state).toBe("closed");
    await expect(client.getServerInfo()).rejects.toMatchObject({ code: "CONNECTION_LOST" });
  });

  it("without reconnect a dropped socket ends the connection and fails what was pending", async () => {
    const host = new ScriptedHost();
    const harness = await startOnSharedEditor({ host });
    const proxy = await proxyFor(harness);
    const client = connect(proxy.url, { reconnect: false });
    await client.ready();
    host.hold();
    const call = client.document.current();
    await host.whenStarted(1);
    proxy.drop();
    await expect(call).rejects.toMatchObject({ code: "CONNECTION_LOST", details: { outcome: "unknown" } });
    expect(client.state).toBe("closed");
    host.release();
  });
});

describe("connecting", () => {
  it("a token is sent as the bearer subprotocol; a wrong one rejects ready() with UNAUTHORIZED", async () => {
    const harness = await startOnSharedEditor({ token: "s3cret" });
    const good = connect(harness.bridge.url, { token: "s3cret" });
    expect((await good.ready()).resumed).toBe(false);
    expect((await good.status()).status).toBe("ok");
    const bad = connect(harness.bridge.url, { token: "wrong" });
    await expect(bad.ready()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    expect(bad.state).toBe("closed");
  });

  it("a plugin endpoint that does not exist rejects ready() with the bridge's PLUGIN_NOT_FOUND", async () => {
    const harness = await startOnSharedEditor();
    const client = connect(harness.bridge.url, { pluginId: "missing-plugin" });
    expect(client.wsUrl).toBe(`${harness.bridge.wsUrl}/missing-plugin`);
    await expect(client.ready()).rejects.toMatchObject({ code: "PLUGIN_NOT_FOUND" });
    expect(client.state).toBe("closed");
  });

  it("a bridge that is not there rejects ready() with CONNECTION_FAILED", async () => {
    const harness = await startOnSharedEditor();
    const port = harness.bridge.port;
    await harness.bridge.close();
    const client = connect(`http://127.0.0.1:${port}`);
    await expect(client.ready()).rejects.toMatchObject({ code: "CONNECTION_FAILED", retryable: true });
  });

  it("HTTP helpers read /health, /ready, /status, /plugins and a plugin's health", async () => {
    const harness = await startOnSharedEditor();
    const client = connect(harness.bridge.wsUrl);
    expect(client.httpUrl).toBe(harness.bridge.url);
    expect(await client.health()).toMatchObject({ status: "ok", name: "image-editor-bridge" });
    expect(await client.readiness()).toMatchObject({ status: "ok", reasons: [], editors: { total: 1, ready: 1 } });
    expect(await client.status()).toMatchObject({ status: "ok", editors: [{ id: "embedded-1", state: "ready" }] });
    expect(await client.plugins()).toEqual({ plugins: [], failed: [] });
    await expect(client.pluginHealth("nope")).rejects.toMatchObject({ code: "PLUGIN_NOT_FOUND" });
  });
});
