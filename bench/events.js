// Events for integrations. (1) CPU per delivered event with 1,000 Server-Sent Events readers (`GET /events`) against
// 1,000 WebSocket subscribers of the same bridge, to one event type (`selection:changed`); readers and bridge share
// this process, so each figure includes the readers' own parsing, the same way on both sides. (2) Webhook deliveries
// per second to a loopback receiver answering 204 at once once all are queued, with several webhooks on one bridge, beside a bare
// `node:http` client posting the same signed bodies to the same receiver.
import { createHmac, randomUUID } from "node:crypto";
import { createServer, get, Agent, request as httpRequest } from "node:http";
import { createBridge } from "../dist/index.js";
import { closeAll, fmtRate, fmtRatio, log, openMany, openSocket, printIfMain, request, ROUNDS } from "./_lib.js";

const SUBSCRIBERS = Number(process.env.BENCH_EVENTS_CLIENTS ?? 1_000);
/** Events per side per round. */
const EVENTS_PER_ROUND = Number(process.env.BENCH_EVENTS_EVENTS ?? 20);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 10);
const WEBHOOK_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1000);
const EVENT_TIMEOUT_MS = 20_000;

/** Opens `n` SSE readers; each calls `onEvent(x)` with the rect's x of every selection:changed it reads. */
async function openReaders(base, n, onEvent) {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const readers = [];
  for (let i = 0; i < n; i += 100) {
    const batch = Array.from({ length: Math.min(100, n - i) }, () => new Promise((resolve, reject) => {
      const req = get(`${base}/events?type=selection:changed`, { agent }, (res) => {
        res.setEncoding("utf8");
        let text = "";
        let opened = false;
        res.on("data", (chunk) => {
          text += chunk;
          for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
            const block = text.slice(0, end);
            text = text.slice(end + 2);
            if (!opened && block === ": connected") {
              opened = true;
              resolve(res);
            }
            const data = block.split("\n").find((line) => line.startsWith("data: "));
            if (data !== undefined) onEvent(JSON.parse(data.slice(6))?.x);
          }
        });
      });
      req.once("error", reject);
    }));
    readers.push(...(await Promise.all(batch)));
  }
  return readers;
}

/** Fires `events` selection changes one at a time, each waiting until `expected` copies arrived; returns CPU µs. */
async function fire(trigger, events, tagBase, expected, waitFor) {
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < events; i++) {
    const tag = tagBase + i;
    const arrived = waitFor(tag, expected);
    const res = await request(trigger, `t${tag}`, "selection:set", { rect: { x: tag % 700, y: 10, width: i % 2 === 0 ? 50 : 60, height: 40 } });
    if (!res.ok) throw new Error(`selection:set failed: ${JSON.stringify(res.error)}`);
    await arrived;
  }
  const used = process.cpuUsage(cpu0);
  return used.user + used.system;
}

function counter() {
  let current = { tag: -1, remaining: 0, done: () => {} };
  return {
    seen(x) {
      if (x !== current.tag % 700) return;
      if (--current.remaining === 0) current.done();
    },
    waitFor(tag, expected) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`event ${tag}: ${current.remaining} readers missed it`)), EVENT_TIMEOUT_MS);
        current = {
          tag,
          remaining: expected,
          done: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
    },
  };
}

async function fanoutCpu() {
  // All readers come from one loopback address: the per-address stream cap (64 by default) is raised to hold them.
  const bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 }, limits: { sseMaxStreamsPerAddress: SUBSCRIBERS, sseMaxStreams: SUBSCRIBERS + 24 } });
  await bridge.start();
  const ws = counter();
  const sse = counter();
  let wsSubs = [];
  let readers = [];
  const trigger = await openSocket(bridge.wsUrl);
  try {
    let n = 0;
    wsSubs = await openMany(bridge.wsUrl, SUBSCRIBERS, {
      batch: 100,
      setup: async (socket) => {
        const res = await request(socket, `s${++n}`, "event:subscribe", { type: "selection:changed" });
        if (!res.ok) throw new Error(`subscribe failed: ${JSON.stringify(res.error)}`);
        socket.on("message", (data) => {
          const msg = JSON.parse(String(data));
          if (msg.type === "selection:changed") ws.seen(msg.data?.x);
        });
      },
    });
    readers = await openReaders(bridge.url, SUBSCRIBERS, (x) => sse.seen(x));
    // Phase one: both kinds subscribed, CPU until every reader of both kinds has each event. Phase two: the WS
    // subscribers closed, the SSE readers alone. WS alone is the difference between the two.
    const both = (tag) => Promise.all([ws.waitFor(tag, SUBSCRIBERS), sse.waitFor(tag, SUBSCRIBERS)]);
    await fire(trigger, 3, 1, SUBSCRIBERS, both); // warm-up
    const cpu = { ws: 0, sse: 0 };
    let tag = 10;
    for (let round = 0; round < ROUNDS; round++) {
      cpu.ws += await fire(trigger, EVENTS_PER_ROUND, tag, SUBSCRIBERS, both);
      tag += EVENTS_PER_ROUND;
    }
    // Then each kind alone: close the other kind, measure again.
    await closeAll(wsSubs);
    wsSubs = [];
    for (let round = 0; round < ROUNDS; round++) {
      cpu.sse += await fire(trigger, EVENTS_PER_ROUND, tag, SUBSCRIBERS, (t) => sse.waitFor(t, SUBSCRIBERS));
      tag += EVENTS_PER_ROUND;
    }
    const deliveries = ROUNDS * EVENTS_PER_ROUND * SUBSCRIBERS;
    // cpu.ws measured both kinds together; cpu.sse the SSE readers alone: WS alone is the difference.
    const perSse = cpu.sse / deliveries;
    const perWs = (cpu.ws - cpu.sse) / deliveries;
    log(`  CPU per delivery: SSE ${perSse.toFixed(2)} µs, WS ${perWs.toFixed(2)} µs (${deliveries} deliveries each, readers' parsing included)`);
    return { perSse, perWs };
  } finally {
    for (const reader of readers) reader.destroy();
    await closeAll([...wsSubs, trigger]);
    await bridge.close();
  }
}

