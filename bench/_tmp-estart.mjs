import { createRequire } from "node:module"; const require = createRequire(import.meta.url);
import { readFileSync } from "node:fs";
import { createIsolatedEmbeddedHost } from "../dist/hosts/isolated/index.js";
import { silentLogger } from "../dist/logger.js";
const n = Number(process.argv[2] ?? 5);
const execArgv = process.argv.slice(3);
const tick = 100;
const cpus = [];
for (let i = 0; i < n; i++) {
  const host = createIsolatedEmbeddedHost({ sample: true, logger: silentLogger(), execArgv });
  const t0 = performance.now();
  await host.connect();
  const ms = performance.now() - t0;
  const pid = host.pid ?? host.process?.pid;
  let cpu = NaN;
  try { const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" "); cpu = (Number(f[11]) + Number(f[12])) / tick; } catch {}
  cpus.push(cpu);
  try { console.log("threads", require("node:fs").readdirSync(`/proc/${pid}/task`).length); } catch {}
  console.log(`start ${ms.toFixed(0)} ms, child cpu ${cpu} s (pid ${pid})`);
  await host.close();
}
cpus.sort((a, b) => a - b);
console.log("median cpu", cpus[Math.floor(cpus.length / 2)]);
