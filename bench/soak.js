// The soak: all seven abuses of issue 15's table at once, by several abusive clients, while normal clients work,
// against the bridge as users run it (the CLI in a child process, its editor in a process of its own, default
// limits). Not part of `npm test`.
//
//   baseline: BENCH_SOAK_CLIENTS (50) normal clients alone for BENCH_SOAK_BASELINE_SECONDS (10): each, in a loop
//             with BENCH_SOAK_THINK_MS (20) between calls, `document:current`, `layer:getInfoById` and a ≤ 64 px PNG
//             `image:exportLayer` of the sample document; another client pings `GET /health` (a new connection)
//             every 20 ms.
//   soak:     the same, for BENCH_SOAK_SECONDS (60), while abusers run one loop per row:
//             1 open a 1×1 PSD declaring a 22000×22000 layer        2 create 3000×3000 documents until refused, import a
//             tiny PNG at 8000×8000, close them, again              3 subscribe 20 sockets to previews, drop them, make
//             10 preview events, again                              4 four clients each sending one 32 MiB frame, again
//             5 up to 1,000 TCP connections that never send a byte  6 unknown-method frames as fast as the socket takes
//             them (reconnecting after a 1008)                      7 open a PSD nested 150 groups deep, run a script
//             growing an array until out of memory
//   report:   peak RSS growth of the bridge and its editors over their baseline (sampled every 20 ms from /proc)
//             beside the budgets that bound it, normal clients' p99 and worst latency and their errors, and /health's
//             worst, each beside the same figure without abusers; and what each abuse was answered.
//
//   node bench/soak.js                          (after `npm run build`)
//   BENCH_SOAK_SECONDS=5 node bench/soak.js     a short check that it works
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { writePsdBuffer } from "ag-psd";
import sharp from "sharp";
import { DEFAULT_LIMITS } from "../dist/limits.js";
import { fmtBytes, fmtMs, fmtRatio, log, max, openSocket, percentile, printIfMain, request, verdict } from "./_lib.js";

const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 60);
const BASELINE_SECONDS = Number(process.env.BENCH_SOAK_BASELINE_SECONDS ?? 10);
const NORMAL_CLIENTS = Number(process.env.BENCH_SOAK_CLIENTS ?? 50);
const THINK_MS = Number(process.env.BENCH_SOAK_THINK_MS ?? 20);
/** Which rows of the table abuse (`BENCH_SOAK_ABUSES=4,6`), to find which one hurts; all by default. */
const ABUSES = new Set((process.env.BENCH_SOAK_ABUSES ?? "1,2,3,4,5,6,7").split(",").map((r) => r.trim()));
/** The issue's goals for normal clients while abused. */
const WORST_TARGET_MS = 100;
const RSS_EVERY_MS = 20;
const PING_EVERY_MS = 20;
const CALL_TIMEOUT_MS = 30_000;
const BIN = fileURLToPath(new URL("../bin/image-editor-bridge.js", import.meta.url));
const MiB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------------------
// The bridge in a child process, and its memory

