// HTTP GET throughput of `/document/current` (a method route through the mailbox) and `/health` (no editor call),
// beside a bare `node:http` server answering JSON.stringify of a similar object. Same keep-alive client for both.
import http from "node:http";
import { DURATION_MS, fmtRate, log, max, median, min, ROUNDS, SAMPLE_DOCUMENT, printIfMain, throughputRow, withBridgeAndBaseline, loopRate } from "./_lib.js";

const CONCURRENCY = Number(process.env.BENCH_HTTP_CONCURRENCY ?? 32);

/** The same shape as the bridge's `/health`: a small fixed liveness body. */
const SAMPLE_HEALTH = Object.freeze({ status: "ok", name: "image-editor-bridge", version: "0.1.0", uptimeMs: 1234 });

async function startBaselineHttp() {
  const server = http.createServer((req, res) => {
    const body = req.url === "/health" ? JSON.stringify({ ...SAMPLE_HEALTH }) : JSON.stringify({ ...SAMPLE_DOCUMENT });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One GET on a keep-alive agent; resolves with the status once the body has been read (and parsed). */
function get(agent, url) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent, method: "GET" }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        JSON.parse(Buffer.concat(chunks).toString("utf8"));
        resolve(res.statusCode);
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** `CONCURRENCY` loops of sequential GETs; warm-up, then count completions during `DURATION_MS`. */
function drive(agent, url) {
  return loopRate(CONCURRENCY, async () => (await get(agent, url)) === 200, "non-200 responses");
}

async function measure(path, rounds, bridge, baseline) {
  // One agent per side so each keeps its own warm sockets across rounds.
  const agents = {
    bridge: new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY }),
    baseline: new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY }),
  };
  const urls = { bridge: bridge.url + path, baseline: baseline.url + path };
  const rates = { bridge: [], baseline: [] };
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ["baseline", "bridge"] : ["bridge", "baseline"];
      for (const side of order) rates[side].push(await drive(agents[side], urls[side]));
    }
  } finally {
    agents.bridge.destroy();
    agents.baseline.destroy();
  }
  const b = median(rates.bridge);
  const base = median(rates.baseline);
  log(
    `  GET ${path}: bridge ${fmtRate(b)} [${fmtRate(min(rates.bridge))}..${fmtRate(max(rates.bridge))}], ` +
      `baseline ${fmtRate(base)} [${fmtRate(min(rates.baseline))}..${fmtRate(max(rates.baseline))}]`,
  );
  return { bridge: b, baseline: base, ratio: b / base };
}

export async function run() {
  // /health is a secondary figure: fewer rounds keep the whole suite inside its time budget.
  const healthRounds = Math.max(1, Math.min(ROUNDS, 3));
  log(`HTTP GET throughput (${CONCURRENCY} keep-alive loops, ${DURATION_MS} ms per round, medians)`);
  return withBridgeAndBaseline(startBaselineHttp, async (bridge, baseline) => {
    const doc = await measure("/document/current", ROUNDS, bridge, baseline);
    const health = await measure("/health", healthRounds, bridge, baseline);
    return [
      throughputRow("HTTP GET /document/current", doc, 0.6),
      throughputRow(`HTTP GET /health (${healthRounds} rounds)`, health, 0.6),
    ];
  });
}

await printIfMain(import.meta, run);
