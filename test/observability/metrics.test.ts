import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { RecentCallsRing } from "../../src/observability/recent-calls.js";
import { RecentCallsSchema } from "../../src/protocol/index.js";
import { startBridge, waitForQueued, type Harness } from "../helpers/bridge.js";
import { eventually } from "../helpers/gc.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import { refusedUpgrade } from "../helpers/ws-client.js";

const PLUGIN_FIXTURES = fileURLToPath(new URL("../plugins/fixtures/", import.meta.url));

const rawSockets: Socket[] = [];
afterEach(() => {
  for (const socket of rawSockets.splice(0)) socket.destroy();
});

/** A TCP socket to the bridge that sends `request` (nothing when empty) and resolves once the answer's head arrived (or at once). */
function rawSocket(port: number, request: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      if (request === "") return resolve(socket);
      socket.write(request);
      socket.once("data", (chunk: Buffer) => (chunk.toString("latin1").startsWith("HTTP/1.1 200") ? resolve(socket) : reject(new Error(chunk.toString("latin1")))));
    });
    socket.once("error", reject);
    rawSockets.push(socket);
  });
}

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

interface Scrape {
  readonly text: string;
  readonly samples: Sample[];
  /** Metric family name → its `# HELP` text. */
  readonly help: Map<string, string>;
  /** Metric family name → its `# TYPE`. */
  readonly types: Map<string, string>;
}

/** Reads `/metrics` and parses the Prometheus text format. */
async function scrape(harness: Harness): Promise<Scrape> {
  const response = await harness.http("/metrics");
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  const samples: Sample[] = [];
  const help = new Map<string, string>();
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (comment !== null) {
      (comment[1] === "HELP" ? help : types).set(comment[2]!, comment[3]!);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    expect(sample, line).not.toBeNull();
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample![2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: sample![1]!, labels, value: Number(sample![3]) });
  }
  return { text, samples, help, types };
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when there is none. */
function value(scraped: Scrape, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = scraped.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  expect(found.length, `${name} ${JSON.stringify(labels)}`).toBeLessThanOrEqual(1);
  return found[0]?.value;
}

/** The family a sample belongs to: histogram series carry a suffix the family's `# HELP` does not. */
function familyOf(scraped: Scrape, sample: string): string {
  if (scraped.help.has(sample)) return sample;
  return sample.replace(/_(bucket|sum|count)$/, "");
}

