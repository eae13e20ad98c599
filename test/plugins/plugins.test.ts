import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import type { BridgeOptions } from "../../src/bridge/options.js";
import { PluginHealthSchema, ProtocolErrorSchema, type PluginHealth } from "../../src/protocol/index.js";
import { keepForSuite, startBridge, type Harness } from "../helpers/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { until } from "../helpers/until.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const fixture = (name: string): string => join(FIXTURES, name);

async function json<T = unknown>(h: Harness, path: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  const response = await h.http(path, init);
  const text = await response.text();
  return { status: response.status, body: (text === "" ? undefined : JSON.parse(text)) as T };
}

const health = async (h: Harness, id: string): Promise<PluginHealth> => {
  const { status, body } = await json<PluginHealth>(h, `/plugins/${id}/health`);
  expect(status).toBe(200);
  expect(PluginHealthSchema.safeParse(body).success).toBe(true);
  return body;
};

/** Polls a plugin's health over HTTP until it satisfies `done` (hooks run after the triggering frame). */
function healthUntil(h: Harness, id: string, done: (health: PluginHealth) => boolean): Promise<PluginHealth> {
  return until(() => health(h, id), done, { what: `plugin ${id}'s health` });
}

/** Polls the stats fixture's hook log (GET /plugins/stats/log) until `done`. */
function statsLogUntil(h: Harness, done: (log: unknown[][]) => boolean): Promise<unknown[][]> {
  return until(async () => (await json<unknown[][]>(h, "/plugins/stats/log")).body, done, { what: "the stats plugin's log" });
}

