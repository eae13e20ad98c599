// Ten thousand clients: N WebSocket clients (BENCH_MANY_CLIENTS, 10,000), each subscribed to `selection:changed`,
// held open against a fresh server; then 1% of them (BENCH_MANY_ACTIVE, 100) call `getServerInfo` about every
// BENCH_MANY_EVERY_MS (100) for BENCH_MANY_SECONDS (10) while the rest stay idle. Reports the server's RSS per client
// (after they connected minus before, each after a garbage collection in the server, ÷ N), how long opening them took, and the active calls' p50/p99.
// The bridge runs as `serve` (its editor in a process of its own), the bare baseline as `_bare-server.js`, each in a
// process pinned to the server core with the clients in the driver on the other core (`_procs.js`); sides alternate.
//
// Descriptors: the driver holds N client sockets and the server N accepted ones, so each process needs N plus a
// few hundred (the bridge's default `maxConnections` is the open-files limit less an eighth, at most 1,024 less).
// `ulimit -n` must be at least N + 1,500 for both; below that N is lowered to fit and the run says so. To raise it:
// `ulimit -n 20000` (as far as the hard limit allows) in the shell that starts the bench.
import { fdLimit } from "./idle-clients.js";
import { fmtBytes, fmtMs, fmtRatio, log, median, printIfMain } from "./_lib.js";
import { placement, startDriver, startServer, bridgeAnswers } from "./_procs.js";

const WANTED = Number(process.env.BENCH_MANY_CLIENTS ?? 10_000);
const ACTIVE = Number(process.env.BENCH_MANY_ACTIVE ?? Math.max(1, Math.round(WANTED / 100)));
const EVERY_MS = Number(process.env.BENCH_MANY_EVERY_MS ?? 100);
const SECONDS = Number(process.env.BENCH_MANY_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_MANY_ROUNDS ?? 3);
/** Descriptors beyond the clients: the servers' listening sockets, pipes, the editor's channel, files. */
const FD_HEADROOM = 1_500;

async function once(kind, answers, n) {
  const server = await startServer(kind, { answers });
  const driver = await startDriver();
  try {
    const warm = await driver.send({ cmd: "open", url: server.wsUrl, n: 200, subscribe: "selection:changed" });
    await driver.send({ cmd: "close", handle: warm.handle });
    const before = await server.memory();
    const opened = await driver.send({ cmd: "open", url: server.wsUrl, n, subscribe: "selection:changed", batch: 200 });
    const after = await server.memory();
    const c0 = server.cpuMs();
    const active = await driver.send({ cmd: "active", handle: opened.handle, count: ACTIVE, method: "getServerInfo", everyMs: EVERY_MS, durationMs: SECONDS * 1000 });
    const cpuShare = (server.cpuMs() - c0) / (SECONDS * 1000);
    await driver.send({ cmd: "close", handle: opened.handle });
    if (active.failed > 0) log(`    note: ${active.failed} failed calls (${kind})`);
    return { rssPerClient: (after.rss - before.rss) / n, rss: after.rss, openMs: opened.ms, p50: active.p50, p99: active.p99, max: active.max, calls: active.calls, cpuShare };
  } finally {
    await driver.close();
    await server.close();
  }
}

export async function run() {
  const limit = fdLimit();
  const n = Number.isFinite(limit) ? Math.max(100, Math.min(WANTED, limit - FD_HEADROOM)) : WANTED;
  log(
    `${n} clients, ${ACTIVE} active every ~${EVERY_MS} ms for ${SECONDS} s (${placement()}; ulimit -n ${limit}, needs ${WANTED + FD_HEADROOM} for ${WANTED}; ${ROUNDS} rounds)`,
  );
  if (n < WANTED) log(`  note: ulimit -n ${limit} is below ${WANTED + FD_HEADROOM}: ${n} clients instead of ${WANTED}`);
  const probe = await startServer("bridge");
  const answers = await bridgeAnswers(probe, { x: 10, y: 20, width: 300, height: 200 });
  await probe.close();
  const samples = { bridge: [], bare: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ["bare", "bridge"] : ["bridge", "bare"];
    for (const side of order) samples[side].push(await once(side, answers, n));
  }
  const pick = (side, field) => median(samples[side].map((s) => s[field]));
  const fields = ["rssPerClient", "rss", "openMs", "p50", "p99", "max", "cpuShare"];
  const b = Object.fromEntries(fields.map((f) => [f, pick("bridge", f)]));
  const base = Object.fromEntries(fields.map((f) => [f, pick("bare", f)]));
  log(
    `  bridge: ${fmtBytes(b.rssPerClient)}/client (RSS ${fmtBytes(b.rss)}), opened in ${b.openMs.toFixed(0)} ms, active p50 ${fmtMs(b.p50)} p99 ${fmtMs(b.p99)} max ${fmtMs(b.max)}, ` +
      `${(b.cpuShare * 100).toFixed(1)}% of a core; bare: ${fmtBytes(base.rssPerClient)}/client (RSS ${fmtBytes(base.rss)}), opened in ${base.openMs.toFixed(0)} ms, ` +
      `p50 ${fmtMs(base.p50)} p99 ${fmtMs(base.p99)} max ${fmtMs(base.max)}, ${(base.cpuShare * 100).toFixed(1)}% of a core`,
  );
  const row = (label, bridge, baseline, fmt, target = "(info)", result = "-") => ({
    benchmark: `${n} clients: ${label}`,
    bridge: fmt(bridge),
    baseline: fmt(baseline),
    ratio: fmtRatio(bridge / baseline),
    target,
    result,
    value: bridge,
    higherIsBetter: false,
  });
  return [
    row("RSS per client", b.rssPerClient, base.rssPerClient, fmtBytes, "<= 12.5 KiB", b.rssPerClient <= 12.5 * 1024 ? "pass" : "FAIL"),
    row(`p99 of ${ACTIVE} active`, b.p99, base.p99, fmtMs),
    row("opening them", b.openMs, base.openMs, (x) => `${x.toFixed(0)} ms`),
  ];
}

await printIfMain(import.meta, run);
