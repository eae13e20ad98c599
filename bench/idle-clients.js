// Idle clients memory: N WebSocket clients (each subscribed to `selection:changed`) held open against a server in a
// child process; the child's memory after GC is compared before and after they connect, divided by N.
// Baseline: the same measurement with a bare `ws` server holding N idle connections.
import { execFileSync, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { closeAll, fmtBytes, fmtRatio, log, openMany, printIfMain, request, sleep, verdict } from "./_lib.js";

const SERVER_SCRIPT = fileURLToPath(new URL("./idle-server.js", import.meta.url));
const WANTED_CLIENTS = Number(process.env.BENCH_IDLE_CLIENTS ?? 10_000);
const WARMUP_CLIENTS = 200;
const BATCH = 200;
const TARGET_BYTES = 40 * 1024;

/** The soft open-files limit a child shell sees (what our own process and the forked server get), or NaN. */
export function fdLimit() {
  try {
    const out = execFileSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).trim();
    return out === "unlimited" ? Infinity : Number(out);
  } catch {
    return NaN;
  }
}

/**
 * How many idle clients fit: the clients live in this process and the server sockets in the child, so each process
 * needs about N descriptors (plus the fan-out benchmark's leftovers, which are closed by then, and some slack).
 */
export function idleClientCount(limit = fdLimit()) {
  if (!Number.isFinite(limit)) return WANTED_CLIENTS;
  return Math.max(100, Math.min(WANTED_CLIENTS, Math.floor(limit * 0.9) - 500));
}

function waitFor(child, type, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`idle-server: no "${type}" within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (msg) => {
      if (msg?.type !== type) return;
      cleanup();
      resolve(msg);
    };
    const onExit = (code) => {
      cleanup();
      reject(new Error(`idle-server exited with ${code} while waiting for "${type}"`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
    };
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}

async function memoryOf(child) {
  child.send({ cmd: "mem" });
  return (await waitFor(child, "mem")).usage;
}

/** Closes with 4000 (DISPOSE) so the bridge drops the logical clients instead of keeping them resumable. */
const disposeAll = (sockets) => closeAll(sockets, 5_000, 4000);

async function openSubscribed(url, n) {
  let seq = 0;
  return openMany(url, n, {
    batch: BATCH,
    setup: async (ws) => {
      const res = await request(ws, `s${++seq}`, "event:subscribe", { type: "selection:changed" }, 30_000);
      if (!res.ok) throw new Error(`subscribe failed: ${JSON.stringify(res.error)}`);
    },
  });
}

async function measureSide(kind, n) {
  const child = fork(SERVER_SCRIPT, [kind], { execArgv: ["--expose-gc"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let sockets = [];
  try {
    const { url } = await waitFor(child, "ready");
    // Warm-up: connect, subscribe and dispose a few clients so lazy initialisation is not charged per client.
    await disposeAll(await openSubscribed(url, WARMUP_CLIENTS));
    await sleep(200);
    const before = await memoryOf(child);
    const t0 = Date.now();
    sockets = await openSubscribed(url, n);
    const openMs = Date.now() - t0;
    await sleep(500);
    const after = await memoryOf(child);
    const heapExt = (after.heapUsed + after.external - (before.heapUsed + before.external)) / n;
    const rss = (after.rss - before.rss) / n;
    log(
      `  ${kind}: ${n} clients opened+subscribed in ${openMs} ms; heapUsed ${fmtBytes(before.heapUsed)} -> ${fmtBytes(after.heapUsed)}, ` +
        `external ${fmtBytes(before.external)} -> ${fmtBytes(after.external)}, rss ${fmtBytes(before.rss)} -> ${fmtBytes(after.rss)}`,
    );
    return { heapExt, rss };
  } finally {
    await disposeAll(sockets);
    sockets = [];
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send({ cmd: "close" });
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
  }
}

export async function run() {
  const limit = fdLimit();
  const n = idleClientCount(limit);
  log(`Idle clients memory (${n} subscribed WS clients; server in a child process, --expose-gc, after GC)`);
  if (Number.isFinite(limit) && limit < 25_000) {
    log(
      `  note: ulimit -n is ${limit} (< 25,000). Clients (this process) and server sockets (child) each need ~N ` +
        `descriptors, so N = ${n}${n < WANTED_CLIENTS ? ` instead of ${WANTED_CLIENTS}` : " still fits"}.`,
    );
  }
  // Baseline first, then the bridge; each in a fresh child so neither inherits the other's heap.
  const baseline = await measureSide("baseline", n);
  const bridge = await measureSide("bridge", n);
  return [
    {
      benchmark: `Idle ${n} clients heap+ext/client`,
      bridge: fmtBytes(bridge.heapExt),
      baseline: fmtBytes(baseline.heapExt),
      ratio: fmtRatio(bridge.heapExt / baseline.heapExt),
      target: "< 40 KiB",
      result: verdict(bridge.heapExt, TARGET_BYTES, false),
    },
    {
      benchmark: `Idle ${n} clients RSS/client`,
      bridge: fmtBytes(bridge.rss),
      baseline: fmtBytes(baseline.rss),
      ratio: fmtRatio(bridge.rss / baseline.rss),
      target: "< 40 KiB",
      result: verdict(bridge.rss, TARGET_BYTES, false),
    },
  ];
}

await printIfMain(import.meta, run);
