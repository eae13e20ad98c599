import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { Bucket } from "@nats-io/kv";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { keyOf } from "../../src/cluster/members.js";
import type { Readiness } from "../../src/protocol/index.js";
import { startBridge, startSuiteBridge, type Harness } from "../helpers/bridge.js";
import { hasNatsServer, startNatsServer, type NatsServer } from "../helpers/nats-server.js";
import { clusterOf, until as waitFor, UNTIL_DEADLINE_MS, untilCluster } from "../helpers/until.js";

// Heartbeats fast enough for a test; the members' time to live a few of them.
const limits = { clusterHeartbeatMs: 100, clusterMemberTtlMs: 2_000, clusterReconnectWaitMs: 100, clusterConnectTimeoutMs: 5_000 };

const until = untilCluster;

/**
 * The cases that take NATS away and back wait on the bridges' own views with `until`, whose deadline names what was
 * waited for and the last view: this case timeout is longer than that deadline, so a bridge that never recovers fails
 * with what it showed, not with a bare timeout, and a slow recovery on a loaded machine is not a failure.
 */
const RECOVERY_CASE_TIMEOUT_MS = UNTIL_DEADLINE_MS + 30_000;

const readiness = async (h: Harness): Promise<Readiness> => (await (await h.http("/ready")).json()) as Readiness;

type KeyListing = Awaited<ReturnType<Bucket["keys"]>>;

/** A listing of keys that yields nothing and ends only when stopped. */
function neverEnding(): KeyListing {
  let end: (() => void) | undefined;
  const ended = new Promise<IteratorResult<string>>((resolve) => (end = () => resolve({ done: true, value: undefined })));
  return { [Symbol.asyncIterator]: () => ({ next: () => ended }), stop: () => end?.() } as unknown as KeyListing;
}