async function serveChild(args) {
  const child = spawn(process.execPath, [BIN, "serve", "--listen", "0", "--log-level", "warn", ...args], {
    env: { PATH: process.env.PATH ?? "" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  const port = await new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
  child.stdout.resume();
  return {
    child,
    port,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const tree = processTree(child.pid).filter((p) => p !== child.pid);
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await once(child, "exit");
      clearTimeout(killer);
      for (const p of tree) {
        try {
          process.kill(p, "SIGKILL");
        } catch {
          // gone with the bridge, as it should be
        }
      }
    },
  };
}

function rssOf(pid) {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? 0 : Number(kb) * 1024;
  } catch {
    return 0;
  }
}

/** The process and its descendants (the editors), from each thread's `children`. */
function processTree(pid) {
  const seen = new Set();
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.pop();
    if (seen.has(next)) continue;
    seen.add(next);
    let tasks = [];
    try {
      tasks = readdirSync(`/proc/${next}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        for (const c of readFileSync(`/proc/${next}/task/${task}/children`, "utf8").split(/\s+/)) if (c !== "") queue.push(Number(c));
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return [...seen];
}

const treeRss = (pid) => processTree(pid).reduce((sum, p) => sum + rssOf(p), 0);

function getJson(port, path) {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, agent: false, timeout: 10_000 }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode, body }));
    });
    req.once("timeout", () => req.destroy(new Error("no answer within 10 s")));
    req.once("error", reject);
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------------------
// Hostile files

function u32(value) {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value);
  return b;
}

/** A 1×1 PSD with one layer record of `width`×`height` whose channels hold no data (about 120 bytes). */
function hollowPsd(width, height, name) {
  const nameBytes = Buffer.from(name);
  const namePadded = Buffer.alloc(Math.ceil((nameBytes.length + 1) / 4) * 4);
  namePadded[0] = nameBytes.length;
  nameBytes.copy(namePadded, 1);
  const record = Buffer.alloc(58);
  let at = record.writeInt32BE(0, 0);
  at = record.writeInt32BE(0, at);
  at = record.writeInt32BE(height, at);
  at = record.writeInt32BE(width, at);
  at = record.writeUInt16BE(4, at);
  for (const id of [-1, 0, 1, 2]) {
    at = record.writeInt16BE(id, at);
    at = record.writeUInt32BE(0, at);
  }
  at += record.write("8BIMnorm", at, "latin1");
  at = record.writeUInt8(255, at) + 3;
  record.writeUInt32BE(8 + namePadded.length, at);
  const info = Buffer.concat([Buffer.from([0, 1]), record, Buffer.alloc(8), namePadded]);
  const layerAndMask = Buffer.concat([u32(info.length), info, u32(0)]);
  const header = Buffer.alloc(26);
  header.write("8BPS", 0, "latin1");
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(3, 12);
  header.writeUInt32BE(1, 14);
  header.writeUInt32BE(1, 18);
  header.writeUInt16BE(8, 22);
  header.writeUInt16BE(3, 24);
  return Buffer.concat([header, u32(0), u32(0), u32(layerAndMask.length), layerAndMask, Buffer.from([0, 0])]);
}

function nestedPsd(depth) {
  let node = { name: "leaf", imageData: { width: 1, height: 1, data: new Uint8ClampedArray([255, 0, 0, 255]) } };
  for (let i = depth; i >= 1; i--) node = { name: `g${i}`, opened: true, children: [node] };
  return writePsdBuffer({ width: 1, height: 1, children: [node] });
}

// ---------------------------------------------------------------------------------------------------------
// Clients

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A normal client: ordinary reads and a small export, one call at a time, until `state.stop`. */
async function normalClient(wsUrl, target, state, stats) {
  const ws = await openSocket(wsUrl);
  const calls = [
    ["document:current", {}],
    ["layer:getInfoById", { documentId: target.documentId, layerId: target.layerId }],
    ["image:exportLayer", { documentId: target.documentId, layerId: target.layerId, format: "png", maxSize: 64 }],
  ];
  let n = 0;
  while (!state.stop) {
    const [method, params] = calls[n % calls.length];
    const started = performance.now();
    try {
      const answer = await request(ws, `n${n}`, method, params, CALL_TIMEOUT_MS);
      if (!answer.ok) stats.errors.push(`${method}: ${answer.error?.code} ${answer.error?.message}`);
    } catch (error) {
      stats.errors.push(`${method}: ${error.message}`);
    }
    stats.latencies.push(performance.now() - started);
    n++;
    await pause(THINK_MS);
  }
  ws.terminate();
}

/** `GET /health` on a new connection every 20 ms, as another process would. */
async function healthPinger(port, state, stats) {
  while (!state.stop) {
    const started = performance.now();
    try {
      const { status } = await getJson(port, "/health");
      if (status !== 200) stats.errors.push(`/health: ${status}`);
    } catch (error) {
      stats.errors.push(`/health: ${error.message}`);
    }
    stats.latencies.push(performance.now() - started);
    await pause(PING_EVERY_MS);
  }
}

/** What an abuser was answered: counts by row and outcome (an error code, `ok`, or a close). */
function tally() {
  const counts = new Map();
  return {
    counts,
    add(row, outcome) {
      const key = `${row}: ${outcome}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
  };
}

const outcomeOf = (answer) => (answer.ok ? "ok" : `${answer.error?.code}${answer.error?.details?.limit ? ` (${answer.error.details.limit})` : ""}`);

/** Runs `body` in a loop until `state.stop`, counting what it throws, so one abuser's failure ends nothing else. */
async function loop(row, state, seen, body) {
  while (!state.stop) {
    try {
      await body();
    } catch (error) {
      seen.add(row, `threw ${String(error.message).slice(0, 60)}`);
      await pause(50);
    }
  }
}

function abusers({ wsUrl, port, files, target, state, seen }) {
  const big = ABUSES.has("4") ? JSON.stringify({ id: "big", method: "getServerInfo", params: { pad: "x".repeat(32 * MiB) } }) : "";
  const rows = {
    1: () => [
    // 1: the hollow PSD.
    loop("1 hollow PSD", state, seen, async () => {
      const ws = await openSocket(wsUrl);
      for (let i = 0; i < 20 && !state.stop; i++) seen.add("1 hollow PSD", outcomeOf(await request(ws, `h${i}`, "document:open", { path: files.hollow }, CALL_TIMEOUT_MS)));
      ws.terminate();
    }),
    ],
    2: () => [
    // 2: documents and imports until the editor's memory budget refuses them; then give it back.
    loop("2 budget", state, seen, async () => {
      const ws = await openSocket(wsUrl);
      const created = [];
      for (let i = 0; i < 40 && !state.stop; i++) {
        const answer = await request(ws, `c${i}`, "document:create", { width: 3000, height: 3000, name: `abuse-${i}` }, CALL_TIMEOUT_MS);
        seen.add("2 document:create", outcomeOf(answer));
        if (!answer.ok) break;
        created.push(answer.result.id);
      }
      const into = created.at(-1) ?? target.documentId;
      const imported = await request(ws, "imp", "layer:importImage", { documentId: into, image: files.tinyPng, size: { width: 8000, height: 8000 } }, CALL_TIMEOUT_MS);
      seen.add("2 importImage 8000×8000", outcomeOf(imported));
      for (const id of created) await request(ws, `x${id}`, "document:close", { documentId: id }, CALL_TIMEOUT_MS);
      ws.terminate();
    }),
    ],
    3: () => [
    // 3: subscribed sockets dropped, then preview events.
    loop("3 replay", state, seen, async () => {
      for (let i = 0; i < 20; i++) {
        const ws = await openSocket(wsUrl);
        await request(ws, "s", "event:subscribe", { type: "layer:previewChange" });
        ws.terminate();
        seen.add("3 replay", "subscribed socket dropped");
      }
      const ws = await openSocket(wsUrl);
      for (let i = 0; i < 10 && !state.stop; i++) {
        const answer = await request(ws, `p${i}`, "layer:select", { documentId: target.documentId, ids: [target.layers[i % 2]] }, CALL_TIMEOUT_MS);
        seen.add("3 layer:select (previews)", outcomeOf(answer));
      }
      ws.terminate();
    }),
    ],
    4: () => [
    // 4: four clients each sending one 32 MiB frame at once, again and again.
    ...Array.from({ length: 4 }, (_, k) =>
      loop("4 big frames", state, seen, async () => {
        const ws = await openSocket(wsUrl);
        ws.on("close", (code) => state.stop || seen.add("4 big frames", `closed ${code}`));
        for (let i = 0; i < 5 && !state.stop; i++) {
          const answered = new Promise((resolve) => {
            const onMessage = (data) => {
              if (!String(data).startsWith('{"id":"big"')) return;
              ws.off("message", onMessage);
              resolve(JSON.parse(String(data)));
            };
            ws.on("message", onMessage);
            ws.once("close", () => resolve({ ok: false, error: { code: "closed" } }));
          });
          ws.send(big);
          seen.add(`4 big frames (client ${k + 1})`, outcomeOf(await answered));
        }
        ws.terminate();
      }),
    ),
    ],
    5: () => [
    // 5: connections that never send a byte, up to 1,000 held at once.
    (async () => {
      const held = new Set();
      while (!state.stop) {
        const room = Math.min(100, 1_000 - held.size);
        await Promise.all(
          Array.from(
            { length: room },
            () =>
              new Promise((resolve) => {
                const socket = connect(port, "127.0.0.1", resolve);
                held.add(socket);
                socket.on("error", () => {});
                socket.on("data", () => {});
                socket.once("close", () => {
                  held.delete(socket);
                  if (!state.stop) seen.add("5 silent sockets", "closed by the bridge");
                  resolve();
                });
              }),
          ),
        );
        await pause(100);
      }
      for (const socket of held) socket.destroy();
    })(),
    ],
    6: () => [
    // 6: unknown-method frames as fast as the socket takes them.
    loop("6 flood", state, seen, async () => {
      const ws = await openSocket(wsUrl);
      const closed = new Promise((resolve) => ws.once("close", (code) => resolve(code)));
      ws.on("message", (data) => {
        const text = String(data);
        if (text.includes('"TOO_MANY_REQUESTS"')) seen.add("6 flood", "TOO_MANY_REQUESTS");
        else if (text.includes('"UNKNOWN_METHOD"')) seen.add("6 flood", "UNKNOWN_METHOD");
      });
      let i = 0;
      while (!state.stop && ws.readyState === ws.OPEN) {
        for (let k = 0; k < 500; k++) ws.send(`{"id":"u${i++}","method":"no:such-method"}`);
        await new Promise((resolve) => setImmediate(resolve));
        while (ws.bufferedAmount > 1 * MiB && ws.readyState === ws.OPEN) await pause(5);
      }
      if (ws.readyState === ws.OPEN) ws.terminate();
      const code = await closed;
      if (!state.stop) seen.add("6 flood", `closed ${code}`);
    }),
    ],
    7: () => [
    // 7: the deep PSD and the script that runs out of memory.
    loop("7 named errors", state, seen, async () => {
      const ws = await openSocket(wsUrl);
      seen.add("7 deep PSD", outcomeOf(await request(ws, "d", "document:open", { path: files.deep }, CALL_TIMEOUT_MS)));
      const script = await request(ws, "j", "jsx:run", { script: "const a = []; for (;;) a.push({ n: a.length });", timeoutMs: 30_000 }, 60_000);
      seen.add("7 script OOM", `${outcomeOf(script)}${script.error?.details?.kind ? ` kind ${script.error.details.kind}` : ""}`);
      ws.terminate();
    }),
    ],
  };
  return Object.entries(rows).flatMap(([row, start]) => (ABUSES.has(row) ? start() : []));
}

// ---------------------------------------------------------------------------------------------------------
// A phase: normal clients (and maybe abusers) for some seconds, memory sampled throughout

async function phase(bridge, target, seconds, abuse, files) {
  const wsUrl = `ws://127.0.0.1:${bridge.port}/ws`;
  const normal = { latencies: [], errors: [] };
  const health = { latencies: [], errors: [] };
  const state = { stop: false };
  const seen = tally();
  const baseline = treeRss(bridge.child.pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRss(bridge.child.pid))), RSS_EVERY_MS);
  // The abusers run on a thread of their own, so their work does not delay the normal clients' event loop here.
  const worker = abuse ? new Worker(new URL(import.meta.url), { workerData: { role: "abusers", wsUrl, port: bridge.port, files, target } }) : undefined;
  const abused = worker === undefined ? Promise.resolve([]) : new Promise((resolve, reject) => worker.once("message", resolve).once("error", reject));
  const running = [...Array.from({ length: NORMAL_CLIENTS }, () => normalClient(wsUrl, target, state, normal)), healthPinger(bridge.port, state, health)];
  await pause(seconds * 1000);
  state.stop = true;
  worker?.postMessage("stop");
  await Promise.all(running);
  for (const [key, n] of await abused) seen.counts.set(key, n);
  await worker?.terminate();
  clearInterval(sampler);
  return { growth: peak - baseline, baseline, peak, normal, health, seen };
}

