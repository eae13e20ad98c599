// Embedded editor: the geometry edits, through the host op directly (no transport), beside sharp doing the same
// work on the same raw layers in the same process.
//
//   resize:    edit document:resize of a 4000×3000 4-layer document to half size, bicubic     vs  sharp resize of the 4 layers
//   transform: edit layer:transform turning a 2000×1500 layer 30° (bicubic)                  vs  sharp rotate(30) of its raw pixels
//
// Each run edits a fresh `document:duplicate` of the document (it shares the layers' buffers), closed afterwards.
import sharp from "sharp";
import { createEmbeddedHost } from "../dist/index.js";
import { BENCH_CTX, editOnCopy, fmtMs, gradientLayer, latencyRow, log, max, median, medianDuration, min, printIfMain, ROUNDS } from "./_lib.js";

const RESIZE_WIDTH = Number(process.env.BENCH_EDIT_WIDTH ?? 4000);
const RESIZE_HEIGHT = Number(process.env.BENCH_EDIT_HEIGHT ?? 3000);
const TURN_WIDTH = 2000;
const TURN_HEIGHT = 1500;
const ANGLE = 30;
const REPEATS = Number(process.env.BENCH_EDIT_REPEATS ?? 1);

const ctx = BENCH_CTX;

/** A document of `layers` (raw RGBA, each at 0, 0) on an opaque background, built through the host's own operations. */
async function documentOf(host, width, height, layers) {
  const doc = await host.createDocument(ctx, { width, height, name: "bench", background: [200, 200, 200, 255] });
  const ids = [];
  for (const [i, layer] of layers.entries()) {
    const bytes = await sharp(Buffer.from(layer.data.buffer), { raw: { width: layer.width, height: layer.height, channels: 4 } }).png({ compressionLevel: 0 }).toBuffer();
    const image = { bytes, format: "png", width: layer.width, height: layer.height };
    ids.push(
      await host.importLayer(ctx, { documentId: doc.id, image, size: { width: layer.width, height: layer.height }, position: { x: 0, y: 0 }, name: `L${i}`, aboveLayerId: null }),
    );
  }
  return { documentId: doc.id, layerIds: ids };
}

/** Median time of `edit` over `REPEATS` fresh copies of the document (each made and closed outside the timing). */
async function onCopies(host, documentId, edit) {
  const samples = [];
  for (let i = 0; i < REPEATS; i++) samples.push(await editOnCopy(host, documentId, edit));
  return median(samples);
}

/** Alternates host and sharp runs over the rounds; medians of each. */
async function rounds(hostRun, sharpRun) {
  const bridge = [];
  const baseline = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      bridge.push(await hostRun());
      baseline.push(await sharpRun());
    } else {
      baseline.push(await sharpRun());
      bridge.push(await hostRun());
    }
  }
  return { bridge, baseline };
}

export async function run() {
  const rows = [];
  const host = createEmbeddedHost({ sample: false });
  await host.connect();
  try {
    // document:resize: the background and 3 full-size half-transparent layers, to half size.
    const layers = [1, 2, 3].map((seed) => gradientLayer(RESIZE_WIDTH, RESIZE_HEIGHT, seed));
    const big = await documentOf(host, RESIZE_WIDTH, RESIZE_HEIGHT, layers);
    const background = { width: RESIZE_WIDTH, height: RESIZE_HEIGHT, data: new Uint8ClampedArray(RESIZE_WIDTH * RESIZE_HEIGHT * 4).fill(200) };
    const half = { width: RESIZE_WIDTH / 2, height: RESIZE_HEIGHT / 2 };
    const resize = { op: "document:resize", ...half, resolution: 72, resample: "bicubic" };
    const sharpResize = async () => {
      for (const layer of [background, ...layers]) {
        await sharp(Buffer.from(layer.data.buffer), { raw: { width: layer.width, height: layer.height, channels: 4 } })
          .resize(half.width, half.height, { fit: "fill", kernel: "cubic" })
          .raw()
          .toBuffer();
      }
    };
    const resized = await rounds(
      () => onCopies(host, big.documentId, resize),
      () => medianDuration(REPEATS, sharpResize),
    );
    log(`  resize ${RESIZE_WIDTH}×${RESIZE_HEIGHT} ×4 → ½: host [${fmtMs(min(resized.bridge))}..${fmtMs(max(resized.bridge))}], sharp [${fmtMs(min(resized.baseline))}..${fmtMs(max(resized.baseline))}]`);
    rows.push(latencyRow(`embedded document:resize ${RESIZE_WIDTH}x${RESIZE_HEIGHT} 4 layers → 50% (host op)`, median(resized.bridge), median(resized.baseline)));
    await host.closeDocument(ctx, big.documentId);

    // layer:transform: one 2000×1500 layer turned 30° about its centre.
    const layer = gradientLayer(TURN_WIDTH, TURN_HEIGHT, 4);
    const small = await documentOf(host, TURN_WIDTH, TURN_HEIGHT, [layer]);
    const turn = {
      op: "layer:transform",
      layerId: small.layerIds[0],
      dx: 0,
      dy: 0,
      scaleX: 100,
      scaleY: 100,
      angle: ANGLE,
      flip: "none",
      anchor: { x: TURN_WIDTH / 2, y: TURN_HEIGHT / 2 },
      resample: "bicubic",
    };
    const sharpTurn = () =>
      sharp(Buffer.from(layer.data.buffer), { raw: { width: TURN_WIDTH, height: TURN_HEIGHT, channels: 4 } })
        .rotate(ANGLE, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
        .raw()
        .toBuffer();
    const turned = await rounds(
      () => onCopies(host, small.documentId, turn),
      () => medianDuration(REPEATS, sharpTurn),
    );
    log(`  transform ${TURN_WIDTH}×${TURN_HEIGHT} ${ANGLE}°: host [${fmtMs(min(turned.bridge))}..${fmtMs(max(turned.bridge))}], sharp [${fmtMs(min(turned.baseline))}..${fmtMs(max(turned.baseline))}]`);
    rows.push(latencyRow(`embedded layer:transform ${TURN_WIDTH}x${TURN_HEIGHT} rotate ${ANGLE}° (host op)`, median(turned.bridge), median(turned.baseline)));
  } finally {
    await host.close();
  }
  return rows;
}

await printIfMain(import.meta, run);
