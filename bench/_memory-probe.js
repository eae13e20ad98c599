// Preloaded into a server process by the process benches (`node --expose-gc --import bench/_memory-probe.js …`):
// on SIGUSR2 it collects garbage (a few passes, a turn apart) and writes `process.memoryUsage()` to stderr as one
// line `#memory {json}`, which `_procs.js` reads. Memory after a collection does not depend on when V8 last ran one.
import { setImmediate as turn } from "node:timers/promises";

if (typeof globalThis.gc === "function") {
  process.on("SIGUSR2", async () => {
    for (let i = 0; i < 4; i++) {
      globalThis.gc();
      await turn();
    }
    process.stderr.write(`\n#memory ${JSON.stringify(process.memoryUsage())}\n`);
  });
}
