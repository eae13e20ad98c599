// A pinger on its own thread, so it measures a stalled bridge even when the bridge shares this process (the
// "inline" editor): every PING_EVERY_MS it times one `GET <health>`, one WS `getServerInfo` and one `GET <bare>`,
// until the parent posts "stop"; then it posts `{ health, ws, bare }` (latencies in ms) and exits.
import { parentPort, workerData } from "node:worker_threads";
import { WebSocket } from "ws";

const { healthUrl, wsUrl, bareUrl, everyMs } = workerData;
const samples = { health: [], ws: [], bare: [] };
let stopped = false;
parentPort.on("message", (message) => {
  if (message === "stop") stopped = true;
});

const ws = new WebSocket(wsUrl, { perMessageDeflate: false });
await new Promise((resolve, reject) => {
  ws.once("open", resolve);
  ws.once("error", reject);
});
let n = 0;
const rpc = () =>
  new Promise((resolve) => {
    const id = `p${++n}`;
    const onMessage = (data) => {
      if (!String(data).includes(`"id":"${id}"`)) return;
      ws.off("message", onMessage);
      resolve();
    };
    ws.on("message", onMessage);
    ws.send(JSON.stringify({ id, method: "getServerInfo" }));
  });
const timed = async (list, fn) => {
  const t0 = performance.now();
  await fn();
  list.push(performance.now() - t0);
};
// One untimed tick first: the first request of each kind opens its connection and finds the server's path cold (a
// fresh bridge's first `/health` took 365 ms on a loaded machine with nothing else running), which is start-up, not
// what a stall measurement is after.
await Promise.all([fetch(healthUrl).then((r) => r.arrayBuffer()), rpc(), fetch(bareUrl).then((r) => r.arrayBuffer())]);
parentPort.postMessage("ready");
while (!stopped) {
  await Promise.all([
    timed(samples.health, () => fetch(healthUrl).then((r) => r.arrayBuffer())),
    timed(samples.ws, rpc),
    timed(samples.bare, () => fetch(bareUrl).then((r) => r.arrayBuffer())),
  ]);
  await new Promise((resolve) => setTimeout(resolve, everyMs));
}
ws.close();
parentPort.postMessage(samples);
