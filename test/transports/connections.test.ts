import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { parseServeArgs, type ServeOptions } from "../../src/cli/args.js";
import { UsageError } from "../../src/cli/errors.js";
import { createBridge } from "../../src/bridge/bridge.js";
import { DEFAULT_LIMITS } from "../../src/limits.js";
import { forwardedAddress } from "../../src/transports/connections.js";
import type { Harness } from "../helpers/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { rawHttp, requestHead } from "../helpers/raw-http.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import { refusedUpgrade, TestClient } from "../helpers/ws-client.js";

/*
 * The connection limits, scaled down: the socket cap and its reserve, the per-address cap (loopback counted on
 * request, or forwarded by a trusted proxy), the deadline of silent sockets and the HTTP header deadline.
 */

const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

/** A TCP socket to the bridge that sends nothing until told; resolves once connected. */
function silentSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.once("error", reject);
    sockets.push(socket);
  });
}

/** A socket that asked for /health with keep-alive and got its answer: open, but not silent. */
function keptAlive(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
    socket.once("data", (chunk: Buffer) => (chunk.toString("latin1").startsWith("HTTP/1.1 200") ? resolve(socket) : reject(new Error(chunk.toString("latin1")))));
    socket.once("error", reject);
    sockets.push(socket);
  });
}

const get = (harness: Harness, path: string, headers: Record<string, string> = {}) =>
  rawHttp(harness.bridge.port, requestHead("GET", path, harness.bridge.port, headers));
const bodyOf = (response: { body: Buffer }) => JSON.parse(response.body.toString("utf8")) as { code: string; details?: Record<string, unknown> };

async function clients(harness: Harness, count: number, options: Parameters<Harness["connect"]>[1] = {}): Promise<TestClient[]> {
  const all: TestClient[] = [];
  for (let i = 0; i < count; i++) all.push(await harness.connect("/ws", options));
  return all;
}

