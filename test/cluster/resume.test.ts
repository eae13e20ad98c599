import { connect, type NatsConnection } from "@nats-io/transport-node";
import { Kvm, type KV } from "@nats-io/kv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionKey, type SessionRecord } from "../../src/cluster/sessions.js";
import { startSuiteBridge } from "../helpers/bridge.js";
import { startBridgeProcess } from "../helpers/bridge-process.js";
import { hasNatsServer, startNatsServer, type NatsServer } from "../helpers/nats-server.js";
import { TestClient, type Frame } from "../helpers/ws-client.js";
import { seesReadyPeers, untilCluster } from "../helpers/until.js";

const CLUSTER = "t5";
// Fast heartbeats and session writes for a test.
const limits = { clusterHeartbeatMs: 100, clusterMemberTtlMs: 2_000, clusterReconnectWaitMs: 100, clusterSessionSyncMs: 50 };

type Suite = Awaited<ReturnType<typeof startSuiteBridge>>;

/** Reads `/status` until the bridge at `url` lists `bridges` as peers with ready editors. */
const seesPeers = (url: string, bridges: string[]) => untilCluster(url, (cluster) => seesReadyPeers(cluster, bridges), `peers ${bridges.join(", ")}`);

const selectionX = (frame: Frame): number => (frame.data as { x: number }).x;

