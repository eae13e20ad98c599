// Shared helpers for the benchmarks: statistics, timing, WebSocket client plumbing and table printing.
// Plain ESM JavaScript: the benchmarks import the built library from ../dist.
import { createBridge } from "../dist/index.js";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";

export { sleep };

/** Durations, overridable for quick runs: BENCH_DURATION_MS, BENCH_WARMUP_MS, BENCH_ROUNDS. */
export const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 2_000);
export const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 500);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/**
 * A small document object shaped like the embedded editor's `document:current` answer; the baselines reply
 * with it so both sides serialize about the same bytes.
 */
export const SAMPLE_DOCUMENT = Object.freeze({
  id: 1,
  name: "Sample",
  width: 800,
  height: 600,
  resolution: 72,
  colorMode: "RGB",
  isDirty: false,
  activeLayerIds: [3],
});

// ---------------------------------------------------------------------------------------------------------
// Statistics

export function median(values) {
  return percentile(values, 50);
}

/** Percentile with linear interpolation between closest ranks; `p` in [0, 100]. */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

export function min(values) {
  return values.reduce((a, b) => Math.min(a, b), Infinity);
}

export function max(values) {
  return values.reduce((a, b) => Math.max(a, b), -Infinity);
}

// ---------------------------------------------------------------------------------------------------------
// Formatting

export function fmtRate(n) {
  if (!Number.isFinite(n)) return "n/a";
  return `${Math.round(n).toLocaleString("en-US")} req/s`;
}

export function fmtMs(n) {
  if (!Number.isFinite(n)) return "n/a";
  return n >= 100 ? `${n.toFixed(0)} ms` : n >= 10 ? `${n.toFixed(1)} ms` : `${n.toFixed(2)} ms`;
}

export function fmtBytes(n) {
  if (!Number.isFinite(n)) return "n/a";
  const abs = Math.abs(n);
  if (abs >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  if (abs >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${Math.round(n)} B`;
}

export function fmtRatio(n) {
  return Number.isFinite(n) ? `${n.toFixed(2)}x` : "n/a";
}

/** Prints rows (arrays of strings) under a header, columns padded to their widest cell. */
export function printTable(header, rows, out = console.log) {
  const widths = header.map((h, i) => Math.max(String(h).length, ...rows.map((r) => String(r[i] ?? "").length)));
  const line = (cells) => cells.map((c, i) => String(c ?? "").padEnd(widths[i])).join(" | ").trimEnd();
  out(line(header));
  out(widths.map((w) => "-".repeat(w)).join("-+-"));
  for (const row of rows) out(line(row));
}

export function log(...args) {
  console.log(...args);
}

// ---------------------------------------------------------------------------------------------------------
// WebSocket client plumbing (the same code drives the bridge and the baselines)

/** Opens one socket and resolves once it is open; rejects on error or after `timeoutMs`. */
export function openSocket(url, timeoutMs = 10_000) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    // Each request in flight listens for its answer; benchmarks keep many in flight on one socket on purpose.
    ws.setMaxListeners(0);
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`connect timeout to ${url}`));
    }, timeoutMs);
    ws.once("open", () => {
      clearTimeout(timer);
      ws.off("error", reject);
      ws.on("error", () => {}); // late errors (e.g. at shutdown) must not crash the run
      resolve(ws);
    });
    ws.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Opens `n` sockets, `batch` at a time (avoids overflowing the listen backlog), running `setup` on each. */
export async function openMany(url, n, { batch = 100, setup } = {}) {
  const sockets = [];
  for (let start = 0; start < n; start += batch) {
    const count = Math.min(batch, n - start);
    const opened = await Promise.all(
      Array.from({ length: count }, async () => {
        const ws = await openSocket(url);
        if (setup) await setup(ws);
        return ws;
      }),
    );
    sockets.push(...opened);
  }
  return sockets;
}

/** Sends a request frame and resolves with its parsed response (matched by id); other frames are ignored. */
export function request(ws, id, method, params = {}, timeoutMs = 10_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.off("message", onMessage);
      reject(new Error(`timeout waiting for ${method} #${id}`));
    }, timeoutMs);
    const onMessage = (data) => {
      const msg = JSON.parse(String(data));
      if (msg.id !== id) return;
      clearTimeout(timer);
      ws.off("message", onMessage);
      resolve(msg);
    };
    ws.on("message", onMessage);
    ws.send(JSON.stringify({ id, method, params }));
  });
}

/**
 * Closes sockets and waits (bounded) until they are all closed; stragglers are terminated. Close code 4000
 * (DISPOSE) makes the bridge drop the logical clients instead of keeping them resumable.
 */
