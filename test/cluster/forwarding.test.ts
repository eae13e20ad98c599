import { connect, type NatsConnection } from "@nats-io/transport-node";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClusterStatus } from "../../src/cluster/members.js";
import { startSuiteBridge } from "../helpers/bridge.js";
import { startBridgeProcess } from "../helpers/bridge-process.js";
import { hasNatsServer, startNatsServer, type NatsServer } from "../helpers/nats-server.js";
import { clusterOf, seesReadyPeers, untilCluster } from "../helpers/until.js";

// Heartbeats fast enough for a test. Chunks of 256 KiB: the multi-MB messages below cross in a dozen or more.
const limits = { clusterHeartbeatMs: 100, clusterMemberTtlMs: 2_000, clusterReconnectWaitMs: 100, clusterChunkBytes: 256 * 1024, progressIntervalMs: 0 };

type Suite = Awaited<ReturnType<typeof startSuiteBridge>>;

const peersOf = async (url: string): Promise<ClusterStatus["peers"]> => (await clusterOf(url)).peers;

/** Reads `/status` until the bridge at `url` lists `bridges` as its peers, their editors ready. */
const seesPeers = (url: string, bridges: string[]) => untilCluster(url, (cluster) => seesReadyPeers(cluster, bridges), `peers ${bridges.join(", ")}`);

/** A PNG of noise: it does not compress, so `width × height × 3` bytes or so. */
const noise = (width: number, height: number): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: "gaussian", mean: 128, sigma: 60 } } })
    .png({ compressionLevel: 0 })
    .toBuffer();