export async function run() {
  const dir = await mkdtemp(join(tmpdir(), "bench-soak-"));
  const files = {
    hollow: join(dir, "hollow.psd"),
    deep: join(dir, "deep.psd"),
    tinyPng: `data:image/png;base64,${(await sharp({ create: { width: 1, height: 1, channels: 4, background: "#ff0000" } }).png().toBuffer()).toString("base64")}`,
  };
  await writeFile(files.hollow, hollowPsd(22_000, 22_000, "huge"));
  await writeFile(files.deep, nestedPsd(150));
  const bridge = await serveChild(["--files-root", dir, "--allow-editor-scripts"]);
  try {
    const wsUrl = `ws://127.0.0.1:${bridge.port}/ws`;
    const ws = await openSocket(wsUrl);
    const doc = await request(ws, "d", "document:current");
    const layers = await request(ws, "l", "document:layers", { documentId: doc.result.id });
    ws.terminate();
    const ids = layers.result.map((l) => l.id);
    const target = { documentId: doc.result.id, layerId: ids[0], layers: ids.slice(0, 2) };
    const status = JSON.parse((await getJson(bridge.port, "/status")).body);
    const editorBudget = (status.editors ?? []).reduce((sum, e) => sum + (e.memory?.budgetBytes ?? 0), 0);
    const limits = DEFAULT_LIMITS;
    // What bounds the growth: the editors' memory budgets, all detached clients' replay, the inbound bytes in flight.
    const budget = editorBudget + limits.replayTotalBytes + (limits.inboundBytesInFlight ?? 0);
    log(
      `Soak: ${NORMAL_CLIENTS} normal clients (${THINK_MS} ms between calls), ${BASELINE_SECONDS} s alone then ${SOAK_SECONDS} s with abuses ${[...ABUSES].join(",")}; ` +
        `budgets: editors ${fmtBytes(editorBudget)} + replay ${fmtBytes(limits.replayTotalBytes)} + inbound ${fmtBytes(limits.inboundBytesInFlight ?? 0)} = ${fmtBytes(budget)}`,
    );
    const calm = await phase(bridge, target, BASELINE_SECONDS, false, files);
    const soak = await phase(bridge, target, SOAK_SECONDS, true, files);
    const alive = await getJson(bridge.port, "/health");
    for (const [name, r] of [
      ["alone", calm],
      ["abused", soak],
    ]) {
      log(
        `  ${name}: ${r.normal.latencies.length} calls, p99 ${fmtMs(percentile(r.normal.latencies, 99))}, worst ${fmtMs(max(r.normal.latencies))}, ` +
          `${r.normal.errors.length} errors; /health worst ${fmtMs(max(r.health.latencies))} (${r.health.errors.length} failed); ` +
          `RSS ${fmtBytes(r.baseline)} → peak ${fmtBytes(r.peak)} (+${fmtBytes(r.growth)})`,
      );
    }
    const errorKinds = new Map();
    for (const e of soak.normal.errors) errorKinds.set(e.slice(0, 100), (errorKinds.get(e.slice(0, 100)) ?? 0) + 1);
    for (const [e, n] of errorKinds) log(`    normal client error ×${n}: ${e}`);
    log("  what the abusers were answered:");
    for (const [key, n] of [...soak.seen.counts].sort()) log(`    ${key} ×${n}`);
    log(`  after the soak /health: ${alive.status}`);
    const row = (figure, bridgeValue, baselineValue, fmt, target, pass) => ({
      benchmark: `soak: ${figure}`,
      bridge: fmt(bridgeValue),
      baseline: fmt(baselineValue),
      ratio: fmtRatio(bridgeValue / baselineValue),
      target,
      result: pass,
    });
    const worst = max(soak.normal.latencies);
    return [
      row("peak RSS growth (bridge + editors)", soak.growth, calm.growth, fmtBytes, `< ${fmtBytes(budget)}`, soak.growth < budget ? "pass" : "FAIL"),
      row("normal clients p99", percentile(soak.normal.latencies, 99), percentile(calm.normal.latencies, 99), fmtMs, "(info)", "-"),
      row("normal clients worst", worst, max(calm.normal.latencies), fmtMs, `<= ${WORST_TARGET_MS} ms`, verdict(worst, WORST_TARGET_MS, false)),
      row("normal clients errors", soak.normal.errors.length, calm.normal.errors.length, String, "0", soak.normal.errors.length === 0 ? "pass" : "FAIL"),
      row("/health worst", max(soak.health.latencies), max(calm.health.latencies), fmtMs, "(info)", soak.health.errors.length === 0 ? "-" : "FAIL"),
    ];
  } finally {
    await bridge.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The abusers' thread: runs every abuse until told to stop, then answers what they were answered. */
async function abuserThread() {
  const state = { stop: false };
  const seen = tally();
  parentPort.once("message", () => (state.stop = true));
  await Promise.all(abusers({ ...workerData, state, seen }));
  parentPort.postMessage([...seen.counts]);
}

if (isMainThread) await printIfMain(import.meta, run);
else if (workerData?.role === "abusers") await abuserThread();
