// Embedded editor cutout quality and time on synthetic product shots with exact masks
// (scripts/generate-product-shots.js, generated into a temp dir at bench time).
//
//   quality: host.removeBackground on each scene → IoU (alpha ≥ 128) of the layer's mask vs the exact mask,
//            per scene and the mean, flood fill alone and flood fill + GrabCut (target: mean ≥ 0.95)
//   time:    median host.removeBackground (decode excluded: the document is open) vs a baseline of sharp
//            decoding the same PNG and resizing it to the work size (the least any cutout must do)
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { createEmbeddedHost } from "../dist/index.js";
import { CUTOUT_WORK_EDGE } from "../dist/hosts/embedded/limits.js";
import { maskIoU, writeScenes } from "../scripts/generate-product-shots.js";
import { fmtMs, fmtRatio, log, median, now, printIfMain, ROUNDS, verdict } from "./_lib.js";

const WIDTH = Number(process.env.BENCH_CUTOUT_WIDTH ?? 1200);
const HEIGHT = Number(process.env.BENCH_CUTOUT_HEIGHT ?? 900);
const SEED = Number(process.env.BENCH_CUTOUT_SEED ?? 1);
const MEAN_IOU_TARGET = 0.95;

const ctx = { signal: new AbortController().signal, caller: "bench" };

/** Alpha channel of the layer's export (document-sized, since the layer covers the canvas). */
async function layerAlpha(host, documentId, layerId) {
  const size = { width: WIDTH, height: HEIGHT };
  const image = await host.exportLayerImage(ctx, { documentId, layerId, format: "png", size });
  return sharp(image.bytes).ensureAlpha().extractChannel(3).raw().toBuffer();
}

async function cutoutOnce(refine, scene) {
  const host = createEmbeddedHost({ sample: false, cutout: { refine } });
  await host.connect();
  try {
    const doc = await host.openDocument(ctx, scene.image);
    const layerId = doc.activeLayerIds[0];
    const t0 = now();
    const success = await host.removeBackground(ctx, { documentId: doc.id, layerId });
    const ms = now() - t0;
    const alpha = success ? await layerAlpha(host, doc.id, layerId) : Buffer.alloc(WIDTH * HEIGHT, 255);
    return { ms, alpha };
  } finally {
    await host.close();
  }
}

async function baselineOnce(scene) {
  const t0 = now();
  await sharp(scene.image).resize(CUTOUT_WORK_EDGE, CUTOUT_WORK_EDGE, { fit: "inside" }).raw().toBuffer();
  return now() - t0;
}

export async function run() {
  const dir = await mkdtemp(join(tmpdir(), "bench-cutout-"));
  const rows = [];
  try {
    const scenes = await writeScenes(dir, { width: WIDTH, height: HEIGHT, seed: SEED });
    log(`cutout-iou: ${scenes.length} scenes of ${WIDTH}×${HEIGHT} (seed ${SEED}), work edge ${CUTOUT_WORK_EDGE} px, ${ROUNDS} timing rounds`);
    for (const refine of ["never", "always"]) {
      const label = refine === "never" ? "flood" : "flood+GrabCut";
      const ious = [];
      const times = [];
      const bases = [];
      for (const scene of scenes) {
        const exact = await sharp(await readFile(scene.mask)).extractChannel(0).raw().toBuffer();
        const sceneTimes = [];
        const sceneBases = [];
        let iou = 0;
        // Rounds alternate which side goes first.
        for (let r = 0; r < ROUNDS; r++) {
          if (r % 2 === 1) sceneBases.push(await baselineOnce(scene));
          const { ms, alpha } = await cutoutOnce(refine, scene);
          sceneTimes.push(ms);
          iou = maskIoU(alpha, exact);
          if (r % 2 === 0) sceneBases.push(await baselineOnce(scene));
        }
        ious.push(iou);
        times.push(median(sceneTimes));
        bases.push(median(sceneBases));
        log(`  ${label.padEnd(13)} ${scene.name.padEnd(22)} IoU ${iou.toFixed(4)}  ${fmtMs(median(sceneTimes))} (baseline ${fmtMs(median(sceneBases))})`);
        rows.push({ benchmark: `cutout IoU ${label}: ${scene.name}`, bridge: iou.toFixed(4), baseline: "exact mask", ratio: "-", target: "(info)", result: "-" });
      }
      const mean = ious.reduce((a, b) => a + b, 0) / ious.length;
      rows.push({
        benchmark: `cutout IoU ${label}: mean of ${ious.length} scenes`,
        bridge: mean.toFixed(4),
        baseline: "exact mask",
        ratio: "-",
        target: `>= ${MEAN_IOU_TARGET}`,
        result: verdict(mean, MEAN_IOU_TARGET, true),
      });
      const time = median(times);
      const base = median(bases);
      rows.push({
        benchmark: `cutout time ${label} (removeBackground, median over scenes)`,
        bridge: fmtMs(time),
        baseline: fmtMs(base),
        ratio: fmtRatio(time / base),
        target: "(info)",
        result: "-",
      });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

await printIfMain(import.meta, run);
