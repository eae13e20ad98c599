// Where a CPU profile's time went: self time by function and by package (or by file of this project), from a
// `.cpuprofile` written by `node --cpu-prof`.
//
//   node bench/profile-summary.js <file.cpuprofile> [top=25] [fromMs=0]
//
// `fromMs` leaves out the samples of the profile's first milliseconds (start-up: module loading, the editor).
// Self time only (a function's own samples, not its callees'), as shares of the busy samples (idle and the
// profiler's own excluded). Packages are read from `node_modules/<name>`; this project's files keep their path
// under `dist/`; Node's own code is `node:<module>`; `(garbage collector)` and `(program)` are V8's.
import { readFileSync } from "node:fs";

const [file, topArg, fromArg] = process.argv.slice(2);
if (file === undefined) {
  console.error("usage: node bench/profile-summary.js <file.cpuprofile> [top]");
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const counts = new Map();
const fromUs = Number(fromArg ?? 0) * 1000;
let at = 0;
profile.samples.forEach((id, i) => {
  at += profile.timeDeltas[i];
  if (at >= fromUs) counts.set(id, (counts.get(id) ?? 0) + 1);
});

/** Where a frame's code lives: a package, a project file, Node's internals, or V8. */
function placeOf(url, name) {
  if (url === "") return name.startsWith("(") ? name : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg !== null) return pkg[1];
  if (url.startsWith("node:")) return url.replace(/^node:internal\//, "node:").replace(/\/.*$/, "");
  const own = /\/(dist|bench|bin)\/(.*)$/.exec(url);
  return own === null ? url : `${own[1]}/${own[2]}`;
}

const fn = new Map();
const place = new Map();
let busy = 0;
for (const [id, n] of counts) {
  const node = byId.get(id);
  const { functionName, url, lineNumber } = node.callFrame;
  if (functionName === "(idle)") continue;
  busy += n;
  const where = placeOf(url, functionName);
  const key = `${functionName || "(anonymous)"}  ${where}${url === "" ? "" : `:${lineNumber + 1}`}`;
  fn.set(key, (fn.get(key) ?? 0) + n);
  place.set(where, (place.get(where) ?? 0) + n);
}
const idle = [...counts].filter(([id]) => byId.get(id).callFrame.functionName === "(idle)").reduce((s, [, n]) => s + n, 0);
const pct = (n) => `${((n / busy) * 100).toFixed(1).padStart(5)}%`;
console.log(`${file}: ${busy} busy samples (${idle} idle), interval ~${((profile.endTime - profile.startTime) / profile.samples.length / 1000).toFixed(2)} ms`);
console.log("\nby package / file (self time)");
for (const [k, n] of [...place].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(n)}  ${k}`);
console.log("\nby function (self time)");
for (const [k, n] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(n)}  ${k}`);