/**
 * The baseline: a bare `node:http` client doing what the webhooks do without the bridge (one signed JSON POST in
 * flight per webhook, the same number of webhooks and events) to the same kind of receiver.
 */
async function bareWebhookRate(url) {
  const post = (body) =>
    new Promise((resolve, reject) => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = createHmac("sha256", "bench").update(`${timestamp}.${body}`).digest("hex");
      const req = httpRequest(url, { method: "POST", headers: { "content-type": "application/json", "x-bridge-timestamp": timestamp, "x-bridge-signature": `sha256=${signature}` } });
      req.once("response", (res) => {
        res.resume();
        res.once("end", resolve);
      });
      req.once("error", reject);
      req.end(body);
    });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: WEBHOOKS }, async (_, hook) => {
      for (let i = 0; i < WEBHOOK_EVENTS; i++) {
        await post(JSON.stringify({ id: randomUUID(), type: "selection:changed", timestamp: Date.now(), data: { x: i % 700, y: 10, width: 50, height: 40, hook } }));
      }
    }),
  );
  return ((WEBHOOKS * WEBHOOK_EVENTS) / (performance.now() - t0)) * 1000;
}

/**
 * Webhook delivery rate: the receiver holds its answers until every event is queued (so the editor's pace of
 * producing events is not what is measured), then answers at once; the clock runs from its release to the last
 * delivery.
 */
async function webhookRate() {
  let received = 0;
  let released = false;
  const held = [];
  let wake = () => {};
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const answer = () => {
        res.writeHead(204).end();
        received++;
        wake();
      };
      if (released) answer();
      else held.push(answer);
    });
  });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${receiver.address().port}/hook`;
  const hooks = Array.from({ length: WEBHOOKS }, () => ({ url, types: ["selection:changed"], secret: "bench" }));
  const bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 }, webhooks: { allowPrivate: true, hooks }, limits: { webhookQueueEvents: WEBHOOK_EVENTS + 10 } });
  await bridge.start();
  const trigger = await openSocket(bridge.wsUrl);
  try {
    for (let i = 0; i < WEBHOOK_EVENTS; i++) {
      const res = await request(trigger, `w${i}`, "selection:set", { rect: { x: i % 700, y: 10, width: i % 2 === 0 ? 50 : 60, height: 40 } });
      if (!res.ok) throw new Error(`selection:set failed: ${JSON.stringify(res.error)}`);
    }
    const expected = WEBHOOK_EVENTS * WEBHOOKS;
    const queued = async () => (await (await fetch(`${bridge.url}/status`)).json()).webhooks.hooks.reduce((n, hook) => n + hook.queued, 0);
    while ((await queued()) < expected) await new Promise((resolve) => setTimeout(resolve, 5));
    const t0 = performance.now();
    released = true;
    for (const answer of held.splice(0)) answer();
    while (received < expected) await new Promise((resolve) => (wake = resolve));
    const rate = (expected / (performance.now() - t0)) * 1000;
    const bare = await bareWebhookRate(url);
    log(`  webhooks: ${expected} deliveries (${WEBHOOKS} webhooks × ${WEBHOOK_EVENTS} events) at ${fmtRate(rate)}; a bare node:http client posting the same: ${fmtRate(bare)}`);
    return { rate, bare };
  } finally {
    await closeAll([trigger]);
    await bridge.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

export async function run() {
  log(`Events for integrations (${SUBSCRIBERS} SSE readers vs ${SUBSCRIBERS} WS subscribers, ${ROUNDS} rounds x ${EVENTS_PER_ROUND} events; ${WEBHOOKS} webhooks)`);
  const { perSse, perWs } = await fanoutCpu();
  const { rate, bare } = await webhookRate();
  return [
    {
      benchmark: `CPU/delivery, ${SUBSCRIBERS} SSE vs WS`,
      bridge: `${perSse.toFixed(2)} µs`,
      baseline: `${perWs.toFixed(2)} µs`,
      ratio: fmtRatio(perSse / perWs),
      target: "(info)",
      result: "-",
    },
    { benchmark: `Webhook deliveries/s (${WEBHOOKS} hooks) vs bare http client`, bridge: fmtRate(rate), baseline: fmtRate(bare), ratio: fmtRatio(rate / bare), target: "(info)", result: "-" },
  ];
}

await printIfMain(import.meta, run);
