// One client on its own thread: runs the `setup` calls, posts "ready", then on "go" runs `call` and posts
// `{ ok, code }`. Large answers are parsed here, not on the thread that serves the bridge under test.
import { parentPort, workerData } from "node:worker_threads";
import { WebSocket } from "ws";

const { wsUrl, setup, call } = workerData;
const ws = new WebSocket(wsUrl, { perMessageDeflate: false, maxPayload: 1024 * 1024 * 1024 });
await new Promise((resolve, reject) => {
  ws.once("open", resolve);
  ws.once("error", reject);
});
let n = 0;
const request = (method, params) =>
  new Promise((resolve) => {
    const id = `h${++n}`;
    const onMessage = (data) => {
      const frame = JSON.parse(String(data));
      if (frame.id !== id) return;
      ws.off("message", onMessage);
      resolve(frame);
    };
    ws.on("message", onMessage);
    ws.send(JSON.stringify({ id, method, params }));
  });
for (const step of setup) {
  const answer = await request(step.method, step.params);
  if (!answer.ok) throw new Error(`${step.method} failed: ${JSON.stringify(answer.error)}`);
}
parentPort.postMessage("ready");
await new Promise((resolve) => parentPort.once("message", resolve));
const answer = await request(call.method, call.params);
ws.close();
parentPort.postMessage({ ok: answer.ok, code: answer.error?.code });
