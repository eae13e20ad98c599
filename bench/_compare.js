// `node bench/run.js [names] --compare <git-ref>`: the same benchmarks on this build and on another, alternately, and
// how each figure's ratio to its baseline moved between the two builds, so a regression shows in one command.
//
// The other ref is checked out in a temporary git worktree (`git worktree add --detach`), gets `node_modules` (a
// link to ours when its package-lock.json is the same, else `npm ci`), and is built with its own `npm run build`. Its
// `bench/` is then replaced by this build's, so both sides run the same benchmark code, each against its own `dist/`.
// Each round runs the whole selection once per build, the order alternating (`--rounds` or BENCH_COMPARE_ROUNDS, 5).
// For every figure it prints the median over the rounds of its bridge ÷ baseline ratio on each build (each ratio
// measured against the bare baseline in that same run, so machine noise mostly cancels), the relative change between
// them, and flags a change past ±BENCH_COMPARE_NOISE (0.10); the bridge's own figure is shown beside it. The worktree
// is removed at the end.
//
// `--patch <file>` applies a patch to the other side first: `bench/ablations/*.patch` switch one guarantee off, so
// `--compare HEAD --patch bench/ablations/x.patch` measures what that guarantee costs.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fmtRatio, log, median, printTable } from "./_lib.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Rounds of the whole selection per build, alternating which goes first. */
export const COMPARE_ROUNDS = Number(process.env.BENCH_COMPARE_ROUNDS ?? 5);
/** Changes within this of 1 are reported as the same: medians of a few rounds on a busy machine swing that much. */
const NOISE = Number(process.env.BENCH_COMPARE_NOISE ?? 0.1);

const UNITS = { "k/s": 1000, "req/s": 1, "/s": 1, ms: 1, "µs": 1, B: 1, KiB: 1024, MiB: 1024 * 1024, GiB: 1024 ** 3, s: 1000 };

/** A row's figure as a number: its `value` when it has one, else read from its `bridge` text ("12,345 req/s", "1.2 KiB"). */
export function figureOf(row) {
  if (typeof row.value === "number") return row.value;
  const m = /^(-?[\d,.]+)\s*([^\s\d]*)/.exec(String(row.bridge ?? ""));
  if (m === null) return NaN;
  return Number(m[1].replaceAll(",", "")) * (UNITS[m[2]] ?? 1);
}

/** A row's bridge ÷ baseline ratio as a number (its `ratio` text, "0.96x"), or NaN when it has none. */
export function ratioOf(row) {
  const m = /^(-?[\d.]+)x$/.exec(String(row.ratio ?? "").trim());
  return m === null ? NaN : Number(m[1]);
}

/** Whether a bigger figure is better: the row says so, or it is a rate. */
function higherIsBetter(row) {
  return row.higherIsBetter ?? /\/s$/.test(String(row.bridge ?? "").trim());
}

function sh(command, args, cwd) {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
}

/** Checks out `ref` in a temporary worktree, applies `patch` (an ablation) when given, builds it; returns its folder. */
function prepare(ref, patch) {
  const sha = sh("git", ["rev-parse", "--verify", `${ref}^{commit}`], ROOT);
  const dir = mkdtempSync(join(tmpdir(), "bridge-compare-"));
  log(`--compare ${ref} (${sha.slice(0, 10)}): worktree ${dir}`);
  sh("git", ["worktree", "add", "--detach", dir, sha], ROOT);
  if (patch !== undefined) {
    log(`  applying ${patch}`);
    sh("git", ["apply", resolve(patch)], dir);
  }
  const lock = (root) => (existsSync(join(root, "package-lock.json")) ? readFileSync(join(root, "package-lock.json"), "utf8") : "");
  if (lock(dir) === lock(ROOT)) symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  else {
    log("  its package-lock.json differs: npm ci");
    sh("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts"], dir);
  }
  log("  building it (npm run build)");
  sh("npm", ["run", "-s", "build"], dir);
  // The same benchmark code on both sides: ours, each against its own dist/ and bin/.
  rmSync(join(dir, "bench"), { recursive: true, force: true });
  cpSync(join(ROOT, "bench"), join(dir, "bench"), { recursive: true });
  return { dir, sha };
}

