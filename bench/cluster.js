// What a hop between bridges costs: `document:current` round trips through bridge A forwarded over NATS to B's
// editor (a client of A pinned to `embedded-1@b`), beside the same call made directly to B. Each bridge runs in a
// process of its own, the load comes from a driver process (`_rpc-driver.js`), one nats-server (Debian's, `-js`)
// on loopback; rounds alternate so drifts hit both sides alike. Reported: throughput ratio and the latency the
// hop adds at p50 and p99. Then one multi-MB PNG export forwarded vs direct (the chunked transfer).
//
//   node bench/cluster.js   (after `npm run build`; says so and measures nothing without nats-server)
import { fork, spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { startBridgeProcess } from "./_bridge-process.js";
import { DURATION_MS, fmtMs, fmtRate, log, median, medianDuration, now, openSocket, printIfMain, request, ROUNDS, throughputRow, WARMUP_MS } from "./_lib.js";

const SOCKETS = 16;
const INFLIGHT = 64;
const EXPORTS = 5;

async function natsServer() {
  const store = await mkdtemp(join(tmpdir(), "bench-nats-"));
  const child = spawn("nats-server", ["-a", "127.0.0.1", "-p", "-1", "-js", "-sd", store], { stdio: ["ignore", "ignore", "pipe"] });
  const port = await new Promise((resolve, reject) => {
    let text = "";
    child.stderr.on("data", (chunk) => {
      text += chunk;
      const match = /Listening for client connections on 127\.0\.0\.1:(\d+)/.exec(text);
      if (match) resolve(Number(match[1]));
    });
    child.once("exit", (code) => reject(new Error(`nats-server exited with ${code}: ${text}`)));
  });
  return {
    url: `nats://127.0.0.1:${port}`,
    stop: async () => {
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await gone;
      await rm(store, { recursive: true, force: true });
    },
  };
}

function driver() {
  const child = fork(fileURLToPath(new URL("./_rpc-driver.js", import.meta.url)), { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return {
    run: (url, method) =>
      new Promise((resolve, reject) => {
        child.once("message", (answer) => (answer.error ? reject(new Error(answer.error)) : resolve(answer)));
        child.send({ url, method, sockets: SOCKETS, inflight: INFLIGHT, warmupMs: WARMUP_MS, durationMs: DURATION_MS });
      }),
    close: () => child.kill(),
  };
}

/** Until bridge `url` lists `bridge` among its peers. */
async function sees(url, bridge) {
  for (;;) {
    const status = await (await fetch(`${url}/status`)).json();
    if (status.cluster?.peers?.some((p) => p.bridge === bridge && p.editors.length > 0)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function run() {
  if (spawnSync("nats-server", ["--version"], { stdio: "ignore" }).status !== 0) {
    log("cluster: nats-server is not installed (.ci/run installs Debian's): nothing measured");
    return [];
  }
  log(`Calls between bridges over NATS: A forwarding to B's editor vs B directly (${INFLIGHT} in flight over ${SOCKETS} connections, ${ROUNDS} rounds x ${DURATION_MS} ms, medians)`);
  const nats = await natsServer();
  const cluster = (bridge) => ({ cluster: { servers: [nats.url], name: "bench", bridge }, limits: { clusterHeartbeatMs: 500 } });
  const a = await startBridgeProcess(cluster("a"));
  const b = await startBridgeProcess(cluster("b"));
  const load = driver();
  try {
    await sees(a.url, "b");
    const sides = {
      forwarded: () => load.run(`${a.wsUrl}?editor=embedded-1@b`, "document:current"),
      direct: () => load.run(b.wsUrl, "document:current"),
    };
    const results = { forwarded: [], direct: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of round % 2 === 0 ? ["forwarded", "direct"] : ["direct", "forwarded"]) results[name].push(await sides[name]());
    }
    const m = (name, key) => median(results[name].map((r) => r[key]));
    for (const name of Object.keys(sides)) log(`  ${name}: ${fmtRate(m(name, "rate"))}, p50 ${fmtMs(m(name, "p50"))}, p99 ${fmtMs(m(name, "p99"))}`);

    // One multi-MB export: a 1500x1000 document of noise made on B through A, exported as PNG through A and from B.
    const viaA = await openSocket(`${a.wsUrl}?editor=embedded-1@b`);
    const viaB = await openSocket(b.wsUrl);
    const noise = await sharp({ create: { width: 1500, height: 1000, channels: 3, background: "#000", noise: { type: "gaussian", mean: 128, sigma: 60 } } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const created = await request(viaA, "c", "document:create", { width: 1500, height: 1000 });
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    const documentId = created.result.id;
    const imported = await request(viaA, "i", "layer:importImage", { documentId, image: noise.toString("base64") }, 60_000);
    if (!imported.ok) throw new Error(JSON.stringify(imported.error));
    let bytes = 0;
    const exportVia = (ws) => async () => {
      const answer = await request(ws, `e${now()}`, "image:exportDocument", { documentId, format: "png" }, 60_000);
      if (!answer.ok) throw new Error(JSON.stringify(answer.error));
      bytes = answer.result.data.length;
    };
    const forwardedExport = await medianDuration(EXPORTS, exportVia(viaA));
    const directExport = await medianDuration(EXPORTS, exportVia(viaB));
    log(`  PNG export (${(bytes / 1e6).toFixed(1)} MB as base64): forwarded ${fmtMs(forwardedExport)}, direct ${fmtMs(directExport)}`);
    viaA.close();
    viaB.close();

    const hop = (key) => ({
      benchmark: `added by the hop, ${key} (ms)`,
      bridge: fmtMs(m("forwarded", key)),
      baseline: fmtMs(m("direct", key)),
      ratio: `+${fmtMs(m("forwarded", key) - m("direct", key))}`,
      target: "(info)",
      result: "-",
    });
    return [
      throughputRow("document:current forwarded A->B vs direct to B (req/s)", { bridge: m("forwarded", "rate"), baseline: m("direct", "rate"), ratio: m("forwarded", "rate") / m("direct", "rate") }),
      hop("p50"),
      hop("p99"),
      {
        benchmark: "PNG export forwarded vs direct (median ms)",
        bridge: fmtMs(forwardedExport),
        baseline: fmtMs(directExport),
        ratio: `${(forwardedExport / directExport).toFixed(2)}x`,
        target: "(info)",
        result: "-",
      },
    ];
  } finally {
    load.close();
    await a.close();
    await b.close();
    await nats.stop();
  }
}

await printIfMain(import.meta, run);