/** Collects log lines of a bridge so tests can read what it logged. */
function capturingLogger(): { logger: NonNullable<BridgeOptions["logger"]>; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

async function refusedWith(h: Harness, id: string): Promise<{ code: string; closeCode: number }> {
  const client = await h.connect(`/ws/${id}`);
  const event = await client.next((f) => f.type === "error");
  const { code } = await client.closed;
  expect(ProtocolErrorSchema.safeParse(event.data).success).toBe(true);
  return { code: (event.data as { code: string }).code, closeCode: code };
}

/**
 * One bridge, started on first use, for a `describe`'s cases that only read what it serves; closed after them (cases
 * that change anything start their own, after these).
 */
function readingBridge(options: BridgeOptions): () => Promise<Harness> {
  let shared: Promise<{ h: Harness; close: () => Promise<void> }> | undefined;
  afterAll(async () => {
    await (await shared)?.close();
  });
  return async () => {
    shared ??= startOnSharedEditor(options).then((h) => ({ h, close: keepForSuite(h) }));
    return (await shared).h;
  };
}

describe("plugin host", () => {
  /* The cases that only read share one bridge with both plugins (a worker each); the ones after them start their own. */
  describe("one bridge with the stats and CommonJS plugins", () => {
    const start = readingBridge({ plugins: [fixture("stats"), fixture("cjs")] });

    it("loads ESM and CommonJS plugins and lists them in /plugins, getServerInfo and #ready", async () => {
      const h = await start();
      const { body } = await json<{ plugins: unknown[]; failed: unknown[] }>(h, "/plugins");
      expect(body).toEqual({ plugins: [{ id: "stats" }, { id: "cjs-fixture" }], failed: [] });
      const root = await h.connect();
      expect((await root.call<{ plugins: unknown[] }>("getServerInfo")).plugins).toEqual(body.plugins);
      await root.call("event:subscribe", { type: "#ready" });
      const ready = await root.next((f) => f.type === "#ready");
      expect((ready.data as { plugins: unknown[] }).plugins).toEqual(body.plugins);
      const cjs = await h.connect("/ws/cjs-fixture");
      expect(await cjs.call("cjs:hello")).toBe("hello from CommonJS");
    });

    it("a client on /ws/{id} calls plugin methods first, then built-ins, and receives the plugin's events", async () => {
      const h = await start();
      const client = await h.connect("/ws/stats");
      expect(client.hello).toMatchObject({ resumed: false });
      await client.call("event:subscribe", { type: "stats:counted" });
      const layers = await h.connect().then((root) => root.call<unknown[]>("document:layers"));
      expect(await client.call("stats:count")).toEqual({ count: layers.length });
      const event = await client.next((f) => f.type === "stats:counted");
      expect(event.data).toEqual({ count: layers.length, by: client.hello.clientId });
      expect(event.seq).toBeGreaterThan(0);
      // The plugin's own document:current shadows the built-in on its endpoint only; other built-ins still answer.
      expect(await client.call("document:current")).toEqual({ shadowed: true });
      expect(await client.call("layer:getInfo")).toMatchObject({ id: expect.any(Number) });
      expect(await client.call("stats:greet", { name: "Ann" })).toBe("hello Ann");
      const bad = await client.send("stats:greet", { name: 3 });
      expect(bad.error).toMatchObject({ code: "BAD_REQUEST", details: { issues: [{ path: "name", message: "name must be a string" }] } });
      expect((await client.send("stats:nope")).error?.code).toBe("UNKNOWN_METHOD");
    });

    it("plugin-local events reach only that plugin's subscribers, never root or other plugins", async () => {
      const h = await start();
      const root = await h.connect();
      const other = await h.connect("/ws/cjs-fixture");
      const stats = await h.connect("/ws/stats");
      for (const client of [root, other]) {
        const refused = await client.send("event:subscribe", { type: "stats:counted" });
        expect(refused.error?.code).toBe("BAD_REQUEST");
        expect(refused.error?.details?.["accepted"]).not.toContain("stats:counted");
      }
      await stats.call("event:subscribe", { type: "stats:counted" });
      await stats.call("stats:count");
      await stats.next((f) => f.type === "stats:counted");
      // A round trip on each other socket after the event was sent: anything leaked would have arrived first.
      await root.call("getServerInfo");
      await other.call("getServerInfo");
      expect([...root.frames, ...other.frames].some((f) => f.type?.startsWith("stats:"))).toBe(false);
    });

    it("errors a plugin throws pass through with source plugin; uncoded errors become INTERNAL without internals", async () => {
      const h = await start();
      const client = await h.connect("/ws/stats");
      const coded = await client.send("stats:fail", { kind: "coded" });
      expect(coded.error).toMatchObject({ code: "QUOTA_EXCEEDED", message: "Only 3 a minute", retryable: true, source: "plugin", pluginId: "stats" });
      expect(coded.error?.details).toEqual({ httpStatus: 429 });
      const plain = await client.send("stats:fail", { kind: "plain" });
      expect(plain.error).toMatchObject({ code: "INTERNAL", source: "plugin", pluginId: "stats" });
      expect(JSON.stringify(plain.error)).not.toMatch(/passwd|at .*\.js/);
      expect(await client.call("stats:fail", { kind: "none" })).toBeNull();
    });

    it("plugin routes serve under /plugins/{id}/ with params, query, JSON bodies, 204, clear 404s and 405s", async () => {
      const h = await start();
      expect(await json(h, "/plugins/stats/layers/3?deep=1")).toEqual({ status: 200, body: { index: "3", query: { deep: "1" } } });
      const echoed = await json(h, "/plugins/stats/echo", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify([1, { a: "b" }]),
      });
      expect(echoed).toEqual({ status: 200, body: { body: [1, { a: "b" }] } });
      expect((await h.http("/plugins/stats/empty", { method: "DELETE" })).status).toBe(204);
      const raw = await h.http("/plugins/stats/raw");
      expect([raw.status, raw.headers.get("content-type"), await raw.text()]).toEqual([201, "text/plain", "raw text"]);
      // A GET route answers HEAD with the same status and headers and no body.
      const head = await h.http("/plugins/stats/raw", { method: "HEAD" });
      expect([head.status, head.headers.get("content-type"), await head.text()]).toEqual([201, "text/plain", ""]);
      const missing = await json<{ code: string }>(h, "/plugins/stats/nope");
      expect([missing.status, missing.body.code]).toEqual([404, "NOT_FOUND"]);
      const wrongVerb = await json<{ code: string; message: string }>(h, "/plugins/stats/log", { method: "POST" });
      expect([wrongVerb.status, wrongVerb.body.code, wrongVerb.body.message]).toEqual([405, "METHOD_NOT_ALLOWED", "/plugins/stats/log answers GET, HEAD, not POST"]);
      const unknown = await json<{ code: string }>(h, "/plugins/ghost/anything");
      expect([unknown.status, unknown.body.code]).toEqual([404, "PLUGIN_NOT_FOUND"]);
      const badJson = await json<{ code: string }>(h, "/plugins/stats/echo", { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
      expect([badJson.status, badJson.body.code]).toEqual([400, "BAD_REQUEST"]);
    });
  });


  it("ctx.bridge.on hears main events: the plugin turns selection changes into its own event", async () => {
    const h = await startOnSharedEditor({ plugins: [fixture("stats")] });
    const stats = await h.connect("/ws/stats");
    await stats.call("event:subscribe", { type: "stats:selection" });
    const root = await h.connect();
    await root.call("selection:set", { rect: { x: 1, y: 2, width: 3, height: 4 } });
    const event = await stats.next((f) => f.type === "stats:selection");
    expect(event.data).toMatchObject({ x: 1, y: 2, width: 3, height: 4 });
  });

  it("a plugin method past its deadline answers TIMEOUT and its signal aborts", async () => {
    const h = await startOnSharedEditor({ plugins: [fixture("stats")], limits: { pluginCallTimeoutMs: 150 } });
    const client = await h.connect("/ws/stats");
    const frame = await client.send("stats:hang");
    expect(frame.error).toMatchObject({ code: "TIMEOUT", pluginId: "stats", details: { outcome: "unknown" } });
    expect(await client.call("stats:greet", { name: "still served" })).toBe("hello still served");
  });

  it("health counts attached clients and reports loadedAt and passing checks", async () => {
    const before = Date.now();
    const h = await startOnSharedEditor({ plugins: [fixture("stats")] });
    await h.connect("/ws/stats");
    const second = await h.connect("/ws/stats");
    await h.connect(); // a root client is not the plugin's
    const current = await health(h, "stats");
    expect(current).toMatchObject({ id: "stats", status: "loaded", clients: 2, checks: { load: "ok", registration: "ok", runtime: "ok" } });
    expect(current.loadedAt).toBeGreaterThanOrEqual(before);
    expect(current.loadedAt).toBeLessThanOrEqual(Date.now());
    expect(current.lastError).toBeUndefined();
    await second.close();
    await healthUntil(h, "stats", (x) => x.clients === 1);
    const unknown = await json<{ code: string }>(h, "/plugins/ghost/health");
    expect([unknown.status, unknown.body.code]).toEqual([404, "PLUGIN_NOT_FOUND"]);
  });

  it("onConnect runs once per logical client and onDisconnect when it is disposed, with the reason", async () => {
    const h = await startOnSharedEditor({ plugins: [fixture("stats")] });
    const first = await h.connect("/ws/stats");
    const id = first.hello.clientId;
    await first.close(1000); // detached, not disposed: no onDisconnect, and resuming is no new connection
    const resumed = await h.connect(`/ws/stats?resume=${id}`);
    expect(resumed.hello).toMatchObject({ clientId: id, resumed: true });
    await resumed.close(4000);
    const log = await statsLogUntil(h, (l) => l.some((e) => e[0] === "disconnect" && e[1] === id));
    const mine = log.filter((e) => e[1] === id);
    expect(mine).toEqual([
      ["connect", id],
      ["disconnect", id, "closed"],
    ]);
  });
});

describe("plugin client lifetime", () => {
  it("a detached client whose resume TTL runs out gets onDisconnect with reason expired", async () => {
    const h = await startOnSharedEditor({ plugins: [fixture("stats")], limits: { resumeTtlMs: 50 } });
    const client = await h.connect("/ws/stats");
    const id = client.hello.clientId;
    await client.close(1000);
    const log = await statsLogUntil(h, (l) => l.some((e) => e[0] === "disconnect" && e[1] === id));
    expect(log.find((e) => e[0] === "disconnect" && e[1] === id)).toEqual(["disconnect", id, "expired"]);
  });
});

describe("plugin failures are contained and diagnosable", () => {
  const FAILING = ["bad-manifest", "import-throws", "not-a-function", "bad-id", "dup-a", "dup-b", "setup-throws", "setup-hangs"];

  /*
   * These cases only read what the loading left (health, /plugins, refused connections): they share one bridge, which
   * starts a worker for each plugin that gets as far as its import. The cases after them start their own.
   */
  describe("one bridge with every failing plugin", () => {
    const start = readingBridge({ plugins: [...FAILING.map(fixture), fixture("stats")], limits: { pluginSetupTimeoutMs: 300 } });

    it.each([
      ["bad-manifest", "PLUGIN_LOAD_FAILED", "manifest", /not valid JSON/],
      ["import-throws", "PLUGIN_LOAD_FAILED", "import", /boom at import/],
      ["not-a-function", "PLUGIN_LOAD_FAILED", "definition", /not a plugin definition/],
      ["bad-id", "PLUGIN_LOAD_FAILED", "definition", /must match/],
      ["setup-throws", "PLUGIN_REGISTRATION_FAILED", "setup", /cannot reach the licence server/],
      ["setup-hangs", "PLUGIN_REGISTRATION_FAILED", "setup", /within 300 ms/],
    ])("%s reports %s (phase %s) over HTTP and over the wire", async (id, code, phase, reason) => {
      const h = await start();
      const report = await health(h, id);
      expect(report).toMatchObject({ id, status: "failed", clients: 0, lastError: { code, source: "plugin", details: { phase } } });
      expect(String(report.lastError?.details?.["reason"])).toMatch(reason);
      expect(report.checks).toEqual(
        code === "PLUGIN_LOAD_FAILED" ? { load: "failed", registration: "skipped" } : { load: "ok", registration: "failed" },
      );
      expect(report.loadedAt).toBeUndefined();
      expect(await refusedWith(h, id)).toEqual({ code, closeCode: 4004 });
      // The rest of the bridge carries on.
      const stats = await h.connect("/ws/stats");
      expect(await stats.call("stats:greet", { name: "x" })).toBe("hello x");
      expect((await h.connect()).hello.resumed).toBe(false);
    });

    it("/plugins lists only loaded plugins and names every failure with its folder", async () => {
      const h = await start();
      const { body } = await json<{ plugins: unknown[]; failed: Array<PluginHealth & { dir: string }> }>(h, "/plugins");
      expect(body.plugins).toEqual([{ id: "dup" }, { id: "stats" }]);
      expect(body.failed.map((f) => f.dir.split("/").pop()).sort()).toEqual(
        ["bad-id", "bad-manifest", "dup-b", "import-throws", "not-a-function", "setup-hangs", "setup-throws"].sort(),
      );
      const ready = await json<{ status: string; plugins: unknown }>(h, "/ready");
      expect([ready.status, ready.body.status, ready.body.plugins]).toEqual([200, "degraded", { loaded: 2, failed: 7 }]);
    });

    it("a duplicate id loses to the first plugin, which keeps the id; the failure names the owner", async () => {
      const h = await start();
      expect(await health(h, "dup")).toMatchObject({ status: "loaded" });
      const client = await h.connect("/ws/dup");
      expect(await client.call("dup:who")).toBe("a");
      const { body } = await json<{ failed: Array<PluginHealth & { dir: string }> }>(h, "/plugins");
      const loser = body.failed.find((f) => f.dir.endsWith("dup-b"))!;
      expect(loser.lastError).toMatchObject({ code: "PLUGIN_LOAD_FAILED", details: { phase: "duplicate", owner: fixture("dup-a") } });
    });

    it("registration is atomic: what a failing setup registered is not reachable", async () => {
      const h = await start();
      const route = await json<{ code: string }>(h, "/plugins/setup-throws/half");
      expect([route.status, route.body.code]).toEqual([503, "PLUGIN_REGISTRATION_FAILED"]);
      const late = await json<{ code: string }>(h, "/plugins/setup-hangs/anything");
      expect(late.body.code).toBe("PLUGIN_REGISTRATION_FAILED");
    });
  });

  it("a throwing onConnect rejects only that connection (error event, 1011) and marks runtime failed", async () => {
    const h = await startOnSharedEditor({ plugins: [fixture("fragile"), fixture("stats")], pluginConfig: { fragile: { failOn: ["onConnect"] } } });
    const bystander = await h.connect("/ws/stats");
    const refused = await h.connect("/ws/fragile");
    const event = await refused.next((f) => f.type === "error");
    expect(event.data).toMatchObject({ code: "PLUGIN_LIFECYCLE_FAILED", pluginId: "fragile", details: { phase: "onConnect" } });
    expect((await refused.closed).code).toBe(1011);
    expect(refused.frames.some((f) => f.type === "connected")).toBe(false);
    const report = await health(h, "fragile");
    expect(report).toMatchObject({ status: "loaded", clients: 0, checks: { load: "ok", registration: "ok", runtime: "failed" } });
    expect(report.lastError).toMatchObject({ code: "PLUGIN_LIFECYCLE_FAILED", details: { phase: "onConnect", reason: "onConnect exploded" } });
    expect(await bystander.call("stats:greet", { name: "fine" })).toBe("hello fine");
    expect((await h.connect("/ws/fragile")).frames.some((f) => f.type === "connected")).toBe(false);
  });

  it("a throwing onDisconnect is contained: the plugin stays loaded with runtime failed", async () => {
    const h = await startOnSharedEditor({ plugins: [fixture("fragile")], pluginConfig: { fragile: { failOn: ["onDisconnect"] } } });
    const client = await h.connect("/ws/fragile");
    expect(await client.call("fragile:ping")).toBe("pong");
    await client.close(4000);
    const report = await healthUntil(h, "fragile", (x) => x.checks?.["runtime"] === "failed");
    expect(report).toMatchObject({ status: "loaded", lastError: { code: "PLUGIN_LIFECYCLE_FAILED", details: { phase: "onDisconnect" } } });
    const again = await h.connect("/ws/fragile");
    expect(await again.call("fragile:ping")).toBe("pong");
  });

  it("shutdown runs onDispose in reverse load order; a throwing or hanging onDispose cannot stop it", async () => {
    for (const failOn of ["onDispose", "hangOnDispose"]) {
      const { logger, lines } = capturingLogger();
      // A bridge with a logger of its own gets an editor of its own: inline here, the plugins' shutdown is the subject.
      const h = await startBridge({
        plugins: [fixture("fragile"), fixture("stats")],
        pluginConfig: { fragile: { failOn: [failOn] } },
        limits: { pluginHookTimeoutMs: 200 },
        logger,
        embedded: { isolation: "inline" },
      });
      await h.bridge.close();
      const statsDisposed = lines.findIndex((l) => l["actor"] === "plugin:stats" && l["msg"] === "stats disposed");
      const fragileFailed = lines.findIndex((l) => l["actor"] === "plugin:fragile" && l["phase"] === "onDispose");
      expect(statsDisposed).toBeGreaterThanOrEqual(0);
      expect(fragileFailed).toBeGreaterThan(statsDisposed);
      expect(String(lines[fragileFailed]!["reason"])).toMatch(failOn === "onDispose" ? /onDispose exploded/ : /within 200 ms/);
      expect(lines.some((l) => l["msg"] === "bridge closed")).toBe(true);
    }
  });

  it("a missing --plugins-dir stops the start with a clear error", async () => {
    await expect(startOnSharedEditor({ pluginsDir: fixture("no-such-folder") })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("plugin discovery", () => {
  it("--plugins-dir loads child folders sorted by name after --plugin folders, skipping dot-folders and node_modules", async () => {
    const h = await startOnSharedEditor({ plugins: [fixture("cjs")], pluginsDir: join(FIXTURES, "..", "dir-fixtures") });
    const { body } = await json<{ plugins: Array<{ id: string }> }>(h, "/plugins");
    expect(body.plugins.map((p) => p.id)).toEqual(["cjs-fixture", "alpha", "beta"]);
  });
});
