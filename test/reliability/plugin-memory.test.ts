/**
 * An isolated plugin filling `Buffer`s (memory outside V8's heap, which `resourceLimits` and
 * `--max-old-space-size` do not count) against the bridge as users run it (the CLI in a child process): the plugin is
 * stopped at `pluginMaxMemoryBytes` and restarted, the memory of the bridge and every process under it (sampled
 * every 10 ms) grows by little more than the cap, and another client's `/health` answers 200 throughout.
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { mib, startBridgeProcess, type BridgeProcess } from "../helpers/bridge-process.js";
import { TestClient } from "../helpers/ws-client.js";

const MiB = 1024 * 1024;
const FIXTURE = fileURLToPath(new URL("../plugins/fixtures/buffer-hog/", import.meta.url));
/** The plugin's cap: room for a Node process of its own (about 50 MiB resident) and some buffers. */
const CAP_BYTES = 128 * MiB;
/** What the plugin tries to hold; unbounded, the whole of it stays resident in the bridge's process tree. */
const WANTS_BYTES = 4096 * MiB;
/** The bridge's memory sample interval (`pluginMemorySampleMs`, its default). */
const SAMPLE_MS = 100;
/**
 * How long the plugin may fill Buffers before it is stopped: a worker blocked in a synchronous loop is found out
 * after three silent samples and stopped at the next (`BLOCKED_AFTER_SAMPLES` in the worker link), plus a sample of
 * lateness on a busy machine. A plugin process is read every sample.
 */
const UNSEEN_MS = 5 * SAMPLE_MS;
/** What any busy Node process grows by on its own, and the least room the bound ever leaves (a slow machine's). */
const RSS_SLACK_FLOOR_BYTES = 320 * MiB;

/**
 * Room above the cap: what the plugin fills while unseen, at the rate this machine fills Buffers now (measured
 * with the plugin's own loop in this process), and never less than the floor. How far a loop gets in half a second
 * is the machine's speed: a quiet machine fills faster (a run at about 1.3 GiB/s overshot the cap by 329 MiB), so
 * the bound is scaled from the same run instead of fixed. Unbounded, growth reaches WANTS_BYTES, well above it.
 */
function rssSlackBytes(): number {
  const kept: Buffer[] = [];
  const started = performance.now();
  while (performance.now() - started < SAMPLE_MS) kept.push(Buffer.alloc(4 * MiB, 1));
  const bytesPerMs = (kept.length * 4 * MiB) / (performance.now() - started);
  kept.length = 0;
  return Math.max(RSS_SLACK_FLOOR_BYTES, Math.round(bytesPerMs * UNSEEN_MS));
}
/** Generous, as in the abuse tests: a blocked event loop stalls `/health` for 10 s and more. */
const HEALTH_WORST_MS = 4_000;
const ROW_TIMEOUT_MS = 60_000;

const clients: TestClient[] = [];

afterEach(() => {
  for (const client of clients.splice(0)) client.ws.terminate();
});

interface Row {
  served: BridgeProcess;
  client: TestClient;
  /** The plugin's restarts before the row: the rows of one bridge each restart it once. */
  restarts: number;
}

async function pluginHealth(served: BridgeProcess): Promise<{ restarts?: number; lastCrash?: { reason: string } }> {
  return (await (await fetch(`${served.url}/plugins/buffer-hog/health`)).json()) as { restarts?: number; lastCrash?: { reason: string } };
}

/** A row on `served`: a client of the plugin, subscribed to its restarts, and a new baseline for memory and /health. */
async function row(served: BridgeProcess): Promise<Row> {
  const client = await TestClient.open(`${served.wsUrl}/buffer-hog`);
  clients.push(client);
  expect(await client.call("hog:ok")).toBe("ok");
  expect(await client.call("event:subscribe", { type: "plugin:restarted" })).toBeDefined();
  const restarts = (await pluginHealth(served)).restarts ?? 0;
  served.reset();
  return { served, client, restarts };
}

/** The plugin was stopped for its memory, restarted and answers again; the bridge held its memory and kept answering. */
async function expectStoppedAtCap({ served, client, restarts }: Row, answer: Awaited<ReturnType<TestClient["send"]>>): Promise<void> {
  expect(answer.error, JSON.stringify(answer)).toMatchObject({ code: "PLUGIN_UNAVAILABLE", retryable: true });
  expect(answer.error?.message).toMatch(/ran out of memory \(limits\.pluginMaxMemoryBytes: 134217728 bytes\)/);
  await client.next((f) => f.type === "plugin:restarted");
  expect(await client.call("hog:ok")).toBe("ok");
  const health = await pluginHealth(served);
  expect(health.restarts).toBe(restarts + 1);
  expect(health.lastCrash?.reason).toMatch(/limits\.pluginMaxMemoryBytes/);
  await served.morePings(3);
  const pings = served.health();
  expect(pings.failures).toEqual([]);
  expect(pings.worstMs).toBeLessThan(HEALTH_WORST_MS);
  const rss = served.rss();
  if (rss === undefined) return; // no /proc here
  const bound = CAP_BYTES + rssSlackBytes();
  expect(bound, "the bound must tell stopped from unbounded").toBeLessThan(WANTS_BYTES / 2);
  expect(rss.growth, `RSS grew ${mib(rss.growth)} over ${mib(rss.baseline)}; bound ${mib(bound)}`).toBeLessThan(bound);
}

/*
 * One child bridge for each isolation, shared by its two rows: each row restarts the plugin once and measures from a
 * baseline of its own. What a stopped plugin held is gone with it (its process, or its worker's 4 MiB Buffers, each
 * a mapping of its own that is unmapped when freed), so a row does not start where the last one's growth left off.
 */
describe.each([
  ["worker", /the bridge's process grew by \d+ MiB while the worker was blocked/],
  ["process", /its process was resident at \d+ MiB/],
] as const)("a %s plugin's native memory", (isolation, how) => {
  let served: Promise<BridgeProcess> | undefined;
  afterAll(async () => {
    await (await served)?.stop();
  });
  const start = async (): Promise<Row> => {
    served ??= startBridgeProcess({
      args: ["--plugin", FIXTURE, "--plugin-isolation", isolation],
      limits: { pluginMaxMemoryBytes: CAP_BYTES, pluginRestartBackoffMs: 10, pluginCallTimeoutMs: 60_000 },
    });
    return row(await served);
  };

  it("a plugin filling Buffers between awaits is stopped at pluginMaxMemoryBytes and restarted; the bridge's tree stays near the cap", { timeout: ROW_TIMEOUT_MS }, async () => {
    const current = await start();
    const answer = await current.client.send("hog:fill", { maxBytes: WANTS_BYTES });
    await expectStoppedAtCap(current, answer);
    console.info(`${isolation}, Buffers between awaits: tree RSS peak growth ${mib(current.served.rss()?.growth ?? 0)}, /health worst ${current.served.health().worstMs.toFixed(0)} ms`);
  });

  it("blocked in a synchronous loop filling Buffers without yielding, it is stopped at its cap, seen from outside it", { timeout: ROW_TIMEOUT_MS }, async () => {
    const current = await start();
    const answer = await current.client.send("hog:gulp", { maxBytes: WANTS_BYTES });
    await expectStoppedAtCap(current, answer);
    expect(answer.error?.message).toMatch(how);
    console.info(`${isolation}, Buffers in a synchronous loop: tree RSS peak growth ${mib(current.served.rss()?.growth ?? 0)}`);
  });
});
