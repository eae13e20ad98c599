// What running a plugin off the bridge's thread costs per call: round trips per second and p99 latency of a trivial
// plugin method (`<id>:echo`) on `/ws/{id}` with the plugin in a worker (`isolation: "worker"`, the default for
// plugins in folders) and in a child process (`"process"`) beside the same plugin in the bridge's thread
// (`isolation: "none"`), and all beside a built-in method (`getServerInfo` on `/ws`): one bridge in this process,
// the load from a driver process (`_rpc-driver.js`), alternating rounds so drifts hit every side alike.
// Goal: worker mode at least 0.8x the in-process throughput. Then the stall: other clients' worst latency while a
// plugin handler holds its thread (busy for 1 s; `while (true) {}`), goal at most 50 ms in worker mode.
//
//   node bench/plugin-isolation.js   (after `npm run build`)
import { fork } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createBridge } from "../dist/index.js";
import { DURATION_MS, fmtMs, fmtRate, fmtRatio, log, median, printIfMain, ROUNDS, throughputRow, WARMUP_MS } from "./_lib.js";
import { bareHttp, heavyClient, pingDuring, worst } from "./_stall.js";

/** How long the busy handler holds its thread, and the worst stall other clients may see meanwhile. */
const BUSY_MS = 1_000;
const STALL_TARGET_MS = 50;
/** The call deadline for the spinning handler: it answers TIMEOUT, then the worker misses a ping and is restarted. */
const CALL_TIMEOUT_MS = 2_000;

/** Requests kept in flight per side, spread over `SOCKETS` connections (each stays under the per-client frame rate): 16 x 4 as the RPC benches. */
const INFLIGHT = Number(process.env.BENCH_PLUGIN_INFLIGHT ?? 64);
const SOCKETS = Number(process.env.BENCH_PLUGIN_SOCKETS ?? 16);

const plugin = (id) => `export default {
  id: "${id}",
  setup(ctx) {
    ctx.method("${id}:echo", (params) => params);
    ctx.method("${id}:busy", ({ ms }) => {
      const until = performance.now() + ms;
      while (performance.now() < until) {}
      return ms;
    });
    ctx.method("${id}:forever", () => {
      while (true) {}
    });
  },
};
`;

/** A plugin folder with id `id` run with `isolation`. */
async function pluginFolder(root, id, isolation) {
  const dir = join(root, id);
  await mkdir(dir);
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: id, type: "module", main: "index.js", imageEditorBridge: { id, isolation } }));
  await writeFile(join(dir, "index.js"), plugin(id));
  return dir;
}

