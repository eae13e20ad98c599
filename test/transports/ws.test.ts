import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { ConnectedEventDataSchema, ErrorEventDataSchema, PROTOCOL_VERSION } from "../../src/protocol/index.js";
import { greeting, newClientGreeting } from "../../src/transports/ws/connection.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import { refusedUpgrade, TestClient, waitForClient } from "../helpers/ws-client.js";

const rect = { x: 1, y: 2, width: 3, height: 4 };

describe("WebSocket handshake", () => {
  it("the first frame is `connected` with a server-issued client id and the protocol version", async () => {
    const client = await (await startOnSharedEditor()).connect();
    expect(client.frames[0]).toMatchObject({ type: "connected" });
    expect(ConnectedEventDataSchema.safeParse(client.frames[0]!.data).success).toBe(true);
    expect(client.hello).toMatchObject({ resumed: false, protocolVersion: PROTOCOL_VERSION });
    expect(client.hello.clientId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("a new client's greeting, serialized once per server, is the JSON of the full `connected` object", async () => {
    const server = { name: "image-editor-bridge", version: "9.9.9-\"quoted\"" };
    for (const binary of [false, true]) {
      const id = `id-${binary}-"\\`;
      const fast = newClientGreeting(server, id, binary);
      const full = {
        type: "connected",
        data: { clientId: id, resumed: false, protocolVersion: PROTOCOL_VERSION, server, features: binary ? ["binary", "cancel", "progress", "batch", "edit", "history"] : ["cancel", "progress", "batch", "edit", "history"] },
      };
      expect(fast).toBe(JSON.stringify(full));
      // A resumed client's greeting (replay counts) and a plugin endpoint's (its name) are built in full.
      const resumed = JSON.parse(greeting(server, { id, endpoint: "root" }, binary, { lost: 2 }, 0)) as { data: Record<string, unknown> };
      expect(resumed.data).toMatchObject({ clientId: id, resumed: true, replayed: 0, lost: 2 });
      expect(ConnectedEventDataSchema.safeParse(resumed.data).success).toBe(true);
    }
    const plugin = JSON.parse(greeting(server, { id: "p", endpoint: "stats" }, false, undefined, 0)) as { data: Record<string, unknown> };
    expect(plugin.data).toMatchObject({ clientId: "p", resumed: false, endpoint: "stats" });
  });

  it("a request without params is accepted as if params were absent", async () => {
    const client = await (await startOnSharedEditor()).connect();
    client.sendRaw(JSON.stringify({ id: "x", method: "getServerInfo" }));
    expect(await client.next((f) => f.id === "x")).toMatchObject({ ok: true });
  });

  it("a plugin endpoint that does not exist answers PLUGIN_NOT_FOUND and closes", async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect("/ws/nope");
    expect(client.frames[0]).toMatchObject({ type: "error", data: { code: "PLUGIN_NOT_FOUND" } });
    expect(ErrorEventDataSchema.safeParse(client.frames[0]!.data).success).toBe(true);
    expect((await client.closed).code).toBe(4004);
  });

  it("an unknown path is refused with NOT_FOUND before upgrading", async () => {
    const harness = await startOnSharedEditor();
    const refused = await refusedUpgrade(`ws://127.0.0.1:${harness.bridge.port}/elsewhere`);
    expect(refused).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
  });

  it("an upgrade whose target does not parse as a URL is BAD_REQUEST, and the bridge carries on", async () => {
    const harness = await startOnSharedEditor();
    for (const target of ["//", "//[::1", "//host:99999/ws"]) {
      const answer = await rawUpgrade(harness.bridge.port, target);
      expect(answer).toMatch(/^HTTP\/1\.1 400 BAD_REQUEST\r\n/);
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({ code: "BAD_REQUEST", details: { target } });
    }
    const client = await harness.connect();
    expect(await client.call("getServerInfo")).toHaveProperty("protocolVersion");
  });
});

/** Writes a WebSocket upgrade for `target` by hand (a client library would normalise it) and returns the whole answer. */
function rawUpgrade(port: number, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
      );
    });
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

/** The event types `server:clients` lists for one client (found by its id's prefix). */
async function subscriptionsOf(client: TestClient): Promise<string[]> {
  const { clients } = await client.call<{ clients: Array<{ idPrefix: string; subscriptions: string[] }> }>("server:clients");
  return clients.find((c) => client.hello.clientId.startsWith(c.idPrefix))!.subscriptions;
}

