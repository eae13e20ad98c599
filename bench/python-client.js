// The Python client's own cost: `document:current` round trips per second from `clients/python` (the typed
// `client.document.current()`), 1 and 16 calls in flight on one connection, beside a bare `websockets` loop in the
// same interpreter sending the same frames to the same bridge (bench/_python_rpc.py). The bridge runs in a process of
// its own; each side runs in a fresh Python process per round, the sides alternating which goes first. Skipped with
// a message when no Python with websockets is found (/usr/bin/python3, then python3).
import { spawnSync } from "node:child_process";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startBridgeProcess } from "./_bridge-process.js";
import { DURATION_MS, fmtRate, log, max, median, min, printIfMain, ROUNDS, throughputRow, WARMUP_MS } from "./_lib.js";

const SCRIPT = fileURLToPath(new URL("./_python_rpc.py", import.meta.url));
const PYTHON = ["/usr/bin/python3", "python3"].find((candidate) => spawnSync(candidate, ["-c", "import websockets"], { stdio: "ignore" }).status === 0);

/** One side's rate over one round, from a fresh Python process. */
function side(mode, wsUrl, inflight) {
  return new Promise((resolve, reject) => {
    execFile(PYTHON, [SCRIPT, mode, wsUrl, String(inflight), String(WARMUP_MS), String(DURATION_MS)], (error, stdout, stderr) =>
      error ? reject(new Error(`${mode}: ${error.message}\n${stderr}`)) : resolve(Number(stdout.trim())),
    );
  });
}

export async function run() {
  if (PYTHON === undefined) {
    log("python-client: skipped (no python3 with websockets; apt-get install python3-websockets)");
    return [];
  }
  const bridge = await startBridgeProcess();
  const rows = [];
  try {
    for (const inflight of [1, 16]) {
      const rates = { client: [], bare: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? ["bare", "client"] : ["client", "bare"];
        for (const mode of order) rates[mode].push(await side(mode, bridge.wsUrl, inflight));
      }
      const figure = { bridge: median(rates.client), baseline: median(rates.bare) };
      figure.ratio = figure.bridge / figure.baseline;
      log(
        `  python-client ${inflight} in flight: client ${fmtRate(figure.bridge)} [${fmtRate(min(rates.client))}..${fmtRate(max(rates.client))}], bare websockets ${fmtRate(figure.baseline)} [${fmtRate(min(rates.bare))}..${fmtRate(max(rates.bare))}]`,
      );
      rows.push(throughputRow(`python-client document:current 1x${inflight} (vs bare websockets)`, figure));
    }
  } finally {
    await bridge.close();
  }
  return rows;
}

await printIfMain(import.meta, run);
