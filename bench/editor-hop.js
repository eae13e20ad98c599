// The editor hop: what it costs to run the embedded editor off the broker's thread.
//
//   (a) a tiny call (a small request, a document-sized reply) and (b) a reply carrying a fresh 5 MB Uint8Array,
//   one call in flight, round trip measured per call, over
//     - the child-process channel of src/hosts/isolated (framed messages over fd 3, blobs written as they are),
//     - a worker_threads Worker (structured clone; the 5 MB reply's ArrayBuffer transferred, not copied),
//     - an in-process async function call (baseline).
//   Every reply that carries 5 MB allocates and fills a new buffer on the answering side, as an editor's export does.
//   Then the real thing: the isolated embedded editor vs the in-process one, getDocument and a 2000×1500 PNG export.
//
//   node bench/editor-hop.js          (after `npm run build`); also `node bench/run.js editor-hop`
//
// Environment: BENCH_ROUNDS (5), BENCH_HOP_CALLS (2000 tiny calls per round), BENCH_HOP_BIG_CALLS (40 per round).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Socket } from "node:net";
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import { createEmbeddedHost } from "../dist/hosts/embedded/index.js";
import { Channel } from "../dist/hosts/isolated/channel.js";
import { createIsolatedEmbeddedHost } from "../dist/hosts/isolated/index.js";
import { fmtRatio, log, median, now, printIfMain, ROUNDS, SAMPLE_DOCUMENT } from "./_lib.js";

const TINY_CALLS = Number(process.env.BENCH_HOP_CALLS ?? 2000);
const BIG_CALLS = Number(process.env.BENCH_HOP_BIG_CALLS ?? 40);
const BIG_BYTES = 5 * 1024 * 1024;
const HOST_CALLS = 200;
const EXPORT_CALLS = 5;
const CHILD_ROLE = "--editor-hop-child";

/** The answering side's work, the same everywhere: a small document, or a new 5 MB buffer filled with bytes. */
function answer(op) {
  if (op === "big") return { bytes: Buffer.allocUnsafeSlow(BIG_BYTES).fill(7), format: "png", width: 1, height: 1 };
  return SAMPLE_DOCUMENT;
}

// ---------------------------------------------------------------------------------------------------------
// The answering sides

function serveChild() {
  const socket = new Socket({ fd: 3, readable: true, writable: true });
  const channel = new Channel(socket, {
    message: (m) => {
      if (m.kind === "call") channel.send({ kind: "result", id: m.id, ok: true, value: answer(m.op) });
    },
    error: () => process.exit(70),
    close: () => process.exit(0),
  });
}

function serveWorker() {
  parentPort.on("message", ({ id, op }) => {
    const value = answer(op);
    parentPort.postMessage({ id, value }, op === "big" ? [value.bytes.buffer] : []);
  });
}

// ---------------------------------------------------------------------------------------------------------
// The calling sides: each is `{ call(op) → Promise, close() }`

