/**
 * The bridge as users run it: `image-editor-bridge serve` in a child process (from dist/: `npm run build` first),
 * with limits scaled down through `--limit name=value`. While it runs, two observers watch it from outside:
 *
 * - an RSS sampler summing the resident memory of the bridge and every process under it (the editors run as child
 *   processes), recording the peak growth over a baseline taken once the bridge has started;
 * - a `/health` pinger, on a thread of its own so the test's own work never delays it, that opens a new loopback
 *   connection every `HEALTH_PING_EVERY_MS`, recording the worst latency and every failure (an error, a timeout or
 *   a status other than 200), as another client would see the bridge.
 *
 * Linux only for the memory figures (`/proc`); elsewhere `rss` reports undefined and tests skip the memory bound.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/** The CLI entry point as installed (`bin` runs the build's `dist/cli/serve-bundle.js`, or `dist/cli/serve.js` without it). */
const BIN = fileURLToPath(new URL("../../bin/image-editor-bridge.js", import.meta.url));
/** The `/health` pinger, run on a thread of its own. */
const PINGER = new URL("./health-pinger.mjs", import.meta.url);

/** How often memory is sampled: often enough to see a short spike of a few hundred MB being allocated. */
export const RSS_SAMPLE_EVERY_MS = 10;
/** How often `/health` is asked, as the second process did. */
export const HEALTH_PING_EVERY_MS = 20;
/** A `/health` without an answer this long counts as a failure (the bridge is not answering). */
export const HEALTH_TIMEOUT_MS = 5_000;
/** How long the child may take to print its startup line (an editor process starts first). */
const STARTUP_TIMEOUT_MS = 30_000;

const MiB = 1024 * 1024;

export interface BridgeProcessOptions {
  /** Limits as `--limit name=value`; values are passed as written (`64MiB`, `2s`, or a number). */
  limits?: Record<string, string | number>;
  /** More `serve` flags (`--files-root`, `--allow-editor-scripts`, …). */
  args?: string[];
  /** `--log-level` (default `warn`); the child's log lines are kept in `lines`. */
  logLevel?: string;
}

export interface HealthReport {
  pings: number;
  failures: Array<{ at: number; error: string }>;
  worstMs: number;
}

export interface RssReport {
  /** Bridge and descendants after startup, bytes. */
  baseline: number;
  /** Highest sampled sum since the baseline (or since `reset`), bytes. */
  peak: number;
  /** `peak - baseline`. */
  growth: number;
  samples: number;
  /** The same figures for the bridge's own process alone, without its editors. */
  own: { baseline: number; peak: number; growth: number };
}

export interface BridgeProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `ws://127.0.0.1:<port>/ws` */
  readonly wsUrl: string;
  /** Every line the child wrote (stdout and stderr): its startup line and, with `logLevel`, its JSON log lines. */
  readonly lines: string[];
  /** Memory so far; undefined where `/proc` cannot be read. */
  rss(): RssReport | undefined;
  /** `/health` as seen by the pinger so far. */
  health(): HealthReport;
  /** Resolves once the pinger has finished `count` more pings: the bridge was watched after the abuse too. */
  morePings(count: number): Promise<void>;
  /** Starts a new measuring window: the baseline is sampled again and the peak and health figures cleared. */
  reset(): void;
  /** Stops the observers and the bridge (SIGTERM, then SIGKILL after a grace), and its editors with it. */
  stop(): Promise<void>;
}

/** Resident memory of one process in bytes, or undefined when it is gone or unreadable. */
export function rssOf(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** The process and every descendant, from the children each of its threads started. */
export function processTree(pid: number): number[] {
  const seen = new Set<number>();
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${next}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        for (const child of readFileSync(`/proc/${next}/task/${task}/children`, "utf8").split(/\s+/)) if (child !== "") queue.push(Number(child));
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  }
  return [...seen];
}

/** Resident memory of the process and its descendants in bytes, or undefined where `/proc` cannot be read. */
export function treeRss(pid: number): number | undefined {
  const own = rssOf(pid);
  if (own === undefined) return undefined;
  return processTree(pid).reduce((sum, p) => sum + (p === pid ? own : (rssOf(p) ?? 0)), 0);
}

