// Fan-out latency: time from just before a client sends `selection:set` until each of N subscribed clients
// receives the `selection:changed` event. Baseline: a bare `ws` server that, on the trigger frame, stringifies one
// event and `send`s it to every client.
import { WebSocketServer } from "ws";
import {
  baselineHandle,
  closeAll,
  fmtMs,
  fmtRatio,
  log,
  now,
  openMany,
  openSocket,
  printIfMain,
  percentile,
  request,
  ROUNDS,
  sleep,
  verdict,
  withBridgeAndBaseline,
} from "./_lib.js";

const SUBSCRIBERS = Number(process.env.BENCH_FANOUT_CLIENTS ?? 1_000);
/** Events per side per round; with the default 5 rounds that is 30 events (30,000 samples) per side. */
const EVENTS_PER_ROUND = Number(process.env.BENCH_FANOUT_EVENTS ?? 6);
const EVENT_TIMEOUT_MS = 10_000;

async function startBaselineFanout() {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  await new Promise((resolve) => wss.once("listening", resolve));
  const subscribers = new Set();
  let seq = 0;
  wss.on("connection", (ws) => {
    ws.on("close", () => subscribers.delete(ws));
    ws.on("message", (data) => {
      const req = JSON.parse(String(data));
      if (req.method === "event:subscribe") {
        subscribers.add(ws);
        ws.send(JSON.stringify({ id: req.id, ok: true, result: { type: req.params.type, subscribed: true } }));
        return;
      }
      // The trigger: one stringify, then a send to every subscriber; then the trigger's own answer.
      const frame = JSON.stringify({ type: "selection:changed", seq: ++seq, data: req.params.rect });
      for (const sub of subscribers) sub.send(frame);
      ws.send(JSON.stringify({ id: req.id, ok: true, result: req.params.rect }));
    });
  });
  return baselineHandle(wss);
}

/** Opens the subscribers (batches of 100, each awaiting its subscribe answer) and the trigger client. */
async function prepare(url) {
  let n = 0;
  const subscribers = await openMany(url, SUBSCRIBERS, {
    batch: 100,
    setup: async (ws) => {
      const res = await request(ws, `s${++n}`, "event:subscribe", { type: "selection:changed" });
      if (!res.ok) throw new Error(`subscribe failed: ${JSON.stringify(res.error)}`);
    },
  });
  const trigger = await openSocket(url);
  return { subscribers, trigger };
}

/**
 * Fires `events` selection changes, one at a time, each waiting until every subscriber has it. Each event carries a
 * distinct rect (x = tag) so a late frame is never counted against the wrong event. Returns the latencies (ms).
 */
async function fire(side, events, tagBase) {
  const { subscribers, trigger } = side;
  const latencies = [];
  let current = { tag: -1, t0: 0, remaining: 0, done: () => {} };
  const listeners = subscribers.map((ws) => {
    const onMessage = (data) => {
      const at = now();
      const msg = JSON.parse(String(data));
      if (msg.type !== "selection:changed" || msg.data === null || msg.data.x !== current.tag) return;
      latencies.push(at - current.t0);
      if (--current.remaining === 0) current.done();
    };
    ws.on("message", onMessage);
    return [ws, onMessage];
  });
  const triggerAnswers = (data) => JSON.parse(String(data)); // same parse cost on both sides
  trigger.on("message", triggerAnswers);
  try {
    for (let i = 0; i < events; i++) {
      const tag = tagBase + i;
      // Alternate the rect's size too, so consecutive selections always differ.
      const rect = { x: tag, y: 10, width: i % 2 === 0 ? 50 : 60, height: 40 };
      const frame = JSON.stringify({ id: `t${tag}`, method: "selection:set", params: { rect } });
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`fan-out event ${tag}: ${current.remaining} clients missed it`)), EVENT_TIMEOUT_MS);
        current = {
          tag,
          remaining: subscribers.length,
          t0: now(),
          done: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        trigger.send(frame);
      });
      await sleep(20); // let the trigger's answer and socket writes settle before the next event
    }
  } finally {
    trigger.off("message", triggerAnswers);
    for (const [ws, onMessage] of listeners) ws.off("message", onMessage);
  }
  return latencies;
}

export async function run() {
  log(`Fan-out latency (selection:changed to ${SUBSCRIBERS} subscribers, ${ROUNDS} rounds x ${EVENTS_PER_ROUND} events)`);
  return withBridgeAndBaseline(startBaselineFanout, (bridge, baseline) => compare(bridge, baseline));
}

async function compare(bridge, baseline) {
  const sides = {};
  try {
    sides.bridge = await prepare(bridge.wsUrl);
    sides.baseline = await prepare(baseline.url);
    // Warm-up: a couple of events per side, not recorded.
    await fire(sides.baseline, 2, 1);
    await fire(sides.bridge, 2, 3);
    const all = { bridge: [], baseline: [] };
    let tag = 10; // tags stay small: the rect must lie inside the 800x600 sample document
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ["baseline", "bridge"] : ["bridge", "baseline"];
      for (const side of order) {
        all[side].push(...(await fire(sides[side], EVENTS_PER_ROUND, tag)));
        tag += EVENTS_PER_ROUND;
      }
    }
    const stats = (xs) => ({ p50: percentile(xs, 50), p99: percentile(xs, 99), n: xs.length });
    const b = stats(all.bridge);
    const base = stats(all.baseline);
    log(
      `  bridge p50 ${fmtMs(b.p50)} p99 ${fmtMs(b.p99)} (${b.n} samples); ` +
        `baseline p50 ${fmtMs(base.p50)} p99 ${fmtMs(base.p99)} (${base.n} samples)`,
    );
    return [
      {
        benchmark: `Fan-out ${SUBSCRIBERS} subs p50`,
        bridge: fmtMs(b.p50),
        baseline: fmtMs(base.p50),
        ratio: fmtRatio(b.p50 / base.p50),
        target: "(info)",
        result: "-",
      },
      {
        benchmark: `Fan-out ${SUBSCRIBERS} subs p99`,
        bridge: fmtMs(b.p99),
        baseline: fmtMs(base.p99),
        ratio: fmtRatio(b.p99 / base.p99),
        target: "<= 2.00x",
        result: verdict(b.p99 / base.p99, 2, false),
      },
    ];
  } finally {
    const sockets = [];
    for (const side of Object.values(sides)) sockets.push(...side.subscribers, side.trigger);
    await closeAll(sockets);
  }
}

await printIfMain(import.meta, run);