async function childTransport() {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, CHILD_ROLE], { stdio: ["ignore", "inherit", "inherit", "pipe"] });
  const pending = new Map();
  let lastId = 0;
  const channel = new Channel(child.stdio[3], {
    message: (m) => {
      pending.get(m.id)?.(m.value);
      pending.delete(m.id);
    },
    error: (error) => {
      throw error;
    },
    close: () => {},
  });
  return {
    call: (op) =>
      new Promise((resolve) => {
        const id = ++lastId;
        pending.set(id, resolve);
        channel.send({ kind: "call", id, op, args: [1], caller: "bench" });
      }),
    close: async () => {
      channel.end();
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}

async function workerTransport() {
  const worker = new Worker(new URL(import.meta.url));
  const pending = new Map();
  let lastId = 0;
  worker.on("message", ({ id, value }) => {
    pending.get(id)?.(value);
    pending.delete(id);
  });
  await once(worker, "online");
  return {
    call: (op) =>
      new Promise((resolve) => {
        const id = ++lastId;
        pending.set(id, resolve);
        worker.postMessage({ id, op, args: [1] });
      }),
    close: () => worker.terminate(),
  };
}

function inProcessTransport() {
  return { call: async (op) => answer(op), close: async () => {} };
}

/** Median round trip (ms) of `calls` sequential calls of `op`. */
async function roundTrip(transport, op, calls) {
  const samples = [];
  for (let i = 0; i < calls; i++) {
    const t0 = now();
    const value = await transport.call(op);
    samples.push(now() - t0);
    if (op === "big" && value.bytes.byteLength !== BIG_BYTES) throw new Error("short reply");
  }
  return median(samples);
}

function fmtUs(ms) {
  return ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`;
}

function row(benchmark, value, baseline) {
  return { benchmark, bridge: fmtUs(value), baseline: fmtUs(baseline), ratio: fmtRatio(value / baseline), target: "(info)", result: "-" };
}

// ---------------------------------------------------------------------------------------------------------
// The measurements

async function measureHops() {
  const transports = { child: await childTransport(), worker: await workerTransport(), inProcess: inProcessTransport() };
  const names = Object.keys(transports);
  const results = { tiny: { child: [], worker: [], inProcess: [] }, big: { child: [], worker: [], inProcess: [] } };
  try {
    for (const name of names) {
      await roundTrip(transports[name], "tiny", 200); // warm up
      await roundTrip(transports[name], "big", 3);
    }
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so drift in the machine's speed does not favour one.
      const order = round % 2 === 0 ? names : [...names].reverse();
      for (const name of order) results.tiny[name].push(await roundTrip(transports[name], "tiny", TINY_CALLS));
      for (const name of order) results.big[name].push(await roundTrip(transports[name], "big", BIG_CALLS));
    }
  } finally {
    await Promise.all(names.map((name) => transports[name].close()));
  }
  return results;
}

async function measureHosts() {
  const ctx = { signal: new AbortController().signal, caller: "bench" };
  const isolated = createIsolatedEmbeddedHost({ sample: false });
  const inProcess = createEmbeddedHost({ sample: false });
  const hosts = { isolated, inProcess };
  const out = { get: { isolated: [], inProcess: [] }, export: { isolated: [], inProcess: [] } };
  try {
    for (const host of Object.values(hosts)) {
      await host.connect();
      await host.createDocument(ctx, { width: 2000, height: 1500, name: "Bench", background: [40, 90, 160, 255] });
    }
    const size = { width: 2000, height: 1500 };
    const exportOnce = (host) => host.exportDocumentImage(ctx, { documentId: undefined, format: "png", size });
    for (const host of Object.values(hosts)) await exportOnce(host); // warm up
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, host] of Object.entries(hosts)) {
        out.get[name].push(await roundTrip({ call: () => host.getDocument(ctx, undefined) }, "tiny", HOST_CALLS));
        const samples = [];
        for (let i = 0; i < EXPORT_CALLS; i++) {
          const t0 = now();
          await exportOnce(host);
          samples.push(now() - t0);
        }
        out.export[name].push(median(samples));
      }
    }
  } finally {
    await isolated.close();
    await inProcess.close();
  }
  return out;
}

export async function run() {
  const hops = await measureHops();
  const m = (values) => median(values);
  const tiny = { child: m(hops.tiny.child), worker: m(hops.tiny.worker), inProcess: m(hops.tiny.inProcess) };
  const big = { child: m(hops.big.child), worker: m(hops.big.worker), inProcess: m(hops.big.inProcess) };
  log(`  tiny call: child ${fmtUs(tiny.child)}, worker ${fmtUs(tiny.worker)}, in-process ${fmtUs(tiny.inProcess)}; child/worker ${fmtRatio(tiny.child / tiny.worker)}`);
  log(`  5 MB reply: child ${fmtUs(big.child)}, worker ${fmtUs(big.worker)}, in-process ${fmtUs(big.inProcess)}; child/worker ${fmtRatio(big.child / big.worker)}`);
  const hosts = await measureHosts();
  const get = { isolated: m(hosts.get.isolated), inProcess: m(hosts.get.inProcess) };
  const png = { isolated: m(hosts.export.isolated), inProcess: m(hosts.export.inProcess) };
  log(`  embedded editor: getDocument isolated ${fmtUs(get.isolated)} vs in-process ${fmtUs(get.inProcess)}; 2000×1500 PNG export ${fmtUs(png.isolated)} vs ${fmtUs(png.inProcess)}`);
  return [
    row("editor hop: tiny call, child process (vs in-process call)", tiny.child, tiny.inProcess),
    row("editor hop: tiny call, worker thread (vs in-process call)", tiny.worker, tiny.inProcess),
    row("editor hop: 5 MB reply, child process (vs in-process call)", big.child, big.inProcess),
    row("editor hop: 5 MB reply, worker + transfer (vs in-process call)", big.worker, big.inProcess),
    row("isolated editor getDocument (vs in-process editor)", get.isolated, get.inProcess),
    row("isolated editor 2000x1500 PNG export (vs in-process editor)", png.isolated, png.inProcess),
  ];
}

if (!isMainThread) serveWorker();
else if (process.argv.includes(CHILD_ROLE)) serveChild();
else await printIfMain(import.meta, run);
