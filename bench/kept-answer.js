// What writing `getServerInfo`'s kept answer costs from its kept UTF-8 bytes (`keptAnswerFrame`, what the bridge
// does) against writing it as a string (`{"id":…,"ok":true,"result":` + the kept JSON text + `}`, which `ws` measures
// with `Buffer.byteLength` and the socket's `writev` encodes again): one `ws` server and one client in this process
// over loopback, one request in flight, the server answering each tiny request with the ~1 KB answer. CPU per
// message (`process.cpuUsage`, both ends: everything but the answer's making is the same on both sides), median of
// alternating rounds.
//
//   node bench/kept-answer.js          (after `npm run build`)
//
// Environment: BENCH_KEPT_ANSWER_MESSAGES (30000 a round), BENCH_ROUNDS (5; at least 5 here).
import WebSocket, { WebSocketServer } from "ws";
import { ServerInfoAnswer } from "../dist/bridge/server-info.js";
import { EditorPool } from "../dist/actors/editors/pool.js";
import { EMBEDDED_EDIT_CAPABILITIES } from "../dist/hosts/embedded/edits/index.js";
import { createNoEditorHost } from "../dist/hosts/none.js";
import { resolveLimits } from "../dist/limits.js";
import { keptAnswerFrame } from "../dist/methods/index.js";
import { pino } from "pino";
import { log as print, median, printIfMain, ROUNDS } from "./_lib.js";

const MESSAGES = Number(process.env.BENCH_KEPT_ANSWER_MESSAGES ?? 30_000);

export async function run() {
  const limits = resolveLimits({}, 1);
  const pool = new EditorPool([{ ...createNoEditorHost(), kind: "embedded", editCapabilities: EMBEDDED_EDIT_CAPABILITIES }], limits, pino({ level: "silent" }));
  const info = new ServerInfoAnswer({ pool, plugins: { list: () => [] }, files: { policy: { roots: null } }, cluster: undefined }, "embedded").current();
  const text = JSON.stringify(info);
  const frames = {
    "as a string": (id) => `{"id":${JSON.stringify(id)},"ok":true,"result":${text}}`,
    "from kept bytes": (id) => keptAnswerFrame(id, info),
  };
  let frame = frames["as a string"];
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1", perMessageDeflate: false });
  wss.on("connection", (ws) => ws.on("message", (data) => ws.send(frame(Number(String(data))))));
  await new Promise((resolve) => wss.once("listening", resolve));
  const client = new WebSocket(`ws://127.0.0.1:${wss.address().port}`, { perMessageDeflate: false });
  await new Promise((resolve) => client.once("open", resolve));
  const round = (name) =>
    new Promise((resolve) => {
      frame = frames[name];
      let n = 0;
      const c0 = process.cpuUsage();
      const next = () => {
        if (++n < MESSAGES) return client.send(String(n));
        client.off("message", next);
        const c = process.cpuUsage(c0);
        resolve((c.user + c.system) / MESSAGES);
      };
      client.on("message", next);
      client.send("0");
    });
  const names = Object.keys(frames);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (const name of names) await round(name); // warm-up: compiled before it counts
  const rounds = Math.max(5, ROUNDS);
  for (let r = 0; r < rounds; r++) for (const name of r % 2 === 0 ? names : [...names].reverse()) samples[name].push(await round(name));
  client.close();
  await new Promise((resolve) => wss.close(resolve));
  const bytes = frames["from kept bytes"](1).length;
  print(`A ${bytes}-byte getServerInfo answer written by ws to a loopback client in this process, CPU per message (both ends), median of ${rounds} alternating rounds of ${MESSAGES}`);
  const base = median(samples["as a string"]);
  return names.map((name) => {
    const us = median(samples[name]);
    print(`  ${name.padEnd(16)} ${us.toFixed(2)} µs`);
    return { benchmark: `kept-answer: ${name}`, bridge: `${us.toFixed(2)} µs`, baseline: `${base.toFixed(2)} µs`, ratio: `${(us / base).toFixed(2)}x`, target: "(info)", result: "-", value: us, higherIsBetter: false };
  });
}

await printIfMain(import.meta, run);
