// A CPU profile of one server under one case of `limit.js`: the server alone in its process with `--cpu-prof`,
// pinned as in the bench, driven for a while, then stopped; prints where its time went (`profile-summary.js`).
//
//   node bench/profile.js <case> [seconds=8] [bridge|bare]      cases: ws1 ws16 ws64 health area-http area-ws
//
// The profile is left in BENCH_PROFILE_DIR (a temporary folder by default) for Chrome DevTools or speedscope.
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { CASES } from "./limit.js";
import { bridgeAnswers, startDriver, startServer } from "./_procs.js";

const [key, secondsArg, kindArg] = process.argv.slice(2);
const c = CASES.find((x) => x.key === key);
if (c === undefined) {
  console.error(`usage: node bench/profile.js <${CASES.map((x) => x.key).join("|")}> [seconds] [bridge|bare]`);
  process.exit(2);
}
const seconds = Number(secondsArg ?? 8);
const kind = kindArg ?? "bridge";
const dir = process.env.BENCH_PROFILE_DIR ?? mkdtempSync(join(tmpdir(), "bridge-profile-"));
process.env.BENCH_SERVER_NODE_ARGS = `--cpu-prof --cpu-prof-interval=${process.env.BENCH_PROFILE_INTERVAL_US ?? 1000} --cpu-prof-dir=${dir}`;

let answers = {};
if (kind === "bare") {
  delete process.env.BENCH_SERVER_NODE_ARGS;
  const bridge = await startServer("bridge");
  answers = await bridgeAnswers(bridge, { x: 10, y: 20, width: 300, height: 200 });
  await bridge.close();
  process.env.BENCH_SERVER_NODE_ARGS = `--cpu-prof --cpu-prof-interval=${process.env.BENCH_PROFILE_INTERVAL_US ?? 1000} --cpu-prof-dir=${dir}`;
}
const t0 = Date.now();
const server = await startServer(kind, { answers });
if (kind === "bridge") await bridgeAnswers(server, { x: 10, y: 20, width: 300, height: 200 });
const driver = await startDriver();
const warmupMs = 500;
const from = Date.now() - t0 + warmupMs;
const command =
  c.kind === "ws"
    ? { cmd: "ws", url: server.wsUrl, sockets: c.sockets, inflight: c.inflight, method: kind === "bare" ? (c.bareMethod ?? c.method) : c.method, warmupMs, durationMs: seconds * 1000 }
    : { cmd: "http", port: server.port, path: c.path, conns: c.conns, warmupMs, durationMs: seconds * 1000 };
const out = await driver.send(command);
await driver.close();
await server.close();
console.log(`${kind} ${c.name}: ${Math.round(out.rate)} calls/s over ${seconds} s`);
const file = join(dir, readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).sort().at(-1));
console.log(execFileSync(process.execPath, [new URL("./profile-summary.js", import.meta.url).pathname, file, "30", String(from)], { encoding: "utf8" }));
