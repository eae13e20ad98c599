// The bridge at the physical limit of the machine: the bridge as users run it (`image-editor-bridge serve`, its
// editor in a process of its own) and a bare server (`_bare-server.js`: a `node:http` handler and a `ws` server that
// only parse and stringify the same answers), each in a process pinned to the server core, driven from a process
// pinned to the other core (`_procs.js`, `_driver.js`). Rounds alternate which side goes first; figures are medians.
//
//   node bench/limit.js                     every case
//   BENCH_LIMIT_CASES=ws16,health node bench/limit.js
//   BENCH_LIMIT_CASES=ws1 node bench/limit.js   one client, one call in flight: the per-call cost
//
// Besides throughput it reports the server's CPU per call (the server process and its children, read from /proc over
// the counted window), which does not depend on whether the driver kept up.
import { fmtBytes, fmtRatio, log, max, median, min, printIfMain, ROUNDS, verdict } from "./_lib.js";
import { bridgeAnswers, placement, settled, startDriver, startServer } from "./_procs.js";

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 2_000);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 500);
const IDLE_CLIENTS = Number(process.env.BENCH_LIMIT_IDLE ?? 2_000);
/** A selection is set first, so `selection:getArea` answers a rectangle rather than `null`. */
const RECT = { x: 10, y: 20, width: 300, height: 200 };

/**
 * The cases of the table: name, load, goal (ratio to the bare server). `bareMethod` is what the bare server
 * is asked instead of `method` (`ping`: a small fixed body, as a minimal server would answer, not the bridge's bytes).
 */
export const CASES = [
  { key: "ws1", name: "WS RPC getServerInfo 1x1", kind: "ws", sockets: 1, inflight: 1, method: "getServerInfo", bareMethod: "ping", goal: 0.8, p50: true },
  { key: "ws16", name: "WS RPC getServerInfo 16x4", kind: "ws", sockets: 16, inflight: 4, method: "getServerInfo", goal: 0.95 },
  { key: "ws64", name: "WS RPC getServerInfo 64x8", kind: "ws", sockets: 64, inflight: 8, method: "getServerInfo", goal: 0.95 },
  { key: "health", name: "HTTP GET /health 16 conns", kind: "http", path: "/health", conns: 16, goal: 0.9 },
  { key: "area-http", name: "host-bound GET /selection/area 16 conns", kind: "http", path: "/selection/area", conns: 16, goal: 0.8 },
  { key: "area-ws", name: "host-bound WS selection:getArea 16x4", kind: "ws", sockets: 16, inflight: 4, method: "selection:getArea", goal: 0.8 },
];

/** One case against one server: calls/s, and the server's CPU per call (µs) over the same window. */
async function measureCase(driver, server, c) {
  const command =
    c.kind === "ws"
      ? {
          cmd: "ws",
          url: server.wsUrl,
          sockets: c.sockets,
          inflight: c.inflight,
          method: server.kind === "bare" ? (c.bareMethod ?? c.method) : c.method,
          warmupMs: WARMUP_MS,
          durationMs: DURATION_MS,
        }
      : { cmd: "http", port: server.port, path: c.path, conns: c.conns, warmupMs: WARMUP_MS, durationMs: DURATION_MS };
  let c0 = 0;
  let c1 = 0;
  const out = await driver.send(command, (mark) => {
    if (mark === "start") c0 = server.cpuMs();
    else c1 = server.cpuMs();
  });
  if (out.failed > 0) log(`    note: ${out.failed} failed calls (${server.kind}, ${c.name})`);
  const calls = (out.rate * out.elapsed) / 1000;
  return { rate: out.rate, cpuUs: ((c1 - c0) * 1000) / calls, p50: out.p50, p99: out.p99, driverBusy: out.cpuMs / out.elapsed };
}

const fmtK = (n) => (Number.isFinite(n) ? `${(n / 1000).toFixed(1)}k/s` : "n/a");
const fmtUs = (n) => (Number.isFinite(n) ? `${n.toFixed(1)} µs` : "n/a");

/**
 * Runs the throughput cases on one long-lived bridge and bare server; `bridges` may hold two builds
 * (`{ label, cli }`), which then alternate with each other too.
 */
