// Embedded editor: making a text layer of a 200-word paragraph, through the host op directly (no transport),
// beside sharp rendering the same paragraph from Pango markup (its `text` input: libvips over Pango, HarfBuzz and
// FreeType) in the same rounds.
//
//   create: layer:create {kind: "text"}, DejaVu Sans 24 pt at 72 ppi, wrapped in a 1600 px box
//           vs  sharp({ text: { text: <span foreground>…</span>, font: "DejaVu Sans 24", width: 1600, rgba } })
//
// The first of each (fonts found, HarfBuzz's WebAssembly compiled; Pango's font map) is left out of the figures.
import sharp from "sharp";
import { createEmbeddedHost } from "../dist/index.js";
import { fmtMs, latencyRow, log, max, median, min, printIfMain, ROUNDS } from "./_lib.js";

const WORDS = Number(process.env.BENCH_TEXT_WORDS ?? 200);
const BOX = { x: 100, y: 100, width: 1600, height: 1300 };
const VOCABULARY = "the quick brown fox jumps over a lazy dog while seven bold wizards quietly vex jumping zebras in fog".split(" ");
const paragraph = Array.from({ length: WORDS }, (_, i) => VOCABULARY[(i * 7) % VOCABULARY.length]).join(" ");

const ctx = { signal: new AbortController().signal, caller: "bench" };

const spec = { text: paragraph, font: "DejaVu Sans", size: 24, color: [20, 40, 60, 255], box: BOX, alignment: "left", tracking: 0, antiAlias: "smooth" };

async function pango() {
  const markup = `<span foreground="#14283c">${paragraph}</span>`;
  return sharp({ text: { text: markup, font: "DejaVu Sans 24", width: BOX.width, rgba: true, dpi: 72 } }).raw().toBuffer({ resolveWithObject: true });
}

export async function run() {
  const host = createEmbeddedHost({ sample: false });
  await host.connect();
  try {
    const doc = await host.createDocument(ctx, { width: 1800, height: 1500, name: "bench", background: [255, 255, 255, 255] });
    const create = async () => {
      const t0 = performance.now();
      const { layerId } = await host.edit(ctx, { documentId: doc.id, edit: { op: "layer:create", kind: "text", name: "Paragraph", text: spec, place: { to: "top" } } });
      const took = performance.now() - t0;
      await host.edit(ctx, { documentId: doc.id, edit: { op: "layer:delete", layerId } });
      return took;
    };
    const baseline = async () => {
      const t0 = performance.now();
      await pango();
      return performance.now() - t0;
    };
    await create();
    await baseline();
    const ours = [];
    const theirs = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        ours.push(await create());
        theirs.push(await baseline());
      } else {
        theirs.push(await baseline());
        ours.push(await create());
      }
    }
    const tree = await host.getDocumentTree(ctx, doc.id);
    log(`  ${WORDS} words: engine [${fmtMs(min(ours))}..${fmtMs(max(ours))}], sharp/Pango [${fmtMs(min(theirs))}..${fmtMs(max(theirs))}] (${tree.layers.length} layer left)`);
    return [latencyRow(`embedded layer:create text, ${WORDS}-word paragraph in a box vs sharp text (Pango markup)`, median(ours), median(theirs))];
  } finally {
    await host.close();
  }
}

await printIfMain(import.meta, run);