export async function closeAll(sockets, timeoutMs = 5_000, code = 1000) {
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) return resolve();
          const timer = setTimeout(() => {
            ws.terminate();
            resolve();
          }, timeoutMs);
          ws.once("close", () => {
            clearTimeout(timer);
            resolve();
          });
          if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
          else ws.close(code);
        }),
    ),
  );
}

export function now() {
  return performance.now();
}

/** Whether a target is met: `higherIsBetter` compares `value >= target`, otherwise `value <= target`. */
export function verdict(value, target, higherIsBetter) {
  if (!Number.isFinite(value)) return "FAIL";
  return (higherIsBetter ? value >= target : value <= target) ? "pass" : "FAIL";
}

/** `{ url, close }` of a listening bare `ws` baseline server; `close` terminates its clients first. */
export function baselineHandle(wss) {
  return {
    url: `ws://127.0.0.1:${wss.address().port}/`,
    close: () =>
      new Promise((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        wss.close(() => resolve());
      }),
  };
}

/** One summary row of a throughput figure (`{ bridge, baseline, ratio }`); `min` is the target ratio, if any. */
export function throughputRow(benchmark, figure, min) {
  return {
    benchmark,
    bridge: fmtRate(figure.bridge),
    baseline: fmtRate(figure.baseline),
    ratio: fmtRatio(figure.ratio),
    target: min === undefined ? "(info)" : `>= ${min.toFixed(2)}x`,
    result: min === undefined ? "-" : verdict(figure.ratio, min, true),
    value: figure.bridge,
    higherIsBetter: true,
  };
}

/** One summary row of a latency or memory figure (lower is better); `max` is the target ratio, if any. */
export function latencyRow(benchmark, bridge, baseline, max) {
  const ratio = bridge / baseline;
  return {
    benchmark,
    bridge: fmtMs(bridge),
    baseline: fmtMs(baseline),
    ratio: fmtRatio(ratio),
    target: max === undefined ? "(info)" : `<= ${max.toFixed(2)}x`,
    result: max === undefined ? "-" : verdict(ratio, max, false),
    value: bridge,
    higherIsBetter: false,
  };
}

/** Median duration in ms of `times` sequential runs of `fn`. */
export async function medianDuration(times, fn) {
  const samples = [];
  for (let i = 0; i < times; i++) {
    const t0 = now();
    await fn();
    samples.push(now() - t0);
  }
  return median(samples);
}

/**
 * Completed calls per second with `concurrency` loops each calling `once()` back to back: a warm-up, then
 * `DURATION_MS` counted, then the loops stop and finish their last call (not counted). `once` resolves true for
 * a success; failures are counted and reported under `what`.
 */
export async function loopRate(concurrency, once, what = "calls", durationMs = DURATION_MS) {
  let counting = false;
  let stopped = false;
  let completed = 0;
  let failed = 0;
  const loop = async () => {
    while (!stopped) {
      if (!(await once())) failed++;
      else if (counting) completed++;
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  await sleep(WARMUP_MS);
  counting = true;
  const t0 = now();
  await sleep(durationMs);
  counting = false;
  const t1 = now();
  stopped = true;
  await Promise.all(loops);
  if (failed > 0) log(`    note: ${failed} failed ${what}`);
  return (completed / (t1 - t0)) * 1000;
}

/** Starts a bridge on loopback port 0 and a baseline server, runs `body(bridge, baseline)`, then closes both. */
export async function withBridgeAndBaseline(startBaseline, body) {
  const bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 } });
  await bridge.start();
  const baseline = await startBaseline();
  try {
    return await body(bridge, baseline);
  } finally {
    await baseline.close();
    await bridge.close();
  }
}

/** Prints a benchmark's rows when its file is run directly (`node bench/http.js`). */
export async function printIfMain(meta, run) {
  if (meta.url === `file://${process.argv[1]}`) console.table(await run());
}

/** Straight RGBA: a diagonal gradient whose alpha varies, so resampling and compositing do real work with alpha. */
export function gradientLayer(width, height, seed) {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = (x * 255) / width;
      data[i + 1] = (y * 255) / height;
      data[i + 2] = (seed * 70) % 256;
      data[i + 3] = 96 + ((x + y + seed * 31) % 160);
    }
  }
  return { width, height, data };
}

/** A call context for host calls made directly by a bench (no transport, never cancelled). */
export const BENCH_CTX = { signal: new AbortController().signal, caller: "bench" };

/** Times one `edit` of an editor host on a fresh copy of the document (the copy is made and closed outside the timing). */
export async function editOnCopy(host, documentId, edit) {
  const copy = (await host.edit(BENCH_CTX, { documentId, edit: { op: "document:duplicate", name: "copy" } })).documentId;
  const t0 = performance.now();
  await host.edit(BENCH_CTX, { documentId: copy, edit });
  const elapsed = performance.now() - t0;
  await host.closeDocument(BENCH_CTX, copy);
  return elapsed;
}
