import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClusterOptions } from "../../src/cluster/options.js";
import type { ClusterStatus } from "../../src/cluster/members.js";
import { startBridge, type Harness } from "../helpers/bridge.js";
import { hasNatsServer, startNatsServer, type NatsServer } from "../helpers/nats-server.js";
import { clusterOf, untilCluster } from "../helpers/until.js";

// A bridge that cannot get in says so after clusterConnectTimeoutMs: short here.
const limits = { clusterHeartbeatMs: 100, clusterMemberTtlMs: 2_000, clusterReconnectWaitMs: 100, clusterConnectTimeoutMs: 500 };

const hasOpenssl = spawnSync("openssl", ["version"], { stdio: "ignore" }).status === 0;

const until = untilCluster;

const joined = (h: Harness): Promise<ClusterStatus> => until(h, (c) => c.slot !== undefined && c.state === "connected" && c.problem === undefined);

function openssl(dir: string, ...args: string[]): void {
  const run = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`openssl ${args.join(" ")}: ${run.stderr}`);
}

describe.skipIf(!hasNatsServer)("a cluster's NATS with authorization", () => {
  let nats: NatsServer;
  const cluster = (more: Partial<ClusterOptions>): ClusterOptions => ({ servers: [nats.url], name: "t7", bridge: `b${Math.random().toString(36).slice(2, 8)}`, ...more });

  beforeAll(async () => {
    nats = await startNatsServer(["--user", "bridges", "--pass", "s3cret"]);
  });
  afterAll(async () => {
    await nats?.stop();
  });

  it("the right user and password join; a wrong or missing one serves its own editor, degraded, and says why", async () => {
    const inside = await startBridge({ cluster: cluster({ user: "bridges", pass: "s3cret" }), limits });
    expect((await joined(inside)).peers).toEqual([]);
    for (const credentials of [{ user: "bridges", pass: "wrong" }, {}]) {
      const outside = await startBridge({ cluster: cluster(credentials), limits });
      const status = await until(outside, (c) => c.problem !== undefined);
      expect(status.slot).toBeUndefined();
      expect(status.problem).toMatch(/authori[sz]ation|auth/i);
      expect(((await (await outside.http("/ready")).json()) as { status: string }).status).toBe("degraded");
      const client = await outside.connect();
      expect(await client.call("document:current")).toMatchObject({ id: expect.any(Number) });
    }
  });
});

describe.skipIf(!hasNatsServer || !hasOpenssl)("a cluster's NATS over TLS with client certificates", () => {
  let nats: NatsServer;
  let dir: string;
  const file = (name: string): string => join(dir, name);

  beforeAll(async () => {
    // A CA, a server certificate for 127.0.0.1 and a client certificate, all made here (nothing downloaded).
    dir = await mkdtemp(join(tmpdir(), "bridge-nats-tls-"));
    openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=test-ca");
    for (const [name, extension] of [
      ["server", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
      ["client", "extendedKeyUsage=clientAuth"],
    ] as const) {
      openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`);
      await writeFile(file(`${name}.ext`), `${extension}\n`);
      openssl(dir, "x509", "-req", "-in", `${name}.csr`, "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", `${name}.pem`, "-days", "2", "-extfile", `${name}.ext`);
    }
    nats = await startNatsServer(["--tlsverify", "--tlscert", file("server.pem"), "--tlskey", file("server.key"), "--tlscacert", file("ca.pem")]);
  });
  afterAll(async () => {
    await nats?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("a bridge with the CA and a client certificate joins; one without its certificate does not", async () => {
    const tls = { caFile: file("ca.pem"), certFile: file("client.pem"), keyFile: file("client.key") };
    const inside = await startBridge({ cluster: { servers: [nats.url], name: "t8", bridge: "tls-in", tls }, limits });
    await joined(inside);
    const outside = await startBridge({ cluster: { servers: [nats.url], name: "t8", bridge: "tls-out", tls: { caFile: tls.caFile } }, limits });
    const status = await until(outside, (c) => c.problem !== undefined);
    expect(status.slot).toBeUndefined();
    // The one inside never saw it.
    expect((await clusterOf(inside)).peers).toEqual([]);
  });
});
