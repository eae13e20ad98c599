import { describe, expect, it } from "vitest";
import { clientIdPrefix } from "../../src/actors/clients/names.js";
import { CLOSE_CODES, ERROR_RULES, METHOD_SCHEMAS, MIN_CLIENT_ID_PREFIX_CHARS, ProtocolErrorSchema } from "../../src/protocol/index.js";
import { connect, record, waitForServerState } from "../client/_support.js";
import type { Harness } from "../helpers/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { waitForClient, type TestClient } from "../helpers/ws-client.js";
import { TRANSPORTS, type Outcome } from "./_transports.js";

const METHOD = "server:disconnectClient";

function expectResult(outcome: Outcome): { client: { idPrefix: string; name?: string; state: string }; disconnected: boolean; evicted: boolean } {
  expect(outcome.error).toBeUndefined();
  expect(METHOD_SCHEMAS[METHOD].result.safeParse(outcome.result).success).toBe(true);
  return outcome.result as never;
}

function expectError(outcome: Outcome, code: "NOT_FOUND" | "BAD_REQUEST"): Record<string, unknown> {
  expect(outcome.ok).toBe(false);
  expect(ProtocolErrorSchema.safeParse(outcome.error).success).toBe(true);
  expect(outcome.error?.code).toBe(code);
  if (outcome.status !== undefined) expect(outcome.status).toBe(ERROR_RULES[code].status);
  return outcome.error?.details ?? {};
}

/** A client that the operator acts on, and a second one that watches `server:clients`. */
async function victimAndObserver(harness: Harness, name: string): Promise<{ victim: TestClient; observer: TestClient }> {
  const [victim, observer] = await Promise.all([harness.connect(`/ws?name=${name}`), harness.connect("/ws?name=observer")]);
  return { victim, observer };
}

describe.each(TRANSPORTS)("server:disconnectClient over $name", ({ make }) => {
  it("closes the client's socket with 4010 and keeps the logical client, which resumes", async () => {
    const harness = await startOnSharedEditor();
    const t = await make(harness);
    const { victim, observer } = await victimAndObserver(harness, "victim");
    const id = victim.hello.clientId;
    // The prefix as server:clients shows it, in any case.
    const answer = expectResult(await t.call(METHOD, { clientIdPrefix: clientIdPrefix(id).toUpperCase() }));
    expect(answer).toMatchObject({ client: { idPrefix: clientIdPrefix(id), name: "victim", state: "attached" }, disconnected: true, evicted: false });
    expect(await victim.closed).toEqual({ code: CLOSE_CODES.DISCONNECTED, reason: "disconnected by an operator" });
    await waitForClient(observer, id, "detached");
    const back = await harness.connect(`/ws?resume=${id}`);
    expect(back.hello).toMatchObject({ clientId: id, resumed: true });
  });

  it("with evict: true disposes the logical client and closes its socket with 4410; a resume starts a new client", async () => {
    const harness = await startOnSharedEditor();
    const t = await make(harness);
    const { victim, observer } = await victimAndObserver(harness, "evicted");
    const id = victim.hello.clientId;
    const answer = expectResult(await t.call(METHOD, { clientIdPrefix: clientIdPrefix(id), evict: true }));
    expect(answer).toMatchObject({ client: { idPrefix: clientIdPrefix(id), name: "evicted" }, disconnected: true, evicted: true });
    expect(await victim.closed).toEqual({ code: CLOSE_CODES.EVICTED, reason: "evicted by an operator" });
    await waitForClient(observer, id, "disposed");
    const again = await harness.connect(`/ws?resume=${id}`);
    expect(again.hello.resumed).toBe(false);
    expect(again.hello.clientId).not.toBe(id);
  });

  it("a detached client has no socket to close; evicting it disposes it at once instead of after the resume TTL", async () => {
    const harness = await startOnSharedEditor();
    const t = await make(harness);
    const { victim, observer } = await victimAndObserver(harness, "away");
    const id = victim.hello.clientId;
    await victim.close(1001);
    await waitForClient(observer, id, "detached");
    const kept = expectResult(await t.call(METHOD, { clientIdPrefix: clientIdPrefix(id) }));
    expect(kept).toMatchObject({ client: { state: "detached" }, disconnected: false, evicted: false });
    const gone = expectResult(await t.call(METHOD, { clientIdPrefix: id, evict: true }));
    expect(gone).toMatchObject({ client: { idPrefix: clientIdPrefix(id), state: "detached" }, disconnected: false, evicted: true });
    await waitForClient(observer, id, "disposed");
  });

  it("an unknown prefix answers NOT_FOUND; one too short or not of hex digits BAD_REQUEST; nothing is disconnected", async () => {
    const harness = await startOnSharedEditor();
    const t = await make(harness);
    const client = await harness.connect("/ws?name=bystander");
    const id = client.hello.clientId;
    // The client's own id with its last digit changed: no client's.
    const unknown = `${id.slice(0, -1)}${id.endsWith("0") ? "1" : "0"}`;
    expect(expectError(await t.call(METHOD, { clientIdPrefix: unknown }), "NOT_FOUND")).toEqual({ clientIdPrefix: unknown });
    for (const bad of [id.slice(0, MIN_CLIENT_ID_PREFIX_CHARS - 1), "client:1"]) {
      const details = expectError(await t.call(METHOD, { clientIdPrefix: bad }), "BAD_REQUEST");
      expect(details["issues"]).toEqual([expect.objectContaining({ path: "clientIdPrefix" })]);
    }
    expect(client.ws.readyState).toBe(client.ws.OPEN);
    expect((await client.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
  });
});

describe("server:disconnectClient and the SDK", () => {
  it("a disconnected Connection resumes by itself; an evicted one ends instead of starting a new client", async () => {
    const harness = await startOnSharedEditor();
    const operator = connect(harness.bridge.url, { name: "operator" });
    const victim = connect(harness.bridge.url, { name: "victim" });
    const opened = record(victim, "$open");
    const closes = record(victim, "$close");
    const id = (await victim.ready()).clientId;
    await operator.server.disconnectClient({ clientIdPrefix: clientIdPrefix(id) });
    expect(await closes.nth(1)).toMatchObject({ code: CLOSE_CODES.DISCONNECTED, willReconnect: true });
    expect(await opened.nth(2)).toMatchObject({ clientId: id, resumed: true });
    await waitForServerState(operator, id, "attached");
    await operator.server.disconnectClient({ clientIdPrefix: clientIdPrefix(id), evict: true });
    expect(await closes.nth(2)).toMatchObject({ code: CLOSE_CODES.EVICTED, willReconnect: false });
    await expect(victim.document.current()).rejects.toMatchObject({ code: "CONNECTION_LOST" });
    await waitForServerState(operator, id, "disposed");
    expect(opened.list).toHaveLength(2);
  });
});
