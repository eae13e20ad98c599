import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import type { PluginHealth } from "../../src/protocol/index.js";
import { startBridge, type Harness } from "../helpers/bridge.js";
import { until } from "../helpers/until.js";

// The worker entry runs from dist/: build (`npm run build`) before running these tests.
const fixture = (name: string): string => join(fileURLToPath(new URL("./fixtures/", import.meta.url)), name);

function healthUntil(h: Harness, id: string, done: (health: PluginHealth) => boolean): Promise<PluginHealth> {
  return until(async () => (await (await h.http(`/plugins/${id}/health`)).json()) as PluginHealth, done, { what: `plugin ${id}'s health` });
}

describe.each(["worker", "process"] as const)("plugin supervision (isolation %s)", (isolation) => {
  it("a plugin whose worker keeps crashing restarts with backoff and ends failed after the limit", async () => {
    const backoffMs = 40;
    const scratch = await mkdtemp(join(tmpdir(), "bridge-crasher-"));
    onTestFinished(() => rm(scratch, { recursive: true, force: true }));
    const h = await startBridge({
      plugins: [fixture("crasher"), fixture("spinner")],
      pluginIsolation: isolation,
      pluginConfig: { crasher: { marker: join(scratch, "crashed"), crashAfterMs: 20 } },
      limits: { pluginRestartAttempts: 3, pluginRestartWindowMs: 60_000, pluginRestartBackoffMs: backoffMs },
    });
    const client = await h.connect("/ws/crasher");
    await client.call("event:subscribe", { type: "plugin:restarted" });
    await client.call("event:subscribe", { type: "plugin:failed" });
    expect((await client.send("crash:now")).error).toMatchObject({ code: "PLUGIN_UNAVAILABLE", retryable: true });
    const failed = await client.next((f) => f.type === "plugin:failed");
    expect(failed.data).toMatchObject({ id: "crasher", restarts: 3, reason: `its ${isolation} exited with code 7` });
    const restarted = client.events("plugin:restarted").map((f) => f.data as { restarts: number; at: number });
    expect(restarted.map((r) => r.restarts)).toEqual([1, 2, 3]);
    // The backoff doubles with each crash in the window: 40, 80, then 160 ms before a restart.
    expect(restarted[1]!.at - restarted[0]!.at).toBeGreaterThanOrEqual(backoffMs * 2);
    expect(restarted[2]!.at - restarted[1]!.at).toBeGreaterThanOrEqual(backoffMs * 4);
    const report = await healthUntil(h, "crasher", (x) => x.status === "failed");
    expect(report).toMatchObject({ restarts: 3, checks: { runtime: "failed" }, lastError: { code: "PLUGIN_UNAVAILABLE", retryable: false } });
    expect(report.lastCrash?.reason).toBe(`its ${isolation} exited with code 7`);
    const call = await client.send("crash:ok");
    expect(call.error).toMatchObject({ code: "PLUGIN_UNAVAILABLE" });
    // The bridge and the other plugin never noticed.
    const other = await h.connect("/ws/spinner");
    expect(await other.call("spin:echo", { n: 2 })).toBe(4);
    expect((await h.http("/health")).status).toBe(200);
  });
});