describe("the socket cap and its reserve", () => {
  it("past the cap less the reserve, a new WS and a new HTTP request get 503 HOST_BUSY at once while /health and /status answer", async () => {
    // 4 sockets for clients, 6 in the reserve: refused sockets still closing cannot push a probe past the cap.
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits: { maxConnections: 10, connectionReserve: 6 } });
    const held = await clients(harness, 4);
    const ws = await refusedUpgrade(harness.bridge.wsUrl);
    expect(ws).toMatchObject({ status: 503, body: { code: "HOST_BUSY", retryable: true, details: { limit: "connectionReserve", max: 10, reserve: 6 } } });
    const route = await get(harness, "/schema");
    expect(route.status).toBe(503);
    expect(route.headers["retry-after"]).toBe("1");
    expect(bodyOf(route)).toMatchObject({ code: "HOST_BUSY", details: { limit: "connectionReserve" } });
    const health = await get(harness, "/health");
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body.toString("utf8"))).toMatchObject({ status: expect.any(String) });
    const status = await get(harness, "/status");
    expect(status.status).toBe(200);
    const counts = (JSON.parse(status.body.toString("utf8")) as { connections: Record<string, number> }).connections;
    expect(counts).toMatchObject({ max: 10, reserve: 6, refusedFull: 0 });
    expect(counts["refusedReserve"]).toBeGreaterThanOrEqual(2);
    // The clients held all along are served as before.
    expect((await held[0]!.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
  });

  it("past the cap itself, with no silent socket to close, a new socket is answered 503 HOST_BUSY on arrival and closed, WS or HTTP", async () => {
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits: { maxConnections: 6, connectionReserve: 2 } });
    const held = await clients(harness, 4);
    // Two keep-alive sockets that asked for /health take the reserve (they are not silent any more).
    for (let i = 0; i < 2; i++) await keptAlive(harness.bridge.port);
    const started = Date.now();
    const health = await get(harness, "/health");
    expect(health.status).toBe(503);
    expect(bodyOf(health)).toMatchObject({ code: "HOST_BUSY", details: { limit: "maxConnections", max: 6 } });
    expect(await refusedUpgrade(harness.bridge.wsUrl)).toMatchObject({ status: 503, body: { code: "HOST_BUSY", details: { limit: "maxConnections" } } });
    expect(Date.now() - started).toBeLessThan(2_000);
    // Once the reserve frees, probes answer again.
    for (const socket of sockets.splice(0)) socket.destroy();
    let answer = await get(harness, "/health");
    while (answer.status !== 200) answer = await get(harness, "/health");
    expect(answer.status).toBe(200);
    expect((await held[0]!.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
  });

  it("at the cap, the oldest socket that never sent anything is closed to make room", async () => {
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits: { maxConnections: 6, connectionReserve: 2 } });
    await clients(harness, 4);
    const oldest = await silentSocket(harness.bridge.port);
    const closed = new Promise((resolve) => oldest.once("close", resolve));
    const younger = await silentSocket(harness.bridge.port);
    expect((await get(harness, "/health")).status).toBe(200);
    await closed;
    expect(younger.destroyed).toBe(false);
    const status = JSON.parse((await get(harness, "/status")).body.toString("utf8")) as { connections: Record<string, number> };
    expect(status.connections).toMatchObject({ refusedFull: 0 });
    expect(status.connections["silentEvicted"]).toBeGreaterThanOrEqual(1);
  });

  it("a flood of silent sockets far past the cap does not keep /health from answering", async () => {
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits: { maxConnections: 60, connectionReserve: 10 } });
    const client = await harness.connect();
    let flooding = true;
    const flood = (async () => {
      let opened = 0;
      while (flooding && opened < 2_000) {
        await Promise.all(Array.from({ length: 50 }, () => silentSocket(harness.bridge.port).catch(() => undefined)));
        opened += 50;
      }
      return opened;
    })();
    const answers: number[] = [];
    for (let i = 0; i < 30; i++) answers.push((await get(harness, "/health")).status);
    flooding = false;
    expect(await flood).toBeGreaterThan(60);
    expect(answers.every((status) => status === 200)).toBe(true);
    const status = JSON.parse((await get(harness, "/status")).body.toString("utf8")) as { connections: Record<string, number> };
    expect(status.connections["silentEvicted"]).toBeGreaterThan(0);
    expect(status.connections["open"]).toBeLessThanOrEqual(60);
    expect((await client.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
  });

  it("by default stays below the descriptor limit, with room for the idle-clients benchmark's clients", () => {
    // A child shell has this process's open-files limit (Node raised the soft limit at startup).
    const files = Number(execFileSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).trim());
    const usable = DEFAULT_LIMITS.maxConnections - DEFAULT_LIMITS.connectionReserve;
    if (Number.isFinite(files)) {
      expect(DEFAULT_LIMITS.maxConnections).toBeLessThan(files);
      // bench/idle-clients.js holds min(10,000, 90 % of the limit - 500) idle clients against one bridge.
      expect(usable).toBeGreaterThanOrEqual(Math.min(10_000, Math.floor(files * 0.9) - 500));
    } else {
      expect(usable).toBeGreaterThanOrEqual(10_000);
    }
  });

  it("refuses limits that leave no socket for clients, and a trustProxy that names no address", () => {
    const create = (options: Parameters<typeof createBridge>[0]) => () => createBridge({ host: new ScriptedHost(), listen: { port: 0 }, ...options });
    expect(create({ limits: { maxConnections: 4, connectionReserve: 4 } })).toThrow(expect.objectContaining({ code: "BAD_REQUEST", details: { limit: "connectionReserve", max: 3 } }));
    expect(create({ limits: { httpHeadersTimeoutMs: 2_000, httpRequestTimeoutMs: 1_000 } })).toThrow(/httpHeadersTimeoutMs \(2000\) must not exceed/);
    expect(create({ trustProxy: ["proxy.example"] })).toThrow(expect.objectContaining({ code: "BAD_REQUEST" }));
  });
});

describe("silent sockets and slow headers", () => {
  it("a socket that sends nothing is closed after idleConnectionMs; an upgraded one stays", async () => {
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits: { idleConnectionMs: 300 } });
    const client = await harness.connect();
    const silent = await silentSocket(harness.bridge.port);
    const opened = Date.now();
    await new Promise((resolve) => silent.once("close", resolve));
    const waited = Date.now() - opened;
    expect(waited).toBeGreaterThanOrEqual(250);
    expect(waited).toBeLessThan(5_000);
    // The WS client connected before the silent socket and is still served after it was closed.
    expect((await client.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
    const status = (await (await harness.http("/status")).json()) as { connections: { idleClosed: number } };
    expect(status.connections.idleClosed).toBe(1);
  });

  it("each silent socket gets its own full idleConnectionMs: one arriving later, one arriving after the others closed", async () => {
    // Keep-alive sockets are closed by Node after 5 s: the deadline here stays well below that.
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits: { idleConnectionMs: 400 } });
    const port = harness.bridge.port;
    const closedAfter = async (socket: Socket, opened: number): Promise<number> => {
      await once(socket, "close");
      return Date.now() - opened;
    };
    const first = Date.now();
    const a = await silentSocket(port);
    const asked = await keptAlive(port); // asked for something: never closed for being silent
    // The stimulus, not a wait for a result: a socket that arrives while the first one's deadline is still running.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const secondOpened = Date.now();
    const b = await silentSocket(port);
    const [aLived, bLived] = await Promise.all([closedAfter(a, first), closedAfter(b, secondOpened)]);
    expect(aLived).toBeGreaterThanOrEqual(350);
    expect(bLived).toBeGreaterThanOrEqual(350);
    // A socket that arrives once no silent socket is left gets a deadline of its own too.
    const lateOpened = Date.now();
    const late = await silentSocket(port);
    expect(await closedAfter(late, lateOpened)).toBeGreaterThanOrEqual(350);
    expect(asked.destroyed).toBe(false);
    const status = (await (await harness.http("/status")).json()) as { connections: { idleClosed: number } };
    expect(status.connections.idleClosed).toBe(3);
  });

  it("a request whose headers never end is answered 408 after httpHeadersTimeoutMs", async () => {
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits: { idleConnectionMs: 60_000, httpHeadersTimeoutMs: 300 } });
    const socket = await silentSocket(harness.bridge.port);
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    // A whole request first (the idle deadline no longer applies), then half of the next one.
    socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${harness.bridge.port}\r\n\r\nGET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
    const opened = Date.now();
    await new Promise((resolve) => socket.once("close", resolve));
    const text = Buffer.concat(chunks).toString("latin1");
    expect(text.startsWith("HTTP/1.1 200")).toBe(true);
    expect(text).toContain("HTTP/1.1 408");
    expect(Date.now() - opened).toBeLessThan(5_000);
  });
});

