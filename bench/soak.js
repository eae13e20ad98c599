// The soak: every abuse of the audits' tables at once, by several abusive clients, while normal clients work,
// against the bridge as users run it (the CLI in a child process, its editor in a process of its own, default
// limits). Not part of `npm test`.
//
//   baseline: BENCH_SOAK_CLIENTS (50) normal clients alone for BENCH_SOAK_BASELINE_SECONDS (10): each, in a loop
//             with BENCH_SOAK_THINK_MS (20) between calls, `document:current`, `layer:getInfoById` and a ≤ 64 px PNG
//             `image:exportLayer` of the sample document; another client pings `GET /health` (a new connection)
//             every 20 ms.
//   soak:     the same, for BENCH_SOAK_SECONDS (60), while abusers run, each row on a thread of its own (of a child
//             process at the lowest priority, or with BENCH_SOAK_ABUSERS_AT=inline of this process):
//             1 open a 1×1 PSD declaring a 22000×22000 layer        2 create 3000×3000 documents until refused, import a
//             tiny PNG at 8000×8000, close them, again              3 subscribe 20 sockets to previews, drop them, make
//             10 preview events, again                              4 four clients each sending one 32 MiB frame, again
//             5 up to 1,000 TCP connections that never send a byte  6 unknown-method frames as fast as the socket takes
//             them (reconnecting after a 1008)                      7 open a PSD nested 150 groups deep, run a script
//             growing an array until out of memory                  8 up to 1,000 `GET /events` readers of previews
//             that never read, while previews are made              9 30 webhooks whose receiver answers 200 and
//             streams an endless body, while selections change      10 MCP sessions opened with `initialize` and
//             abandoned, one every 50 ms                            11 a worker plugin holding Buffers up to 1.5 GiB,
//             then letting go, again                                12 twelve clients each sending a 48 MiB
//             `layer:importImage` text frame at once, again         13 WebSocket connections opened and dropped, 4
//             loops (at most ~400 a second)
//   report:   peak RSS of the bridge and everything it started (sampled every 20 ms from /proc) and its growth over
//             the phase's start beside the budgets that bound it, normal clients' p99 and worst latency and their
//             errors, /health's worst and the bytes the bridge logged, each beside the same figure without abusers;
//             and what each abuse was answered. Targets: no errors for normal clients, their p99 ≤ 1.5× and worst
//             ≤ 2× the same run's baseline phase (and the first soak's worst ≤ 100 ms).
//
//   node bench/soak.js                          (after `npm run build`)
//   BENCH_SOAK_SECONDS=8 BENCH_SOAK_BASELINE_SECONDS=4 node bench/soak.js     a short check that it works
//   BENCH_SOAK_ABUSES=8,12 node bench/soak.js   some rows only (the bridge gets row 9's and 11's flags only with them)
import { fork, spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
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
const ABUSES = new Set((process.env.BENCH_SOAK_ABUSES ?? "1,2,3,4,5,6,7,8,9,10,11,12,13").split(",").map((r) => r.trim()));
/** The first soak's goal for normal clients' worst latency while abused. */
const WORST_TARGET_MS = 100;
/** The goals beside the same run's baseline phase: normal clients' p99 and worst while abused, as multiples. */
const P99_TARGET_RATIO = 1.5;
const WORST_TARGET_RATIO = 2;
/** Row 8: never-reading SSE readers held at once (the audit held 1,000). */
const SSE_READERS = 1_000;
/** Row 9: webhooks pointing at the endless-body receiver (the audit used 30; `BENCH_SOAK_WEBHOOKS`, 0 to see what the
 * selection changes alone cost). */
const WEBHOOKS = Number(process.env.BENCH_SOAK_WEBHOOKS ?? 30);
/** Row 10: pause between two abandoned MCP sessions. */
const MCP_EVERY_MS = 50;
/** Row 11: the plugin's id, and how much native memory it holds at most, so a bridge without a cap cannot exhaust a
 * shared machine (the audit saw 6.2 GiB). */
const PLUGIN_ID = "soakhog";
const PLUGIN_CEILING_BYTES = 1536 * 1024 * 1024;
/** Row 12: clients sending big text frames at once, and the size of each frame. */
const BIG_FRAME_CLIENTS = 12;
const BIG_FRAME_MIB = 48;
/** Row 13: connect/drop loops, and the pause in each between two connections (at most ~400 a second in all). */
const CHURN_LOOPS = 4;
const CHURN_PAUSE_MS = 10;
/**
 * Where the abusers' own work runs (`BENCH_SOAK_ABUSERS_AT`). `inline` (the default, as every soak so far): threads
 * of this process at normal priority, so on two cores what the abusers spend making their abuse (48 MiB frames,
 * floods, thousands of sockets) competes with the bridge for the same cores. `nice`: a child process at the lowest
 * priority, each row a thread of it, to tell the bridge's own cost of an abuse from the abusers': their work then
 * takes a core only when the bridge and the normal clients leave it idle, so on a busy machine they abuse little —
 * read the counts of what they were answered before reading the latencies.
 */
const ABUSERS_AT = process.env.BENCH_SOAK_ABUSERS_AT ?? "inline";
/** The priority of the abusers' process: the lowest. */
const ABUSER_NICENESS = 19;
const RSS_EVERY_MS = 20;
const PING_EVERY_MS = 20;
const CALL_TIMEOUT_MS = 30_000;
const BIN = fileURLToPath(new URL("../bin/image-editor-bridge.js", import.meta.url));
/** Node's own options for the bridge's process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/soak-prof` to see what holds its thread. */
const BRIDGE_NODE_ARGS = (process.env.BENCH_SOAK_BRIDGE_NODE_ARGS ?? "").split(" ").filter(Boolean);
const MiB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------------------
// The bridge in a child process, and its memory

async function serveChild(args, logLevel) {
  const child = spawn(process.execPath, [...BRIDGE_NODE_ARGS, BIN, "serve", "--listen", "0", "--log-level", logLevel, ...args], {
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
  // The log (stdout), counted: what connection churn costs in log bytes.
  const logged = { bytes: 0 };
  child.stdout.on("data", (chunk) => (logged.bytes += chunk.length));
  child.stdout.resume();
  return {
    child,
    port,
    logged,
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
    const started = performance.now();
    let connectMs;
    const req = httpRequest({ host: "127.0.0.1", port, path, agent: false, timeout: 10_000 }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode, body, connectMs }));
    });
    // How long the TCP connection took: a full accept queue shows here, a busy bridge thread after it.
    req.once("socket", (socket) => socket.once("connect", () => (connectMs = performance.now() - started)));
    req.once("timeout", () => req.destroy(new Error("no answer within 10 s")));
    req.once("error", reject);
    req.end();
  });
}

