// Two per-call costs of the layers on top of the core:
// - the client SDK: `Connection.invoke("document:current")` round trips per second, beside hand-written `ws`
//   frames to the same bridge (the same `drive` loop ws-rpc.js uses), so the ratio is the SDK's own cost;
// - a plugin method: round trips per second of a trivial plugin method on `/ws/{id}` (dispatch, Standard Schema
//   validation, deadline, containment), beside a bare `ws` echo server.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WebSocket, WebSocketServer } from "ws";
import { Connection } from "../dist/client/index.js";
import { createBridge } from "../dist/index.js";
import {
  baselineHandle,
  closeAll,
  DURATION_MS,
  fmtRate,
  log,
  max,
  median,
  min,
  openMany,
  printIfMain,
  ROUNDS,
  throughputRow,
  loopRate,
} from "./_lib.js";
import { drive } from "./ws-rpc.js";

/** Requests kept in flight on one connection. */
const INFLIGHT = Number(process.env.BENCH_CLIENT_INFLIGHT ?? 16);

const PLUGIN = `export default {
  id: "bench",
  setup(ctx) {
    ctx.method("bench:echo", (params) => params);
  },
};
`;

/** Round trips per second through the SDK with `inflight` calls outstanding. */
function driveSdk(connection, inflight) {
  return loopRate(
    inflight,
    () => connection.invoke("document:current").then(() => true, () => false),
    "SDK calls",
  );
}

async function startEchoBaseline() {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  await new Promise((resolve) => wss.once("listening", resolve));
  wss.on("connection", (ws) => {
    ws.on("message", (data) => {
      const req = JSON.parse(String(data));
      ws.send(JSON.stringify({ id: req.id, ok: true, result: req.params ?? null }));
    });
  });
  return baselineHandle(wss);
}

function summary(label, rates) {
  const b = median(rates.bridge);
  const base = median(rates.baseline);
  log(
    `  ${label}: ${fmtRate(b)} [${fmtRate(min(rates.bridge))}..${fmtRate(max(rates.bridge))}], ` +
      `baseline ${fmtRate(base)} [${fmtRate(min(rates.baseline))}..${fmtRate(max(rates.baseline))}]`,
  );
  return { bridge: b, baseline: base, ratio: b / base };
}

export async function run() {
  log(`Client SDK and plugin method round trips (${INFLIGHT} in flight, ${ROUNDS} rounds x ${DURATION_MS} ms, medians)`);
  const dir = await mkdtemp(join(tmpdir(), "bench-plugin-"));
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "bench", type: "module", main: "index.js" }));
  await writeFile(join(dir, "index.js"), PLUGIN);
  const bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 }, plugins: [dir] });
  await bridge.start();
  const echo = await startEchoBaseline();
  const connection = new Connection({ url: bridge.url, WebSocket });
  try {
    await connection.ready();
    const [raw] = await openMany(bridge.wsUrl, 1);
    const sdkRates = { bridge: [], baseline: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which side goes first so slow drifts hit both alike.
      if (round % 2 === 0) {
        sdkRates.baseline.push(await drive([raw], INFLIGHT));
        sdkRates.bridge.push(await driveSdk(connection, INFLIGHT));
      } else {
        sdkRates.bridge.push(await driveSdk(connection, INFLIGHT));
        sdkRates.baseline.push(await drive([raw], INFLIGHT));
      }
    }
    await closeAll([raw]);
    const sdk = summary("SDK invoke vs raw frames to the same bridge", sdkRates);

    const [plugin] = await openMany(`ws://127.0.0.1:${bridge.port}/ws/bench`, 1);
    const [bare] = await openMany(echo.url, 1);
    const pluginRates = { bridge: [], baseline: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ["baseline", "bridge"] : ["bridge", "baseline"];
      for (const side of order) {
        pluginRates[side].push(await drive([side === "bridge" ? plugin : bare], INFLIGHT, { method: "bench:echo" }));
      }
    }
    await closeAll([plugin, bare]);
    const method = summary("plugin method bench:echo vs bare ws echo server", pluginRates);
    return [
      throughputRow(`client SDK invoke, ${INFLIGHT} in flight (req/s)`, sdk, 0.6),
      throughputRow(`plugin method on /ws/{id}, ${INFLIGHT} in flight (req/s)`, method),
    ];
  } finally {
    await connection.close();
    await echo.close();
    await bridge.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await printIfMain(import.meta, run);