/** The driver process (see `_rpc-driver.js`), one run at a time. */
function driver() {
  const child = fork(fileURLToPath(new URL("./_rpc-driver.js", import.meta.url)), { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return {
    run: (url, method, params) =>
      new Promise((resolve, reject) => {
        child.once("message", (answer) => (answer.error ? reject(new Error(answer.error)) : resolve(answer)));
        child.send({ url, method, params, sockets: SOCKETS, inflight: INFLIGHT, warmupMs: WARMUP_MS, durationMs: DURATION_MS });
      }),
    close: () => child.kill(),
  };
}

/**
 * Other clients' worst latency (`GET /health`, WS `getServerInfo`, pinged from another thread every 20 ms) while
 * one client's plugin call holds its thread: a busy handler of `BUSY_MS` in the bridge's thread (the way before
 * isolation) and in a worker, then `while (true) {}` in a worker until its call answers TIMEOUT.
 */
async function stall(bridge, ws) {
  const bare = await bareHttp();
  const rows = [];
  try {
    const cases = [
      { name: `${BUSY_MS} ms busy handler, in-process`, id: "bench-inline", method: "busy", target: false },
      { name: `${BUSY_MS} ms busy handler, worker`, id: "bench-worker", method: "busy", target: true },
      { name: "while (true) {} handler, worker", id: "bench-worker", method: "forever", target: true },
    ];
    for (const c of cases) {
      const client = await heavyClient(ws(c.id), { method: `${c.id}:${c.method}`, params: { ms: BUSY_MS } });
      const { health, ws: rpc, bare: bareSamples, outcome } = await pingDuring(bridge, bare, client.run);
      await client.close();
      log(
        `  stall, ${c.name}: call ${outcome.ok ? "ok" : outcome.code}; /health worst ${fmtMs(worst(health))} ` +
          `(${health.length} pings), getServerInfo worst ${fmtMs(worst(rpc))}; bare node:http worst ${fmtMs(worst(bareSamples))}`,
      );
      const pass = worst(health) <= STALL_TARGET_MS && worst(rpc) <= STALL_TARGET_MS ? "pass" : "FAIL";
      for (const [what, samples] of [["/health", health], ["getServerInfo", rpc]]) {
        rows.push({
          benchmark: `stall: worst ${what} during a ${c.name}`,
          bridge: fmtMs(worst(samples)),
          baseline: fmtMs(worst(bareSamples)),
          ratio: fmtRatio(worst(samples) / worst(bareSamples)),
          target: c.target ? `<= ${STALL_TARGET_MS} ms` : "(before)",
          result: c.target ? pass : "-",
        });
      }
    }
  } finally {
    await bare.close();
  }
  return rows;
}

export async function run() {
  log(`Plugin method round trips: worker, child process, in-process, built-in (${INFLIGHT} in flight over ${SOCKETS} connections, ${ROUNDS} rounds x ${DURATION_MS} ms, medians)`);
  const root = await mkdtemp(join(tmpdir(), "bench-plugin-isolation-"));
  const dirs = [
    await pluginFolder(root, "bench-worker", "worker"),
    await pluginFolder(root, "bench-process", "process"),
    await pluginFolder(root, "bench-inline", "none"),
  ];
  const bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 }, plugins: dirs, limits: { pluginCallTimeoutMs: CALL_TIMEOUT_MS } });
  await bridge.start();
  const load = driver();
  try {
    const ws = (id) => `ws://127.0.0.1:${bridge.port}/ws/${id}`;
    const sides = {
      worker: () => load.run(ws("bench-worker"), "bench-worker:echo", { n: 1 }),
      process: () => load.run(ws("bench-process"), "bench-process:echo", { n: 1 }),
      inline: () => load.run(ws("bench-inline"), "bench-inline:echo", { n: 1 }),
      builtin: () => load.run(bridge.wsUrl, "getServerInfo"),
    };
    const results = { worker: [], process: [], inline: [], builtin: [] };
    const names = Object.keys(sides);
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate which side goes first.
      for (let i = 0; i < names.length; i++) {
        const name = names[(round + i) % names.length];
        results[name].push(await sides[name]());
      }
    }
    const stalls = await stall(bridge, ws);
    const rate = (name) => median(results[name].map((r) => r.rate));
    const p99 = (name) => median(results[name].map((r) => r.p99));
    for (const name of names) log(`  ${name}: ${fmtRate(rate(name))}, p99 ${fmtMs(p99(name))}`);
    const figure = (a, b) => ({ bridge: rate(a), baseline: rate(b), ratio: rate(a) / rate(b) });
    return [
      throughputRow("plugin method: worker vs in-process (req/s)", figure("worker", "inline"), 0.8),
      throughputRow("plugin method in a child process vs in-process (req/s)", figure("process", "inline")),
      throughputRow("plugin method in a worker vs built-in getServerInfo (req/s)", figure("worker", "builtin")),
      throughputRow("plugin method in-process vs built-in getServerInfo (req/s)", figure("inline", "builtin")),
      {
        benchmark: "plugin method p99: worker vs in-process",
        bridge: fmtMs(p99("worker")),
        baseline: fmtMs(p99("inline")),
        ratio: `${(p99("worker") / p99("inline")).toFixed(2)}x`,
        target: "(info)",
        result: "-",
      },
      ...stalls,
    ];
  } finally {
    load.close();
    await bridge.close();
    await rm(root, { recursive: true, force: true });
  }
}

await printIfMain(import.meta, run);