describe.skipIf(!hasNatsServer)("a cluster of bridges over NATS: logical clients outlive their bridge", () => {
  let nats: NatsServer;
  let b: Suite;
  let c: Suite;
  let nc: NatsConnection;
  let sessions: KV;

  /** Waits until the cluster's copy of a client's session says `check` (read from the bucket, no sleeps). */
  async function recorded(clientId: string, check: (record: SessionRecord) => boolean): Promise<SessionRecord> {
    for (;;) {
      const entry = await sessions.get(sessionKey(clientId));
      if (entry?.operation === "PUT") {
        const record = JSON.parse(entry.string()) as SessionRecord;
        if (check(record)) return record;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  beforeAll(async () => {
    nats = await startNatsServer();
    b = await startSuiteBridge({ cluster: { servers: [nats.url], name: CLUSTER, bridge: "b" }, limits });
    c = await startSuiteBridge({ cluster: { servers: [nats.url], name: CLUSTER, bridge: "c" }, limits });
    await seesPeers(b.bridge.url, ["c"]);
    await seesPeers(c.bridge.url, ["b"]);
    nc = await connect({ servers: nats.url });
    sessions = await new Kvm(nc).open(`${CLUSTER}-sessions`);
  });
  afterAll(async () => {
    await nc?.close();
    await b?.close();
    await c?.close();
    await nats?.stop();
  });

  it("A is killed: its client resumes on C with the events it missed, their seq following on, then live ones", async () => {
    const a = await startBridgeProcess({ args: ["--cluster", nats.url, "--cluster-name", CLUSTER, "--cluster-bridge", "a"], limits });
    try {
      await seesPeers(c.bridge.url, ["a"]);
      const watcher = await TestClient.open(`${a.wsUrl}?editor=embedded-1@b`);
      const id = watcher.hello.clientId;
      await watcher.call("event:subscribe", { type: "selection:changed" });
      const onB = await b.connect("/ws?editor=embedded-1@b");
      await onB.call("selection:set", { rect: { x: 10, y: 1, width: 5, height: 5 } });
      const first = await watcher.next((f) => f.type === "selection:changed");
      expect(first).toMatchObject({ seq: 1 });
      // The cluster's copy says the event reached the client (it is written within clusterSessionSyncMs).
      const before = await recorded(id, (r) => r.seq === 1 && Object.keys(r.cursors).length === 1);
      expect(before).toMatchObject({ bridge: "a", editor: "embedded-1@b", subscriptions: ["selection:changed"], attached: true });
      expect(JSON.stringify(before)).not.toContain(id);

      process.kill(a.pid, "SIGKILL");
      await watcher.closed;
      // Missed while no bridge had the client.
      for (const x of [20, 21]) await onB.call("selection:set", { rect: { x, y: 1, width: 5, height: 5 } });

      const resumed = await c.connect(`/ws?resume=${id}`);
      expect(resumed.hello).toMatchObject({ clientId: id, resumed: true, replayed: 2, lost: 0 });
      const replayed = [await resumed.nth((f) => f.type === "selection:changed", 1), await resumed.nth((f) => f.type === "selection:changed", 2)];
      expect(replayed.map(selectionX)).toEqual([20, 21]);
      expect(replayed.map((f) => f.seq)).toEqual([2, 3]);
      // The subscription is C's now: B's next change arrives live, seq 4; the client's editor is still B's.
      await onB.call("selection:set", { rect: { x: 22, y: 1, width: 5, height: 5 } });
      const live = await resumed.nth((f) => f.type === "selection:changed", 3);
      expect([selectionX(live), live.seq]).toEqual([22, 4]);
      expect((await resumed.call<{ editorId: string }>("document:current")).editorId).toBe("embedded-1@b");
      await recorded(id, (r) => r.bridge === "c" && r.seq === 4);
    } finally {
      await a.stop();
    }
  });

  it("a client whose editor died with its bridge resumes on another editor, told by editor:changed after its replay", async () => {
    const a = await startBridgeProcess({ args: ["--cluster", nats.url, "--cluster-name", CLUSTER, "--cluster-bridge", "a2"], limits });
    try {
      await seesPeers(c.bridge.url, ["a2"]);
      const client = await TestClient.open(`${a.wsUrl}?editor=embedded-1@a2`);
      const id = client.hello.clientId;
      await client.call("event:subscribe", { type: "selection:changed" });
      await client.call("selection:set", { rect: { x: 5, y: 5, width: 5, height: 5 } });
      await client.next((f) => f.type === "selection:changed");
      await recorded(id, (r) => r.seq === 1);
      process.kill(a.pid, "SIGKILL");
      await client.closed;

      const resumed = await c.connect(`/ws?resume=${id}`);
      expect(resumed.hello).toMatchObject({ resumed: true, replayed: 1, lost: 0 });
      const moved = await resumed.next((f) => f.type === "editor:changed");
      expect(moved).toMatchObject({ seq: 2, data: { from: "embedded-1@a2", reason: "bridge-gone", bridge: "a2" } });
      const to = (moved.data as { to: string }).to;
      expect(["embedded-1@b", "embedded-1@c"]).toContain(to);
      // Its subscription follows it to the new editor.
      await resumed.call("selection:set", { rect: { x: 7, y: 7, width: 5, height: 5 } });
      expect(selectionX(await resumed.next((f) => f.type === "selection:changed"))).toBe(7);
    } finally {
      await a.stop();
    }
  });

  it("resuming on C a client B holds: B hands it over exactly (frames kept while detached), a socket still on B is closed with 4009", async () => {
    const client = await b.connect("/ws?editor=embedded-1@b");
    const id = client.hello.clientId;
    await client.call("event:subscribe", { type: "selection:changed" });
    const onB = await b.connect("/ws?editor=embedded-1@b");
    await recorded(id, (r) => r.subscriptions.length === 1);
    // Detached on B (not disposed): B keeps what arrives for it.
    await client.close(1001);
    await onB.call("selection:set", { rect: { x: 30, y: 3, width: 5, height: 5 } });
    await recorded(id, (r) => !r.attached);
    const onC = await c.connect(`/ws?resume=${id}`);
    expect(onC.hello).toMatchObject({ clientId: id, resumed: true, replayed: 1, lost: 0 });
    expect(await onC.next((f) => f.type === "selection:changed")).toMatchObject({ seq: 1, data: { x: 30 } });

    // Attached on C now; takeover=0 from B is refused, a plain resume on B takes it back and closes C's socket with 4009.
    await recorded(id, (r) => r.bridge === "c" && r.attached);
    const refused = await b.connect(`/ws?resume=${id}&takeover=0`);
    expect(await refused.closed).toMatchObject({ code: 4409 });
    const back = await b.connect(`/ws?resume=${id}`);
    expect(back.hello).toMatchObject({ clientId: id, resumed: true, replayed: 0 });
    expect(await onC.closed).toMatchObject({ code: 4009 });
    await onB.call("selection:set", { rect: { x: 31, y: 3, width: 5, height: 5 } });
    expect(await back.next((f) => f.type === "selection:changed")).toMatchObject({ seq: 2, data: { x: 31 } });
  });

  it("a bridge that is stopped (a rolling restart) leaves its clients resumable on the others, nothing replayed twice", async () => {
    const d = await startSuiteBridge({ cluster: { servers: [nats.url], name: CLUSTER, bridge: "d" }, limits });
    await seesPeers(d.bridge.url, ["b", "c"]);
    const client = await d.connect("/ws?editor=embedded-1@b");
    const id = client.hello.clientId;
    await client.call("event:subscribe", { type: "selection:changed" });
    const onB = await b.connect("/ws?editor=embedded-1@b");
    await onB.call("selection:set", { rect: { x: 50, y: 5, width: 5, height: 5 } });
    await client.next((f) => f.type === "selection:changed");
    // The bridge itself shuts down (its sockets closed with 1001, going away), as on SIGTERM.
    await d.bridge.close();
    expect(await client.closed).toMatchObject({ code: 1001 });
    await onB.call("selection:set", { rect: { x: 51, y: 5, width: 5, height: 5 } });
    const resumed = await c.connect(`/ws?resume=${id}`);
    expect(resumed.hello).toMatchObject({ clientId: id, resumed: true, replayed: 1, lost: 0 });
    expect(await resumed.next((f) => f.type === "selection:changed")).toMatchObject({ seq: 2, data: { x: 51 } });
  });

  it("an id no bridge knows starts a new client; a client closed with 4000 is gone from the cluster too", async () => {
    const fresh = await c.connect("/ws?resume=00000000-0000-4000-8000-000000000000");
    expect(fresh.hello.resumed).toBe(false);
    const client = await b.connect();
    const id = client.hello.clientId;
    await recorded(id, () => true);
    await client.close(4000);
    for (;;) {
      const entry = await sessions.get(sessionKey(id));
      if (entry === null || entry.operation !== "PUT") break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const again = await c.connect(`/ws?resume=${id}`);
    expect(again.hello).toMatchObject({ resumed: false });
    expect(again.hello.clientId).not.toBe(id);
  });
});
