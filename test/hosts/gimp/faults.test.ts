import { connect as tcpConnect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBridge, type Bridge } from "../../../src/bridge/bridge.js";
import { createGimpHost, type GimpHost } from "../../../src/hosts/gimp/index.js";
import { TestClient } from "../../helpers/ws-client.js";
import { GIMP_BINARY, GIMP_SKIP } from "./_support.js";
import { statusOf, until } from "../../helpers/until.js";

/*
 * Faults against a GIMP the bridge supervises itself. One bridge for the file (each GIMP start costs seconds);
 * every case breaks GIMP, checks the error the caller gets, then checks that the same bridge serves a fresh GIMP.
 */
describe.skipIf(GIMP_SKIP !== undefined)("a supervised GIMP that fails", () => {
  let bridge: Bridge;
  let host: GimpHost;
  let client: TestClient;
  const reconnected: Array<() => void> = [];

  /** Resolves after the adapter's next successful connect() and once the bridge reports the editor ready. */
  const nextConnect = (): Promise<void> => new Promise((resolve) => reconnected.push(resolve));
  async function ready(): Promise<void> {
    await until(() => statusOf<{ editor: { state: string } }>(bridge.url), (status) => status.editor.state === "ready", { what: "GIMP ready" });
  }
  /** Resolves once the bridge has a call running in the editor. */
  async function running(): Promise<void> {
    await until(() => statusOf<{ editor: { running: number } }>(bridge.url), (status) => status.editor.running > 0, { what: "a call running on GIMP" });
  }

  beforeAll(async () => {
    host = createGimpHost({ binary: GIMP_BINARY, attach: undefined, sample: true });
    const connect = host.connect.bind(host);
    host.connect = async () => {
      const info = await connect();
      for (const resolve of reconnected.splice(0)) resolve();
      return info;
    };
    bridge = createBridge({ host, listen: { host: "127.0.0.1", port: 0 }, limits: { callTimeoutMs: 4_000, reconnectInitialMs: 10 } });
    await bridge.start();
    client = await TestClient.open(bridge.wsUrl);
  }, 60_000);

  afterAll(async () => {
    const pid = host?.pid;
    await client?.close();
    await bridge?.close();
    // No orphan: the supervised process group is gone after close.
    if (pid !== undefined) expect(() => process.kill(-pid, 0)).toThrow();
  });

  it("GIMP killed in the middle of a call: the call fails HOST_UNAVAILABLE and a new GIMP serves the next call", async () => {
    const before = host.pid!;
    const back = nextConnect();
    const call = client.send("jsx:run", { script: "(let loop () (loop))", language: "script-fu", timeoutMs: 60_000 });
    await running();
    process.kill(-before, "SIGKILL");
    const answer = await call;
    expect(answer.error).toMatchObject({ code: "HOST_UNAVAILABLE", retryable: true });
    await back;
    await ready();
    expect(host.pid).not.toBe(before);
    const doc = await client.call<{ name: string }>("document:current");
    expect(doc.name).toBe("Sample");
  }, 60_000);

  it("a script that runs forever times out, GIMP is restarted, and the bridge keeps serving", async () => {
    const before = host.pid!;
    const back = nextConnect();
    const answer = await client.send("jsx:run", { script: "(let loop () (loop))", language: "script-fu", timeoutMs: 1_000 });
    expect(answer.error).toMatchObject({ code: "TIMEOUT", details: { outcome: "unknown", restarted: true } });
    await back;
    await ready();
    expect(host.pid).not.toBe(before);
    expect(await client.call("jsx:run", { script: "(+ 40 2)", language: "script-fu" })).toEqual({ result: 42 });
  }, 60_000);

  it("a client that sends half a frame to GIMP blocks it; the stuck call times out and GIMP is restarted", async () => {
    const before = host.pid!;
    const endpoint = host.endpoint!;
    // A header promising 100 bytes followed by 2: GIMP waits for the rest and serves nobody meanwhile.
    const half: Socket = tcpConnect(endpoint.port, endpoint.host);
    half.on("error", () => {});
    await new Promise<void>((resolve) => half.once("connect", () => half.write(Buffer.from([0x47, 0, 100, 0x28, 0x2b]), () => resolve())));
    const back = nextConnect();
    const answer = await client.send("document:list");
    expect(answer.error).toMatchObject({ code: "TIMEOUT" });
    await back;
    await ready();
    half.destroy();
    expect(host.pid).not.toBe(before);
    expect(await client.call<unknown[]>("document:list")).toHaveLength(1);
  }, 60_000);
});

describe("a GIMP that cannot be reached", () => {
  async function freePort(): Promise<number> {
    const { createServer } = await import("node:net");
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  it("a missing binary fails connect() with HOST_UNAVAILABLE naming it", async () => {
    const host = createGimpHost({ binary: "/nonexistent/gimp-console-2.10", attach: undefined });
    await expect(host.connect()).rejects.toMatchObject({ code: "HOST_UNAVAILABLE", message: expect.stringContaining("/nonexistent/gimp-console-2.10") });
    await host.close();
  });

  it("an attach address where nothing listens leaves the bridge up, answering HOST_UNAVAILABLE", async () => {
    const host = createGimpHost({ binary: GIMP_BINARY, attach: `127.0.0.1:${await freePort()}` });
    const bridge = createBridge({ host, listen: { host: "127.0.0.1", port: 0 }, limits: { reconnectInitialMs: 50 } });
    await bridge.start();
    try {
      const response = await fetch(`${bridge.url}/document/current`);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ code: "HOST_UNAVAILABLE", retryable: true });
    } finally {
      await bridge.close();
    }
  });

  it("a malformed attach address is refused up front", () => {
    expect(() => createGimpHost({ binary: GIMP_BINARY, attach: "localhost" })).toThrow(/host:port/);
  });
});
