// The bare baseline of the process benches (`limit.js`, `fanout-saturate.js`, `clients-10k.js`): one `node:http`
// server with a `ws` server on its upgrade, doing the least a server could (parse the request, stringify the same
// answer the bridge gives), run as a process of its own exactly as the bridge is.
//
//   node bench/_bare-server.js <port> '<json answers>'
//
// `answers` are the bridge's own answers, fetched from it by the parent so both sides write the same bytes:
// `{ health, serverInfo, selection }`. WS: every request is answered `{ id, ok: true, result }` (getServerInfo with
// `serverInfo`, selection:getArea with `selection`, event:subscribe with `{ type, subscribed }`, and `ping` with a
// small fixed body of its own, what a minimal server answers rather than the bridge's bytes); `selection:set`
// also broadcasts one `selection:changed` frame, stringified once, to every subscriber. HTTP: `GET /health` and
// `GET /selection/area` answer their JSON with `content-length`.
import http from "node:http";
import { WebSocketServer } from "ws";

const port = Number(process.argv[2]);
const answers = JSON.parse(process.argv[3] ?? "{}");
const started = Date.now();
const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };
/** `ping`'s answer: a minimal server's small fixed body. */
const PING = { name: "bare", version: "1.0.0" };

const server = http.createServer((req, res) => {
  let body;
  if (req.url === "/health") body = JSON.stringify({ ...answers.health, uptimeMs: Date.now() - started });
  else if (req.url === "/selection/area") body = JSON.stringify(answers.selection ?? null);
  else {
    res.writeHead(404, JSON_HEADERS);
    res.end('{"code":"NOT_FOUND"}');
    return;
  }
  res.writeHead(200, { ...JSON_HEADERS, "content-length": Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 5_000;

const wss = new WebSocketServer({ server, perMessageDeflate: false });
const subscribers = new Set();
let seq = 0;
wss.on("connection", (ws) => {
  ws.on("close", () => subscribers.delete(ws));
  ws.on("message", (data) => {
    const req = JSON.parse(String(data));
    let result = null;
    if (req.method === "getServerInfo") result = answers.serverInfo;
    else if (req.method === "ping") result = PING;
    else if (req.method === "selection:getArea") result = answers.selection;
    else if (req.method === "event:subscribe") {
      subscribers.add(ws);
      result = { type: req.params?.type, subscribed: true };
    } else if (req.method === "selection:set") {
      const frame = JSON.stringify({ type: "selection:changed", seq: ++seq, data: req.params?.rect ?? null });
      for (const sub of subscribers) sub.send(frame);
      result = req.params?.rect ?? null;
    }
    ws.send(JSON.stringify({ id: req.id, ok: true, result }));
  });
});

server.listen(port, "127.0.0.1", () => process.stdout.write(`listening ${port}\n`));
process.on("SIGTERM", () => process.exit(0));
