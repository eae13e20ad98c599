/**
 * The `/health` pinger of `bridge-process.ts`, on a thread of its own: the test's thread writes the abuse (megabytes
 * of frames, masked by the WebSocket client in JavaScript) and would otherwise delay its own pings, charging the
 * test's work to the bridge. Each ping opens a new loopback connection, as another client would, and its latency and
 * outcome are posted to the parent: `{ ms, error? }`.
 */
import { request } from "node:http";
import { parentPort, workerData } from "node:worker_threads";

const { port, everyMs, timeoutMs } = workerData;

function healthOnce() {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/health", agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode ?? 0));
      res.once("error", reject);
    });
    req.once("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.once("error", reject);
    req.end();
  });
}

let pinging = true;
parentPort.once("message", () => {
  pinging = false;
});
while (pinging) {
  const started = performance.now();
  let error;
  try {
    const status = await healthOnce();
    if (status !== 200) error = `status ${status}`;
  } catch (failure) {
    error = failure.message;
  }
  parentPort.postMessage({ ms: performance.now() - started, error });
  await new Promise((resolve) => setTimeout(resolve, everyMs));
}
parentPort.close();
