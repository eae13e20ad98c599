// How long a newcomer waits. (1) `image-editor-bridge serve` run directly, from spawn to the first `GET /health`
// answered 200, beside `node -e 0` (Node's own start); (2) `npm start` (its prestart build check included) to the
// first `/health`, beside the direct start: after `npm ci` or `npm run build` it should add at most 1 s; (3) the
// commands that need no bridge (`methods`, `events`, `help`) from spawn to exit, beside `node -e 0`: under 1 s on
// an idle machine. Rounds alternate the order of the sides; figures are medians over rounds.
//
//   node bench/start.js   (after `npm run build`, so that `npm start` finds nothing stale, as after `npm ci`)
//
// Environment: BENCH_START_ROUNDS (5).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { get } from "node:http";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { fmtMs, fmtRatio, log, median, now, printIfMain, sleep, verdict } from "./_lib.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = fileURLToPath(new URL("../bin/image-editor-bridge.js", import.meta.url));
const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 5);
/** What `npm start` may add to the direct start, in ms. */
const NPM_START_EXTRA_MS = 1_000;
/** The commands that need no bridge should answer within this, on an idle machine. */
const OFFLINE_TARGET_MS = 1_000;
/** A start that has not answered `/health` by then is a failure, not a figure. */
const START_TIMEOUT_MS = 120_000;
/** How often `/health` is asked while the bridge starts. */
const POLL_MS = 10;

async function freePort() {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** ms from spawn to exit; a non-zero exit is an error. */
async function timeToExit(command, args) {
  const t0 = now();
  const child = spawn(command, args, { cwd: ROOT, stdio: "ignore" });
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${code}`);
  return now() - t0;
}

/** Resolves true when `GET /health` answers 200, false when nothing listens yet. */
function healthy(port) {
  return new Promise((resolve) => {
    const request = get({ host: "127.0.0.1", port, path: "/health", agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on("error", () => resolve(false));
  });
}

/**
 * ms from spawn to the first `/health` answered 200, then stops the whole process group (npm, its shell, the
 * bridge and its editor process) and waits for it to exit.
 */
async function timeToHealth(command, args, port) {
  const t0 = now();
  const child = spawn(command, args, { cwd: ROOT, stdio: "ignore", detached: true });
  const exited = once(child, "exit");
  let ended = false;
  void exited.then(() => (ended = true));
  try {
    for (;;) {
      if (await healthy(port)) return now() - t0;
      if (ended) throw new Error(`${command} ${args.join(" ")} exited before /health answered`);
      if (now() - t0 > START_TIMEOUT_MS) throw new Error(`${command} ${args.join(" ")}: no /health within ${START_TIMEOUT_MS} ms`);
      await sleep(POLL_MS);
    }
  } finally {
    if (!ended) process.kill(-child.pid, "SIGTERM");
    await exited;
  }
}

const SIDES = {
  "node -e 0": () => timeToExit(process.execPath, ["-e", "0"]),
  direct: async () => {
    const port = await freePort();
    return timeToHealth(process.execPath, [BIN, "serve", "--listen", `127.0.0.1:${port}`], port);
  },
  "npm start": async () => {
    const port = await freePort();
    return timeToHealth("npm", ["start", "--silent", "--", "--listen", `127.0.0.1:${port}`], port);
  },
  methods: () => timeToExit(process.execPath, [BIN, "methods"]),
  events: () => timeToExit(process.execPath, [BIN, "events"]),
  help: () => timeToExit(process.execPath, [BIN, "help"]),
};

export async function run() {
  const samples = Object.fromEntries(Object.keys(SIDES).map((name) => [name, []]));
  const names = Object.keys(SIDES);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) samples[name].push(await SIDES[name]());
  }
  for (const name of names) log(`  ${name}: ${samples[name].map((ms) => ms.toFixed(0)).join(", ")} ms`);
  const figure = Object.fromEntries(names.map((name) => [name, median(samples[name])]));
  const node = figure["node -e 0"];
  const direct = figure.direct;
  const added = figure["npm start"] - direct;
  const row = (benchmark, bridge, baseline, target, result) => ({
    benchmark,
    bridge: fmtMs(bridge),
    baseline: fmtMs(baseline),
    ratio: fmtRatio(bridge / baseline),
    target,
    result,
  });
  return [
    row("start: serve to first /health, vs node -e 0", direct, node, "(info)", "-"),
    row(
      `start: npm start to first /health (+${fmtMs(added)}), vs serve`,
      figure["npm start"],
      direct,
      `+ <= ${fmtMs(NPM_START_EXTRA_MS)}`,
      verdict(added, NPM_START_EXTRA_MS, false),
    ),
    ...["methods", "events", "help"].map((name) =>
      row(`start: ${name} (no bridge), vs node -e 0`, figure[name], node, `< ${fmtMs(OFFLINE_TARGET_MS)} idle`, verdict(figure[name], OFFLINE_TARGET_MS, false)),
    ),
  ];
}

await printIfMain(import.meta, run);