describe("subscriptions", () => {
  it("event:subscribe takes exactly one of type and types, and {type} answers as it always has", async () => {
    const client = await (await startOnSharedEditor()).connect();
    for (const params of [{}, { type: "selection:changed", types: ["selection:changed"] }, { types: [] }]) {
      const refused = await client.send("event:subscribe", params);
      expect(refused.error).toMatchObject({ code: "BAD_REQUEST" });
    }
    expect(await client.call("event:subscribe", { type: "selection:changed" })).toEqual({ type: "selection:changed", subscribed: true, ok: true });
    expect(await client.call("event:unsubscribe", { type: "selection:changed" })).toEqual({ type: "selection:changed", subscribed: false, ok: true });
    expect(await subscriptionsOf(client)).toEqual([]);
  });

  it("{types} subscribes to each type and lists them; an unknown type among them subscribes to none", async () => {
    const client = await (await startOnSharedEditor()).connect();
    const unknown = await client.send("event:subscribe", { types: ["selection:changed", "nope:never"] });
    expect(unknown.error).toMatchObject({ code: "BAD_REQUEST", details: { type: "nope:never" } });
    expect(await subscriptionsOf(client)).toEqual([]);
    const answer = await client.call("event:subscribe", { types: ["selection:changed", "layer:selectionChange", "selection:changed"] });
    expect(answer).toEqual({
      subscriptions: [
        { type: "selection:changed", subscribed: true },
        { type: "layer:selectionChange", subscribed: true },
      ],
      ok: true,
    });
    expect((await subscriptionsOf(client)).sort()).toEqual(["layer:selectionChange", "selection:changed"]);
    expect(await client.call("event:unsubscribe", { types: ["layer:selectionChange"] })).toEqual({ subscriptions: [{ type: "layer:selectionChange", subscribed: false }], ok: true });
    expect(await subscriptionsOf(client)).toEqual(["selection:changed"]);
  });

  it('"*" subscribes to every event type but previews, which come only when named; unsubscribing "*" leaves them', async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect();
    expect(await client.call("event:subscribe", { type: "*" })).toEqual({ type: "*", subscribed: true, ok: true });
    const all = await subscriptionsOf(client);
    expect(all).toEqual(expect.arrayContaining(["#closing", "selection:changed", "layer:selectionChange", "documentChanged"]));
    expect(all).not.toContain("layer:previewChange");

    // The events of every type arrive: a selection and a document change from another client's edit.
    const other = await harness.connect();
    await other.call("selection:set", { rect });
    expect((await client.next((f) => f.type === "selection:changed")).data).toEqual(rect);
    await client.next((f) => f.type === "documentChanged");

    const named = await client.call<{ subscriptions: Array<{ type: string; subscribed: boolean }> }>("event:subscribe", { types: ["*", "layer:previewChange"] });
    expect(named.subscriptions.map((s) => s.type)).toEqual([...all, "layer:previewChange"]);
    expect(named.subscriptions.every((s) => s.subscribed)).toBe(true);
    const dropped = await client.call<{ subscriptions: Array<{ type: string; subscribed: boolean }> }>("event:unsubscribe", { types: ["*"] });
    expect(dropped.subscriptions.map((s) => s.type)).toEqual(all);
    expect(await subscriptionsOf(client)).toEqual(["layer:previewChange"]);
  });

  it("server:ping answers pong with the bridge's clock", async () => {
    const client = await (await startOnSharedEditor()).connect();
    const before = Date.now();
    const answer = await client.call<{ pong: boolean; time: number }>("server:ping");
    expect(answer).toEqual({ pong: true, time: expect.any(Number) });
    expect(answer.time).toBeGreaterThanOrEqual(before);
    expect(answer.time).toBeLessThanOrEqual(Date.now());
  });
});