describe("connections per address", () => {
  it("with loopback counted, the address's N+1th socket gets 429 TOO_MANY_REQUESTS, WS or HTTP", async () => {
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), countLoopbackPerAddress: true, limits: { maxConnectionsPerAddress: 3 } });
    const held = await clients(harness, 3);
    const ws = await refusedUpgrade(harness.bridge.wsUrl);
    expect(ws).toMatchObject({ status: 429, body: { code: "TOO_MANY_REQUESTS", retryable: true, details: { limit: "maxConnectionsPerAddress", max: 3 } } });
    const http = await get(harness, "/health");
    expect(http.status).toBe(429);
    expect(bodyOf(http)).toMatchObject({ code: "TOO_MANY_REQUESTS", details: { limit: "maxConnectionsPerAddress" } });
    // A client leaving frees its place for the next.
    await held[0]!.close();
    let answer = await get(harness, "/health");
    while (answer.status !== 200) answer = await get(harness, "/health");
    expect(answer.status).toBe(200);
  });

  it("loopback is exempt by default", async () => {
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), limits: { maxConnectionsPerAddress: 2 } });
    await clients(harness, 4);
    expect((await get(harness, "/health")).status).toBe(200);
  });

  it("behind a trusted proxy, the address it forwards is counted: the third socket for one client is refused, another client is not", async () => {
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), trustProxy: true, limits: { maxConnectionsPerAddress: 2 } });
    // The first entry is whatever the client claimed; the last is what the proxy saw.
    const from = (chain: string) => ({ headers: { "x-forwarded-for": chain } });
    await clients(harness, 2, from("198.51.100.1, 203.0.113.7"));
    expect(await refusedUpgrade(harness.bridge.wsUrl, from("203.0.113.7"))).toMatchObject({
      status: 429,
      body: { code: "TOO_MANY_REQUESTS", details: { limit: "maxConnectionsPerAddress", max: 2 } },
    });
    const http = await get(harness, "/health", { "X-Forwarded-For": "203.0.113.7" });
    expect(http.status).toBe(429);
    // A spoofed first entry does not make the client someone else, and another client is served.
    expect(await refusedUpgrade(harness.bridge.wsUrl, from("203.0.113.8, 203.0.113.7"))).toMatchObject({ status: 429 });
    await clients(harness, 2, from("203.0.113.7, 203.0.113.8"));
    // The proxy's own requests (no header, a loopback peer) stay exempt.
    expect((await get(harness, "/health")).status).toBe(200);
  });

  it("without trustProxy, or from a peer that is not the trusted proxy, X-Forwarded-For is ignored", async () => {
    for (const trustProxy of [undefined, ["10.9.9.9"]]) {
      const harness = await startOnSharedEditor({ host: new ScriptedHost(), ...(trustProxy ? { trustProxy } : {}), limits: { maxConnectionsPerAddress: 1 } });
      await clients(harness, 3, { headers: { "x-forwarded-for": "203.0.113.7" } });
      expect((await get(harness, "/health", { "X-Forwarded-For": "203.0.113.7" })).status).toBe(200);
      await harness.bridge.close();
    }
  });

  it("reads the proxy's entry of X-Forwarded-For: the last, with or without a port", () => {
    expect(forwardedAddress("1.2.3.4, 203.0.113.7")).toBe("203.0.113.7");
    expect(forwardedAddress("203.0.113.7:4321")).toBe("203.0.113.7");
    expect(forwardedAddress("[2001:db8::1]:443")).toBe("2001:db8::1");
    expect(forwardedAddress("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(forwardedAddress(["1.1.1.1", "2.2.2.2"])).toBe("2.2.2.2");
    expect(forwardedAddress("unknown")).toBeUndefined();
    expect(forwardedAddress(undefined)).toBeUndefined();
  });
});

