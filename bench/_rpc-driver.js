// A load driver in its own process, so the bridge's thread serves requests and nothing else: the parent sends
// `{ url, method, params, sockets, inflight, warmupMs, durationMs }` once per run; the driver keeps `inflight` calls
// outstanding spread over `sockets` connections, and answers `{ rate, p50, p99 }` (calls per second counted after
// the warm-up, latencies in ms). A driver sharing the bridge's thread would run in lockstep with it: a plugin in a
// worker would then wait for the driver and the driver for the worker, and the bench would measure that.
import { WebSocket } from "ws";
import { percentile } from "./_lib.js";

const now = () => performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function drive(url, method, params, inflight, timing) {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  const pending = new Map();
  const latencies = [];
  let next = 0;
  let completed = 0;
  let failed = 0;
  const send = () => {
    const id = `c${next++}`;
    pending.set(id, now());
    ws.send(JSON.stringify(params === undefined ? { id, method } : { id, method, params }));
  };
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data));
    const sent = pending.get(msg.id);
    if (sent === undefined) return;
    pending.delete(msg.id);
    if (timing.counting) {
      if (msg.ok) {
        completed++;
        latencies.push(now() - sent);
      } else failed++;
    }
    if (!timing.stopped) send();
  });
  for (let i = 0; i < inflight; i++) send();
  await timing.done;
  const deadline = now() + 10_000;
  while (pending.size > 0 && now() < deadline) await sleep(5);
  const left = pending.size;
  ws.close();
  if (left > 0) throw new Error(`${left} calls of ${method} never answered`);
  if (failed > 0) throw new Error(`${failed} calls of ${method} failed`);
  return { completed, latencies };
}

process.on("message", async ({ url, method, params, sockets, inflight, warmupMs, durationMs }) => {
  const timing = { counting: false, stopped: false };
  let finish;
  timing.done = new Promise((resolve) => (finish = resolve));
  const runs = Array.from({ length: sockets }, () => drive(url, method, params, Math.max(1, Math.round(inflight / sockets)), timing));
  await sleep(warmupMs);
  timing.counting = true;
  const t0 = now();
  await sleep(durationMs);
  timing.counting = false;
  const elapsed = now() - t0;
  timing.stopped = true;
  finish();
  try {
    const parts = await Promise.all(runs);
    const completed = parts.reduce((n, p) => n + p.completed, 0);
    const latencies = parts.flatMap((p) => p.latencies);
    process.send({ rate: (completed / elapsed) * 1000, p50: percentile(latencies, 50), p99: percentile(latencies, 99) });
  } catch (error) {
    process.send({ error: String(error) });
  }
});
