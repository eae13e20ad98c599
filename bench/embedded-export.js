// Embedded editor: document export and layer preview, measured through the host op directly (no transport),
// beside sharp doing the same work on the same layers in the same process.
//
//   export:  host.exportDocumentImage                                    vs  sharp composite([...layers]) + encode
//            "normal": all layers normal → libvips composites inside the encode pipeline (`encodeDocument`)
//            "modes":  layers B/C multiply/screen → the host's own JS compositor, then sharp encodes
//   preview: host.exportLayerImage of the active layer at ≤ 300 px (PNG)      vs  sharp raw → resize(300) → PNG
//   event:   selection of a layer → `layer:previewChange` delivered (info; includes the preview debounce)
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initializeCanvas, writePsdBuffer } from "ag-psd";
import sharp from "sharp";
import { createEmbeddedHost } from "../dist/index.js";
import { PREVIEW_DEBOUNCE_MS } from "../dist/hosts/embedded/events.js";
import { previewSize } from "../dist/hosts/_internal/target-size.js";
import { fmtMs, fmtRatio, gradientLayer, latencyRow, log, max, median, medianDuration, min, now, printIfMain, ROUNDS } from "./_lib.js";

const WIDTH = Number(process.env.BENCH_EXPORT_WIDTH ?? 2000);
const HEIGHT = Number(process.env.BENCH_EXPORT_HEIGHT ?? 1500);
const REPEATS = Number(process.env.BENCH_EXPORT_REPEATS ?? 3);
const EXPORT_TARGET = 1.3;

const ctx = { signal: new AbortController().signal, caller: "bench" };

/** The layers both sides composite: an opaque background and three half-transparent offset layers. */
function layersOf(modes) {
  const background = { width: WIDTH, height: HEIGHT, data: new Uint8ClampedArray(WIDTH * HEIGHT * 4).fill(200) };
  const w = Math.round(WIDTH * 0.6);
  const h = Math.round(HEIGHT * 0.6);
  return [
    { name: "Background", left: 0, top: 0, image: background },
    { name: "A", left: 0, top: 0, image: gradientLayer(w, h, 1) },
    { name: "B", left: WIDTH - w, top: 0, image: gradientLayer(w, h, 2), blendMode: modes ? "multiply" : "normal" },
    { name: "C", left: Math.round((WIDTH - w) / 2), top: HEIGHT - h, image: gradientLayer(w, h, 3), blendMode: modes ? "screen" : "normal" },
  ];
}

async function writeFixture(dir, layers, name) {
  initializeCanvas(
    (width, height) => ({ width, height }),
    (width, height) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) }),
  );
  const path = join(dir, `${name}.psd`);
  const children = layers.map((l) => ({ name: l.name, left: l.left, top: l.top, imageData: l.image, blendMode: l.blendMode ?? "normal" }));
  await writeFile(path, writePsdBuffer({ width: WIDTH, height: HEIGHT, children }));
  return path;
}

async function sharpExport(layers, format) {
  const [base, ...rest] = layers;
  const raw = (l) => ({
    input: Buffer.from(l.image.data.buffer),
    raw: { width: l.image.width, height: l.image.height, channels: 4 },
    left: l.left,
    top: l.top,
    blend: l.blendMode === "normal" || l.blendMode === undefined ? "over" : l.blendMode,
  });
  const composited = await sharp(Buffer.from(base.image.data.buffer), { raw: { width: WIDTH, height: HEIGHT, channels: 4 } })
    .composite(rest.map(raw))
    .raw()
    .toBuffer();
  let image = sharp(composited, { raw: { width: WIDTH, height: HEIGHT, channels: 4 } });
  image = format === "png" ? image.png() : image.flatten({ background: "#ffffff" }).jpeg();
  return image.toBuffer();
}



export async function run() {
  const dir = await mkdtemp(join(tmpdir(), "bench-export-"));
  const rows = [];
  let host;
  try {
    for (const variant of ["normal", "modes"]) {
      const layers = layersOf(variant === "modes");
      await host?.close();
      host = createEmbeddedHost({ open: await writeFixture(dir, layers, variant) });
      await host.connect();
      for (const format of ["png", "jpeg"]) {
        const bridge = [];
        const baseline = [];
        for (let round = 0; round < ROUNDS; round++) {
          const size = { width: WIDTH, height: HEIGHT };
          const hostRun = () => medianDuration(REPEATS, () => host.exportDocumentImage(ctx, { documentId: undefined, format, size }));
          const sharpRun = () => medianDuration(REPEATS, () => sharpExport(layers, format));
          if (round % 2 === 0) {
            bridge.push(await hostRun());
            baseline.push(await sharpRun());
          } else {
            baseline.push(await sharpRun());
            bridge.push(await hostRun());
          }
        }
        log(
          `  export ${format} ${WIDTH}×${HEIGHT}, 4 layers (${variant}): host [${fmtMs(min(bridge))}..${fmtMs(max(bridge))}], ` +
            `sharp [${fmtMs(min(baseline))}..${fmtMs(max(baseline))}]`,
        );
        rows.push(latencyRow(`embedded export ${format} ${WIDTH}x${HEIGHT} ${variant} (host op)`, median(bridge), median(baseline), EXPORT_TARGET));
      }
    }
    // Preview of the active layer (C, the top one, 60 % of the canvas), ≤ 300 px PNG: what `layer:getCurrentPreview`
    // asks the editor for (the methods read the tree and size it; this times the export itself).
    const layerA = layersOf(true)[3].image;
    const tree = await host.getDocumentTree(ctx, undefined);
    const active = tree.layers.find((l) => tree.document.activeLayerIds.includes(l.id));
    const preview = { documentId: tree.document.id, layerId: active.id, format: "png", size: previewSize(active.rect.width, active.rect.height) };
    const previewBridge = [];
    const previewBase = [];
    for (let round = 0; round < ROUNDS; round++) {
      previewBridge.push(await medianDuration(REPEATS, () => host.exportLayerImage(ctx, preview)));
      previewBase.push(
        await medianDuration(REPEATS, () =>
          sharp(Buffer.from(layerA.data.buffer), { raw: { width: layerA.width, height: layerA.height, channels: 4 } })
            .resize(300, 300, { fit: "inside" })
            .png()
            .toBuffer(),
        ),
      );
    }
    rows.push(latencyRow("embedded layer preview 300px (host op)", median(previewBridge), median(previewBase)));

    // Edit → `layer:previewChange` delivered, through the host's event stream (includes the debounce).
    const latencies = [];
    const ids = [2, 3];
    for (let i = 0; i < ROUNDS * 2; i++) {
      const t0 = now();
      const received = new Promise((resolve) => {
        const sub = host.events("layer:previewChange").subscribe(() => {
          sub.unsubscribe();
          resolve(now() - t0);
        });
      });
      await host.selectLayers(ctx, { documentId: tree.document.id, ids: [ids[i % 2]] });
      latencies.push(await received);
    }
    rows.push({
      benchmark: `embedded edit → layer:previewChange (debounce ${PREVIEW_DEBOUNCE_MS} ms)`,
      bridge: fmtMs(median(latencies)),
      baseline: fmtMs(median(previewBase)),
      ratio: fmtRatio(median(latencies) / median(previewBase)),
      target: "(info)",
      result: "-",
    });
  } finally {
    await host?.close();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

await printIfMain(import.meta, run);
