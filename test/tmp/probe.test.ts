import { it } from "vitest";
import { gimp } from "../conformance/editors/gimp.js";
import { embedded } from "../conformance/editors/embedded.js";
import { wsTransport } from "../conformance/_transports.js";
import { keepForSuite } from "../helpers/bridge.js";

for (const editor of [embedded, gimp]) it(`probe ${editor.label}`, async () => {
  const times: string[] = [];
  for (let i = 0; i < 8; i++) {
    const t0 = performance.now();
    const h = await editor.start();
    const t1 = performance.now();
    const t = await wsTransport(h);
    const t2 = performance.now();
    await t.call("document:current");
    const t3 = performance.now();
    await t.call("document:layers");
    const t4 = performance.now();
    const close = keepForSuite(h);
    await close();
    const t5 = performance.now();
    times.push([t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4].map((x) => x.toFixed(0)).join("/"));
  }
  console.log(editor.label, "start/ws/current/layers/close", times.join("  "));
}, 300_000);
