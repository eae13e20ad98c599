// Runs every benchmark in sequence and prints one summary table (bridge vs a baseline measured in the same run).
//
//   npm run bench                       build, then everything
//   node bench/run.js ws-rpc http       only the named benchmarks (after `npm run build`)
//   npm run bench -- limit --compare main   the named benchmarks on this build and on another git ref, alternately
//                                       (--rounds, 5), with each bridge/baseline ratio's median on both and its change
//                                       (bench/_compare.js)
//   npm run bench -- limit --compare HEAD --patch bench/ablations/x.patch   the same, the other side with a guarantee
//                                       switched off (bench/ablations/README.md): what the guarantee costs
//   node bench/run.js limit --json rows.json   also writes the summary rows as JSON
//
// Environment: BENCH_DURATION_MS (2000), BENCH_WARMUP_MS (500), BENCH_ROUNDS (5), BENCH_FANOUT_CLIENTS (1000),
// BENCH_FANOUT_EVENTS (6 per round), BENCH_HTTP_CONCURRENCY (32), BENCH_IDLE_CLIENTS (10000), BENCH_EXPORT_WIDTH/HEIGHT
// (2000×1500), BENCH_EXPORT_REPEATS (3), BENCH_SCRIPT_CALLS (30), BENCH_BIG_SIZE (8000), BENCH_HOP_CALLS (2000),
// BENCH_HOP_BIG_CALLS (40), BENCH_MCP_CALLS (300), BENCH_EVENTS_CLIENTS (1000), BENCH_EVENTS_EVENTS (20 per round),
// BENCH_WEBHOOKS (10), BENCH_WEBHOOK_EVENTS (200), BENCH_PSD_RUNS (3), BENCH_PSD_WIDTH/HEIGHT (3508×4960), BENCH_EDIT_WIDTH/HEIGHT (4000×3000), BENCH_EDIT_REPEATS (1),
// BENCH_SOAK_SECONDS (60), BENCH_SOAK_BASELINE_SECONDS (10),
// BENCH_SOAK_CLIENTS (50), BENCH_SOAK_THINK_MS (20), BENCH_SOAK_ABUSES (1,2,3,4,5,6,7), BENCH_START_ROUNDS (5),
// BENCH_COMPARE_ROUNDS (5), BENCH_COMPARE_NOISE (0.10), BENCH_TEMPLATE_VARIANTS (100), BENCH_CONTRACT_ROUNDS (3).
// Exit code 0 when every benchmark ran, whether or not it met its target; 1 when a benchmark crashed.
import os from "node:os";
import { DURATION_MS, log, printTable, ROUNDS, WARMUP_MS } from "./_lib.js";
import { writeFileSync } from "node:fs";
import { fdLimit } from "./idle-clients.js";

const BENCHMARKS = {
  limit: () => import("./limit.js"),
  "fanout-saturate": () => import("./fanout-saturate.js"),
  "clients-10k": () => import("./clients-10k.js"),
  "ws-rpc": () => import("./ws-rpc.js"),
  "per-call": () => import("./per-call.js"),
  "kept-answer": () => import("./kept-answer.js"),
  fanout: () => import("./fanout.js"),
  http: () => import("./http.js"),
  "idle-clients": () => import("./idle-clients.js"),
  "embedded-export": () => import("./embedded-export.js"),
  "embedded-script": () => import("./embedded-script.js"),
  "embedded-big": () => import("./embedded-big.js"),
  "psd-open-export": () => import("./psd-open-export.js"),
  "psd-save": () => import("./psd-save.js"),
  edit: () => import("./edit.js"),
  filters: () => import("./filters.js"),
  "styled-export": () => import("./styled-export.js"),
  history: () => import("./history.js"),
  text: () => import("./text.js"),
  "cutout-iou": () => import("./cutout-iou.js"),
  "cutout-model": () => import("./cutout-model.js"),
  gimp: () => import("./gimp.js"),
  "client-plugin": () => import("./client-plugin.js"),
  "python-client": () => import("./python-client.js"),
  "plugin-isolation": () => import("./plugin-isolation.js"),
  cluster: () => import("./cluster.js"),
  files: () => import("./files.js"),
  isolation: () => import("./isolation.js"),
  template: () => import("./template.js"),
  "editor-hop": () => import("./editor-hop.js"),
  binary: () => import("./binary.js"),
  dashboard: () => import("./dashboard.js"),
  mcp: () => import("./mcp.js"),
  events: () => import("./events.js"),
  contract: () => import("./contract.js"),
  soak: () => import("./soak.js"),
  start: () => import("./start.js"),
};

/** `--name value` options taken out of the arguments; the rest are benchmark names. */
const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const [, value] = args.splice(at, 2);
  if (value === undefined) {
    console.error(`${name} needs a value`);
    process.exit(2);
  }
  return value;
};
const compareRef = option("--compare");
const patch = option("--patch");
const compareRounds = option("--rounds");
const jsonOut = option("--json");
const wanted = args;
for (const name of wanted) {
  if (!(name in BENCHMARKS)) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(BENCHMARKS).join(", ")}`);
    process.exit(2);
  }
}
const selected = wanted.length > 0 ? wanted : Object.keys(BENCHMARKS);

if (compareRef !== undefined) {
  const { compare, COMPARE_ROUNDS } = await import("./_compare.js");
  const rounds = compareRounds === undefined ? COMPARE_ROUNDS : Number(compareRounds);
  if (!Number.isInteger(rounds) || rounds < 1) {
    console.error(`--rounds needs a whole number of at least 1, got ${compareRounds}`);
    process.exit(2);
  }
  await compare(compareRef, selected, patch, rounds);
  process.exit(0);
}

const started = Date.now();
log(
  `image-editor-bridge benchmarks — node ${process.version}, ${os.cpus().length} CPU(s), ulimit -n ${fdLimit()}, ` +
    `${ROUNDS} rounds, ${DURATION_MS} ms measure + ${WARMUP_MS} ms warm-up per throughput round`,
);
log("Each figure is a median over rounds that alternate bridge and baseline in this same process.\n");

const rows = [];
let crashed = false;
for (const name of selected) {
  const t0 = Date.now();
  try {
    const mod = await BENCHMARKS[name]();
    rows.push(...(await mod.run()));
  } catch (error) {
    crashed = true;
    log(`  ${name} FAILED: ${error?.stack ?? error}`);
    rows.push({ benchmark: name, bridge: "error", baseline: "-", ratio: "-", target: "-", result: "ERROR" });
  }
  log(`  (${name}: ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
}

log("Summary (ratio = bridge / baseline; for throughput higher is better, for latency and memory lower is better)\n");
printTable(
  ["benchmark", "bridge", "baseline", "ratio", "target", "pass/fail"],
  rows.map((r) => [r.benchmark, r.bridge, r.baseline, r.ratio, r.target, r.result]),
);
if (jsonOut !== undefined) writeFileSync(jsonOut, JSON.stringify(rows, null, 2));
const failed = rows.filter((r) => r.result === "FAIL").map((r) => r.benchmark);
log(
  `\n${failed.length === 0 ? "All targets met." : `Targets missed: ${failed.join("; ")}.`} ` +
    `Total ${((Date.now() - started) / 1000).toFixed(1)} s.`,
);

process.exitCode = crashed ? 1 : 0;
// Everything closes its servers and sockets; should a handle linger anyway, do not hang the run.
setTimeout(() => process.exit(process.exitCode), 3_000).unref();
