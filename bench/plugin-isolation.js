// What running a plugin in a worker thread costs per call: round trips per second and p99 latency of a trivial
// plugin method (`<id>:echo`) on `/ws/{id}` with the plugin in a worker (`isolation: "worker"`, the default for
// plugins in folders) beside the same plugin in the bridge's thread (`isolation: "none"`), and both beside a
// built-in method (`getServerInfo` on `/ws`), all on one bridge in this process, alternating rounds so drifts hit
// every side alike. Goal: worker mode at least 0.8x the in-process throughput.
//
//   node bench/plugin-isolation.js   (after `npm run build`)
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBridge } from "../dist/index.js";
import { closeAll, DURATION_MS, fmtMs, fmtRate, log, median, now, openMany, percentile, printIfMain, ROUNDS, sleep, throughputRow, WARMUP_MS } from "./_lib.js";

/** Requests kept in flight per side, spread over `SOCKETS` connections (each stays under the per-client frame rate). */
const INFLIGHT = Number(process.env.BENCH_PLUGIN_INFLIGHT ?? 16);
const SOCKETS = 4;

const plugin = (id) => `export default {
  id: "${id}",
  setup(ctx) {
    ctx.method("${id}:echo", (params) => params);
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

/** `INFLIGHT` calls of `method` kept outstanding on `ws` for the run: calls per second and every latency (ms). */
async function drive(ws, method, params) {
  const pending = new Map();
  let next = 0;
  let counting = false;
  let stopped = false;
  let completed = 0;
  const latencies = [];
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data));
    const sent = pending.get(msg.id);
    if (sent === undefined) return;
    pending.delete(msg.id);
    if (counting && msg.ok) {
      completed++;
      latencies.push(now() - sent);
    }
    if (!stopped) send();
  });
  const send = () => {
    const id = `c${next++}`;
    pending.set(id, now());
    ws.send(JSON.stringify(params === undefined ? { id, method } : { id, method, params }));
  };
  for (let i = 0; i < INFLIGHT / SOCKETS; i++) send();
  await sleep(WARMUP_MS);
  counting = true;
  const t0 = now();
  await sleep(DURATION_MS);
  counting = false;
  const t1 = now();
  stopped = true;
  const deadline = now() + 10_000;
  while (pending.size > 0 && now() < deadline) await sleep(5);
  if (pending.size > 0) throw new Error(`${pending.size} calls of ${method} never answered`);
  ws.removeAllListeners("message");
  return { rate: (completed / (t1 - t0)) * 1000, latencies };
}

/** All of a side's sockets driven at once: their summed rate and p99. */
async function driveAll(sockets, method, params) {
  const parts = await Promise.all(sockets.map((ws) => drive(ws, method, params)));
  return { rate: parts.reduce((n, p) => n + p.rate, 0), p99: percentile(parts.flatMap((p) => p.latencies), 99) };
}

export async function run() {
  log(`Plugin method round trips: worker vs in-process vs built-in (${INFLIGHT} in flight over ${SOCKETS} connections, ${ROUNDS} rounds x ${DURATION_MS} ms, medians)`);
  const root = await mkdtemp(join(tmpdir(), "bench-plugin-isolation-"));
  const dirs = [await pluginFolder(root, "bench-worker", "worker"), await pluginFolder(root, "bench-inline", "none")];
  const bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 }, plugins: dirs });
  await bridge.start();
  try {
    const worker = await openMany(`ws://127.0.0.1:${bridge.port}/ws/bench-worker`, SOCKETS);
    const inline = await openMany(`ws://127.0.0.1:${bridge.port}/ws/bench-inline`, SOCKETS);
    const builtin = await openMany(bridge.wsUrl, SOCKETS);
    const sides = {
      worker: () => driveAll(worker, "bench-worker:echo", { n: 1 }),
      inline: () => driveAll(inline, "bench-inline:echo", { n: 1 }),
      builtin: () => driveAll(builtin, "getServerInfo"),
    };
    const results = { worker: [], inline: [], builtin: [] };
    const names = Object.keys(sides);
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate which side goes first.
      for (let i = 0; i < names.length; i++) {
        const name = names[(round + i) % names.length];
        results[name].push(await sides[name]());
      }
    }
    await closeAll([...worker, ...inline, ...builtin]);
    const rate = (name) => median(results[name].map((r) => r.rate));
    const p99 = (name) => median(results[name].map((r) => r.p99));
    for (const name of names) log(`  ${name}: ${fmtRate(rate(name))}, p99 ${fmtMs(p99(name))}`);
    const figure = (a, b) => ({ bridge: rate(a), baseline: rate(b), ratio: rate(a) / rate(b) });
    return [
      throughputRow("plugin method: worker vs in-process (req/s)", figure("worker", "inline"), 0.8),
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
    ];
  } finally {
    await bridge.close();
    await rm(root, { recursive: true, force: true });
  }
}

await printIfMain(import.meta, run);
