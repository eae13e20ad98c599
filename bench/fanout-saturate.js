// Saturating fan-out: 1,000 subscribers of `selection:changed`, and a trigger client keeping `selection:set` calls
// in flight back to back, so events come as fast as the server can deliver them. The bridge (`serve`, its editor in
// a process of its own) and a bare `ws` broadcast (`_bare-server.js`: one stringify, then `send` to every
// subscriber) each run in a process pinned to the server core; the subscribers and the trigger live in the driver
// process on the other core (`_procs.js`). Rounds alternate which side goes first; figures are medians.
//
// CPU per delivery = the server process's CPU over the counted window (from /proc) ÷ (events × 1,000): one delivery is
// one event handed to one subscriber. The bridge's editor process (which makes the events: each is a selection
// change) is left out of it and shown beside it. A few subscribers (BENCH_FANOUT_SLOW, 10) never read: each asks
// for BENCH_FANOUT_FILL (48) large answers first (`server:clients`, which the bare server answers with null), so their
// sockets back up past the kernel's buffers, and the bridge coalesces their state events past `outboundSoftBytes`
// (256 KiB here) instead of queueing every one; the bare server queues them all. The bridge's coalesced count comes
// from `/metrics`, memory from each server's RSS.
//
//   node bench/fanout-saturate.js      BENCH_FANOUT_CLIENTS (1000), BENCH_FANOUT_SLOW (10), BENCH_FANOUT_FILL (48),
//                                      BENCH_FANOUT_INFLIGHT (8)
import { fmtBytes, fmtRatio, log, median, printIfMain, ROUNDS, verdict } from "./_lib.js";
import { bridgeAnswers, placement, startDriver, startServer } from "./_procs.js";

const SUBSCRIBERS = Number(process.env.BENCH_FANOUT_CLIENTS ?? 1_000);
const SLOW = Number(process.env.BENCH_FANOUT_SLOW ?? 10);
/**
 * Large answers (`server:clients` lists every client: ~150 KB with 1,000) each slow subscriber asks for and never reads:
 * ~7 MB, past what the kernel holds for a socket whose reader never reads (about 4 MB here), below `outboundHardBytes`.
 */
const FILL = Number(process.env.BENCH_FANOUT_FILL ?? 48);
const INFLIGHT = Number(process.env.BENCH_FANOUT_INFLIGHT ?? 8);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 2_000);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 500);
/** Low so that the slow subscribers are coalesced within a round (the default, 8 MiB, takes tens of seconds). */
const SOFT_BYTES = "256KiB";
/** Two selections, alternated, so every call changes the selection and makes an event. */
const RECTS = [
  { x: 10, y: 20, width: 300, height: 200 },
  { x: 12, y: 22, width: 310, height: 190 },
];

