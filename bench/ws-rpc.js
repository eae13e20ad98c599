// WS RPC throughput: round trips per second of `document:current` through the bridge (parse, validate, mailbox,
// editor call, response), beside a bare `ws` server that only parses the request and stringifies a small document.
import { WebSocketServer } from "ws";
import {
  baselineHandle,
  closeAll,
  DURATION_MS,
  fmtRate,
  log,
  max,
  median,
  min,
  now,
  openMany,
  ROUNDS,
  SAMPLE_DOCUMENT,
  sleep,
  printIfMain,
  throughputRow,
  WARMUP_MS,
  withBridgeAndBaseline,
} from "./_lib.js";

/** Bare `ws` server: JSON.parse the request, reply JSON.stringify({ id, ok, result }). */
export async function startBaselineWs() {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  await new Promise((resolve) => wss.once("listening", resolve));
  wss.on("connection", (ws) => {
    ws.on("message", (data) => {
      const req = JSON.parse(String(data));
      ws.send(JSON.stringify({ id: req.id, ok: true, result: { ...SAMPLE_DOCUMENT } }));
    });
  });
  return baselineHandle(wss);
}

/**
 * Keeps `inflight` requests outstanding on each socket for a warm-up, then counts completed round trips during
 * `durationMs`, then stops sending and waits for the outstanding answers (not counted).
 */
export async function drive(sockets, inflight, { method = "document:current", warmupMs = WARMUP_MS, durationMs = DURATION_MS } = {}) {
  let counting = false;
  let stopped = false;
  let completed = 0;
  let failed = 0;
  let outstanding = 0;
  let seq = 0;
  const frameTail = `","method":"${method}","params":{}}`;
  const listeners = [];
  for (const ws of sockets) {
    const send = () => {
      outstanding++;
      ws.send(`{"id":"${++seq}${frameTail}`);
    };
    const onMessage = (data) => {
      const msg = JSON.parse(String(data));
      if (msg.id === undefined) return; // events and the `connected` greeting
      outstanding--;
      if (!msg.ok) failed++;
      else if (counting) completed++;
      if (!stopped) send();
    };
    ws.on("message", onMessage);
    listeners.push([ws, onMessage]);
    for (let i = 0; i < inflight; i++) send();
  }
  await sleep(warmupMs);
  counting = true;
  const t0 = now();
  await sleep(durationMs);
  counting = false;
  const t1 = now();
  stopped = true;
  const deadline = now() + 5_000;
  while (outstanding > 0 && now() < deadline) await sleep(5);
  for (const [ws, onMessage] of listeners) ws.off("message", onMessage);
  if (failed > 0) log(`    note: ${failed} failed responses`);
  return (completed / (t1 - t0)) * 1000;
}

async function measure(label, clients, inflight, bridge, baseline) {
  const sides = {
    bridge: await openMany(bridge.wsUrl, clients),
    baseline: await openMany(baseline.url, clients),
  };
  const rates = { bridge: [], baseline: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which side goes first so slow drifts (other load on the machine) hit both alike.
      const order = round % 2 === 0 ? ["baseline", "bridge"] : ["bridge", "baseline"];
      for (const side of order) rates[side].push(await drive(sides[side], inflight));
    }
  } finally {
    await closeAll([...sides.bridge, ...sides.baseline]);
  }
  const b = median(rates.bridge);
  const base = median(rates.baseline);
  log(
    `  ${label}: bridge ${fmtRate(b)} [${fmtRate(min(rates.bridge))}..${fmtRate(max(rates.bridge))}], ` +
      `baseline ${fmtRate(base)} [${fmtRate(min(rates.baseline))}..${fmtRate(max(rates.baseline))}]`,
  );
  return { bridge: b, baseline: base, ratio: b / base, rounds: rates };
}

export async function run() {
  log(`WS RPC throughput (document:current, ${ROUNDS} rounds x ${DURATION_MS} ms, medians)`);
  return withBridgeAndBaseline(startBaselineWs, async (bridge, baseline) => {
    const single = await measure("1 client x 1 in flight", 1, 1, bridge, baseline);
    const many = await measure("16 clients x 4 in flight", 16, 4, bridge, baseline);
    return [throughputRow("WS RPC 1x1 (req/s)", single), throughputRow("WS RPC 16x4 (req/s)", many, 0.6)];
  });
}

await printIfMain(import.meta, run);