describe.skipIf(!hasNatsServer)("a cluster of three bridges over NATS: membership", () => {
  let nats: NatsServer;
  const bridges: Array<Awaited<ReturnType<typeof startSuiteBridge>>> = [];

  beforeAll(async () => {
    nats = await startNatsServer();
  });
  afterAll(async () => {
    await Promise.all(bridges.map((h) => h.close()));
    await nats?.stop();
  });

  it("each bridge claims its own slot, names its editors with its bridge name and sees the others' editors", async () => {
    for (const name of ["a", "b", "c"]) {
      bridges.push(await startSuiteBridge({ cluster: { servers: [nats.url], name: "t1", bridge: name }, limits }));
    }
    const views = await Promise.all(bridges.map((h) => until(h, (cluster) => cluster.peers.length === 2 && cluster.problem === undefined && cluster.peers.every((p) => p.editors.every((e) => e.state === "ready")))));
    expect(new Set(views.map((v) => v.slot)).size).toBe(3);
    for (const [i, view] of views.entries()) {
      const name = ["a", "b", "c"][i]!;
      expect(view).toMatchObject({ name: "t1", bridge: name, state: "connected" });
      expect(view.peers.map((p) => p.bridge).sort()).toEqual(["a", "b", "c"].filter((n) => n !== name));
      for (const peer of view.peers) expect(peer.editors).toEqual([expect.objectContaining({ id: `embedded-1@${peer.bridge}`, kind: "embedded" })]);
    }
    // Editor ids and document ids are unique cluster-wide: each bridge's sample document has an id of its slot's range.
    const documents = await Promise.all(
      bridges.map(async (h) => {
        const client = await h.connect();
        return client.call<{ id: number }>("document:current");
      }),
    );
    for (const [i, { id }] of documents.entries()) {
      expect(Math.floor(id / 1_000_000_000)).toBe(views[i]!.slot);
    }
    expect(new Set(documents.map((d) => d.id)).size).toBe(3);
    // A client may ask for another bridge's editor (its calls and events cross: test/cluster/forwarding.test.ts);
    // what the bridge itself answers comes from the bridge it is connected to.
    const pinned = await bridges[0]!.connect("/ws?editor=embedded-1@c");
    const info = await pinned.call<{ name: string; cluster: { name: string; bridge: string; editors: Array<{ id: string; bridge: string }> } }>("getServerInfo");
    expect(info).toMatchObject({ name: "image-editor-bridge", cluster: { name: "t1", bridge: "a" } });
    expect(info.cluster.editors.map((e) => `${e.id} ${e.bridge}`).sort()).toEqual(["embedded-1@b b", "embedded-1@c c"]);
    // An editor no bridge of the cluster has is refused as on one bridge.
    const unknown = await bridges[0]!.http("/document/current", { headers: { "x-bridge-editor": "embedded-1@nowhere" } });
    expect(await unknown.json()).toMatchObject({ code: "BAD_REQUEST", details: { editor: "embedded-1@nowhere" } });
    for (const h of bridges) expect((await readiness(h)).status).toBe("ok");
  });

  it("a listing of the members that never ends does not hold the heartbeats back: the bridge says so and reads them again", async () => {
    // From the first listing asked for after this point, one bridge's listings never end, as one whose consumer was
    // lost with NATS never did. They keep stalling until the case has seen the bridge say so: a problem a single
    // stalled beat set is cleared by the next beat a heartbeat later, which a poll of three bridges on a loaded
    // machine can miss.
    const keys = Bucket.prototype.keys;
    let stalling: Bucket | undefined;
    let givenUp = false;
    const stalled = vi.spyOn(Bucket.prototype, "keys").mockImplementation(async function (this: Bucket, filter) {
      stalling ??= this;
      if (stalling !== this) return keys.call(this, filter);
      const listing = neverEnding();
      const stop = listing.stop.bind(listing);
      listing.stop = () => {
        givenUp = true;
        stop();
      };
      return listing;
    });
    try {
      // While its listing hangs (before the bridge gives it up), every bridge keeps rewriting its own entry, the
      // stalled one too: an entry left alone for the time to live expires, and the others take a live bridge for dead.
      const slots = await Promise.all(bridges.map(async (h) => (await clusterOf(h)).slot!));
      const revisions = async (): Promise<number[]> => Promise.all(slots.map(async (slot) => (await stalling!.get(keyOf(slot)))?.revision ?? 0));
      await waitFor(async () => stalling, (bucket) => bucket !== undefined, { what: "a bridge's listing of the members stalled" });
      const before = await revisions();
      const advanced = await waitFor(revisions, (now) => givenUp || now.every((revision, i) => revision >= before[i]! + 2), { what: "every member entry rewritten twice" });
      expect(givenUp, `the stalled listing was given up before every entry was rewritten twice: ${before} → ${advanced}`).toBe(false);
      const said = await waitFor(
        () => Promise.all(bridges.map((h) => clusterOf(h))),
        (views) => views.some((view) => view.problem?.includes("did not all arrive") === true),
        { what: "a bridge saying its listing of the members stalled" },
      );
      expect(said.filter((view) => view.problem !== undefined)).toHaveLength(1);
    } finally {
      stalled.mockRestore();
    }
    // Its next beats read the members again: every bridge sees the other two, and nothing was lost.
    for (const h of bridges) {
      const view = await until(h, (c) => c.problem === undefined && c.peers.length === 2);
      expect(view.lost).toEqual([]);
    }
  }, RECOVERY_CASE_TIMEOUT_MS);

  it("NATS down: every bridge keeps serving its own editor and says degraded; NATS back: all recover", async () => {
    await nats.kill();
    for (const h of bridges) {
      const cluster = await until(h, (c) => c.state === "reconnecting");
      expect(cluster.problem).toMatch(/NATS is unreachable/);
      const ready = await readiness(h);
      expect(ready.status).toBe("degraded");
      expect(ready.reasons).toContainEqual(expect.objectContaining({ component: "cluster", status: "degraded" }));
      // The bridge's own editor still answers.
      const client = await h.connect();
      expect(await client.call<{ id: number }>("document:current")).toMatchObject({ id: expect.any(Number) });
    }
    await nats.restart();
    for (const h of bridges) {
      const cluster = await until(h, (c) => c.state === "connected" && c.problem === undefined && c.peers.length === 2);
      expect(cluster.peers).toHaveLength(2);
      expect((await readiness(h)).status).toBe("ok");
    }
    // The events stream lived in the server's memory: the bridges make it again, so sessions can be replayed.
    const nc = await connect({ servers: nats.url });
    try {
      const jsm = await jetstreamManager(nc);
      const info = await waitFor(() => jsm.streams.info("t1-events").catch(() => undefined), (stream) => stream !== undefined, { what: "the t1-events stream made again" });
      expect(info!.config.subjects).toEqual(["t1.events.>"]);
    } finally {
      await nc.close();
    }
  }, RECOVERY_CASE_TIMEOUT_MS);

  it("a bridge that leaves gives its slot back, answering calls until it has: the others stop listing it and list nothing as lost", async () => {
    const leaving = bridges.pop()!;
    const { bridge: name, slot } = await clusterOf(leaving);
    // The leaving bridge's delete of its member entry is held until a peer has called it: a call that finds no
    // responder marks the bridge lost, with its editors and documents, so it must still answer while it is listed.
    let entered!: () => void;
    let heldSince = 0;
    const deleting = new Promise<void>((resolve) => (entered = resolve)).then(() => (heldSince = Date.now()));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const remove = Bucket.prototype.delete;
    const held = vi.spyOn(Bucket.prototype, "delete").mockImplementation(async function (this: Bucket, key, options) {
      if (key === keyOf(slot!)) {
        entered();
        await released;
      }
      return remove.call(this, key, options);
    });
    const closed = leaving.close();
    try {
      // A bridge that closed without deleting its entry (NATS gone, say) fails here rather than waiting out the case.
      await Promise.race([deleting, closed.then(() => Promise.reject(new Error("the leaving bridge closed without deleting its member entry")))]);
      const answer = await bridges[0]!.http("/document/current", { headers: { "x-bridge-editor": `embedded-1@${name}` } });
      // Its editors have closed (they close before the cluster is left), so the call is refused, by the bridge itself.
      expect(answer.status).not.toBe(200);
      // Should it fail: when, against the hold, the bridge was taken for dead (a call that found no responder, or its
      // entry expiring because the hold outlasted the members' time to live).
      const { lost } = await clusterOf(bridges[0]!);
      expect(lost, `lost ${lost.map((l) => `${l.bridge} ${l.at - heldSince} ms into the hold`).join(", ")}; checked ${Date.now() - heldSince} ms into it`).toEqual([]);
    } finally {
      release();
      await closed;
      held.mockRestore();
    }
    for (const h of bridges) await until(h, (c) => c.peers.every((p) => p.bridge !== name) && c.peers.length === 1);
    // Leaving is not dying: nothing was lost, the others stay ready.
    for (const h of bridges) {
      expect((await clusterOf(h)).lost).toEqual([]);
      expect((await readiness(h)).status).toBe("ok");
    }
  }, RECOVERY_CASE_TIMEOUT_MS);

  it("a bridge whose NATS is not there at start serves its own editors, degraded, and joins when NATS comes up", async () => {
    await nats.kill();
    const late = await startBridge({ cluster: { servers: [nats.url], name: "t1", bridge: "late" }, limits: { ...limits, clusterConnectTimeoutMs: 200 } });
    expect((await clusterOf(late)).slot).toBeUndefined();
    expect((await readiness(late)).status).toBe("degraded");
    const client = await late.connect();
    expect(await client.call("document:current")).toMatchObject({ id: expect.any(Number) });
    await nats.restart();
    const joined = await until(late, (c) => c.slot !== undefined && c.problem === undefined);
    expect(joined.state).toBe("connected");
  });
});

describe("cluster options", () => {
  it("a bad cluster or bridge name is refused before anything starts", async () => {
    await expect(startBridge({ cluster: { servers: ["nats://127.0.0.1:1"], bridge: "has space" } })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/bridge name "has space" may hold only letters/),
    });
  });
});