describe.skipIf(!hasNatsServer)("a cluster of bridges over NATS: calls between bridges", () => {
  let nats: NatsServer;
  let a: Suite;
  let b: Suite;
  // Everything that crosses NATS during the first test, as a snooping member of the cluster's account would see it.
  let snoop: NatsConnection;
  const crossed: string[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    snoop = await connect({ servers: nats.url });
    for (const subject of ["t2.>", "$KV.>", "_INBOX.>"]) snoop.subscribe(subject, { callback: (_e, msg) => void crossed.push(Buffer.from(msg.data).toString("latin1")) });
    // Answered once the server holds the subscriptions: nothing the bridges send below passes unseen.
    await snoop.flush();
    a = await startSuiteBridge({ cluster: { servers: [nats.url], name: "t2", bridge: "a" }, limits });
    b = await startSuiteBridge({ cluster: { servers: [nats.url], name: "t2", bridge: "b" }, limits });
    await seesPeers(a.bridge.url, ["b"]);
    await seesPeers(b.bridge.url, ["a"]);
  });
  afterAll(async () => {
    await snoop?.close();
    await a?.close();
    await b?.close();
    await nats?.stop();
  });

  it("a client on A works on B's editor: creates a document there, imports a multi-MB image into it, exports it multi-MB", async () => {
    const client = await a.connect("/ws?editor=embedded-1@b");
    const doc = await client.call<{ id: number; width: number; editorId: string }>("document:create", { width: 1000, height: 800, name: "On B" });
    expect(doc).toMatchObject({ width: 1000, editorId: "embedded-1@b" });
    // The document is B's; the list of documents is the cluster's, on either bridge, each with its editor.
    const onB = await b.connect("/ws?editor=embedded-1@b");
    const onA = await a.connect("/ws?editor=embedded-1@a");
    for (const client of [onA, onB]) {
      const list = await client.call<Array<{ id: number; editorId: string }>>("document:list");
      expect(list).toContainEqual(expect.objectContaining({ id: doc.id, editorId: "embedded-1@b" }));
      expect(list.map((d) => d.editorId)).toContain("embedded-1@a");
      expect(list.map((d) => d.id)).toEqual([...list.map((d) => d.id)].sort((x, y) => x - y));
    }

    const png = await noise(1000, 800);
    expect(png.byteLength).toBeGreaterThan(2 * 1024 * 1024);
    const imported = await client.call<{ id: number; name: string }>("layer:importImage", { documentId: doc.id, image: png.toString("base64"), name: "Noise" });
    expect(imported.name).toBe("Noise");

    // Any client of A reaches B's document by its id, without naming the editor.
    const exported = await onA.call<{ data: string; format: string; width: number; height: number }>("image:exportDocument", { documentId: doc.id, format: "png" });
    expect(exported).toMatchObject({ format: "png", width: 1000, height: 800 });
    const bytes = Buffer.from(exported.data.slice(exported.data.indexOf(",") + 1), "base64");
    expect(bytes.byteLength).toBeGreaterThan(2 * 1024 * 1024);
    // The document is opaque: its export has no alpha channel; compare with the source's pixels as RGBA both.
    const pixels = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(pixels.info).toMatchObject({ width: 1000, height: 800 });
    // The imported noise is what was exported: compare with the source's pixels.
    const source = await sharp(png).ensureAlpha().raw().toBuffer();
    expect(Buffer.compare(pixels.data.subarray(0, 4000), source.subarray(0, 4000))).toBe(0);

    // Progress of a forwarded call crosses too, before its answer.
    client.sendRaw(JSON.stringify({ id: "p1", method: "image:exportDocument", params: { documentId: doc.id, format: "png" }, progress: true }));
    const answer = await client.next((f) => f.id === "p1");
    expect(answer.ok).toBe(true);
    const reports = client.frames.filter((f) => f.type === "progress" && (f.data as { requestId: string }).requestId === "p1");
    expect(reports.length).toBeGreaterThan(0);
    for (const report of reports) expect(client.frames.indexOf(report)).toBeLessThan(client.frames.indexOf(answer));

    // Over HTTP too, naming B's editor.
    const response = await fetch(`${a.bridge.url}/document/current`, { headers: { "x-bridge-editor": "embedded-1@b" } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { editorId: string }).editorId).toBe("embedded-1@b");

    // The client's id resumes it (a bearer secret): none of it crossed, though its calls and session did.
    await snoop.flush();
    expect(crossed.some((text) => text.includes("image:exportDocument"))).toBe(true);
    expect(crossed.filter((text) => text.includes(client.hello.clientId))).toEqual([]);
    // A listener on every subject would hide "no responders" from the later tests: it goes now.
    await snoop.close();
  });

  it("a subscriber on A of B's editor gets B's selection:changed, every change in order", async () => {
    const watcher = await a.connect("/ws?editor=embedded-1@b");
    await watcher.call("event:subscribe", { type: "selection:changed" });
    const onB = await b.connect("/ws?editor=embedded-1@b");
    // The subscription reaches B as an interest message; A's /status says when B confirmed it publishes them.
    for (;;) {
      const status = (await (await fetch(`${a.bridge.url}/status`)).json()) as { cluster: ClusterStatus };
      if (status.cluster.following.some((f) => f.editor === "embedded-1@b" && f.type === "selection:changed" && f.flowing)) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Then every change crosses, in order (the event is the selection's rectangle).
    for (const x of [40, 41, 42]) await onB.call("selection:set", { rect: { x, y: 2, width: 30, height: 20 } });
    const seen: number[] = [];
    for (let n = 1; seen.length < 3; n++) {
      const frame = await watcher.nth((f) => f.type === "selection:changed", n);
      seen.push((frame.data as { x: number }).x);
    }
    expect(seen).toEqual([40, 41, 42]);
  });

  it("a subscriber on A to a pool-wide event (documentChanged) gets B's editors' too, each once", async () => {
    const watcher = await a.connect("/ws?editor=embedded-1@a");
    await watcher.call("event:subscribe", { type: "documentChanged" });
    for (;;) {
      const status = (await (await fetch(`${a.bridge.url}/status`)).json()) as { cluster: ClusterStatus };
      if (status.cluster.following.some((f) => f.editor === "*" && f.type === "documentChanged" && f.flowing)) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const onB = await b.connect("/ws?editor=embedded-1@b");
    const docB = (await onB.call<{ id: number }>("document:current")).id;
    const docA = (await watcher.call<{ id: number }>("document:current")).id;
    await watcher.call("selection:set", { rect: { x: 1, y: 1, width: 3, height: 3 } });
    await onB.call("selection:set", { rect: { x: 2, y: 2, width: 3, height: 3 } });
    const fromB = await watcher.next((f) => f.type === "documentChanged" && (f.data as { documentId: number }).documentId === docB);
    expect(fromB.data).toMatchObject({ documentId: docB, selection: true });
    // A's own editor's event came locally, once: B's came after it through NATS, and A's did not come back.
    await onB.call("selection:set", { rect: { x: 3, y: 3, width: 3, height: 3 } });
    await watcher.nth((f) => f.type === "documentChanged" && (f.data as { documentId: number }).documentId === docB, 2);
    expect(watcher.frames.filter((f) => f.type === "documentChanged" && (f.data as { documentId: number }).documentId === docA)).toHaveLength(1);
  });

  it("an error on B arrives on A as B answered it", async () => {
    const client = await a.connect("/ws?editor=embedded-1@a");
    const missing = await client.send("document:layers", { documentId: 2_000_999_999 });
    expect(missing.error).toMatchObject({ code: expect.any(String) });
    const onB = await b.connect("/ws?editor=embedded-1@b");
    const other = await client.send("layer:getInfoById", { documentId: (await onB.call<{ id: number }>("document:current")).id, layerId: 987654 });
    expect(other.error).toMatchObject({ code: "LAYER_NOT_FOUND" });
  });

  it("a new client, and a new document made over HTTP, go to the least-loaded editor cluster-wide; at equal load the bridge's own", async () => {
    const p = await startSuiteBridge({ cluster: { servers: [nats.url], name: "t3", bridge: "p" }, limits });
    const q = await startSuiteBridge({ cluster: { servers: [nats.url], name: "t3", bridge: "q" }, limits });
    try {
      await seesPeers(p.bridge.url, ["q"]);
      await seesPeers(q.bridge.url, ["p"]);
      const editorOf = async (client: Awaited<ReturnType<Suite["connect"]>>): Promise<string> => (await client.call<{ editorId: string }>("document:current")).editorId;
      // Nobody anywhere: the bridge's own editor.
      expect(await editorOf(await p.connect())).toBe("embedded-1@p");
      // One client on p's editor, none on q's: q's.
      expect(await editorOf(await p.connect())).toBe("embedded-1@q");
      // One each (p counts its client of q's editor at once): p's own again.
      expect(await editorOf(await p.connect())).toBe("embedded-1@p");
      // A new document over HTTP with no editor named: p has one document more than q (after this one), so q's.
      const make = () => fetch(`${p.bridge.url}/document/create`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"width":64,"height":64}' });
      const here = (await (await fetch(`${p.bridge.url}/document/create`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-bridge-editor": "embedded-1@p" },
        body: '{"width":64,"height":64}',
      }).then((r) => r.json())) as { editorId: string });
      expect(here.editorId).toBe("embedded-1@p");
      // q's announcement has to say 1 document against p's 2 (it does from the start: its sample), and p must
      // still list q: on a loaded machine a member read late drops out of the view until its next entry is read.
      await seesPeers(p.bridge.url, ["q"]);
      const placed = (await (await make()).json()) as { editorId: string; id: number };
      expect(placed.editorId).toBe("embedded-1@q");
      expect(Math.floor(placed.id / 1_000_000_000)).toBe((await (await fetch(`${q.bridge.url}/status`)).json() as { cluster: ClusterStatus }).cluster.slot);
    } finally {
      await p.close();
      await q.close();
    }
  });

  it("B killed in the middle of a call: the call on A answers HOST_UNAVAILABLE (retryable) long before its deadline", async () => {
    const dying = await startBridgeProcess({
      args: ["--cluster", nats.url, "--cluster-name", "t2", "--cluster-bridge", "dying"],
      limits: { clusterHeartbeatMs: 100, clusterMemberTtlMs: 2_000 },
    });
    try {
      await seesPeers(a.bridge.url, ["dying"]);
      const client = await a.connect("/ws?editor=embedded-1@dying");
      const deadlineMs = 30_000;
      const started = performance.now();
      const spinning = client.send("jsx:run", { script: "for (;;) {}", timeoutMs: deadlineMs });
      // Killed once the script runs there (its editor is busy); an answer before that fails the case below.
      let answered = false;
      void spinning.then(() => (answered = true));
      // The suite's snoop subscribes to every subject of the cluster, the dead bridge's included: NATS then never
      // answers "no responders" for it, so this also checks that the members' time to live ends the wait.
      while (!answered) {
        const peer = (await peersOf(a.bridge.url)).find((p) => p.bridge === "dying");
        if (peer?.editors[0]?.running === 1) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      process.kill(dying.pid, "SIGKILL");
      const answer = await spinning;
      expect(answer.error).toMatchObject({ code: "HOST_UNAVAILABLE", retryable: true, details: { bridge: "dying" } });
      expect(performance.now() - started).toBeLessThan(deadlineMs);
      // A says so: the bridge and its editor are gone (degraded, not down: A's own editor serves).
      const status = (await (await fetch(`${a.bridge.url}/status`)).json()) as { status: string; cluster: ClusterStatus };
      expect(status.status).toBe("degraded");
      expect(status.cluster.peers.map((p) => p.bridge)).not.toContain("dying");
      expect(status.cluster.lost).toContainEqual(expect.objectContaining({ bridge: "dying", editors: ["embedded-1@dying"], documents: expect.any(Number) }));
      const ready = (await (await fetch(`${a.bridge.url}/ready`)).json()) as { status: string; reasons: Array<{ component: string; message: string }> };
      expect(ready.reasons).toContainEqual(expect.objectContaining({ component: "cluster", message: expect.stringMatching(/1 bridge went away with 1 editor and \d+ documents?/) }));
      const info = await client.call<{ cluster: { lost: Array<{ bridge: string; editors: string[] }>; editors: Array<{ id: string }> } }>("getServerInfo");
      expect(info.cluster.lost).toContainEqual({ bridge: "dying", editors: ["embedded-1@dying"] });
      expect(info.cluster.editors.map((e) => e.id)).not.toContain("embedded-1@dying");
      // The client's next call moves it to a live editor, told by editor:changed, and runs there.
      const current = await client.call<{ editorId: string }>("document:current");
      const moved = await client.next((f) => f.type === "editor:changed");
      expect(moved.data).toMatchObject({ from: "embedded-1@dying", reason: "bridge-gone", bridge: "dying" });
      expect(current.editorId).toBe((moved.data as { to: string }).to);
      expect(["embedded-1@a", "embedded-1@b"]).toContain(current.editorId);
    } finally {
      await dying.stop();
    }
  });
});