async function coalescedCount(bridge) {
  const text = await (await fetch(`${bridge.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("bridge_events_coalesced_total"));
  return line === undefined ? NaN : Number(line.split(" ").at(-1));
}

async function round(driver, server, handle) {
  const at = { start: [0, 0], end: [0, 0] };
  const out = await driver.send(
    { cmd: "fanout", handle, slow: SLOW, fill: FILL, url: server.wsUrl, inflight: INFLIGHT, rects: RECTS, warmupMs: WARMUP_MS, durationMs: DURATION_MS },
    (mark) => (at[mark] = [server.ownCpuMs(), server.cpuMs()]),
  );
  const offered = out.events * SUBSCRIBERS;
  return {
    eventsPerS: (out.events / out.elapsed) * 1000,
    receivedPerS: (out.deliveries / out.elapsed) * 1000,
    cpuUs: ((at.end[0] - at.start[0]) * 1000) / offered,
    withEditorUs: ((at.end[1] - at.start[1]) * 1000) / offered,
  };
}

export async function run() {
  log(`Saturating fan-out (${SUBSCRIBERS} subscribers, ${SLOW} never reading, ${INFLIGHT} selection:set in flight; ${placement()}; ${ROUNDS} rounds x ${DURATION_MS} ms)`);
  const bridge = await startServer("bridge", { args: ["--limit", `outboundSoftBytes=${SOFT_BYTES}`] });
  const answers = await bridgeAnswers(bridge, RECTS[0]);
  const bare = await startServer("bare", { answers });
  const driver = await startDriver();
  const samples = { bridge: [], bare: [] };
  let coalesced = 0;
  let rss = {};
  try {
    const handles = {
      bridge: (await driver.send({ cmd: "open", url: bridge.wsUrl, n: SUBSCRIBERS, subscribe: "selection:changed" })).handle,
      bare: (await driver.send({ cmd: "open", url: bare.wsUrl, n: SUBSCRIBERS, subscribe: "selection:changed" })).handle,
    };
    const rss0 = { bridge: bridge.rss(), bare: bare.rss() };
    const coalesced0 = await coalescedCount(bridge);
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? ["bare", "bridge"] : ["bridge", "bare"];
      for (const side of order) samples[side].push(await round(driver, side === "bridge" ? bridge : bare, handles[side]));
    }
    coalesced = (await coalescedCount(bridge)) - coalesced0;
    rss = { bridge: bridge.rss() - rss0.bridge, bare: bare.rss() - rss0.bare };
    await driver.send({ cmd: "close", handle: handles.bridge });
    await driver.send({ cmd: "close", handle: handles.bare });
  } finally {
    await driver.close();
    await bare.close();
    await bridge.close();
  }
  const pick = (side, field) => median(samples[side].map((s) => s[field]));
  const r = {
    bridgeCpu: pick("bridge", "cpuUs"),
    bridgeWithEditor: pick("bridge", "withEditorUs"),
    bareCpu: pick("bare", "cpuUs"),
    bridgeEvents: pick("bridge", "eventsPerS"),
    bareEvents: pick("bare", "eventsPerS"),
    bridgeReceived: pick("bridge", "receivedPerS"),
    bareReceived: pick("bare", "receivedPerS"),
  };
  log(
    `  bridge: ${r.bridgeEvents.toFixed(0)} events/s, ${(r.bridgeReceived / 1000).toFixed(0)}k deliveries/s read, ${r.bridgeCpu.toFixed(2)} µs CPU per delivery (${r.bridgeWithEditor.toFixed(2)} with its editor); ` +
      `bare: ${r.bareEvents.toFixed(0)} events/s, ${(r.bareReceived / 1000).toFixed(0)}k deliveries/s read, ${r.bareCpu.toFixed(2)} µs; ` +
      `ratio ${fmtRatio(r.bridgeCpu / r.bareCpu)}`,
  );
  log(`  slow subscribers: ${coalesced} events coalesced by the bridge; RSS growth over the rounds: bridge ${fmtBytes(rss.bridge)}, bare ${fmtBytes(rss.bare)}`);
  return [
    {
      benchmark: `fan-out saturating ${SUBSCRIBERS} subs CPU/delivery`,
      bridge: `${r.bridgeCpu.toFixed(2)} µs`,
      baseline: `${r.bareCpu.toFixed(2)} µs`,
      ratio: fmtRatio(r.bridgeCpu / r.bareCpu),
      target: "<= 1.10x",
      result: verdict(r.bridgeCpu / r.bareCpu, 1.1, false),
      value: r.bridgeCpu,
      higherIsBetter: false,
    },
    {
      benchmark: `fan-out saturating deliveries read/s`,
      bridge: `${(r.bridgeReceived / 1000).toFixed(0)}k/s`,
      baseline: `${(r.bareReceived / 1000).toFixed(0)}k/s`,
      ratio: fmtRatio(r.bridgeReceived / r.bareReceived),
      target: "(info)",
      result: "-",
      value: r.bridgeReceived,
      higherIsBetter: true,
    },
    {
      benchmark: `fan-out slow subscribers coalesced (${SLOW})`,
      bridge: String(coalesced),
      baseline: "-",
      ratio: "-",
      target: "> 0",
      result: coalesced > 0 ? "pass" : "FAIL",
      // How many depends on the rate events came at: it shows coalescing ran, it is no figure to compare builds by.
      judged: false,
    },
  ];
}

await printIfMain(import.meta, run);