/** An MCP `initialize` over HTTP, as an agent starts a session; answers the status, the body's start and the session. */
function mcpInitialize(port) {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "soak-abandoned", version: "1.0.0" } },
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method: "POST",
        agent: false,
        timeout: 10_000,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        const done = () => {
          clearTimeout(cap);
          res.destroy();
          resolve({ status: res.statusCode, body: text, session: res.headers["mcp-session-id"] });
        };
        // The answer is read (at most 4 KiB, 5 s); the session is then left open, never used or ended.
        const cap = setTimeout(done, 5_000);
        res.on("data", (chunk) => {
          text += chunk;
          // The JSON answer, or the first event of an event-stream answer, is all an abandoned session reads.
          if (text.length > 4096 || text.includes("\n\n") || (res.headers["content-type"] ?? "").startsWith("application/json")) done();
        });
        res.once("end", done);
        res.once("close", done);
      },
    );
    req.once("timeout", () => req.destroy(new Error("no answer within 10 s")));
    req.once("error", reject);
    req.end(body);
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

const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});

function crc32(bytes) {
  let c = -1;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** A valid 1×1 PNG of about `bytes`: an ancillary chunk (which decoders skip) pads it after the header. */
async function paddedPng(bytes) {
  const png = await sharp({ create: { width: 1, height: 1, channels: 4, background: "#00ff00" } }).png().toBuffer();
  const type = Buffer.from("soAk"); // lower-case first letter: ancillary, safe to ignore
  const pad = Buffer.alloc(Math.max(0, bytes - png.length - 12), 0x61);
  const typed = Buffer.concat([type, pad]);
  const ihdrEnd = 8 + 25; // signature, then IHDR's length, type, 13 bytes of data and CRC
  return Buffer.concat([png.subarray(0, ihdrEnd), u32(pad.length), typed, u32(crc32(typed)), png.subarray(ihdrEnd)]);
}

/** Row 11's plugin: holds `Buffer`s (memory outside the V8 heap its worker's `resourceLimits` caps) until freed. */
const HOG_PLUGIN = `const held = [];
export default {
  id: "${PLUGIN_ID}",
  setup(ctx) {
    ctx.method("${PLUGIN_ID}:grow", async ({ ceiling }) => {
      let bytes = held.reduce((sum, b) => sum + b.length, 0);
      while (bytes < ceiling) {
        held.push(Buffer.alloc(16 * 1024 * 1024, 1));
        bytes += 16 * 1024 * 1024;
        await new Promise((resolve) => setImmediate(resolve));
      }
      return { held: bytes };
    });
    ctx.method("${PLUGIN_ID}:free", () => {
      held.length = 0;
      return { freed: true };
    });
  },
};
`;

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
  let ws;
  const calls = [
    ["document:current", {}],
    ["layer:getInfoById", { documentId: target.documentId, layerId: target.layerId }],
    ["image:exportLayer", { documentId: target.documentId, layerId: target.layerId, format: "png", maxSize: 64 }],
  ];
  let n = 0;
  while (!state.stop) {
    if (ws === undefined || ws.readyState !== ws.OPEN) {
      // A connection the bridge closed, or did not open within openSocket's 10 s, is an error of a normal client;
      // it connects again.
      if (ws !== undefined) stats.errors.push("socket closed by the bridge");
      const started = performance.now();
      try {
        ws = await openSocket(wsUrl);
      } catch (error) {
        ws = undefined;
        stats.errors.push(`connect: ${error.message}`);
        stats.latencies.push(performance.now() - started);
        await pause(100);
        continue;
      }
    }
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
  ws?.terminate();
}

/** `GET /health` on a new connection every 20 ms, as another process would. */
async function healthPinger(port, state, stats) {
  while (!state.stop) {
    const started = performance.now();
    let connectMs;
    try {
      const answer = await getJson(port, "/health");
      connectMs = answer.connectMs;
      if (answer.status !== 200) stats.errors.push(`/health: ${answer.status}`);
    } catch (error) {
      stats.errors.push(`/health: ${error.message}`);
    }
    const took = performance.now() - started;
    stats.latencies.push(took);
    if (stats.slowest === undefined || took > stats.slowest.took) stats.slowest = { took, connectMs, at: started - stats.since };
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
    /** A line of figures about a row, printed as it is (not counted). */
    note(line) {
      counts.set(line, null);
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

function abusers({ rows: selected, wsUrl, port, files, target, state, seen }) {
  const big = selected.includes("4") ? JSON.stringify({ id: "big", method: "getServerInfo", params: { pad: "x".repeat(32 * MiB) } }) : "";
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
        // A text frame over maxTextFrameBytes is refused and its socket closed (1009): the next one needs a new socket.
        for (let i = 0; i < 5 && !state.stop && ws.readyState === ws.OPEN; i++) {
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
    8: () => {
      // 8: SSE readers of previews that never read a byte of their streams, up to SSE_READERS held at once (reopened
      // when the bridge closes or refuses one), while one client keeps making preview events.
      const held = new Set();
      const open = () =>
        new Promise((resolve) => {
          const socket = connect(port, "127.0.0.1");
          held.add(socket);
          let answered = false;
          // A stream the bridge neither opens nor refuses within 10 s is given up, so the loop never waits forever.
          const unanswered = setTimeout(() => {
            seen.add("8 SSE readers", "no answer within 10 s");
            socket.destroy();
          }, 10_000);
          socket.on("error", () => {});
          socket.once("connect", () => socket.write(`GET /events?type=layer:previewChange HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`));
          // Read only the first chunk, for the status line (and the error code of a refusal); then never again.
          socket.once("data", (chunk) => {
            clearTimeout(unanswered);
            answered = true;
            socket.pause();
            const text = String(chunk).slice(0, 4096);
            const status = /^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? "?";
            const code = /"code":"([A-Z_]+)"/.exec(text)?.[1];
            seen.add("8 SSE readers", status === "200" ? "200 stream opened" : `${status}${code ? ` ${code}` : ""}`);
            if (status !== "200") socket.destroy();
            resolve();
          });
          socket.once("close", () => {
            clearTimeout(unanswered);
            held.delete(socket);
            if (!state.stop && answered) seen.add("8 SSE readers", "closed by the bridge");
            resolve();
          });
        });
      return [
        (async () => {
          while (!state.stop) {
            const room = Math.min(100, SSE_READERS - held.size);
            await Promise.all(Array.from({ length: room }, open));
            await pause(250);
          }
          for (const socket of held) socket.destroy();
        })(),
        loop("8 previews", state, seen, async () => {
          const ws = await openSocket(wsUrl);
          for (let i = 0; i < 50 && !state.stop; i++) {
            const answer = await request(ws, `p${i}`, "layer:select", { documentId: target.documentId, ids: [target.layers[i % 2]] }, CALL_TIMEOUT_MS);
            seen.add("8 layer:select (previews)", outcomeOf(answer));
            await pause(20);
          }
          ws.terminate();
        }),
      ];
    },
    9: () => {
      // 9: webhooks whose receiver answers 200 and then streams a body that never ends; selection changes to deliver.
      const responses = [];
      const receiver = createServer((req, res) => {
        req.resume();
        const started = performance.now();
        const sent = { bytes: 0 };
        responses.push(sent);
        res.writeHead(200, { "content-type": "text/plain" });
        const chunk = Buffer.alloc(64 * 1024, 0x7a);
        const more = () => {
          while (!res.destroyed && res.write(chunk)) sent.bytes += chunk.length;
          if (!res.destroyed) sent.bytes += chunk.length;
        };
        res.on("drain", more);
        res.once("close", () => (sent.ms = performance.now() - started));
        more();
      });
      const hooks = [];
      return [
        (async () => {
          receiver.listen(0, "127.0.0.1");
          await once(receiver, "listening");
          // Connecting may time out when the bridge is slow to accept: counted, and tried again, as the loops do.
          let ws;
          while (ws === undefined && !state.stop) {
            ws = await openSocket(wsUrl).catch((error) => seen.add("9 webhooks", `threw ${String(error.message).slice(0, 60)}`));
            if (ws === undefined) await pause(50);
          }
          if (ws === undefined) return;
          for (let k = 0; k < WEBHOOKS; k++) {
            const added = await request(ws, `w${k}`, "webhook:add", { url: `http://127.0.0.1:${receiver.address().port}/r${k}`, types: ["selection:changed"] }, CALL_TIMEOUT_MS);
            seen.add("9 webhook:add", outcomeOf(added));
            if (added.ok) hooks.push(added.result.id);
          }
          let n = 0;
          let listed = performance.now();
          while (!state.stop) {
            const rect = { x: n % 50, y: 0, width: 10 + (n % 7), height: 10 };
            const answer = await request(ws, `s${n++}`, "selection:set", { rect }, CALL_TIMEOUT_MS).catch((error) => ({ ok: false, error: { code: error.message } }));
            seen.add("9 selection:set (events)", outcomeOf(answer));
            await pause(20);
            // A webhook disabled after a run of failed deliveries is enabled again, so the receivers keep being called.
            if (performance.now() - listed < 2_000) continue;
            listed = performance.now();
            const list = await request(ws, `l${n}`, "webhook:list", {}, CALL_TIMEOUT_MS).catch(() => undefined);
            for (const hook of list?.result?.webhooks ?? []) {
              if (!hook.enabled) seen.add("9 webhook:enable", outcomeOf(await request(ws, `e${n}${hook.id}`, "webhook:enable", { id: hook.id }, CALL_TIMEOUT_MS)));
            }
          }
          const list = await request(ws, "list", "webhook:list", {}, CALL_TIMEOUT_MS).catch(() => undefined);
          const sum = (key) => (list?.result?.webhooks ?? []).reduce((s, h) => s + (h[key] ?? 0), 0);
          seen.note(`9 webhooks at the end: delivered ${sum("delivered")}, failed attempts ${sum("failedAttempts")}, dropped ${sum("dropped")}, queued ${sum("queued")}`);
          await Promise.all(hooks.map((id) => request(ws, `x${id}`, "webhook:remove", { id }, CALL_TIMEOUT_MS).catch(() => undefined)));
          ws.terminate();
          const closed = responses.filter((r) => r.ms !== undefined);
          seen.note(
            `9 receiver: ${responses.length} deliveries, ${closed.length} hung up by the bridge; body written per delivery median ${fmtBytes(percentile(closed.map((r) => r.bytes), 50))}, ` +
              `worst ${fmtBytes(max(closed.map((r) => r.bytes)))}; held median ${fmtMs(percentile(closed.map((r) => r.ms), 50))}, worst ${fmtMs(max(closed.map((r) => r.ms)))}`,
          );
          receiver.closeAllConnections();
          receiver.close();
        })(),
      ];
    },
    10: () => [
      // 10: MCP sessions opened with `initialize` over HTTP and abandoned (never used, never ended with DELETE).
      loop("10 MCP sessions", state, seen, async () => {
        const { status, body, session } = await mcpInitialize(port);
        const code = /"code":"([A-Z_]+)"/.exec(body)?.[1];
        seen.add("10 MCP initialize (abandoned)", `${status}${status === 200 && session ? " session opened" : ""}${code ? ` ${code}` : ""}`);
        await pause(MCP_EVERY_MS);
      }),
    ],
    11: () => [
      // 11: a worker plugin holding Buffers (native memory, outside its V8 heap cap) up to PLUGIN_CEILING_BYTES,
      // then letting go; again.
      loop("11 native-memory plugin", state, seen, async () => {
        const ws = await openSocket(`ws://127.0.0.1:${port}/ws/${PLUGIN_ID}`);
        const grown = await request(ws, "g", `${PLUGIN_ID}:grow`, { ceiling: PLUGIN_CEILING_BYTES }, CALL_TIMEOUT_MS);
        seen.add("11 plugin grow", grown.ok ? `ok, held ${fmtBytes(grown.result.held)}` : outcomeOf(grown));
        await pause(1_000);
        seen.add("11 plugin free", outcomeOf(await request(ws, "f", `${PLUGIN_ID}:free`, {}, CALL_TIMEOUT_MS)));
        ws.terminate();
      }),
    ],
    12: () => {
      // 12: BIG_FRAME_CLIENTS clients each sending a valid `layer:importImage` text frame of BIG_FRAME_MIB (a 1×1 PNG
      // carrying a big ancillary chunk, as a data URI) at once, again and again; how long each answer took. Into the
      // normal clients' document (creating another would make it the active one): each import adds a 1×1 layer.
      const frame = Buffer.from(JSON.stringify({ id: "bigimp", method: "layer:importImage", params: { documentId: target.documentId, image: files.bigPngDataUri } }));
      const waits = [];
      const clients = Array.from({ length: BIG_FRAME_CLIENTS }, () =>
          loop("12 big frames", state, seen, async () => {
            const ws = await openSocket(wsUrl);
            let leaving = false;
            ws.on("close", (code) => state.stop || leaving || seen.add("12 big frames", `closed ${code}`));
            while (!state.stop && ws.readyState === ws.OPEN) {
              const started = performance.now();
              const answered = new Promise((resolve) => {
                const timer = setTimeout(() => resolve({ ok: false, error: { code: `no answer within ${CALL_TIMEOUT_MS / 1000} s` } }), CALL_TIMEOUT_MS);
                const onMessage = (data) => {
                  if (!String(data.subarray(0, 16)).startsWith('{"id":"bigimp"')) return;
                  ws.off("message", onMessage);
                  clearTimeout(timer);
                  resolve(JSON.parse(String(data)));
                };
                ws.on("message", onMessage);
                ws.once("close", () => {
                  clearTimeout(timer);
                  resolve({ ok: false, error: { code: "closed" } });
                });
              });
              ws.send(frame, { binary: false });
              const answer = await answered;
              waits.push(performance.now() - started);
              seen.add(`12 importImage ${(frame.length / MiB).toFixed(0)} MiB text frame`, outcomeOf(answer));
              // Unanswered: a new connection, so a late answer is not taken for the next frame's.
              if (answer.error?.code?.startsWith("no answer")) break;
            }
            leaving = true;
            ws.terminate();
          }),
      );
      return [
        (async () => {
          await Promise.all(clients);
          seen.note(`12 answer times: ${waits.length} answers, median ${fmtMs(percentile(waits, 50))}, worst ${fmtMs(max(waits))}`);
        })(),
      ];
    },
    13: () =>
      // 13: connection churn: WebSocket connections opened and dropped at once, in CHURN_LOOPS loops.
      Array.from({ length: CHURN_LOOPS }, () =>
        loop("13 churn", state, seen, async () => {
          try {
            const ws = await openSocket(wsUrl);
            ws.terminate();
            seen.add("13 churn", "connected and dropped");
          } catch (error) {
            seen.add("13 churn", `refused: ${String(error.message).slice(0, 60)}`);
          }
          await pause(CHURN_PAUSE_MS);
        }),
      ),
  };
  return Object.entries(rows).flatMap(([row, start]) => (selected.includes(row) ? start() : []));
}

// ---------------------------------------------------------------------------------------------------------
// A phase: normal clients (and maybe abusers) for some seconds, memory sampled throughout

async function phase(bridge, target, seconds, abuse, files) {
  const wsUrl = `ws://127.0.0.1:${bridge.port}/ws`;
  const normal = { latencies: [], errors: [] };
  const health = { latencies: [], errors: [], since: performance.now(), slowest: undefined };
  const state = { stop: false };
  // This process's own event loop: its delays would lengthen every latency it measures, the bridge's or not.
  const ownDelay = monitorEventLoopDelay({ resolution: 10 });
  ownDelay.enable();
  const seen = tally();
  const baseline = treeRss(bridge.child.pid);
  const loggedBefore = bridge.logged.bytes;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRss(bridge.child.pid))), RSS_EVERY_MS);
  const abusing = abuse ? startAbusers(abuserData(bridge.port, files, target)) : undefined;
  const running = [...Array.from({ length: NORMAL_CLIENTS }, () => normalClient(wsUrl, target, state, normal)), healthPinger(bridge.port, state, health)];
  await pause(seconds * 1000);
  state.stop = true;
  const answered = abusing?.stop();
  await Promise.all(running);
  for (const counts of (await answered) ?? []) for (const [key, n] of counts) seen.counts.set(key, n);
  clearInterval(sampler);
  ownDelay.disable();
  return { growth: peak - baseline, baseline, peak, normal, health, seen, logBytes: bridge.logged.bytes - loggedBefore, ownDelayMs: ownDelay.max / 1e6 };
}

/** What each row's thread is given: row 12 alone carries the big frame's data URI. */
function abuserData(port, files, target) {
  const wsUrl = `ws://127.0.0.1:${port}/ws`;
  return [...ABUSES].map((row) => ({ role: "abusers", rows: [row], wsUrl, port, files: row === "12" ? files : { ...files, bigPngDataUri: undefined }, target }));
}

/**
 * Each abuse on a thread of its own, so its work delays neither the normal clients' event loop here nor the other
 * abuses (masking 48 MiB frames or writing an endless body would hold a shared thread for seconds); the threads in
 * this process or in a child process at the lowest priority (`ABUSERS_AT`). `stop()` resolves with what each row
 * was answered.
 */
function startAbusers(data) {
  if (ABUSERS_AT === "inline") return startAbusersInline(data);
  // Through `nice`, so the process is at the lowest priority before it loads a module (sharp and ag-psd take a second).
  const child = fork(fileURLToPath(import.meta.url), [], {
    execPath: "nice",
    execArgv: ["-n", String(ABUSER_NICENESS), process.execPath],
    env: { ...process.env, BENCH_SOAK_ROLE: "abusers" },
    serialization: "advanced",
  });
  child.send({ data });
  const answered = new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`the abusers' process exited with ${code} before answering`)));
  });
  return {
    async stop() {
      child.send("stop");
      const counts = await answered;
      if (child.exitCode === null) await once(child, "exit");
      return counts;
    },
  };
}

