import { readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { startBridge } from "../helpers/bridge.js";
import { rawHttp, requestHead } from "../helpers/raw-http.js";
import { ScriptedHost } from "../helpers/scripted-host.js";

/*
 * The listen backlog: connections the system completes for the bridge while the bridge's thread is busy wait in the
 * system's queue until it accepts them. With Node's default queue (511) a flood of connections during a busy moment
 * filled it, and the connections past it were dropped and retried by their system after 1, 3 and 7 s: in the soak,
 * a `/health` probe waited 10 s.
 */

/** More connections than Node's default backlog (511) holds, fewer than the bridge's (4,096, the system's cap). */
const CONNECTIONS = 1_200;
/** The system's cap on any listen backlog (Linux); a smaller one cannot show the difference. */
const SYSTEM_CAP = (() => {
  try {
    return Number(readFileSync("/proc/sys/net/core/somaxconn", "utf8"));
  } catch {
    return 0;
  }
})();
/** How long the bridge's thread stays blocked at most: only how long a broken queue takes to fail the test. */
const BLOCKED_AT_MOST_MS = 30_000;

/**
 * Opens `count` TCP connections to `port` from a thread of its own and counts those the system completed; the
 * count is kept in `shared[0]`, and `shared[1]` set to 1 (with a notify) once all are connected. `close` ends them.
 */
function connector(port: number, count: number, shared: Int32Array) {
  const worker = new Worker(
    `
    const { connect } = require("node:net");
    const { workerData, parentPort } = require("node:worker_threads");
    const { port, count, shared } = workerData;
    const sockets = [];
    for (let i = 0; i < count; i++) {
      const socket = connect(port, "127.0.0.1", () => {
        if (Atomics.add(shared, 0, 1) + 1 === count) { Atomics.store(shared, 1, 1); Atomics.notify(shared, 1); }
      });
      socket.on("error", () => {});
      sockets.push(socket);
    }
    parentPort.once("message", () => { for (const s of sockets) s.destroy(); parentPort.postMessage("closed"); });
    `,
    { eval: true, workerData: { port, count, shared } },
  );
  return {
    async close() {
      worker.postMessage("close");
      await new Promise((resolve) => worker.once("message", resolve));
      await worker.terminate();
    },
  };
}

// Where the system caps every backlog at CONNECTIONS or less, no backlog could hold them: nothing to show.
describe.skipIf(SYSTEM_CAP <= CONNECTIONS)("the listen backlog", () => {
  it("connections made while the bridge's thread is blocked all wait in the system's queue, past Node's 511", async () => {
    const harness = await startBridge({ host: new ScriptedHost() });
    const port = harness.bridge.port;
    const shared = new Int32Array(new SharedArrayBuffer(8));
    const flood = connector(port, CONNECTIONS, shared);
    // The bridge shares this thread: blocked here, it accepts nothing, and only the system's queue holds the
    // connections. Each completes (its "connect") once the system has queued it for the bridge.
    Atomics.wait(shared, 1, 0, BLOCKED_AT_MOST_MS);
    const completed = Atomics.load(shared, 0);
    try {
      expect(completed).toBe(CONNECTIONS);
      // Unblocked, the bridge accepts them all and still answers a probe.
      const health = await rawHttp(port, requestHead("GET", "/health", port));
      expect(health.status).toBe(200);
    } finally {
      await flood.close();
    }
  });
});