describe("GET /metrics", () => {
  it("counts WS and HTTP calls by method, transport and editor, and failures by method and code", async () => {
    const harness = await startBridge({ host: new ScriptedHost() });
    const client = await harness.connect();
    await client.call("document:current");
    await client.call("document:current");
    await client.call("getServerInfo");
    const unknown = await client.send("no:such-method");
    expect(unknown.error?.code).toBe("UNKNOWN_METHOD");
    const another = await client.send("and:another-one");
    expect(another.error?.code).toBe("UNKNOWN_METHOD");
    expect((await harness.http("/document/current")).status).toBe(200);
    const invalid = await harness.http("/selection/set", { method: "POST", headers: { "content-type": "application/json" }, body: '{"rect":"wide"}' });
    expect(invalid.status).toBe(400);

    const m = await scrape(harness);
    const count = (labels: Record<string, string>): number | undefined => value(m, "bridge_request_duration_seconds_count", labels);
    expect(count({ method: "document:current", transport: "ws", editor: "scripted-1" })).toBe(2);
    expect(count({ method: "document:current", transport: "http", editor: "scripted-1" })).toBe(1);
    // Calls no editor runs are labelled `none`: the bridge answers them itself, or refuses them before routing.
    expect(count({ method: "getServerInfo", transport: "ws", editor: "none" })).toBe(1);
    expect(count({ method: "selection:set", transport: "http", editor: "none" })).toBe(1);
    // Unknown names collapse into one series, so callers cannot grow the label set.
    expect(count({ method: "(unknown)", transport: "ws", editor: "none" })).toBe(2);
    expect(m.samples.some((s) => s.labels["method"] === "no:such-method")).toBe(false);
    // The histogram's buckets add up to its count; its sum is a plausible duration.
    const series = { method: "document:current", transport: "ws", editor: "scripted-1" };
    expect(value(m, "bridge_request_duration_seconds_bucket", { ...series, le: "+Inf" })).toBe(2);
    expect(value(m, "bridge_request_duration_seconds_sum", series)).toBeGreaterThan(0);
    expect(m.types.get("bridge_request_duration_seconds")).toBe("histogram");

    expect(value(m, "bridge_errors_total", { method: "(unknown)", code: "UNKNOWN_METHOD" })).toBe(2);
    expect(value(m, "bridge_errors_total", { method: "selection:set", code: "BAD_REQUEST" })).toBe(1);
    expect(value(m, "bridge_errors_total", { method: "document:current" })).toBeUndefined();
  });

  it("has # HELP and # TYPE for every metric family, process metrics included", async () => {
    const harness = await startBridge({ host: new ScriptedHost() });
    await (await harness.connect()).call("document:current");
    const m = await scrape(harness);
    const families = new Set(m.samples.map((s) => familyOf(m, s.name)));
    expect(families.size).toBeGreaterThan(20);
    for (const family of families) {
      expect(m.help.get(family), `# HELP ${family}`).toMatch(/\S/);
      expect(m.types.has(family), `# TYPE ${family}`).toBe(true);
    }
    for (const family of m.help.keys()) expect(m.types.has(family), family).toBe(true);
    for (const name of ["process_cpu_user_seconds_total", "process_start_time_seconds", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_seconds"]) {
      expect(m.help.has(name), name).toBe(true);
    }
    expect(value(m, "process_start_time_seconds")).toBeGreaterThan(0);
    // A second scrape registers nothing twice.
    const again = await scrape(harness);
    expect(again.help.size).toBe(m.help.size);
  });

  it("shows each editor's queue depth, running calls, queue wait, state and restarts", async () => {
    const host = new ScriptedHost();
    const harness = await startBridge({ host });
    const client = await harness.connect();
    host.hold();
    const calls = [client.call("document:current"), client.call("document:current"), client.call("document:current")];
    await host.whenStarted(1);
    await waitForQueued(harness, 2);
    const queuedSince = performance.now();
    const held = await scrape(harness);
    const editor = { editor: "scripted-1" };
    expect(value(held, "bridge_editor_queue_depth", editor)).toBe(2);
    expect(value(held, "bridge_editor_running_calls", editor)).toBe(1);
    expect(value(held, "bridge_editor_state", { ...editor, state: "busy" })).toBe(1);
    expect(value(held, "bridge_editor_state", { ...editor, state: "ready" })).toBe(0);
    expect(value(held, "bridge_editor_restarts_total", editor)).toBe(0);
    expect(value(held, "bridge_editors")).toBe(1);
    expect(value(held, "bridge_editors_ready")).toBe(1);
    const heldFor = performance.now() - queuedSince;
    host.release();
    await Promise.all(calls);

    const after = await scrape(harness);
    expect(value(after, "bridge_editor_queue_depth", editor)).toBe(0);
    expect(value(after, "bridge_editor_running_calls", editor)).toBe(0);
    expect(value(after, "bridge_editor_state", { ...editor, state: "ready" })).toBe(1);
    // Every call the editor ran waited once in its queue; the two held back waited at least while we scraped.
    const ran = after.samples
      .filter((s) => s.name === "bridge_request_duration_seconds_count" && s.labels["editor"] === "scripted-1")
      .reduce((sum, s) => sum + s.value, 0);
    expect(ran).toBe(3);
    expect(value(after, "bridge_editor_queue_wait_seconds_count", editor)).toBe(ran);
    expect(value(after, "bridge_editor_queue_wait_seconds_sum", editor)).toBeGreaterThanOrEqual((2 * heldFor) / 1000);
  });

  it("shows clients attached and detached, subscriptions, and the events delivered to them", async () => {
    const harness = await startBridge({ host: new ScriptedHost() });
    const listener = await harness.connect();
    const leaving = await harness.connect();
    await listener.call("event:subscribe", { type: "selection:changed" });
    await leaving.close(1000); // not 4000: the logical client stays, detached, for its resume
    await eventually(async () => value(await scrape(harness), "bridge_clients", { state: "detached" }) === 1, "the client to be detached");
    const before = await scrape(harness);
    expect(value(before, "bridge_clients", { state: "attached" })).toBe(1);
    expect(value(before, "bridge_subscriptions")).toBe(1);
    const deliveredBefore = value(before, "bridge_events_delivered_total")!;

    await listener.call("selection:set", { rect: { x: 1, y: 1, width: 2, height: 2 } });
    await listener.call("getServerInfo"); // the event was written before this answer
    const events = listener.events("selection:changed").length;
    expect(events).toBeGreaterThan(0);
    const after = await scrape(harness);
    expect(value(after, "bridge_events_delivered_total")).toBe(deliveredBefore + events);
    expect(value(after, "bridge_events_coalesced_total")).toBe(0);
    expect(value(after, "bridge_slow_consumer_closes_total")).toBe(0);

    // A client that goes for good takes nothing away from the totals.
    await listener.close(4000);
    await eventually(async () => value(await scrape(harness), "bridge_clients", { state: "attached" }) === 0, "the client to be disposed");
    const gone = await scrape(harness);
    expect(value(gone, "bridge_subscriptions")).toBe(0);
    expect(value(gone, "bridge_events_delivered_total")).toBe(deliveredBefore + events);
  });

  it("shows each plugin's health, and counts plugin methods and a plugin's own calls to built-ins", async () => {
    const harness = await startBridge({ host: new ScriptedHost(), plugins: [join(PLUGIN_FIXTURES, "stats"), join(PLUGIN_FIXTURES, "setup-throws")] });
    const client = await harness.connect("/ws/stats");
    expect(await client.call("stats:count")).toMatchObject({ count: expect.any(Number) });
    expect((await client.send("stats:fail", { kind: "coded" })).error?.code).toBe("QUOTA_EXCEEDED");
    const m = await scrape(harness);
    expect(value(m, "bridge_plugin_up", { plugin: "stats" })).toBe(1);
    expect(value(m, "bridge_plugin_up", { plugin: "setup-throws" })).toBe(0);
    const count = (labels: Record<string, string>): number | undefined => value(m, "bridge_request_duration_seconds_count", labels);
    // The plugin's method is named with its endpoint; the built-in it calls is counted under the plugin transport.
    expect(count({ method: "stats/stats:count", transport: "ws", editor: "none" })).toBe(1);
    expect(count({ method: "document:layers", transport: "plugin", editor: "scripted-1" })).toBe(1);
    expect(value(m, "bridge_errors_total", { method: "stats/stats:fail", code: "QUOTA_EXCEEDED" })).toBe(1);
  });

  it("shows open sockets by transport, the socket cap, and the sockets the connection limits refused or closed", async () => {
    // Past 4 sockets only the operator paths are served; a socket silent for 300 ms is closed.
    const limits = { maxConnections: 10, connectionReserve: 6, idleConnectionMs: 300 };
    const harness = await startBridge({ host: new ScriptedHost(), limits });
    const { port } = harness.bridge;
    for (let i = 0; i < 3; i++) await harness.connect();
    await rawSocket(port, `GET /events?type=selection:changed HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    // The fifth socket is inside the reserve: its upgrade is refused (503), a silent one is closed when idle.
    expect(await refusedUpgrade(harness.bridge.wsUrl)).toMatchObject({ status: 503, body: { details: { limit: "connectionReserve" } } });
    const silent = await rawSocket(port, "");
    await new Promise((resolve) => silent.once("close", resolve));

    const m = await scrape(harness);
    expect(m.types.get("bridge_connections_open")).toBe("gauge");
    expect(m.types.get("bridge_connections_refused_total")).toBe("counter");
    expect(m.types.get("bridge_connections_closed_total")).toBe("counter");
    expect(value(m, "bridge_connections_open", { transport: "ws" })).toBe(3);
    expect(value(m, "bridge_connections_open", { transport: "sse" })).toBe(1);
    expect(value(m, "bridge_connections_open", { transport: "http" })).toBeGreaterThanOrEqual(1); // this scrape's own
    expect(value(m, "bridge_connections_limit", { limit: "maxConnections" })).toBe(10);
    expect(value(m, "bridge_connections_limit", { limit: "connectionReserve" })).toBe(6);
    expect(value(m, "bridge_connections_refused_total", { reason: "reserve" })).toBe(1);
    expect(value(m, "bridge_connections_refused_total", { reason: "full" })).toBe(0);
    expect(value(m, "bridge_connections_refused_total", { reason: "per_address" })).toBe(0);
    expect(value(m, "bridge_connections_closed_total", { reason: "idle" })).toBe(1);
    expect(value(m, "bridge_connections_closed_total", { reason: "evicted" })).toBe(0);
    // The same numbers the operator's status shows.
    const status = (await (await harness.http("/status")).json()) as { connections: Record<string, number> };
    expect(status.connections).toMatchObject({ refusedReserve: 1, idleClosed: 1, max: 10, reserve: 6 });
  });

  it("two bridges in one process count on their own registries", async () => {
    const one = await startBridge({ host: new ScriptedHost() });
    const two = await startBridge({ host: new ScriptedHost() });
    const client = await one.connect();
    await client.call("document:current");
    await client.call("document:current");
    const first = await scrape(one);
    const second = await scrape(two);
    const series = { method: "document:current", transport: "ws", editor: "scripted-1" };
    expect(value(first, "bridge_request_duration_seconds_count", series)).toBe(2);
    expect(value(second, "bridge_request_duration_seconds_count", series)).toBeUndefined();
    expect(value(first, "bridge_clients", { state: "attached" })).toBe(1);
    expect(value(second, "bridge_clients", { state: "attached" })).toBe(0);
    // Both carry their own process metrics.
    expect(second.help.has("process_cpu_user_seconds_total")).toBe(true);
  });
});

describe("GET /status calls", () => {
  it("summarises the last five minutes of calls in ten-second buckets, oldest first", async () => {
    const harness = await startBridge({ host: new ScriptedHost() });
    const client = await harness.connect();
    const before = Date.now();
    for (let i = 0; i < 5; i++) await client.call("document:current");
    expect((await client.send("no:such-method")).ok).toBe(false);
    expect((await harness.http("/document/current")).status).toBe(200);
    const after = Date.now();

    const status = (await (await harness.http("/status")).json()) as { calls: unknown };
    const calls = RecentCallsSchema.parse(status.calls);
    expect(calls.windowMs).toBe(300_000);
    expect(calls.bucketMs).toBe(10_000);
    expect(calls.buckets).toHaveLength(30);
    const starts = calls.buckets.map((b) => b.at);
    expect(starts).toEqual(starts.map((_, i) => starts[0]! + i * 10_000));
    const last = calls.buckets.at(-1)!;
    expect(last.at % 10_000).toBe(0);
    expect(last.at).toBeLessThanOrEqual(Date.now());
    expect(last.at + 10_000).toBeGreaterThan(after);
    // The calls fell in the bucket of their time (or two, if a bucket boundary passed while they ran).
    const touched = calls.buckets.filter((b) => b.count > 0);
    expect(touched.every((b) => b.at + 10_000 > before && b.at <= after)).toBe(true);
    expect(touched.reduce((n, b) => n + b.count, 0)).toBe(7);
    expect(touched.reduce((n, b) => n + b.errors, 0)).toBe(1);
    for (const b of touched) {
      expect(b.p50).toBeGreaterThan(0);
      expect(b.p50).toBeLessThanOrEqual(b.p95);
      expect(b.p95).toBeLessThanOrEqual(b.p99);
    }
    expect(calls.buckets.filter((b) => b.count === 0).every((b) => b.errors === 0 && b.p99 === 0)).toBe(true);
  });
});

describe("the recent-calls ring", () => {
  it("estimates percentiles within the bin width and forgets buckets older than the window", () => {
    let now = 1_000_000_000_000;
    const ring = new RecentCallsRing(60_000, 10_000, () => now);
    // 1..1000 ms, one call each, in shuffled order: the true p50/p95/p99 are 500, 950 and 990.
    const latencies = Array.from({ length: 1000 }, (_, i) => i + 1).sort((a, b) => ((a * 7919) % 1000) - ((b * 7919) % 1000));
    for (const ms of latencies) ring.record(ms, ms % 100 === 0);
    const first = ring.summary().buckets.at(-1)!;
    expect(first).toMatchObject({ at: now - (now % 10_000), count: 1000, errors: 10 });
    for (const [estimate, truth] of [[first.p50, 500], [first.p95, 950], [first.p99, 990]] as const) {
      expect(Math.abs(estimate - truth) / truth).toBeLessThan(0.1);
    }
    // One call alone reports its own latency at every percentile.
    now += 10_000;
    ring.record(42.5, false);
    expect(ring.summary().buckets.at(-1)).toMatchObject({ count: 1, errors: 0, p50: 42.5, p95: 42.5, p99: 42.5 });
    expect(ring.summary().buckets.at(-2)!.count).toBe(1000);
    // A minute later both have left the window; the slots they used count from zero again.
    now += 60_000;
    ring.record(3, true);
    const later = ring.summary();
    expect(later.buckets).toHaveLength(6);
    expect(later.buckets.map((b) => b.count)).toEqual([0, 0, 0, 0, 0, 1]);
    expect(later.buckets.at(-1)).toMatchObject({ errors: 1, p50: 3 });
  });
});
