/**
 * A bridge that guards its own door (a token) must not join a NATS that lets anyone in: whoever reaches that NATS
 * could forge calls to its editors past the token. Run as users run it (the CLI in a child process) against a real
 * `nats-server` without authorization, with a rogue NATS client sending what a bridge would send.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sealFrame } from "../../src/cluster/signing.js";
import { encodeFrame, decodeFrame } from "../../src/cluster/wire.js";
import type { ClusterStatus } from "../../src/cluster/members.js";
import { startBridgeProcess, type BridgeProcess } from "../helpers/bridge-process.js";
import { hasNatsServer, startNatsServer, type NatsServer } from "../helpers/nats-server.js";
import { clusterOf, seesReadyPeers, until, untilCluster } from "../helpers/until.js";

const CLUSTER = "t38";
const TOKEN = "bridge-token-38";
const limits = { clusterHeartbeatMs: 100, clusterMemberTtlMs: 2_000, clusterReconnectWaitMs: 100 };
/** Generous, as in the abuse tests: a blocked event loop stalls `/health` for 10 s and more. */
const HEALTH_WORST_MS = 4_000;
const WARNING = "joining the cluster's NATS without credentials";

/** Reads `/status` until the bridge holds a slot in the cluster (each read a round trip: no sleeps). */
function joined(served: BridgeProcess, token?: string): Promise<ClusterStatus> {
  return until(() => clusterOf(served.url, token), (cluster) => cluster.slot !== undefined && cluster.state === "connected", { what: "a slot in the cluster" });
}

type Reply = { ok: boolean; result?: unknown; error?: { code: string; message: string } };

/** Sends raw bytes as a call to `bridge` of `cluster` and reads the answer's header. */
async function send(nc: NatsConnection, bridge: string, bytes: Uint8Array, cluster = CLUSTER): Promise<Reply> {
  const reply = await nc.request(`${cluster}.call.${bridge}`, bytes, { timeout: 10_000 });
  return decodeFrame<Reply>(reply.data).header;
}

/** What a rogue client of the same NATS sends: a call as another bridge would forward it, and the answer it gets. */
function forge(nc: NatsConnection, bridge: string, method: string, params: unknown, cluster = CLUSTER): Promise<Reply> {
  const header = { t: "call", id: 1, from: "rogue", method, params, lane: "rogue", timeoutMs: 5_000 };
  return send(nc, bridge, encodeFrame(header), cluster);
}

describe.skipIf(!hasNatsServer)("a bridge and a NATS that lets anyone in", () => {
  let nats: NatsServer;
  let rogue: NatsConnection;
  const running: BridgeProcess[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    rogue = await connect({ servers: nats.url });
  });
  afterEach(async () => {
    for (const served of running.splice(0)) await served.stop();
  });
  afterAll(async () => {
    await rogue?.close();
    await nats?.stop();
  });

  const serve = async (args: string[], cluster = CLUSTER): Promise<BridgeProcess> => {
    const served = await startBridgeProcess({ args: ["--cluster", nats.url, "--cluster-name", cluster, ...args], limits });
    running.push(served);
    return served;
  };

  it("a bridge with a token refuses to join it without credentials, saying how to give them or consent", async () => {
    const refused = serve(["--token", TOKEN, "--cluster-bridge", "guarded"]);
    await expect(refused).rejects.toThrow(/serve exited with 2/);
    await expect(refused).rejects.toThrow(/has an access token but would join NATS without credentials/);
    await expect(refused).rejects.toThrow(/--cluster-user and --cluster-pass, --cluster-token, --cluster-creds or a TLS client certificate/);
    await expect(refused).rejects.toThrow(/--cluster-allow-anonymous/);
    // Nothing of it joined: no bridge of that name answers calls on NATS.
    await expect(forge(rogue, "guarded", "document:list", {})).rejects.toThrow(/no responders|503/i);
  });

  it("with --cluster-allow-anonymous it joins, warns of the risk in its log, and keeps serving", async () => {
    // `--public-health`: the bystander asks `/health` without the token.
    const served = await serve(["--token", TOKEN, "--public-health", "--cluster-bridge", "consented", "--cluster-allow-anonymous"]);
    await joined(served, TOKEN);
    expect(served.lines.some((line) => line.includes(WARNING) && line.includes("jsx:run"))).toBe(true);
    // The operator accepted that a client of this NATS may run calls here: it can.
    expect((await forge(rogue, "consented", "document:list", {})).ok).toBe(true);
    await served.morePings(3);
    expect(served.health().failures).toEqual([]);
    expect(served.health().worstMs).toBeLessThan(HEALTH_WORST_MS);
  });

  it("a bridge on loopback without a token joins, with the same warning", async () => {
    const served = await serve(["--cluster-bridge", "local"]);
    await joined(served);
    expect(served.lines.some((line) => line.includes(WARNING))).toBe(true);
  });

  it("with a cluster secret, calls between its bridges work and a call forged, signed with another secret or replayed is refused FORBIDDEN", async () => {
    const cluster = "t38s";
    const secret = "a-secret-the-bridges-share-38";
    const flags = ["--cluster-allow-anonymous", "--cluster-secret", secret];
    const [a, b] = await Promise.all([serve([...flags, "--cluster-bridge", "a"], cluster), serve([...flags, "--cluster-bridge", "b"], cluster)]);
    await Promise.all([joined(a), joined(b)]);
    // The rogue listens to what is sent to b, as anyone on an open NATS can. The flush is answered once the server
    // has the subscription: a call forwarded before that would pass unheard, and the wait below would never end.
    const heard = rogue.subscribe(`${cluster}.call.b`, { max: 1 });
    await rogue.flush();
    // Bridge a's client works on b's editor once a has seen it announced: the call crosses signed and runs.
    await untilCluster(a.url, (view) => seesReadyPeers(view, ["b"]), "b's editor, ready, in a's view of the cluster");
    const forwarded = await fetch(`${a.url}/document/current`, { headers: { "x-bridge-editor": "embedded-1@b" } });
    expect(forwarded.status).toBe(200);
    expect(((await forwarded.json()) as { editorId: string }).editorId).toBe("embedded-1@b");
    let recorded: Uint8Array | undefined;
    for await (const message of heard) recorded = message.data;
    // A call forged without the secret, one signed with another, and the recorded one sent again: all refused.
    const unsigned = await forge(rogue, "b", "document:list", {}, cluster);
    expect(unsigned.error).toMatchObject({ code: "FORBIDDEN" });
    expect(unsigned.error?.message).toMatch(/not signed/);
    const header = { t: "call", id: 1, from: "rogue", method: "document:list", params: {}, lane: "rogue", timeoutMs: 5_000 };
    const wrong = await send(rogue, "b", sealFrame("not-the-cluster-secret", encodeFrame(header)), cluster);
    expect(wrong.error?.message).toMatch(/does not match this cluster's secret/);
    const replayed = await send(rogue, "b", recorded!, cluster);
    expect(replayed.error).toMatchObject({ code: "FORBIDDEN" });
    expect(replayed.error?.message).toMatch(/a replay/);
    // b said so in its log, once for the burst.
    await b.morePings(3);
    expect(b.lines.filter((line) => line.includes("calls from the cluster refused for their signature")).length).toBe(1);
    for (const served of [a, b]) {
      expect(served.health().failures).toEqual([]);
      expect(served.health().worstMs).toBeLessThan(HEALTH_WORST_MS);
    }
    // Two bridges in processes of their own, each with its editor, forming a cluster: a loaded 2-core machine running
    // the rest of the suite beside this file was seen past the default minute.
  }, 180_000);
});
