import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { threadId } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { PluginHealthSchema, type PluginHealth } from "../../src/protocol/index.js";
import type { Harness } from "../helpers/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { until } from "../helpers/until.js";

// The worker entry runs from dist/: build (`npm run build`) before running these tests.
const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const fixture = (name: string): string => join(FIXTURES, name);

async function health(h: Harness, id: string): Promise<PluginHealth> {
  const response = await h.http(`/plugins/${id}/health`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as PluginHealth;
  expect(PluginHealthSchema.safeParse(body).success).toBe(true);
  return body;
}

function healthUntil(h: Harness, id: string, done: (health: PluginHealth) => boolean): Promise<PluginHealth> {
  return until(() => health(h, id), done, { what: `plugin ${id}'s health` });
}

describe.each(["worker", "process"] as const)("isolation %s", (isolation) => {
  it("a plugin spinning in while (true) leaves other clients answered, times out, and is restarted", async () => {
    const h = await startOnSharedEditor({
      plugins: [fixture("spinner")],
      pluginIsolation: isolation,
      limits: { pluginCallTimeoutMs: 800, pluginPingTimeoutMs: 300, pluginRestartBackoffMs: 10 },
    });
    const client = await h.connect("/ws/spinner");
    await client.call("event:subscribe", { type: "plugin:restarted" });
    const first = await client.call<{ threadId: number; pid: number }>("spin:ok");
    expect(Object.values(await client.call<Record<string, string>>("spin:clients"))).toEqual(["new"]);
    if (isolation === "process") expect(first.pid).not.toBe(process.pid);
    const root = await h.connect();
    const spinning = client.send("spin:forever");
    let done = false;
    void spinning.then(() => {
      done = true;
    });
    // While the plugin's worker spins, the bridge's thread keeps answering other clients.
    let worst = 0;
    let answered = 0;
    while (!done) {
      const started = performance.now();
      const response = await h.http("/health");
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      expect(await root.call("getServerInfo")).toMatchObject({ plugins: [{ id: "spinner" }] });
      worst = Math.max(worst, performance.now() - started);
      answered += 1;
    }
    expect(answered).toBeGreaterThan(1);
    console.info(`${isolation}: while the plugin spun: ${answered} /health + getServerInfo rounds, worst ${worst.toFixed(1)} ms`);
    expect((await spinning).error).toMatchObject({ code: "TIMEOUT", pluginId: "spinner" });
    const restarted = await client.next((f) => f.type === "plugin:restarted");
    expect(restarted.data).toMatchObject({ id: "spinner", restarts: 1 });
    const report = await health(h, "spinner");
    expect(report).toMatchObject({ status: "loaded", restarts: 1, checks: { runtime: "ok" } });
    expect(report.lastCrash?.reason).toMatch(/liveness ping within 300 ms/);
    const again = await client.call<{ threadId: number; pid: number }>("spin:ok");
    expect(isolation === "worker" ? again.threadId : again.pid).not.toBe(isolation === "worker" ? first.threadId : first.pid);
    // The new worker's module state was rebuilt: onConnect ran again for the connected client.
    expect(Object.values(await client.call<Record<string, string>>("spin:clients"))).toEqual(["restart"]);
  });

  it("the plugin API is the same off the bridge's thread: params validated there, invoke crosses back, signals abort; calls crossing together answer each on its own", async () => {
    // Long enough for every call here to cross and come back on a loaded machine; spin:wait alone waits it out.
    const h = await startOnSharedEditor({ plugins: [fixture("spinner")], pluginIsolation: isolation, limits: { pluginCallTimeoutMs: 3_000 } });
    const client = await h.connect("/ws/spinner");
    // Sent first, it waits out its deadline while the calls below cross and come back.
    const waiting = client.send("spin:wait");
    expect(await client.call("spin:echo", { n: 21 })).toBe(42);
    const bad = await client.send("spin:echo", { n: "x" });
    expect(bad.error).toMatchObject({ code: "BAD_REQUEST", details: { issues: [{ path: "n", message: "n must be a number" }] } });
    const layers = await (await h.connect()).call<unknown[]>("document:layers");
    expect(await client.call("spin:invoke")).toBe(layers.length);
    const waited = await waiting;
    expect(waited.error).toMatchObject({ code: "TIMEOUT" });
    // A handler that honours its signal lets the worker answer pings: no restart.
    expect(await client.call("spin:echo", { n: 1 })).toBe(2);
    expect((await health(h, "spinner")).restarts).toBeUndefined();
    // Calls crossing together answer each on its own: a result that cannot cross fails alone (on the same bridge: the
    // plugin was not restarted above).
    // Sent in one turn, these cross to the plugin (and back) as one batch.
    const answers = await Promise.all([1, 2, 3].flatMap((n) => [client.send("spin:echo", { n }), client.send("spin:fn")]));
    expect(answers.filter((_, i) => i % 2 === 0).map((a) => a.result)).toEqual([2, 4, 6]);
    for (const failed of answers.filter((_, i) => i % 2 === 1)) {
      expect(failed.error?.message).toMatch(/result cannot cross to the bridge/);
    }
    expect(await client.call("spin:echo", { n: 5 })).toBe(10);
  });

  it("a plugin allocating without bound is stopped at its memory cap and restarted; the call answers PLUGIN_UNAVAILABLE", async () => {
    // A process's cap counts all it holds resident, and Node alone is some 50 MiB of it.
    const cap = isolation === "worker" ? 32 * 1024 * 1024 : 96 * 1024 * 1024;
    const h = await startOnSharedEditor({
      plugins: [fixture("hog")],
      pluginIsolation: isolation,
      limits: { pluginMaxMemoryBytes: cap, pluginRestartBackoffMs: 10, pluginCallTimeoutMs: 60_000 },
    });
    const client = await h.connect("/ws/hog");
    await client.call("event:subscribe", { type: "plugin:restarted" });
    const eaten = await client.send("hog:eat");
    expect(eaten.error).toMatchObject({ code: "PLUGIN_UNAVAILABLE", retryable: true, pluginId: "hog" });
    expect(eaten.error?.message).toMatch(/out of memory/);
    await client.next((f) => f.type === "plugin:restarted");
    expect(await client.call("hog:ok")).toBe("ok");
    const report = await health(h, "hog");
    expect(report.restarts).toBe(1);
    expect(report.lastCrash?.reason).toMatch(new RegExp(`ran out of memory \\(limits.pluginMaxMemoryBytes: ${cap} bytes\\)`));
  });

});

describe("isolation choices", () => {
  it("a plugin route claiming a reserved path (reload) is refused at registration with the reason", async () => {
    const h = await startOnSharedEditor({ plugins: [fixture("reserved-route")] });
    const report = await healthUntil(h, "reserved-route", (x) => x.status === "failed");
    expect(report.lastError).toMatchObject({ code: "PLUGIN_REGISTRATION_FAILED" });
    expect(report.lastError?.message).toMatch(/route path "\/reload" is reserved/);
  });

  it("plugins registering the same method name each answer their own calls, in any mix of modes, concurrently", async () => {
    const root = await mkdtemp(join(tmpdir(), "bridge-same-name-"));
    try {
      const ids = ["twin-worker", "twin-process", "twin-none"];
      for (const id of ids) {
        await mkdir(join(root, id));
        const isolation = id.slice("twin-".length);
        await writeFile(join(root, id, "package.json"), JSON.stringify({ name: id, type: "module", main: "index.js", imageEditorBridge: { id, isolation } }));
        await writeFile(join(root, id, "index.js"), `export default { id: "${id}", setup(ctx) { ctx.method("echo", (p) => ({ who: "${id}", n: p.n })); } };`);
      }
      const h = await startOnSharedEditor({ plugins: ids.map((id) => join(root, id)) });
      const clients = await Promise.all(ids.map((id) => h.connect(`/ws/${id}`)));
      const answers = await Promise.all(clients.flatMap((client) => [1, 2, 3].map((n) => client.call("echo", { n }))));
      expect(answers).toEqual(ids.flatMap((who) => [1, 2, 3].map((n) => ({ who, n }))));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("--plugin-isolation none runs the plugin in the bridge's thread", async () => {
    const h = await startOnSharedEditor({ plugins: [fixture("spinner")], pluginIsolation: "none" });
    const client = await h.connect("/ws/spinner");
    expect((await client.call<{ threadId: number }>("spin:ok")).threadId).toBe(threadId);
  });
});
