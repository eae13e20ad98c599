// What each per-call guarantee costs on the dispatcher's side of one WS `getServerInfo`, in-process, without the
// socket: `Dispatcher.respond` as a WebSocket session calls it (a logical client's in-flight count and request
// registry, the frame-rate bucket, params validated, the call counted in the metrics, the answer serialized), against
// the same with one guarantee stubbed out at a time. CPU time per call (`process.cpuUsage`), median of alternating
// rounds. The editor is a stand-in whose summary carries the embedded editor's edit capabilities, so the answer has
// the bytes a real bridge's has, and the answer is the bridge's own (`ServerInfoAnswer`: kept with its JSON text
// while nothing in it changes).
//
//   node bench/per-call.js          (after `npm run build`)
//
// Environment: BENCH_PER_CALL_CALLS (100000 a round), BENCH_ROUNDS (5; at least 3 here).
import { pino } from "pino";
import { Dispatcher } from "../dist/calls/dispatcher.js";
import { EditorPool } from "../dist/actors/editors/pool.js";
import { RequestRegistry } from "../dist/actors/clients/requests.js";
import { FrameRate } from "../dist/actors/clients/frame-rate.js";
import { EMBEDDED_EDIT_CAPABILITIES } from "../dist/hosts/embedded/edits/index.js";
import { createNoEditorHost } from "../dist/hosts/none.js";
import { resolveLimits } from "../dist/limits.js";
import { methodTable } from "../dist/methods/table.js";
import { ServerInfoAnswer } from "../dist/bridge/server-info.js";
import { log as print, median, printIfMain, ROUNDS } from "./_lib.js";

const CALLS = Number(process.env.BENCH_PER_CALL_CALLS ?? 100_000);

export async function run() {
  const limits = resolveLimits({}, 1);
  const log = pino({ level: "silent" });
  const pool = new EditorPool([{ ...createNoEditorHost(), kind: "embedded", editCapabilities: EMBEDDED_EDIT_CAPABILITIES }], limits, log);
  // What `createBridge` answers: its own kept answer, over a bridge with no plugins and no files roots.
  const answer = new ServerInfoAnswer({ pool, plugins: { list: () => [] }, files: { policy: { roots: null } }, cluster: undefined }, "embedded");
  const full = () => answer.current();
  const small = () => ({ name: "bare", version: "1.0.0" });
  let serverInfo = full;
  const table = methodTable();
  const dispatcher = new Dispatcher({ methods: table, pool, services: { limits, serverInfo: () => serverInfo() }, log });
  const registry = new RequestRegistry();
  // The logical client's side of a call as `LogicalClient.beginCall` does it: its own in-flight count against the
  // limit, and the request registered for `request:cancel`.
  const client = {
    running: 0,
    requests: registry,
    logName: "client:bench",
    editorId: undefined,
    deliverNotice() {},
    beginCall(id) {
      if (this.running >= limits.maxInFlightPerClient) throw new Error("bench: in-flight limit reached");
      this.running++;
      const registered = id === undefined ? undefined : this.requests.begin(id);
      return {
        control: registered?.control ?? {},
        end: () => {
          registered?.end();
          this.running--;
        },
      };
    },
  };
  const caller = { lane: "bench", client, endpoint: "root", editorId: undefined };
  const method = table.get("getServerInfo");
  const params = method.params;
  const record = dispatcher.record;
  let rate = new FrameRate({ ...limits, clientFramesPerSecond: 1e12, clientFrameBurst: 1e12 });
  const admit = () => rate.admit();
  let admitFrame = admit;
  const variants = {
    "every guarantee": () => {},
    "no frame-rate bucket": () => (admitFrame = () => {}),
    "no request registry": () => (client.requests = { begin: () => ({ control: {}, end() {} }) }),
    "no call metrics": () => (dispatcher.record = () => {}),
    "no params validation": () => (method.params = { safeParse: (value) => ({ success: true, data: value }) }),
    "a small fixed answer": () => (serverInfo = small),
  };
  const reset = () => {
    admitFrame = admit;
    client.requests = registry;
    dispatcher.record = record;
    method.params = params;
    serverInfo = full;
    rate = new FrameRate({ ...limits, clientFramesPerSecond: 1e12, clientFrameBurst: 1e12 });
  };
  const once = async () => {
    const c0 = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) {
      admitFrame();
      await dispatcher.respond(caller, i, "getServerInfo", undefined);
    }
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / CALLS;
  };
  const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (const set of Object.values(variants)) {
    reset();
    set();
    await once(); // warm-up: compiled before it counts
  }
  const rounds = Math.max(3, ROUNDS);
  for (let round = 0; round < rounds; round++) {
    const names = Object.keys(variants);
    if (round % 2 === 1) names.reverse();
    for (const name of names) {
      reset();
      variants[name]();
      samples[name].push(await once());
    }
  }
  reset();
  const all = median(samples["every guarantee"]);
  const answerBytes = String(await dispatcher.respond(caller, 0, "getServerInfo", undefined)).length;
  print(`Dispatcher side of one WS getServerInfo (${answerBytes}-byte answer), CPU per call, median of ${rounds} alternating rounds of ${CALLS} calls`);
  return Object.entries(samples).map(([name, values]) => {
    const us = median(values);
    const cost = name === "every guarantee" ? "" : `: the guarantee costs ${(all - us).toFixed(2)} µs`;
    print(`  ${name.padEnd(22)} ${us.toFixed(2)} µs${cost}`);
    return { benchmark: `per-call: ${name}`, bridge: `${us.toFixed(2)} µs`, baseline: `${all.toFixed(2)} µs`, ratio: `${(us / all).toFixed(2)}x`, target: "(info)", result: "-", value: us, higherIsBetter: false };
  });
}

await printIfMain(import.meta, run);
