// Measuring a stall: pings the bridge (and a bare `node:http` server, the baseline) from another thread while
// something heavy runs, so the samples are taken even while the bridge's own thread is blocked.
import { createServer } from "node:http";
import { Worker } from "node:worker_threads";

/** Milliseconds between pings. */
export const PING_EVERY_MS = 20;

/** A bare `node:http` server answering `{"status":"ok"}`: what a ping costs when nothing else runs on the loop. */
export async function bareHttp() {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"status":"ok"}');
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * Pings the bridge (`GET /health`, WS `getServerInfo`) and the bare server from another thread while `until` runs;
 * resolves with the latencies (ms) and what `until` resolved with (or `{ error }`).
 */
export async function pingDuring(bridge, bare, until) {
  const pinger = new Worker(new URL("./_pinger.js", import.meta.url), {
    workerData: { healthUrl: `${bridge.url}/health`, wsUrl: bridge.wsUrl, bareUrl: bare.url, everyMs: PING_EVERY_MS },
  });
  const messages = [];
  const next = () => new Promise((resolve) => (messages.length > 0 ? resolve(messages.shift()) : pinger.once("message", resolve)));
  await next(); // ready
  const outcome = await until().catch((error) => ({ error }));
  pinger.postMessage("stop");
  const samples = await next();
  await pinger.terminate();
  return { ...samples, outcome };
}

/** A client on its own thread (`_heavy.js`) ready to make `call` on `wsUrl`; `run()` makes it and resolves `{ ok, code }`. */
export async function heavyClient(wsUrl, call, setup = []) {
  const client = new Worker(new URL("./_heavy.js", import.meta.url), { workerData: { wsUrl, setup, call } });
  const message = () => new Promise((resolve, reject) => client.once("message", resolve).once("error", reject));
  await message(); // ready
  return {
    run: () => {
      client.postMessage("go");
      return message();
    },
    close: () => client.terminate(),
  };
}

export const worst = (values) => Math.max(...values);
