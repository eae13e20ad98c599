import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { WebSocket, type RawData } from "ws";
import { CLIENT_ID_PREFIX_LENGTH, clientIdPrefix } from "../../src/actors/clients/names.js";
import { CLOSE_CODES } from "../../src/protocol/index.js";
import { ErrorEventDataSchema, METHOD_SCHEMAS } from "../../src/protocol/index.js";
import { MAX_CLIENT_NAME_LENGTH } from "../../src/protocol/index.js";
import type { Harness } from "../helpers/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { FaultHost } from "../helpers/fault-host.js";
import { refusedUpgrade, type TestClient, waitForClient } from "../helpers/ws-client.js";

const rect = { x: 1, y: 2, width: 3, height: 4 };
const STATS_PLUGIN = fileURLToPath(new URL("../plugins/fixtures/stats", import.meta.url));

interface Summary {
  idPrefix: string;
  name?: string;
  endpoint: string;
  state: string;
  subscriptions: string[];
  inFlight: number;
  connectedAt: number;
}

let listCalls = 0;

/** Asks `server:clients` and keeps the response frame's text exactly as it crossed the wire. */
async function listClients(observer: TestClient): Promise<{ text: string; clients: Summary[] }> {
  const id = `list-${++listCalls}`;
  const texts: string[] = [];
  const onMessage = (data: RawData): void => void texts.push(String(data));
  observer.ws.on("message", onMessage);
  const frame = await observer.send("server:clients", undefined, id);
  observer.ws.off("message", onMessage);
  expect(frame.ok).toBe(true);
  const text = texts.find((t) => t.includes(`"id":"${id}"`))!;
  return { text, clients: (frame.result as { clients: Summary[] }).clients };
}

async function entryOf(observer: TestClient, clientId: string): Promise<Summary | undefined> {
  return (await listClients(observer)).clients.find((c) => c.idPrefix === clientIdPrefix(clientId));
}