describe("resume, takeover and dispose", () => {
  it("a resumed client receives the events it missed, in order, with their seq", async () => {
    const harness = await startOnSharedEditor();
    const first = await harness.connect();
    await first.call("event:subscribe", { type: "selection:changed" });
    const id = first.hello.clientId;
    await first.close();
    const other = await harness.connect();
    await waitForClient(other, id, "detached");
    await other.call("selection:set", { rect });
    await other.call("selection:set", { rect: null });
    const resumed = await harness.connect(`/ws?resume=${id}`);
    expect(resumed.hello).toMatchObject({ clientId: id, resumed: true, replayed: 2, lost: 0 });
    const events = await resumed.nth((f) => f.type === "selection:changed", 2);
    expect(resumed.events("selection:changed").map((f) => [f.seq, f.data])).toEqual([
      [1, rect],
      [2, null],
    ]);
    expect(events.seq).toBe(2);
    // Subscriptions survived the reconnect: new events keep flowing with the next seq.
    await other.call("selection:set", { rect });
    expect((await resumed.nth((f) => f.type === "selection:changed", 3)).seq).toBe(3);
  });

  it("a replay buffer that overflowed reports how many events were lost", async () => {
    const harness = await startOnSharedEditor({ limits: { replayBufferEvents: 2 } });
    const first = await harness.connect();
    await first.call("event:subscribe", { type: "selection:changed" });
    await first.close();
    const other = await harness.connect();
    await waitForClient(other, first.hello.clientId, "detached");
    for (let i = 0; i < 5; i++) await other.call("selection:set", { rect: { ...rect, x: i } });
    const resumed = await harness.connect(`/ws?resume=${first.hello.clientId}`);
    expect(resumed.hello).toMatchObject({ replayed: 2, lost: 3 });
    const replayed = await resumed.nth((f) => f.type === "selection:changed", 2);
    expect(replayed.seq).toBe(5);
  });

  it("an unknown or expired resume id silently starts a new client", async () => {
    const harness = await startOnSharedEditor({ limits: { resumeTtlMs: 30 } });
    const first = await harness.connect();
    const server = await harness.connect();
    await first.close();
    await waitForClient(server, first.hello.clientId, "disposed"); // by the TTL
    const again = await harness.connect(`/ws?resume=${first.hello.clientId}`);
    expect(again.hello.resumed).toBe(false);
    expect(again.hello.clientId).not.toBe(first.hello.clientId);
    const unknown = await harness.connect("/ws?resume=not-a-client");
    expect(unknown.hello.resumed).toBe(false);
  });

  it("a second socket resuming an attached client takes it over and the first is closed with 4009", async () => {
    const harness = await startOnSharedEditor();
    const first = await harness.connect();
    await first.call("event:subscribe", { type: "selection:changed" });
    const second = await harness.connect(`/ws?resume=${first.hello.clientId}`);
    expect((await first.closed).code).toBe(4009);
    expect(second.hello).toMatchObject({ clientId: first.hello.clientId, resumed: true });
    await second.call("selection:set", { rect });
    expect((await second.next((f) => f.type === "selection:changed")).data).toEqual(rect);
  });

  it("closing with 4000 disposes the logical client at once", async () => {
    const harness = await startOnSharedEditor();
    const first = await harness.connect();
    const observer = await harness.connect();
    await first.close(4000);
    await waitForClient(observer, first.hello.clientId, "disposed");
    const again = await harness.connect(`/ws?resume=${first.hello.clientId}`);
    expect(again.hello.resumed).toBe(false);
  });

  it("a response that completes while the client is away is delivered on resume", async () => {
    const host = new ScriptedHost();
    const harness = await startOnSharedEditor({ host });
    const first = await harness.connect();
    const observer = await harness.connect();
    host.hold();
    first.sendRaw(JSON.stringify({ id: "late", method: "document:current" }));
    await host.whenStarted(1);
    first.ws.terminate();
    await waitForClient(observer, first.hello.clientId, "detached");
    host.release();
    const resumed = await harness.connect(`/ws?resume=${first.hello.clientId}`);
    expect(await resumed.next((f) => f.id === "late")).toMatchObject({ ok: true, result: { name: "Scripted" } });
  });
});