/** Runs `run.js <names>` in `root`; resolves with its summary rows (`--json`). */
function runSuite(root, names, label) {
  const out = join(tmpdir(), `bridge-compare-${process.pid}-${label}.json`);
  log(`\n### ${label}`);
  const result = spawnSync(process.execPath, [join(root, "bench", "run.js"), ...names, "--json", out], { cwd: root, stdio: "inherit" });
  if (result.status !== 0 && !existsSync(out)) throw new Error(`${label}: run.js exited with ${result.status}`);
  const rows = JSON.parse(readFileSync(out, "utf8"));
  rmSync(out, { force: true });
  return rows;
}

/**
 * The whole comparison: prints the table and returns how many figures got worse beyond the noise. With `patch`, the
 * other side is `ref` with that patch applied (`bench/ablations/`: a guarantee switched off), so the table says what
 * the guarantee costs.
 */
export async function compare(ref, names, patch, rounds = COMPARE_ROUNDS) {
  const other = prepare(ref, patch);
  const label = patch === undefined ? ref : `${ref}+${patch.split("/").at(-1)}`;
  const figures = new Map();
  const note = (side, rows) => {
    for (const row of rows) {
      if (!figures.has(row.benchmark)) figures.set(row.benchmark, { row, ours: [], theirs: [], oursRatio: [], theirsRatio: [] });
      const figure = figures.get(row.benchmark);
      figure[side].push(figureOf(row));
      figure[`${side}Ratio`].push(ratioOf(row));
    }
  };
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ["ours", "theirs"] : ["theirs", "ours"];
      for (const side of order) {
        const root = side === "ours" ? ROOT : other.dir;
        note(side, runSuite(root, names, `${side === "ours" ? "this build" : label} (round ${round + 1} of ${rounds})`));
      }
    }
  } finally {
    spawnSync("git", ["worktree", "remove", "--force", other.dir], { cwd: ROOT, stdio: "ignore" });
    rmSync(other.dir, { recursive: true, force: true });
    spawnSync("git", ["worktree", "prune"], { cwd: ROOT, stdio: "ignore" });
  }
  const rows = [];
  let worse = 0;
  const fmt = (n) => (Number.isFinite(n) ? n.toPrecision(4) : "n/a");
  for (const [name, { row, ours, theirs, oursRatio, theirsRatio }] of figures) {
    const a = median(ours.filter(Number.isFinite));
    const b = median(theirs.filter(Number.isFinite));
    const ra = median(oursRatio.filter(Number.isFinite));
    const rb = median(theirsRatio.filter(Number.isFinite));
    // Judged on the ratio to the baseline where the row has one (steadier: the baseline ran beside it), else on the
    // bridge's own figure.
    const change = Number.isFinite(ra) && Number.isFinite(rb) ? ra / rb : a / b;
    // A row that says it is not a figure to judge (a count that only shows something happened) gets no verdict.
    const judged = row.judged !== false && Number.isFinite(change);
    const higher = higherIsBetter(row);
    const better = judged && (higher ? change > 1 + NOISE : change < 1 - NOISE);
    const regressed = judged && (higher ? change < 1 - NOISE : change > 1 + NOISE);
    if (regressed) worse++;
    const moved = Number.isFinite(change) ? `${change >= 1 ? "+" : ""}${((change - 1) * 100).toFixed(1)}%` : "n/a";
    rows.push([name, fmtRatio(ra), fmtRatio(rb), moved, fmt(a), fmt(b), higher ? "higher" : "lower", !judged ? "-" : regressed ? "WORSE" : better ? "better" : "same"]);
  }
  log(
    `\nThis build vs ${label} (${other.sha.slice(0, 10)}): medians over ${rounds} alternating rounds of each figure's ratio to its baseline ` +
      "(bridge ÷ baseline, both measured in the same run), and of the bridge's own figure\n",
  );
  printTable(["figure", "ratio, this build", `ratio, ${label}`, "change", "bridge, this build", `bridge, ${label}`, "better is", "verdict"], rows);
  log(`\n${worse === 0 ? "No figure got worse" : `${worse} figure(s) got worse`} beyond ±${NOISE * 100}% (medians of a few rounds on a busy machine swing that much).`);
  return worse;
}