describe("--trust-proxy", () => {
  const serve = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseServeArgs(["serve", ...argv], env) as ServeOptions;

  it("takes loopback or IP addresses, from the flag (repeatable) after BRIDGE_TRUST_PROXY", () => {
    expect(serve([]).trustProxy).toEqual([]);
    expect(serve(["--trust-proxy", "loopback", "--trust-proxy", "10.0.0.2"]).trustProxy).toEqual(["loopback", "10.0.0.2"]);
    expect(serve(["--trust-proxy", "[::1]"], { BRIDGE_TRUST_PROXY: "LOOPBACK, 192.168.1.5" }).trustProxy).toEqual(["loopback", "192.168.1.5", "::1"]);
  });

  it("refuses anything else, naming where it came from", () => {
    expect(() => serve(["--trust-proxy", "proxy.example"])).toThrow(UsageError);
    expect(() => serve(["--trust-proxy", "proxy.example"])).toThrow(/--trust-proxy expects "loopback" or a proxy's IP address, got "proxy.example"/);
    expect(() => serve([], { BRIDGE_TRUST_PROXY: "yes" })).toThrow(/BRIDGE_TRUST_PROXY expects/);
  });
});

/** The CLI as users run it (from dist: `npm run build` first). */
const BIN = fileURLToPath(new URL("../../bin/image-editor-bridge.js", import.meta.url));

/** `image-editor-bridge serve` in a child process; resolves with its port once it prints its startup line. */
async function serveChild(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [BIN, "serve", "--listen", "0", "--no-sample", "--log-level", "warn", ...args], {
    env: { PATH: process.env["PATH"] ?? "" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  let out = "";
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
  return { child, port };
}

/** Resident memory of a process in bytes (Linux), or undefined elsewhere. */
function rssOf(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(
    children.splice(0).map(async (child) => {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await once(child, "exit");
    }),
  );
});

describe("the bridge in its own process (the CLI)", () => {
  it("a flood of sockets that never send a byte: /health answers every 20 ms throughout, memory stays flat, and the silent sockets are closed", async () => {
    const { child, port } = await serveChild(["--limit", "maxConnections=300", "--limit", "connectionReserve=30", "--limit", "idleConnectionMs=1s"]);
    const baseline = rssOf(child.pid!);
    let peak = baseline ?? 0;
    let flooding = true;
    const probes: Array<{ status: number; ms: number }> = [];
    const prober = (async () => {
      while (flooding) {
        const started = performance.now();
        const { status } = await rawHttp(port, requestHead("GET", "/health", port));
        probes.push({ status, ms: performance.now() - started });
        peak = Math.max(peak, rssOf(child.pid!) ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    // 2,000 silent sockets, ten times the cap, opened 100 at a time.
    const flood: Socket[] = [];
    for (let i = 0; i < 20; i++) flood.push(...(await Promise.all(Array.from({ length: 100 }, () => silentSocket(port)))));
    // Every socket still open is closed by the bridge within the idle deadline.
    await Promise.all(flood.map((socket) => (socket.destroyed ? undefined : once(socket, "close"))));
    flooding = false;
    await prober;
    expect(probes.length).toBeGreaterThan(10);
    expect(probes.filter((p) => p.status !== 200)).toEqual([]);
    // Before the limits, probes got no answer for 10 s. Typically the worst is under 100 ms here; a loaded 2-core
    // machine has shown one probe at ~1 s (a connect retried), so the bound only says "answered, not hanging".
    expect(Math.max(...probes.map((p) => p.ms))).toBeLessThan(3_000);
    // 2,000 sockets' worth of state would show; a bounded set of 300 stays within a few MiB.
    if (baseline !== undefined) expect(peak - baseline).toBeLessThan(64 * 1024 * 1024);
  });

  it("--trust-proxy loopback counts the forwarded address against maxConnectionsPerAddress", async () => {
    const { port } = await serveChild(["--trust-proxy", "loopback", "--limit", "maxConnectionsPerAddress=2"]);
    const url = `ws://127.0.0.1:${port}/ws`;
    const from = (address: string) => ({ headers: { "x-forwarded-for": address } });
    const opened = [await TestClient.open(url, from("203.0.113.7")), await TestClient.open(url, from("203.0.113.7"))];
    expect(await refusedUpgrade(url, from("203.0.113.7"))).toMatchObject({ status: 429, body: { code: "TOO_MANY_REQUESTS" } });
    opened.push(await TestClient.open(url, from("203.0.113.8")));
    await Promise.all(opened.map((client) => client.close()));
  });
});