describe("malformed and oversized frames", () => {
  it("a frame that is not JSON gets an error event; repeated garbage closes the socket with 1007", async () => {
    const harness = await startOnSharedEditor({ limits: { maxMalformedFrames: 3 } });
    const client = await harness.connect();
    client.sendRaw("{nope");
    expect(await client.next((f) => f.type === "error")).toMatchObject({ data: { code: "BAD_REQUEST" } });
    expect((await client.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
    client.sendRaw("x");
    client.sendRaw("y");
    expect((await client.closed).code).toBe(1007);
    // Other clients carry on.
    const other = await harness.connect();
    expect((await other.send("getServerInfo")).ok).toBe(true);
  });

  it("JSON with an id that is not a request gets a failure response with that id", async () => {
    const client = await (await startOnSharedEditor()).connect();
    client.sendRaw(JSON.stringify({ id: "q", params: {} }));
    expect(await client.next((f) => f.id === "q")).toMatchObject({ ok: false, error: { code: "BAD_REQUEST", requestId: "q" } });
    client.sendRaw(JSON.stringify([1, 2]));
    expect(await client.nth((f) => f.type === "error", 1)).toMatchObject({ data: { code: "BAD_REQUEST" } });
  });

  it("a frame over maxPayload closes that socket with 1009 and nothing else", async () => {
    const harness = await startOnSharedEditor({ limits: { maxPayloadBytes: 1024 } });
    const client = await harness.connect();
    client.sendRaw(JSON.stringify({ id: "big", method: "getServerInfo", params: { pad: "x".repeat(2048) } }));
    expect((await client.closed).code).toBe(1009);
    const other = await harness.connect();
    expect((await other.send("getServerInfo")).ok).toBe(true);
  });
});

describe("heartbeat", () => {
  it("a socket that stops answering pings is dropped and its client detached", async () => {
    const harness = await startOnSharedEditor({ limits: { heartbeatMs: 40 } });
    const silent = await harness.connect();
    const observer = await harness.connect();
    // Stop reading: the client can no longer answer pings.
    (silent.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    await waitForClient(observer, silent.hello.clientId, "detached");
    silent.ws.terminate();
  });
});

describe("access control", () => {
  it("a browser Origin that is not allowed is refused with 403 FORBIDDEN", async () => {
    const harness = await startOnSharedEditor();
    const refused = await refusedUpgrade(harness.bridge.wsUrl, { origin: "https://evil.example" });
    expect(refused).toMatchObject({ status: 403, body: { code: "FORBIDDEN" } });
    const local = await harness.connect("/ws", { origin: "http://localhost:5173" });
    expect(local.hello.resumed).toBe(false);
  });

  it("an allowed extra Origin is accepted", async () => {
    const harness = await startOnSharedEditor({ allowOrigins: ["https://tool.example"] });
    const client = await harness.connect("/ws", { origin: "https://tool.example" });
    expect(client.hello.protocolVersion).toBe(1);
  });

  it("a foreign Host header is refused (DNS rebinding) unless a token is configured", async () => {
    const harness = await startOnSharedEditor();
    const refused = await refusedUpgrade(harness.bridge.wsUrl, { headers: { host: "attacker.example" } });
    expect(refused).toMatchObject({ status: 403, body: { code: "FORBIDDEN" } });
  });

  it("with a token, a socket without it is refused 401 and one with it (header or subprotocol) is accepted", async () => {
    const harness = await startOnSharedEditor({ token: "s3cret" });
    expect(await refusedUpgrade(harness.bridge.wsUrl)).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED" } });
    const wrong = await refusedUpgrade(harness.bridge.wsUrl, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    const viaHeader = await harness.connect("/ws", { headers: { authorization: "Bearer s3cret" } });
    expect(viaHeader.hello.resumed).toBe(false);
    const viaProtocol = await TestClient.open(harness.bridge.wsUrl, { protocols: ["bridge.v1", "bearer.s3cret"] });
    expect(viaProtocol.ws.protocol).toBe("bridge.v1");
    await viaProtocol.close();
  });
});

describe("client limit", () => {
  it("at maxClients the longest-detached client makes room; with none detached new sockets are refused", async () => {
    const harness = await startOnSharedEditor({ limits: { maxClients: 2 } });
    const a = await harness.connect();
    const b = await harness.connect();
    expect(await refusedUpgrade(harness.bridge.wsUrl)).toMatchObject({ status: 503, body: { code: "HOST_BUSY" } });
    await a.close();
    await waitForClient(b, a.hello.clientId, "detached");
    const c = await harness.connect();
    expect(c.hello.resumed).toBe(false);
    const again = await harness.connect(`/ws?resume=${a.hello.clientId}`).catch(() => undefined);
    expect(again).toBeUndefined(); // a was disposed for c, and the bridge is full again
    expect((await b.send("getServerInfo")).ok).toBe(true);
  });
});