/** Starts `image-editor-bridge serve --listen 0` and its observers; resolves once it printed its startup line. */
export async function startBridgeProcess(options: BridgeProcessOptions = {}): Promise<BridgeProcess> {
  const limitArgs = Object.entries(options.limits ?? {}).flatMap(([name, value]) => ["--limit", `${name}=${value}`]);
  const child = spawn(process.execPath, [BIN, "serve", "--listen", "0", "--log-level", options.logLevel ?? "warn", ...limitArgs, ...(options.args ?? [])], {
    env: { PATH: process.env["PATH"] ?? "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const collect = (stream: NodeJS.ReadableStream): void => {
    let rest = "";
    stream.on("data", (chunk: Buffer) => {
      const parts = (rest + chunk.toString()).split("\n");
      rest = parts.pop()!;
      lines.push(...parts);
    });
  };
  collect(child.stdout!);
  collect(child.stderr!);
  const exited = once(child, "exit");

  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve printed no startup line within ${STARTUP_TIMEOUT_MS} ms: ${lines.join("\n")}`)), STARTUP_TIMEOUT_MS);
      const look = (): void => {
        const match = /http:\/\/127\.0\.0\.1:(\d+)/.exec(lines.join("\n"));
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      };
      child.stdout!.on("data", () => setImmediate(look));
      void exited.then(([code]) => {
        clearTimeout(timer);
        reject(new Error(`serve exited with ${code}: ${lines.join("\n")}`));
      });
    });
  } catch (error) {
    if (child.exitCode === null) child.kill("SIGKILL");
    throw error;
  }

  const pid = child.pid!;
  const readable = treeRss(pid) !== undefined;
  let baseline = 0;
  let peak = 0;
  let ownBaseline = 0;
  let ownPeak = 0;
  let samples = 0;
  let pings = 0;
  let worstMs = 0;
  let failures: HealthReport["failures"] = [];
  let pinged = 0; // never reset, unlike `pings`
  const pingWaiters: Array<{ at: number; resolve: () => void }> = [];
  const sample = (): void => {
    const now = treeRss(pid);
    if (now === undefined) return;
    samples++;
    peak = Math.max(peak, now);
    ownPeak = Math.max(ownPeak, rssOf(pid) ?? 0);
  };
  const reset = (): void => {
    baseline = treeRss(pid) ?? 0;
    peak = baseline;
    ownBaseline = rssOf(pid) ?? 0;
    ownPeak = ownBaseline;
    samples = 0;
    pings = 0;
    worstMs = 0;
    failures = [];
  };
  reset();
  const sampler = setInterval(sample, RSS_SAMPLE_EVERY_MS);

  // The pinger's own thread: see health-pinger.mjs.
  const pinger = new Worker(PINGER, { workerData: { port, everyMs: HEALTH_PING_EVERY_MS, timeoutMs: HEALTH_TIMEOUT_MS } });
  const pingerExited = once(pinger, "exit");
  pinger.on("message", ({ ms, error }: { ms: number; error?: string }) => {
    if (error !== undefined) failures.push({ at: Date.now(), error });
    worstMs = Math.max(worstMs, ms);
    pings++;
    pinged++;
    for (const waiter of pingWaiters.filter((w) => w.at <= pinged)) {
      pingWaiters.splice(pingWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });

  return {
    child,
    pid,
    port,
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/ws`,
    lines,
    rss: () =>
      readable
        ? { baseline, peak, growth: peak - baseline, samples, own: { baseline: ownBaseline, peak: ownPeak, growth: ownPeak - ownBaseline } }
        : undefined,
    health: () => ({ pings, failures: [...failures], worstMs }),
    morePings: (count) => new Promise((resolve) => pingWaiters.push({ at: pinged + count, resolve })),
    reset,
    async stop() {
      clearInterval(sampler);
      pinger.postMessage("stop");
      await pingerExited;
      for (const waiter of pingWaiters.splice(0)) waiter.resolve();
      if (child.exitCode !== null || child.signalCode !== null) return;
      // Its editors, should the bridge die before closing them.
      const descendants = processTree(pid).filter((p) => p !== pid);
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
      for (const p of descendants) {
        try {
          process.kill(p, "SIGKILL");
        } catch {
          // Already gone, as it should be.
        }
      }
    },
  };
}

/** Bytes as MiB with one decimal, for messages. */
export function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}
