// What a hop between bridges costs: `document:current` round trips through bridge A forwarded over NATS to B's
// editor (a client of A pinned to `embedded-1@b`), beside the same call made directly to B. Each bridge runs in a
// process of its own, the load comes from a driver process (`_rpc-driver.js`), one nats-server (Debian's, `-js`)
// on loopback; rounds alternate so drifts hit both sides alike. Reported: throughput ratio and the latency the
// hop adds at p50 and p99. Then one multi-MB PNG export forwarded vs direct (the chunked transfer). Then fan-out:
// 1,000 WS subscribers of B's editor's `selection:changed`, all on B vs spread over three bridges (a third each on
// A, B and C, those on A and C following B's editor), while one client changes the selection back to back:
// deliveries per second and the bridges' CPU (summed over their processes) per delivery.
//
//   node bench/cluster.js   (after `npm run build`; says so and measures nothing without nats-server)
import { fork, spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { startBridgeProcess } from "./_bridge-process.js";
import { closeAll, DURATION_MS, fmtMs, fmtRate, log, median, medianDuration, now, openMany, openSocket, printIfMain, request, ROUNDS, throughputRow, WARMUP_MS } from "./_lib.js";

const SOCKETS = 16;
const INFLIGHT = 64;
const EXPORTS = 5;
const SUBSCRIBERS = Number(process.env.BENCH_FANOUT_SUBSCRIBERS ?? 1_000);
const CHANGES = Number(process.env.BENCH_FANOUT_CHANGES ?? 200);

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

/**
 * `SUBSCRIBERS` sockets from `urls` (spread evenly) subscribed to `selection:changed`; `CHANGES` selection changes
 * made back to back through `control`; resolves once every subscriber got every change: deliveries per second and
 * the bridges' CPU per delivery (µs).
 */
async function fanout(urls, control, bridges) {
  const per = Math.ceil(SUBSCRIBERS / urls.length);
  const sockets = (
    await Promise.all(urls.map((url, i) => openMany(url, Math.min(per, SUBSCRIBERS - i * per), { setup: (ws) => request(ws, "s", "event:subscribe", { type: "selection:changed" }) })))
  ).flat();
  // Until each bridge follows B's editor (those not on B ask B for its events): one change reaches everyone.
  let got = 0;
  let expected = 0;
  let done = () => {};
  for (const ws of sockets) {
    ws.on("message", (data) => {
      if (String(data).startsWith('{"type":"selection:changed"')) {
        got++;
        if (got >= expected) done();
      }
    });
  }
  const changeAll = async (n, from) => {
    const all = new Promise((resolve) => (done = resolve));
    expected = got + n * sockets.length;
    for (let i = 0; i < n; i++) await request(control, `c${from + i}`, "selection:set", { rect: { x: (from + i) % 100, y: 1, width: 10, height: 10 } });
    await all;
  };
  const ready = async () => {
    for (let attempt = 0; ; attempt++) {
      const before = got;
      await request(control, `w${attempt}`, "selection:set", { rect: { x: attempt % 100, y: 2, width: 10, height: 10 } });
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (got - before >= sockets.length) return;
    }
  };
  await ready();
  const cpu0 = await Promise.all(bridges.map((b) => b.cpuMs()));
  const t0 = now();
  await changeAll(CHANGES, 1000);
  const elapsed = now() - t0;
  const cpu1 = await Promise.all(bridges.map((b) => b.cpuMs()));
  await closeAll(sockets);
  const deliveries = CHANGES * sockets.length;
  const cpuMs = cpu1.reduce((n, c, i) => n + c - cpu0[i], 0);
  return { rate: (deliveries / elapsed) * 1000, cpuUsPerDelivery: (cpuMs * 1000) / deliveries };
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
    // Fan-out: all subscribers on B, then spread over A, B and C (a third bridge joins for it).
    const c = await startBridgeProcess(cluster("c"));
    let one;
    let three;
    try {
      await sees(c.url, "b");
      const control = await openSocket(`${b.wsUrl}?editor=embedded-1@b`);
      // Every subscriber names B's editor: left to placement, new clients would spread over all three editors.
      const ofB = (url) => `${url}?editor=embedded-1@b`;
      one = await fanout([ofB(b.wsUrl)], control, [a, b, c]);
      three = await fanout([ofB(a.wsUrl), ofB(b.wsUrl), ofB(c.wsUrl)], control, [a, b, c]);
      control.close();
    } finally {
      await c.close();
    }
    log(`  fan-out of ${CHANGES} changes to ${SUBSCRIBERS} subscribers: one bridge ${fmtRate(one.rate).replace("req", "deliveries")}, ${one.cpuUsPerDelivery.toFixed(1)} µs CPU each; three bridges ${fmtRate(three.rate).replace("req", "deliveries")}, ${three.cpuUsPerDelivery.toFixed(1)} µs CPU each`);

    return [
      {
        benchmark: `fan-out to ${SUBSCRIBERS} subscribers: three bridges vs one (deliveries/s)`,
        bridge: fmtRate(three.rate).replace("req", "deliveries"),
        baseline: fmtRate(one.rate).replace("req", "deliveries"),
        ratio: `${(three.rate / one.rate).toFixed(2)}x`,
        target: "(info)",
        result: "-",
      },
      {
        benchmark: "fan-out: bridges' CPU per delivery, three bridges vs one (µs)",
        bridge: three.cpuUsPerDelivery.toFixed(1),
        baseline: one.cpuUsPerDelivery.toFixed(1),
        ratio: `${(three.cpuUsPerDelivery / one.cpuUsPerDelivery).toFixed(2)}x`,
        target: "(info)",
        result: "-",
      },
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