/** The abuses as threads of this process. */
function startAbusersInline(data) {
  const workers = data.map((workerData) => new Worker(new URL(import.meta.url), { workerData }));
  const answered = Promise.all(workers.map((worker) => new Promise((resolve, reject) => worker.once("message", resolve).once("error", reject))));
  return {
    async stop() {
      for (const worker of workers) worker.postMessage("stop");
      const counts = await answered;
      await Promise.all(workers.map((worker) => worker.terminate()));
      return counts;
    },
  };
}

/** The abusers' process (started at the lowest priority: its threads inherit it): one thread per row. */
function abuserProcess() {
  process.once("message", ({ data }) => {
    const abuse = startAbusersInline(data);
    process.once("message", async () => {
      process.send(await abuse.stop(), () => process.exit(0));
    });
  });
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
  // BENCH_BRIDGE_ARGS, as in the other benchmarks: e.g. `--limit editorTimeHalfLifeMs=1` to see the editor's queue take turns.
  const args = ["--files-root", dir, "--allow-editor-scripts", ...(process.env.BENCH_BRIDGE_ARGS ?? "").split(" ").filter(Boolean)];
  // Row 9's receiver listens on loopback, which webhooks may target only with this flag.
  if (ABUSES.has("9")) args.push("--allow-private-webhooks");
  // Row 11's plugin is loaded only when that row runs, so the other rows measure the bridge without it.
  if (ABUSES.has("11")) {
    const pluginDir = join(dir, "plugin-hog");
    await mkdir(pluginDir);
    await writeFile(join(pluginDir, "package.json"), JSON.stringify({ name: PLUGIN_ID, type: "module", main: "index.js", imageEditorBridge: { id: PLUGIN_ID, isolation: "worker" } }));
    await writeFile(join(pluginDir, "index.js"), HOG_PLUGIN);
    args.push("--plugin", pluginDir);
  }
  if (ABUSES.has("12")) {
    // base64 takes 4 bytes for 3: a PNG of 3/4 of the frame's size makes a frame of about BIG_FRAME_MIB.
    files.bigPngDataUri = `data:image/png;base64,${(await paddedPng(Math.floor((BIG_FRAME_MIB * MiB * 3) / 4) - 256)).toString("base64")}`;
  }
  // Connection churn is a log abuse at the default level (info); the other rows keep the log quiet.
  const bridge = await serveChild(args, ABUSES.has("13") ? "info" : "warn");
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
    // With row 11, the plugin's worker too: everything it holds is meant to stay under `pluginMaxMemoryBytes`.
    const pluginBudget = ABUSES.has("11") ? limits.pluginMaxMemoryBytes : 0;
    const budget = editorBudget + limits.replayTotalBytes + (limits.inboundBytesInFlight ?? 0) + pluginBudget;
    log(
      `Soak: ${NORMAL_CLIENTS} normal clients (${THINK_MS} ms between calls), ${BASELINE_SECONDS} s alone then ${SOAK_SECONDS} s with abuses ${[...ABUSES].join(",")} (${ABUSERS_AT === "inline" ? "threads of this process" : `a process at nice ${ABUSER_NICENESS}`}); ` +
        `budgets: editors ${fmtBytes(editorBudget)} + replay ${fmtBytes(limits.replayTotalBytes)} + inbound ${fmtBytes(limits.inboundBytesInFlight ?? 0)}` +
        `${pluginBudget > 0 ? ` + plugin ${fmtBytes(pluginBudget)}` : ""} = ${fmtBytes(budget)}`,
    );
    const calm = await phase(bridge, target, BASELINE_SECONDS, false, files);
    const soak = await phase(bridge, target, SOAK_SECONDS, true, files);
    const alive = await getJson(bridge.port, "/health");
    for (const [name, r] of [
      ["alone", calm],
      ["abused", soak],
    ]) {
      log(
        `  ${name}: ${r.normal.latencies.length} calls, p50 ${fmtMs(percentile(r.normal.latencies, 50))}, p90 ${fmtMs(percentile(r.normal.latencies, 90))}, p99 ${fmtMs(percentile(r.normal.latencies, 99))}, worst ${fmtMs(max(r.normal.latencies))}, ` +
          `${r.normal.errors.length} errors; /health worst ${fmtMs(max(r.health.latencies))} (${r.health.errors.length} failed); ` +
          `RSS ${fmtBytes(r.baseline)} → peak ${fmtBytes(r.peak)} (+${fmtBytes(r.growth)}); log ${fmtBytes(r.logBytes)}`,
      );
      const slow = r.health.slowest;
      log(
        `    the slowest /health: ${fmtMs(slow?.took ?? 0)} at +${((slow?.at ?? 0) / 1000).toFixed(1)} s, of it connecting ${slow?.connectMs === undefined ? "never done" : fmtMs(slow.connectMs)}; ` +
          `this process's own event loop delayed by up to ${fmtMs(r.ownDelayMs)}`,
      );
    }
    const errorKinds = new Map();
    for (const e of soak.normal.errors) errorKinds.set(e.slice(0, 100), (errorKinds.get(e.slice(0, 100)) ?? 0) + 1);
    for (const [e, n] of errorKinds) log(`    normal client error ×${n}: ${e}`);
    log("  what the abusers were answered:");
    const byRow = ([a], [b]) => Number.parseInt(a, 10) - Number.parseInt(b, 10) || a.localeCompare(b);
    for (const [key, n] of [...soak.seen.counts].sort(byRow)) log(n === null ? `    ${key}` : `    ${key} ×${n}`);
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
    const calmWorst = max(calm.normal.latencies);
    const p99 = percentile(soak.normal.latencies, 99);
    const calmP99 = percentile(calm.normal.latencies, 99);
    return [
      row("peak RSS growth (bridge + editors)", soak.growth, calm.growth, fmtBytes, `< ${fmtBytes(budget)}`, soak.growth < budget ? "pass" : "FAIL"),
      row("peak RSS, whole process tree", soak.peak, calm.peak, fmtBytes, "(info)", "-"),
      row("normal clients p99", p99, calmP99, fmtMs, `<= ${P99_TARGET_RATIO}x baseline`, verdict(p99 / calmP99, P99_TARGET_RATIO, false)),
      row("normal clients worst", worst, calmWorst, fmtMs, `<= ${WORST_TARGET_RATIO}x baseline`, verdict(worst / calmWorst, WORST_TARGET_RATIO, false)),
      row("normal clients worst (absolute)", worst, calmWorst, fmtMs, `<= ${WORST_TARGET_MS} ms`, verdict(worst, WORST_TARGET_MS, false)),
      row("normal clients errors", soak.normal.errors.length, calm.normal.errors.length, String, "0", soak.normal.errors.length === 0 ? "pass" : "FAIL"),
      row("/health worst", max(soak.health.latencies), max(calm.health.latencies), fmtMs, "(info)", soak.health.errors.length === 0 ? "-" : "FAIL"),
      row("log written", soak.logBytes, calm.logBytes, fmtBytes, "(info)", "-"),
    ];
  } finally {
    await bridge.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** An abuser's thread: runs its abuses until told to stop, then answers what they were answered. */
async function abuserThread() {
  const state = { stop: false };
  const seen = tally();
  parentPort.once("message", () => (state.stop = true));
  await Promise.all(abusers({ ...workerData, state, seen }));
  parentPort.postMessage([...seen.counts]);
}

if (isMainThread && process.env.BENCH_SOAK_ROLE === "abusers") abuserProcess();
else if (isMainThread) await printIfMain(import.meta, run);
else if (workerData?.role === "abusers") await abuserThread();
