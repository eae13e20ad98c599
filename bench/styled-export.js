// Embedded editor: what adjustment layers and layer effects add to an export, through the host op directly (no
// transport), beside the same document without them in the same process.
//
//   styled:  exportDocumentImage PNG of a 4000×3000 document (background + 3 half-transparent layers) with 5 adjustment
//            layers (brightness/contrast, levels, curves, hue/saturation, colour balance) above them and 3 layer
//            effects (a drop shadow, an outer glow and a stroke, one per layer)
//   plain:   the same export of the same layers without the adjustment layers and effects
//
// Both documents are built once, outside the timing, with the same edits a client would send (settings resolved as the
// methods resolve them); rounds alternate which side goes first.
import { createEmbeddedHost } from "../dist/index.js";
import { resolveAdjustment } from "../dist/methods/_internal/adjustments.js";
import { resolveEffects } from "../dist/methods/_internal/effects.js";
import sharp from "sharp";
import { BENCH_CTX, fmtMs, gradientLayer, latencyRow, log, max, median, min, printIfMain, ROUNDS } from "./_lib.js";

const WIDTH = Number(process.env.BENCH_STYLED_WIDTH ?? 4000);
const HEIGHT = Number(process.env.BENCH_STYLED_HEIGHT ?? 3000);
/** The layers under the adjustments: each about half the canvas, offset so they overlap. */
const LAYERS = 3;

const ADJUSTMENTS = [
  { type: "brightnessContrast", brightness: 20, contrast: 15 },
  { type: "levels", rgb: { inputBlack: 10, inputWhite: 240, gamma: 1.2 } },
  { type: "curves", rgb: [{ x: 0, y: 0 }, { x: 64, y: 48 }, { x: 192, y: 210 }, { x: 255, y: 255 }] },
  { type: "hueSaturation", hue: 15, saturation: 20 },
  { type: "colorBalance", midtones: { cyanRed: 10, magentaGreen: -5, yellowBlue: 15 } },
];
const EFFECTS = [
  { dropShadow: { distance: 20, size: 25, opacity: 60 } },
  { outerGlow: { size: 30, color: "#ffdd66" } },
  { stroke: { size: 8, color: "#223344", position: "outside" } },
];

const ctx = BENCH_CTX;

async function build(host, styled) {
  const doc = await host.createDocument(ctx, { width: WIDTH, height: HEIGHT, name: styled ? "styled" : "plain", background: [230, 230, 230, 255] });
  const layerIds = [];
  const w = Math.round(WIDTH / 2);
  const h = Math.round(HEIGHT / 2);
  for (let i = 0; i < LAYERS; i++) {
    const layer = gradientLayer(w, h, i + 1);
    const bytes = await sharp(Buffer.from(layer.data.buffer), { raw: { width: w, height: h, channels: 4 } }).png({ compressionLevel: 0 }).toBuffer();
    layerIds.push(
      await host.importLayer(ctx, {
        documentId: doc.id,
        image: { bytes, format: "png", width: w, height: h },
        size: { width: w, height: h },
        position: { x: Math.round((WIDTH / 4) * i * 0.8 + WIDTH / 10), y: Math.round((HEIGHT / 4) * i * 0.8 + HEIGHT / 10) },
        name: `L${i + 1}`,
        aboveLayerId: null,
      }),
    );
  }
  if (styled) {
    for (const [i, effects] of EFFECTS.entries()) {
      const resolved = resolveEffects(effects, undefined);
      await host.edit(ctx, { documentId: doc.id, edit: { op: "layer:setEffects", layerId: layerIds[i], effects: resolved.effects, globalLight: resolved.globalLight } });
    }
    for (const [i, adjustment] of ADJUSTMENTS.entries()) {
      await host.edit(ctx, { documentId: doc.id, edit: { op: "layer:create", kind: "adjustment", name: `A${i + 1}`, adjustment: resolveAdjustment(adjustment), place: { to: "top" } } });
    }
  }
  return doc.id;
}

export async function run() {
  const host = createEmbeddedHost({ sample: false });
  await host.connect();
  try {
    const styled = await build(host, true);
    const plain = await build(host, false);
    const exportOf = async (documentId) => {
      const t0 = performance.now();
      await host.exportDocumentImage(ctx, { documentId, format: "png", size: { width: WIDTH, height: HEIGHT } });
      return performance.now() - t0;
    };
    // One of each first: caches and the JIT are warm for both sides alike.
    await exportOf(styled);
    await exportOf(plain);
    const withThem = [];
    const without = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        withThem.push(await exportOf(styled));
        without.push(await exportOf(plain));
      } else {
        without.push(await exportOf(plain));
        withThem.push(await exportOf(styled));
      }
    }
    log(`  ${WIDTH}×${HEIGHT} PNG: styled [${fmtMs(min(withThem))}..${fmtMs(max(withThem))}], plain [${fmtMs(min(without))}..${fmtMs(max(without))}]`);
    return [latencyRow(`embedded PNG export ${WIDTH}x${HEIGHT}, 5 adjustment layers + 3 effects vs none (host op)`, median(withThem), median(without))];
  } finally {
    await host.close();
  }
}

await printIfMain(import.meta, run);
