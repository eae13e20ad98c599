// MCP's cost over the bridge's own protocol: a `document_current` tool call through `/mcp` (Streamable HTTP, the
// SDK's own Client, one call in flight) vs `document:current` over WS to the same bridge, same run, alternating
// which goes first each round. Median round trip per call, median over rounds; ratio = MCP / WS.
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
    await measure(viaMcp, WARMUP_CALLS);
    await measure(viaWs, WARMUP_CALLS);
    const mcpMs = [];
    const wsMs = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        mcpMs.push(await measure(viaMcp, CALLS));
        wsMs.push(await measure(viaWs, CALLS));
      } else {
        wsMs.push(await measure(viaWs, CALLS));
        mcpMs.push(await measure(viaMcp, CALLS));
      }
      log(`  mcp round ${round + 1}: MCP ${fmtMs(mcpMs.at(-1))}, WS ${fmtMs(wsMs.at(-1))}`);
    }
    const value = median(mcpMs);
    const baseline = median(wsMs);
    return [
      {
        benchmark: "mcp: document_current via /mcp vs WS (median round trip, 1 in flight)",
        bridge: fmtMs(value),
        baseline: fmtMs(baseline),
        ratio: fmtRatio(value / baseline),
        target: "(info)",
        result: "-",
      },
    ];
  } finally {
    await mcp.close().catch(() => {});
    ws.close();
    await bridge.close();
  }
}

await printIfMain(import.meta, run);