/** The owner still holds its socket: it answers requests and receives its events. */
async function expectOwnerWorks(owner: TestClient, other: TestClient, events: number): Promise<void> {
  expect(owner.ws.readyState).toBe(WebSocket.OPEN);
  expect((await owner.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
  await other.call("selection:set", { rect: { ...rect, x: events } });
  expect((await owner.nth((f) => f.type === "selection:changed", events)).data).toEqual({ ...rect, x: events });
  expect(owner.ws.readyState).toBe(WebSocket.OPEN);
}

describe("server:clients shows no resumable id", () => {
  it("lists each client by an 8-character id prefix and the name it gave; no full id is in the response", async () => {
    const harness = await startOnSharedEditor();
    const owner = await harness.connect(`/ws?name=${encodeURIComponent("thumbnailer@build-7")}`);
    const agent = await harness.connect(`/ws?name=${encodeURIComponent("agent \u{1F916}")}`);
    const observer = await harness.connect();
    const { text, clients } = await listClients(observer);
    expect(METHOD_SCHEMAS["server:clients"].result.safeParse({ clients }).success).toBe(true);
    expect(CLIENT_ID_PREFIX_LENGTH).toBe(8);
    for (const client of [owner, agent, observer]) {
      expect(text).not.toContain(client.hello.clientId);
      expect(text).toContain(`"idPrefix":"${client.hello.clientId.slice(0, 8)}"`);
    }
    expect(text).not.toContain("clientId");
    expect(clients.map((c) => [c.idPrefix, c.name])).toEqual([
      [clientIdPrefix(owner.hello.clientId), "thumbnailer@build-7"],
      [clientIdPrefix(agent.hello.clientId), "agent \u{1F916}"],
      [clientIdPrefix(observer.hello.clientId), undefined],
    ]);
    expect(Object.keys(clients[2]!)).not.toContain("name");
  });

  it("nothing taken from a listed entry resumes its client: each try is a new client and the owner keeps working", async () => {
    const harness = await startOnSharedEditor();
    const owner = await harness.connect("/ws?name=owner");
    await owner.call("event:subscribe", { type: "selection:changed" });
    const observer = await harness.connect("/ws?name=observer");
    const { clients } = await listClients(observer);
    const known = new Set([owner.hello.clientId, observer.hello.clientId]);
    const derived = clients.flatMap((c) => [
      c.idPrefix,
      c.idPrefix.toUpperCase(),
      `${c.idPrefix}-`,
      `client:${c.idPrefix}`,
      c.name ?? "",
      `${c.name}:${c.idPrefix}`,
      c.endpoint,
      ...c.subscriptions,
      String(c.connectedAt),
      JSON.stringify(c),
    ]);
    const tries = [...new Set(derived)];
    expect(tries.length).toBeGreaterThan(10);
    for (const candidate of tries) {
      const stranger = await harness.connect(`/ws?resume=${encodeURIComponent(candidate)}`);
      expect(stranger.hello.resumed).toBe(false);
      expect(known.has(stranger.hello.clientId)).toBe(false);
      known.add(stranger.hello.clientId);
    }
    await expectOwnerWorks(owner, observer, 1);
    expect(await entryOf(observer, owner.hello.clientId)).toMatchObject({ state: "attached", name: "owner", subscriptions: ["selection:changed"] });
  });
});

describe("takeover=0", () => {
  it.each(["0", "false"])("takeover=%s against an attached client is refused with CLIENT_ATTACHED and close 4409; the owner is untouched", async (value) => {
    const harness = await startOnSharedEditor();
    const owner = await harness.connect("/ws?name=owner");
    await owner.call("event:subscribe", { type: "selection:changed" });
    const observer = await harness.connect();
    const id = owner.hello.clientId;
    const refused = await harness.connect(`/ws?resume=${id}&takeover=${value}&name=thief`);
    expect(refused.frames[0]).toMatchObject({ type: "error", data: { code: "CLIENT_ATTACHED", retryable: false } });
    expect(ErrorEventDataSchema.safeParse(refused.frames[0]!.data).success).toBe(true);
    expect((await refused.closed).code).toBe(CLOSE_CODES.CLIENT_ATTACHED);
    expect(CLOSE_CODES.CLIENT_ATTACHED).toBe(4409);
    expect(refused.events("connected")).toEqual([]);
    expect(JSON.stringify(refused.frames)).not.toContain(id);
    await expectOwnerWorks(owner, observer, 1);
    // A refused resume changes nothing, not even the name.
    expect(await entryOf(observer, id)).toMatchObject({ state: "attached", name: "owner" });
  });

  it("takeover=0 resumes a detached client normally, and the name is kept across the resume", async () => {
    const harness = await startOnSharedEditor();
    const first = await harness.connect("/ws?name=owner");
    await first.call("event:subscribe", { type: "selection:changed" });
    const id = first.hello.clientId;
    await first.close();
    const observer = await harness.connect();
    await waitForClient(observer, id, "detached");
    await observer.call("selection:set", { rect });
    const resumed = await harness.connect(`/ws?resume=${id}&takeover=0`);
    expect(resumed.hello).toMatchObject({ clientId: id, resumed: true, replayed: 1 });
    expect(await entryOf(observer, id)).toMatchObject({ state: "attached", name: "owner" });
  });

  it.each(["", "&takeover=1", "&takeover=true"])("a resume with %s still takes over: the old socket is closed with 4009", async (query) => {
    const harness = await startOnSharedEditor();
    const first = await harness.connect("/ws?name=before");
    const observer = await harness.connect();
    const second = await harness.connect(`/ws?resume=${first.hello.clientId}${query}&name=after`);
    expect((await first.closed).code).toBe(CLOSE_CODES.TAKEN_OVER);
    expect(second.hello).toMatchObject({ clientId: first.hello.clientId, resumed: true });
    // A resume that passes a name replaces the old one.
    expect(await entryOf(observer, first.hello.clientId)).toMatchObject({ state: "attached", name: "after" });
  });

  it.each(["yes", "", "2", "off"])("takeover=%s is refused at upgrade with 400 BAD_REQUEST", async (value) => {
    const harness = await startOnSharedEditor();
    const owner = await harness.connect();
    const refused = await refusedUpgrade(`${harness.bridge.wsUrl}?resume=${owner.hello.clientId}&takeover=${value}`);
    expect(refused).toMatchObject({ status: 400, body: { code: "BAD_REQUEST", details: { param: "takeover" } } });
    expect(refused.body.message).toMatch(/takeover must be 0, 1, false or true/);
    expect(owner.ws.readyState).toBe(WebSocket.OPEN);
  });
});

describe("client names", () => {
  const refusedNames: Array<[string, string, RegExp]> = [
    ["too long", "x".repeat(MAX_CLIENT_NAME_LENGTH + 1), /1 to 64 characters/],
    ["empty", "", /1 to 64 characters/],
    ["NUL", "a\u0000b", /printable/],
    ["newline", "forged\nline", /printable/],
    ["ANSI escape", "\u001b[31mred", /printable/],
    ["bidi override", "\u202Eevil", /printable/],
  ];

  it.each(refusedNames)("a name that is %s is refused at upgrade with 400 BAD_REQUEST naming the rule", async (_, name, rule) => {
    const harness = await startOnSharedEditor({ plugins: [STATS_PLUGIN] });
    for (const path of ["/ws", "/ws/stats"]) {
      const refused = await refusedUpgrade(`ws://127.0.0.1:${harness.bridge.port}${path}?name=${encodeURIComponent(name)}`);
      expect(refused).toMatchObject({ status: 400, body: { code: "BAD_REQUEST", details: { param: "name" } } });
      expect(refused.body.message).toMatch(rule);
    }
  });

  it("names up to 64 characters (emoji count as one) are accepted, on the root and on plugin endpoints", async () => {
    const harness = await startOnSharedEditor({ plugins: [STATS_PLUGIN] });
    const longest = "n".repeat(MAX_CLIENT_NAME_LENGTH);
    const emoji = "\u{1F600}".repeat(MAX_CLIENT_NAME_LENGTH);
    const root = await harness.connect(`/ws?name=${longest}`);
    const plugin = await harness.connect(`/ws/stats?name=${encodeURIComponent(emoji)}`);
    const observer = await harness.connect();
    expect(await entryOf(observer, root.hello.clientId)).toMatchObject({ endpoint: "root", name: longest });
    expect(await entryOf(observer, plugin.hello.clientId)).toMatchObject({ endpoint: "stats", name: emoji });
  });
});

/** A bridge whose log lines are kept as text, exactly as they would be written. */
async function loggedBridge(options: Parameters<typeof startOnSharedEditor>[0] = {}): Promise<{ harness: Harness; lines: string[] }> {
  const lines: string[] = [];
  const logger = pino({ level: "trace" }, { write: (line: string) => void lines.push(line) });
  return { harness: await startOnSharedEditor({ ...options, logger }), lines };
}

function linesOf(lines: string[], prefix: string): string[] {
  return lines.map((l) => JSON.parse(l) as { actor?: string; msg: string }).filter((l) => l.actor === `client:${prefix}`).map((l) => l.msg);
}

describe("logs name clients by prefix", () => {
  it("the full id never appears in a log line while a client connects, calls, fails, is refused, disconnects and is disposed", async () => {
    const host = new FaultHost();
    const { harness, lines } = await loggedBridge({ host });
    const observer = await harness.connect();
    const client = await harness.connect("/ws?name=logged");
    const id = client.hello.clientId;
    await client.call("getServerInfo");
    await client.call("document:current");
    expect((await client.send("layer:getInfoById", { layerId: "nope" })).error?.code).toBe("BAD_REQUEST");
    expect((await client.send("no:such-method")).error?.code).toBe("UNKNOWN_METHOD");
    host.inject({ kind: "throw", value: new Error("editor exploded") });
    expect((await client.send("document:current")).error?.code).toBe("INTERNAL");
    client.sendRaw("{not json");
    await client.next((f) => f.type === "error");
    const refused = await harness.connect(`/ws?resume=${id}&takeover=0`);
    await refused.closed;
    await client.close();
    await waitForClient(observer, id, "detached");
    const back = await harness.connect(`/ws?resume=${id}`);
    await back.close(CLOSE_CODES.DISPOSE);
    await waitForClient(observer, id, "disposed");

    for (const line of lines) expect(line).not.toContain(id);
    expect(linesOf(lines, clientIdPrefix(id))).toEqual(
      expect.arrayContaining([
        "client connected",
        "call failed",
        "call failed with an internal error",
        "resume refused: the client is attached and takeover=0",
        "client socket closed",
        "client disposed",
      ]),
    );
    expect(lines.some((l) => l.includes('"name":"logged"'))).toBe(true);
  });

  it("a client evicted at maxClients is logged by prefix too", async () => {
    const { harness, lines } = await loggedBridge({ limits: { maxClients: 2 } });
    const evicted = await harness.connect();
    const observer = await harness.connect();
    await evicted.close();
    await waitForClient(observer, evicted.hello.clientId, "detached");
    await harness.connect();
    await waitForClient(observer, evicted.hello.clientId, "disposed");
    for (const line of lines) expect(line).not.toContain(evicted.hello.clientId);
    expect(linesOf(lines, clientIdPrefix(evicted.hello.clientId))).toEqual(
      expect.arrayContaining(["client limit reached: disposing the longest-detached client", "client disposed"]),
    );
  });
});