export async function throughputCases(cases = CASES, { rounds = ROUNDS, cli } = {}) {
  const bridge = await startServer("bridge", { cli });
  const answers = await bridgeAnswers(bridge, RECT);
  const bare = await startServer("bare", { answers });
  const driver = await startDriver();
  const results = [];
  try {
    for (const c of cases) {
      const samples = { bridge: [], bare: [] };
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? ["bare", "bridge"] : ["bridge", "bare"];
        for (const side of order) samples[side].push(await measureCase(driver, side === "bridge" ? bridge : bare, c));
      }
      const pick = (side, field) => samples[side].map((s) => s[field]);
      const r = {
        case: c,
        bridge: median(pick("bridge", "rate")),
        bare: median(pick("bare", "rate")),
        bridgeCpu: median(pick("bridge", "cpuUs")),
        bareCpu: median(pick("bare", "cpuUs")),
        bridgeP50: median(pick("bridge", "p50")),
        bareP50: median(pick("bare", "p50")),
        bridgeP99: median(pick("bridge", "p99")),
        bareP99: median(pick("bare", "p99")),
        driverBusy: max([...pick("bridge", "driverBusy"), ...pick("bare", "driverBusy")]),
      };
      log(
        `  ${c.name}: bridge ${fmtK(r.bridge)} [${fmtK(min(pick("bridge", "rate")))}..${fmtK(max(pick("bridge", "rate")))}] ` +
          `${fmtUs(r.bridgeCpu)}/call p50 ${r.bridgeP50.toFixed(3)} p99 ${r.bridgeP99.toFixed(2)} ms; bare ${fmtK(r.bare)} [${fmtK(min(pick("bare", "rate")))}..${fmtK(max(pick("bare", "rate")))}] ` +
          `${fmtUs(r.bareCpu)}/call p50 ${r.bareP50.toFixed(3)} p99 ${r.bareP99.toFixed(2)} ms; ratio ${fmtRatio(r.bridge / r.bare)}, CPU/call ${fmtRatio(r.bridgeCpu / r.bareCpu)}` +
          (r.driverBusy > 0.9 ? ` (driver core ${(r.driverBusy * 100).toFixed(0)}% busy: throughput may be the driver's)` : ""),
      );
      results.push(r);
    }
  } finally {
    await driver.close();
    await bare.close();
    await bridge.close();
  }
  return results;
}

/**
 * Opens `n` subscribed clients against a fresh server: RSS and heap per client (each after a garbage collection in
 * the server, `_memory-probe.js`), and the time to open them.
 */
async function idleOnce(kind, answers, n, cli) {
  const server = await startServer(kind, { answers, cli });
  const driver = await startDriver();
  try {
    // Warm-up: lazy initialisation (code compiled, pools grown) is not charged per client.
    const warm = await driver.send({ cmd: "open", url: server.wsUrl, n: 200, subscribe: "selection:changed" });
    await driver.send({ cmd: "close", handle: warm.handle });
    await settled(server);
    const before = await server.memory();
    const c0 = server.cpuMs();
    const opened = await driver.send({ cmd: "open", url: server.wsUrl, n, subscribe: "selection:changed" });
    const cpuPerOpen = ((server.cpuMs() - c0) * 1000) / n;
    const after = await server.memory();
    await driver.send({ cmd: "close", handle: opened.handle });
    await settled(server);
    // The same again on a server that has opened (and compiled for) as many already: the steady state, without the
    // first burst's optimizing compiler work on the server's own core.
    const w0 = server.cpuMs();
    const again = await driver.send({ cmd: "open", url: server.wsUrl, n, subscribe: "selection:changed" });
    const cpuPerOpenWarm = ((server.cpuMs() - w0) * 1000) / n;
    await driver.send({ cmd: "close", handle: again.handle });
    const heap = (m) => m.heapUsed + m.external;
    return { rssPerClient: (after.rss - before.rss) / n, heapPerClient: (heap(after) - heap(before)) / n, openMs: opened.ms, cpuPerOpen, openMsWarm: again.ms, cpuPerOpenWarm };
  } finally {
    await driver.close();
    await server.close();
  }
}

export async function idleCase({ rounds = Math.max(3, Math.min(ROUNDS, 5)), n = IDLE_CLIENTS, cli } = {}) {
  const probe = await startServer("bridge", { cli });
  const answers = await bridgeAnswers(probe, RECT);
  await probe.close();
  const samples = { bridge: [], bare: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ["bare", "bridge"] : ["bridge", "bare"];
    for (const side of order) samples[side].push(await idleOnce(side, answers, n, cli));
  }
  const pick = (side, field) => samples[side].map((s) => s[field]);
  const r = {
    n,
    bridgeRss: median(pick("bridge", "rssPerClient")),
    bareRss: median(pick("bare", "rssPerClient")),
    bridgeHeap: median(pick("bridge", "heapPerClient")),
    bareHeap: median(pick("bare", "heapPerClient")),
    bridgeOpen: median(pick("bridge", "openMs")),
    bareOpen: median(pick("bare", "openMs")),
    bridgeOpenCpu: median(pick("bridge", "cpuPerOpen")),
    bareOpenCpu: median(pick("bare", "cpuPerOpen")),
    bridgeOpenWarm: median(pick("bridge", "openMsWarm")),
    bareOpenWarm: median(pick("bare", "openMsWarm")),
    bridgeOpenCpuWarm: median(pick("bridge", "cpuPerOpenWarm")),
    bareOpenCpuWarm: median(pick("bare", "cpuPerOpenWarm")),
  };
  log(
    `  ${n} idle subscribed clients: RSS/client bridge ${fmtBytes(r.bridgeRss)} [${pick("bridge", "rssPerClient").map((x) => fmtBytes(x)).join(", ")}], ` +
      `bare ${fmtBytes(r.bareRss)} [${pick("bare", "rssPerClient").map((x) => fmtBytes(x)).join(", ")}]; ` +
      `heap+external/client bridge ${fmtBytes(r.bridgeHeap)}, bare ${fmtBytes(r.bareHeap)} (after GC); opening: bridge ${r.bridgeOpen.toFixed(0)} ms ` +
      `(${fmtUs(r.bridgeOpenCpu)} CPU per connection), bare ${r.bareOpen.toFixed(0)} ms (${fmtUs(r.bareOpenCpu)}); CPU ratio ${fmtRatio(r.bridgeOpenCpu / r.bareOpenCpu)}; ` +
      `the next ${n}: bridge ${r.bridgeOpenWarm.toFixed(0)} ms (${fmtUs(r.bridgeOpenCpuWarm)}), bare ${r.bareOpenWarm.toFixed(0)} ms (${fmtUs(r.bareOpenCpuWarm)}); ` +
      `ratio ${fmtRatio(r.bridgeOpenWarm / r.bareOpenWarm)}, CPU ratio ${fmtRatio(r.bridgeOpenCpuWarm / r.bareOpenCpuWarm)}`,
  );
  return r;
}

