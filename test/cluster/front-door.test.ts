import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseServeArgs } from "../../src/cli/args.js";
import type { Readiness } from "../../src/protocol/index.js";
import { startBridge, startSuiteBridge } from "../helpers/bridge.js";
import { hasNatsServer, startNatsServer, type NatsServer } from "../helpers/nats-server.js";
import { untilCluster } from "../helpers/until.js";

const CLUSTER = "t6";
const limits = { clusterHeartbeatMs: 100, clusterMemberTtlMs: 2_000, clusterReconnectWaitMs: 100 };

type Suite = Awaited<ReturnType<typeof startSuiteBridge>>;

const until = untilCluster;

const readiness = async (url: string): Promise<Readiness> => (await (await fetch(`${url}/ready`)).json()) as Readiness;

describe("a front door (--editors 0) needs a cluster", () => {
  it("is refused without one, on the command line and by createBridge", async () => {
    expect(() => parseServeArgs(["serve", "--editors", "0"], {})).toThrow(/--editors 0 .* needs --cluster/);
    expect(parseServeArgs(["serve", "--editors", "0", "--cluster", "nats://127.0.0.1:4222"], {})).toMatchObject({ editors: 0 });
    await expect(startBridge({ editors: 0 })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/front door .* only in a cluster/) });
  });
});

describe.skipIf(!hasNatsServer)("a cluster of bridges over NATS: a front door with no editor of its own", () => {
  let nats: NatsServer;
  let b: Suite;
  let front: Suite;

  beforeAll(async () => {
    nats = await startNatsServer();
    b = await startSuiteBridge({ cluster: { servers: [nats.url], name: CLUSTER, bridge: "b" }, limits });
    front = await startSuiteBridge({ editors: 0, cluster: { servers: [nats.url], name: CLUSTER, bridge: "front" }, limits });
    await until(front.bridge.url, (c) => c.peers.some((p) => p.bridge === "b" && p.editors.every((e) => e.state === "ready") && p.editors.length > 0));
  });
  afterAll(async () => {
    await front?.close();
    await b?.close();
    await nats?.stop();
  });

  it("lists no editor of its own, places its clients on other bridges' editors, and forwards every call", async () => {
    const client = await front.connect();
    const info = await client.call<{ editor: string; editors: unknown[]; cluster: { editors: Array<{ id: string }> } }>("getServerInfo");
    expect(info.editor).toBe("none");
    expect(info.editors).toEqual([]);
    expect(info.cluster.editors.map((e) => e.id)).toEqual(["embedded-1@b"]);
    // Its client works with B's editor: documents, events, the cluster-wide list.
    const current = await client.call<{ id: number; editorId: string }>("document:current");
    expect(current.editorId).toBe("embedded-1@b");
    const made = await client.call<{ id: number; editorId: string }>("document:create", { width: 32, height: 32 });
    expect(made.editorId).toBe("embedded-1@b");
    expect((await client.call<Array<{ id: number }>>("document:list")).map((d) => d.id)).toEqual(expect.arrayContaining([current.id, made.id]));
    await client.call("event:subscribe", { type: "selection:changed" });
    await client.call("selection:set", { documentId: made.id, rect: { x: 1, y: 2, width: 3, height: 4 } });
    expect((await client.next((f) => f.type === "selection:changed")).data).toMatchObject({ x: 1, y: 2 });
    // HTTP naming no editor: B's too.
    const created = (await (
      await fetch(`${front.bridge.url}/document/create`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"width":8,"height":8}' })
    ).json()) as { editorId: string };
    expect(created.editorId).toBe("embedded-1@b");
    expect(await readiness(front.bridge.url)).toMatchObject({ status: "ok", editors: { total: 0 } });
  });

  it("with no other bridge's editor left, it is down and its calls answer HOST_UNAVAILABLE (retryable)", async () => {
    const client = await front.connect();
    await b.close();
    await until(front.bridge.url, (c) => c.peers.length === 0);
    const ready = await readiness(front.bridge.url);
    expect(ready.status).toBe("down");
    expect(ready.reasons).toContainEqual(expect.objectContaining({ component: "editors", message: expect.stringMatching(/runs no editor/) }));
    const answer = await client.send("document:current");
    expect(answer.error).toMatchObject({ code: "HOST_UNAVAILABLE", retryable: true });
    const http = await fetch(`${front.bridge.url}/document/current`);
    expect(http.status).toBe(503);
    // A document id of nobody's: not found in the cluster, not "no editor".
    expect((await client.send("document:layers", { documentId: 5_000_000_001 })).error).toMatchObject({ code: "DOCUMENT_NOT_FOUND" });
  });
});
