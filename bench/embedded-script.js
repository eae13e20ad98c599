// Embedded editor scripts: what a `jsx:run` costs beyond QuickJS itself.
//
//   host op:   host.runScript("undefined") (fresh capped module + editor API prelude + JSON result)
//   WS:        `jsx:run {script: "undefined"}` round trip through the bridge
//   baseline:  the least a safe run can cost: a fresh QuickJS module over its own capped WebAssembly.Memory,
//              runtime + context, evalCode("undefined"), dispose (module compiled once, as the host does)
//   API calls: 1,000 editor-API reads in one script, per call (info, vs the same loop over a plain function)
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import * as releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import { createBridge, createEmbeddedHost } from "../dist/index.js";
import { closeAll, fmtMs, latencyRow, log, max, median, medianDuration, min, now, openSocket, printIfMain, request, ROUNDS } from "./_lib.js";

const CALLS_PER_ROUND = Number(process.env.BENCH_SCRIPT_CALLS ?? 30);
const API_CALLS = 1000;

const ctx = { signal: new AbortController().signal, caller: "bench" };
const RELEASE_SYNC = releaseSync.default?.type === "sync" ? releaseSync.default : releaseSync.default.default;

async function bareRunner() {
  const path = createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
  const wasmModule = await WebAssembly.compile(await readFile(path));
  return async (code) => {
    const wasmMemory = new WebAssembly.Memory({ initial: 256, maximum: 1024 });
    const mod = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule, wasmMemory }));
    const rt = mod.newRuntime();
    const vm = rt.newContext();
    const result = vm.evalCode(code);
    const value = vm.dump(vm.unwrapResult(result));
    vm.dispose();
    rt.dispose();
    return value;
  };
}



export async function run() {
  const bare = await bareRunner();
  const host = createEmbeddedHost();
  await host.connect();
  const bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 } });
  await bridge.start();
  const ws = await openSocket(bridge.wsUrl ?? `ws://127.0.0.1:${bridge.port}/ws`);
  let id = 0;
  const rows = [];
  try {
    await host.runScript(ctx, { source: "undefined", language: "javascript", params: undefined, timeoutMs: 5000 }); // compile + warm up
    await bare("undefined");
    const hostOp = [];
    const viaWs = [];
    const baseline = [];
    const apiCalls = [];
    const plainCalls = [];
    const loop = (read) => `let n = 0; const doc = app.activeDocument; for (let i = 0; i < ${API_CALLS}; i++) n += ${read}.length; n`;
    for (let round = 0; round < ROUNDS; round++) {
      baseline.push(await medianDuration(CALLS_PER_ROUND, () => bare("undefined")));
      hostOp.push(await medianDuration(CALLS_PER_ROUND, () => host.runScript(ctx, { source: "undefined", language: "javascript", params: undefined, timeoutMs: 5000 })));
      viaWs.push(
        await medianDuration(CALLS_PER_ROUND, async () => {
          const reply = await request(ws, `s${++id}`, "jsx:run", { script: "undefined" });
          if (!reply.ok) throw new Error(JSON.stringify(reply.error));
        }),
      );
      const t0 = now();
      await host.runScript(ctx, { source: loop("doc.name"), language: "javascript", params: undefined, timeoutMs: 30_000 });
      const t1 = now();
      await host.runScript(ctx, { source: `const f = () => "Sample"; ${loop("f()").replace("const doc = app.activeDocument; ", "")}`, language: "javascript", params: undefined, timeoutMs: 30_000 });
      const t2 = now();
      apiCalls.push((t1 - t0) / API_CALLS);
      plainCalls.push((t2 - t1) / API_CALLS);
    }
    log(`  script run: host [${fmtMs(min(hostOp))}..${fmtMs(max(hostOp))}], bare QuickJS [${fmtMs(min(baseline))}..${fmtMs(max(baseline))}]`);
    rows.push(latencyRow("embedded jsx:run empty script (host op)", median(hostOp), median(baseline)));
    rows.push(latencyRow("embedded jsx:run empty script (WS round trip)", median(viaWs), median(baseline)));
    rows.push(latencyRow(`embedded script API call (per call, ${API_CALLS} in one run)`, median(apiCalls), median(plainCalls)));
  } finally {
    await closeAll([ws]);
    await bridge.close();
    await host.close();
  }
  return rows;
}

await printIfMain(import.meta, run);
