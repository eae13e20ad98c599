// Child process of the idle-clients benchmark: runs one server (the bridge, or a bare `ws` baseline) and answers
// memory probes over IPC, so the parent's client sockets do not pollute the server's memory figures.
//
//   node --expose-gc bench/idle-server.js bridge|baseline      (started by idle-clients.js through fork())
//
// IPC: → { type: "ready", url }   ← { cmd: "mem" } → { type: "mem", usage }   ← { cmd: "close" } → exits 0
import { setImmediate as tick } from "node:timers/promises";
import { WebSocketServer } from "ws";
import { createBridge } from "../dist/index.js";
import { baselineHandle } from "./_lib.js";

const kind = process.argv[2];
if (kind !== "bridge" && kind !== "baseline") {
  console.error("usage: node --expose-gc bench/idle-server.js bridge|baseline");
  process.exit(2);
}
if (typeof global.gc !== "function" || typeof process.send !== "function") {
  console.error("idle-server.js must be forked with --expose-gc and an IPC channel");
  process.exit(2);
}

async function startBridge() {
  const bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 } });
  await bridge.start();
  return { url: bridge.wsUrl, close: () => bridge.close() };
}

/** Bare `ws` server that keeps subscribers in a Set and answers `event:subscribe` minimally. */
async function startBaseline() {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  await new Promise((resolve) => wss.once("listening", resolve));
  const subscribers = new Set();
  wss.on("connection", (ws) => {
    ws.on("close", () => subscribers.delete(ws));
    ws.on("message", (data) => {
      const req = JSON.parse(String(data));
      if (req.method === "event:subscribe") subscribers.add(ws);
      ws.send(JSON.stringify({ id: req.id, ok: true, result: { type: req.params?.type, subscribed: true } }));
    });
  });
  return baselineHandle(wss);
}

async function settledMemory() {
  for (let i = 0; i < 4; i++) {
    global.gc();
    await tick();
  }
  return process.memoryUsage();
}

const server = kind === "bridge" ? await startBridge() : await startBaseline();
let closing = false;
const shutdown = async () => {
  if (closing) return;
  closing = true;
  await server.close();
  process.exit(0);
};
process.on("message", async (msg) => {
  if (msg?.cmd === "mem") process.send({ type: "mem", usage: await settledMemory() });
  else if (msg?.cmd === "close") await shutdown();
});
process.on("disconnect", () => void shutdown()); // the parent went away: never linger
process.send({ type: "ready", url: server.url });
