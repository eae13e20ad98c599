// MCP's cost over the bridge's own protocols: a `document_current` tool call through `/mcp` (Streamable HTTP, the
// SDK's own Client, one call in flight) vs `document:current` over WS, and vs `GET /document/current` over HTTP
// (fetch, keep-alive: MCP's transport is HTTP too), same bridge, same run, rotating which goes first each round.
// Median round trip per call, median over rounds; ratio = MCP / baseline.
//
//   node bench/mcp.js          (after `npm run build`); also `node bench/run.js mcp`
//
// Environment: BENCH_ROUNDS (5), BENCH_MCP_CALLS (300 per side per round).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createBridge } from "../dist/index.js";
import { fmtMs, fmtRatio, log, median, now, openSocket, printIfMain, request, ROUNDS } from "./_lib.js";

const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 300);
/** Calls per side before the first round: JIT, the SDK's first-use costs, the editor's first answer. */
const WARMUP_CALLS = 50;

/** Median milliseconds of `calls` sequential round trips of `call`. */
async function measure(call, calls) {
  const samples = [];
  for (let i = 0; i < calls; i++) {
    const t0 = now();
    await call(i);
    samples.push(now() - t0);
  }
  return median(samples);
}

export async function run() {
  const bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 } });
  await bridge.start();
  const mcp = new Client({ name: "bench", version: "1.0.0" });
  const ws = await openSocket(bridge.wsUrl);
  try {
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`)));
    const viaMcp = async () => {
      const result = await mcp.callTool({ name: "document_current", arguments: {} });
      if (result.isError) throw new Error(`document_current failed: ${result.content[0]?.text}`);
    };
    let nextId = 0;
    const viaWs = async () => {
      const frame = await request(ws, `r${nextId++}`, "document:current");
      if (!frame.ok) throw new Error(`document:current failed: ${frame.error?.message}`);
    };
    const viaHttp = async () => {
      const response = await fetch(`${bridge.url}/document/current`);
      if (!response.ok) throw new Error(`GET /document/current answered ${response.status}`);
      await response.text();
    };
    const sides = { mcp: viaMcp, ws: viaWs, http: viaHttp };
    const times = { mcp: [], ws: [], http: [] };
    for (const call of Object.values(sides)) await measure(call, WARMUP_CALLS);
    const names = Object.keys(sides);
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(round + k) % names.length];
        times[name].push(await measure(sides[name], CALLS));
      }
      log(`  mcp round ${round + 1}: MCP ${fmtMs(times.mcp.at(-1))}, WS ${fmtMs(times.ws.at(-1))}, HTTP ${fmtMs(times.http.at(-1))}`);
    }
    const value = median(times.mcp);
    const row = (against, label) => ({
      benchmark: `mcp: document_current via /mcp vs ${label} (median round trip, 1 in flight)`,
      bridge: fmtMs(value),
      baseline: fmtMs(median(times[against])),
      ratio: fmtRatio(value / median(times[against])),
      target: "(info)",
      result: "-",
    });
    return [row("ws", "WS"), row("http", "HTTP GET")];
  } finally {
    await mcp.close().catch(() => {});
    ws.close();
    await bridge.close();
  }
}

await printIfMain(import.meta, run);
