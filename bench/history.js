// Embedded editor: what an undo costs, through the host ops directly (no transport), beside the edit it undoes.
//
//   undo:  history undo of a full-canvas layer:fill of a 4000×3000 layer   vs  that layer:fill itself
//   bytes: what the history holds for that one step (memoryUse().historyBytes) vs the layer's own pixels
//
// Each round fills the layer (timed: the baseline), reads what the history holds, then undoes the fill (timed).
import { createEmbeddedHost } from "../dist/index.js";
import { fmtBytes, fmtMs, latencyRow, log, max, median, min, printIfMain, ROUNDS } from "./_lib.js";

const WIDTH = Number(process.env.BENCH_HISTORY_WIDTH ?? 4000);
const HEIGHT = Number(process.env.BENCH_HISTORY_HEIGHT ?? 3000);

const ctx = { signal: new AbortController().signal, caller: "bench" };

export async function run() {
  const host = createEmbeddedHost({ sample: false });
  await host.connect();
  try {
    const doc = await host.createDocument(ctx, { width: WIDTH, height: HEIGHT, name: "bench", background: [200, 200, 200, 255] });
    const layerId = (await host.getDocumentTree(ctx, doc.id)).layers[0].id;
    const fills = [];
    const undos = [];
    const held = [];
    for (let round = 0; round < ROUNDS; round++) {
      const edit = { op: "layer:fill", layerId, color: [round * 40, 100, 50, 255], opacity: 100, blendMode: "normal" };
      let t0 = performance.now();
      await host.edit(ctx, { documentId: doc.id, edit });
      fills.push(performance.now() - t0);
      held.push(host.memoryUse().historyBytes);
      t0 = performance.now();
      await host.history(ctx, { op: "undo", documentId: doc.id, steps: 1 });
      undos.push(performance.now() - t0);
    }
    const layerBytes = WIDTH * HEIGHT * 4;
    log(`  fill ${WIDTH}×${HEIGHT} [${fmtMs(min(fills))}..${fmtMs(max(fills))}], undo [${fmtMs(min(undos))}..${fmtMs(max(undos))}]`);
    log(`  held by the history after one fill: ${fmtBytes(median(held))} (the layer: ${fmtBytes(layerBytes)})`);
    const bytes = {
      benchmark: `embedded history bytes held for one full-canvas fill ${WIDTH}x${HEIGHT} vs the layer`,
      bridge: fmtBytes(median(held)),
      baseline: fmtBytes(layerBytes),
      ratio: `${(median(held) / layerBytes).toFixed(2)}x`,
      target: "(info)",
      result: "-",
      value: median(held),
      higherIsBetter: false,
    };
    return [latencyRow(`embedded history:undo of a full-canvas fill ${WIDTH}x${HEIGHT} vs the fill (host op)`, median(undos), median(fills)), bytes];
  } finally {
    await host.close();
  }
}

await printIfMain(import.meta, run);
