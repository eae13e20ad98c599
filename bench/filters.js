// Embedded editor: `filter:apply` gaussian blur, through the host op directly (no transport), beside sharp's blur of
// the same raw pixels in the same process.
//
//   gaussian: edit filter:apply {gaussianBlur, radius (σ) 10} on a 2000×1500 half-transparent layer   vs  sharp blur(σ 10) of its raw pixels
//
// The editor's side is the whole edit: the layer copied over the canvas, libvips's blur (float precision, the mask
// kept down to 0.001 of its peak, premultiplied), the result cropped to its pixels and put in place. sharp's side is
// its default blur (integer precision, mask cut at 0.2), the cheapest call a user of sharp would make.
// Each run edits a fresh `document:duplicate` of the document (made and closed outside the timing).
import sharp from "sharp";
import { createEmbeddedHost } from "../dist/index.js";
import { BENCH_CTX, editOnCopy, fmtMs, gradientLayer, latencyRow, log, max, median, medianDuration, min, printIfMain, ROUNDS } from "./_lib.js";

const WIDTH = 2000;
const HEIGHT = 1500;
const SIGMA = 10;
const REPEATS = Number(process.env.BENCH_FILTER_REPEATS ?? 1);

const ctx = BENCH_CTX;

export async function run() {
  const rows = [];
  const host = createEmbeddedHost({ sample: false });
  await host.connect();
  try {
    const layer = gradientLayer(WIDTH, HEIGHT, 5);
    const doc = await host.createDocument(ctx, { width: WIDTH, height: HEIGHT, name: "bench", background: [200, 200, 200, 255] });
    const bytes = await sharp(Buffer.from(layer.data.buffer), { raw: { width: WIDTH, height: HEIGHT, channels: 4 } }).png({ compressionLevel: 0 }).toBuffer();
    const layerId = await host.importLayer(ctx, {
      documentId: doc.id,
      image: { bytes, format: "png", width: WIDTH, height: HEIGHT },
      size: { width: WIDTH, height: HEIGHT },
      position: { x: 0, y: 0 },
      name: "L",
      aboveLayerId: null,
    });
    const edit = { op: "filter:apply", layerId, filter: { type: "gaussianBlur", radius: SIGMA } };
    const sharpBlur = () => sharp(Buffer.from(layer.data.buffer), { raw: { width: WIDTH, height: HEIGHT, channels: 4 } }).blur(SIGMA).raw().toBuffer();
    const bridge = [];
    const baseline = [];
    for (let round = 0; round < ROUNDS; round++) {
      const hostRun = async () => {
        const samples = [];
        for (let i = 0; i < REPEATS; i++) samples.push(await editOnCopy(host, doc.id, edit));
        bridge.push(median(samples));
      };
      const sharpRun = async () => baseline.push(await medianDuration(REPEATS, sharpBlur));
      if (round % 2 === 0) {
        await hostRun();
        await sharpRun();
      } else {
        await sharpRun();
        await hostRun();
      }
    }
    log(`  gaussian σ ${SIGMA} ${WIDTH}×${HEIGHT}: host [${fmtMs(min(bridge))}..${fmtMs(max(bridge))}], sharp [${fmtMs(min(baseline))}..${fmtMs(max(baseline))}]`);
    rows.push(latencyRow(`embedded filter:apply gaussianBlur σ ${SIGMA} ${WIDTH}x${HEIGHT} (host op)`, median(bridge), median(baseline)));
  } finally {
    await host.close();
  }
  return rows;
}

await printIfMain(import.meta, run);
