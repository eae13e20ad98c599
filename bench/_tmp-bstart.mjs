import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
const n = Number(process.argv[2] ?? 5); const extra = process.argv.slice(3);
const cpu = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" "); return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100; };
const all = [];
for (let i = 0; i < n; i++) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...extra, "bin/image-editor-bridge.js", "serve", "--listen", "127.0.0.1:0", "--log-level", "warn"], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve) => child.stdout.on("data", (d) => String(d).includes("http://") && resolve()));
  const ms = performance.now() - t0;
  // the editor process: child of the bridge
  const kids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
  const own = cpu(child.pid); const ed = kids.map(Number).map((k) => { try { return cpu(k); } catch { return 0; } });
  console.log(`ready ${ms.toFixed(0)} ms; bridge ${own} cpu-s, children ${ed.join(",")}`);
  all.push(own);
  child.kill("SIGTERM"); await new Promise((r) => child.once("exit", r));
}
all.sort(); console.log("median bridge cpu", all[Math.floor(n / 2)]);