/** Summary rows in `run.js`'s shape. */
function rows(results, idle) {
  const out = [];
  for (const r of results) {
    const ratio = r.bridge / r.bare;
    out.push({
      benchmark: `limit: ${r.case.name}`,
      bridge: fmtK(r.bridge),
      baseline: fmtK(r.bare),
      ratio: fmtRatio(ratio),
      target: `>= ${r.case.goal.toFixed(2)}x`,
      result: verdict(ratio, r.case.goal, true),
      value: r.bridge,
      higherIsBetter: true,
    });
    out.push({
      benchmark: `limit: ${r.case.name} CPU/call`,
      bridge: fmtUs(r.bridgeCpu),
      baseline: fmtUs(r.bareCpu),
      ratio: fmtRatio(r.bridgeCpu / r.bareCpu),
      target: "(info)",
      result: "-",
      value: r.bridgeCpu,
      higherIsBetter: false,
    });
    if (r.case.p50) {
      out.push({
        benchmark: `limit: ${r.case.name} p50`,
        bridge: `${(r.bridgeP50 * 1000).toFixed(1)} µs`,
        baseline: `${(r.bareP50 * 1000).toFixed(1)} µs`,
        ratio: fmtRatio(r.bridgeP50 / r.bareP50),
        target: "(info)",
        result: "-",
        value: r.bridgeP50,
        higherIsBetter: false,
      });
    }
  }
  if (idle !== undefined) {
    out.push({
      benchmark: `limit: idle subscribed WS client RSS (${idle.n})`,
      bridge: fmtBytes(idle.bridgeRss),
      baseline: fmtBytes(idle.bareRss),
      ratio: fmtRatio(idle.bridgeRss / idle.bareRss),
      target: "<= 12.5 KiB",
      result: verdict(idle.bridgeRss, 12.5 * 1024, false),
      value: idle.bridgeRss,
      higherIsBetter: false,
    });
    out.push({
      benchmark: `limit: opening ${idle.n} subscribed connections`,
      bridge: `${idle.bridgeOpen.toFixed(0)} ms`,
      baseline: `${idle.bareOpen.toFixed(0)} ms`,
      ratio: fmtRatio(idle.bridgeOpen / idle.bareOpen),
      target: "<= 1.20x",
      result: verdict(idle.bridgeOpen / idle.bareOpen, 1.2, false),
      value: idle.bridgeOpen,
      higherIsBetter: false,
    });
    out.push({
      benchmark: `limit: opening ${idle.n} subscribed connections CPU/connection`,
      bridge: fmtUs(idle.bridgeOpenCpu),
      baseline: fmtUs(idle.bareOpenCpu),
      ratio: fmtRatio(idle.bridgeOpenCpu / idle.bareOpenCpu),
      target: "(info)",
      result: "-",
      value: idle.bridgeOpenCpu,
      higherIsBetter: false,
    });
    out.push({
      benchmark: `limit: opening the next ${idle.n} (warm server)`,
      bridge: `${idle.bridgeOpenWarm.toFixed(0)} ms (${fmtUs(idle.bridgeOpenCpuWarm)})`,
      baseline: `${idle.bareOpenWarm.toFixed(0)} ms (${fmtUs(idle.bareOpenCpuWarm)})`,
      ratio: fmtRatio(idle.bridgeOpenWarm / idle.bareOpenWarm),
      target: "(info)",
      result: "-",
      value: idle.bridgeOpenWarm,
      higherIsBetter: false,
    });
  }
  return out;
}

export async function run() {
  const wanted = (process.env.BENCH_LIMIT_CASES ?? "").split(",").filter(Boolean);
  const cases = wanted.length === 0 ? CASES : CASES.filter((c) => wanted.includes(c.key));
  log(`The bridge at the machine's limit (${placement()}; ${ROUNDS} rounds x ${DURATION_MS} ms + ${WARMUP_MS} ms warm-up, medians)`);
  const results = cases.length > 0 ? await throughputCases(cases) : [];
  const idle = wanted.length === 0 || wanted.includes("idle") ? await idleCase() : undefined;
  return rows(results, idle);
}

await printIfMain(import.meta, run);
