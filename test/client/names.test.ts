import { describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { clientIdPrefix } from "../../src/actors/clients/names.js";
import { CLOSE_CODES, MAX_CLIENT_NAME_LENGTH } from "../../src/protocol/constants.js";
import { startBridge } from "../helpers/bridge.js";
import { connect, onCleanup, record } from "./_support.js";

const HELLO = { protocolVersion: 1, server: { name: "fake", version: "0" } };

/** A stand-in bridge that records each upgrade's query and lets the test answer each socket. */
async function fakeBridge(answer: (ws: WebSocket, nth: number) => void): Promise<{ url: string; queries: Array<Record<string, string>> }> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  onCleanup(() => new Promise<void>((resolve) => wss.close(() => resolve())));
  const queries: Array<Record<string, string>> = [];
  wss.on("connection", (ws, req) => {
    queries.push(Object.fromEntries(new URL(req.url ?? "/", "ws://fake").searchParams));
    answer(ws, queries.length);
  });
  return { url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}/ws`, queries };
}

describe("the name option", () => {
  it("is sent as ?name= on the first connect and on every resume", async () => {
    const fake = await fakeBridge((ws, nth) => {
      ws.send(JSON.stringify({ type: "connected", data: { clientId: "c1", resumed: nth > 1, ...HELLO } }));
      if (nth === 1) ws.close(1012, "restart"); // after the handshake: the client reconnects and resumes
    });
    const client = connect(fake.url, { name: "build agent/7" });
    await record(client, "$open").nth(2);
    expect(fake.queries).toEqual([{ name: "build agent/7", binary: "1" }, { resume: "c1", name: "build agent/7", binary: "1" }]);
  });

  it("shows up in server:clients beside the id prefix", async () => {
    const harness = await startBridge();
    const client = connect(harness.bridge.url, { name: "sdk-worker" });
    const { clientId } = await client.ready();
    const observer = connect(harness.bridge.url);
    const { clients } = await observer.server.clients();
    expect(clients.find((c) => c.idPrefix === clientIdPrefix(clientId))).toMatchObject({ name: "sdk-worker", state: "attached" });
    expect(JSON.stringify(clients)).not.toContain(clientId);
  });

  it.each([
    ["too long", "x".repeat(MAX_CLIENT_NAME_LENGTH + 1), /1 to 64 characters/],
    ["empty", "", /1 to 64 characters/],
    ["with a control character", "tab\there", /printable/],
  ])("a name that is %s throws a TypeError at once", (_, name, rule) => {
    expect(() => connect("http://127.0.0.1:1", { name })).toThrow(TypeError);
    expect(() => connect("http://127.0.0.1:1", { name })).toThrow(rule);
  });
});

describe("a resume refused with CLIENT_ATTACHED", () => {
  it.each([CLOSE_CODES.CLIENT_ATTACHED, 1000])("ends the connection instead of reconnecting (close %i after the error event)", async (closeCode) => {
    const fake = await fakeBridge((ws, nth) => {
      if (nth === 1) {
        ws.send(JSON.stringify({ type: "connected", data: { clientId: "c1", resumed: false, ...HELLO } }));
        ws.close(1012, "restart");
        return;
      }
      const error = { code: "CLIENT_ATTACHED", message: "attached elsewhere", retryable: false, source: "bridge" };
      ws.send(JSON.stringify({ type: "error", data: error }));
      ws.close(closeCode, "CLIENT_ATTACHED");
    });
    const client = connect(fake.url);
    const closes = record(client, "$close");
    const reconnects = record(client, "$reconnecting");
    await client.ready();
    expect(await closes.nth(2)).toMatchObject({ code: closeCode, willReconnect: false });
    expect(closes.list[0]).toMatchObject({ code: 1012, willReconnect: true });
    expect(client.state).toBe("closed");
    expect(reconnects.list).toHaveLength(1);
    expect(fake.queries).toHaveLength(2);
    await expect(client.getServerInfo()).rejects.toMatchObject({ code: "CLIENT_ATTACHED", retryable: false });
  });

  it("with takeover=0 in the URL, ready() rejects with the bridge's CLIENT_ATTACHED and the owner keeps its socket", async () => {
    const harness = await startBridge();
    const owner = connect(harness.bridge.url, { name: "owner" });
    const { clientId } = await owner.ready();
    const ownerCloses = record(owner, "$close");
    const second = connect(`${harness.bridge.wsUrl}?resume=${clientId}&takeover=0`);
    const reconnects = record(second, "$reconnecting");
    await expect(second.ready()).rejects.toMatchObject({ code: "CLIENT_ATTACHED", retryable: false });
    expect(second.state).toBe("closed");
    expect(reconnects.list).toEqual([]);
    expect((await owner.getServerInfo()).name).toBe("image-editor-bridge");
    expect(owner.state).toBe("open");
    expect(ownerCloses.list).toEqual([]);
  });
});
