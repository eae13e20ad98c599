// `template:render` of the product card (examples/recipes/product-card): 100 variants, the 20 rows of its CSV five
// times over, each with its comp, text, photo in the smart object, badge shown or hidden, trimmed, written as PNG.
// Three figures, each beside a baseline in this same run, rounds alternating which side goes first, medians:
//
//   pool:        variants/s of one 100-variant job with `editors: 2` against `editors: 1` (editors in their own
//                processes, as `serve` runs them).
//   per variant: the embedded editor's time per variant (the `editors: 1` job's time ÷ 100: open a copy, comp, text,
//                photo, badge, trim, export, write, close) against a plain sharp pipeline compositing the same
//                prepared layers (backdrop, the photo scaled and turned as the smart object's frame does, text and
//                badge pictures drawn beforehand) into the same card size and writing the PNG, one variant at a time.
//   /health:     while each job runs, a worker thread pings `GET /health` (and WS `getServerInfo`) every 20 ms and a
//                bare `node:http` handler at the same moments (bench/_stall.js); with `editors: 2`: worst no more
//                than the bare handler's worst + 50 ms, p99 no more than 1.5× the bare handler's p99. The bare handler
//                listens in this process, on the bridge's own thread, as in isolation.js: a stall of that thread (or of
//                the machine) reaches both, so an info row also gives the most one /health ping took beyond the bare
//                ping sent at the same moment, beside the most a bare ping took beyond its /health one.
//
//   node bench/template.js   (after `npm run build`); also `node bench/run.js template`
//
// Environment: BENCH_ROUNDS (5), BENCH_TEMPLATE_VARIANTS (100).
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { createBridge } from "../dist/index.js";
import { parseCsv } from "../dist/client/cli-template.js";
import { makeTemplate } from "../examples/recipes/product-card/make-template.mjs";
import { bareHttp, pingDuring, worst } from "./_stall.js";
import { closeAll, fmtMs, fmtRatio, log, median, now, openSocket, percentile, printIfMain, request, ROUNDS, verdict } from "./_lib.js";

const VARIANTS = Number(process.env.BENCH_TEMPLATE_VARIANTS ?? 100);
const CSV = new URL("../examples/recipes/product-card/products.csv", import.meta.url);
const POOL_TARGET = 1.6;
const WORST_MARGIN_MS = 50;
const P99_TARGET = 1.5;

/** The job's variants, as the Python recipe builds them from the CSV (image paths absolute, trimmed). */
async function variantsOf(folder) {
  const rows = parseCsv(await readFile(CSV, "utf8"));
  return Array.from({ length: VARIANTS }, (_, i) => {
    const row = rows[i % rows.length];
    return {
      id: `${row.id}-${Math.floor(i / rows.length)}`,
      comp: row.comp,
      text: { Headline: row["text:Headline"], Price: row["text:Price"] },
      images: { Photo: join(folder, row["image:Photo"]) },
      visible: { Badge: row["visible:Badge"] === "true" },
      edits: [{ method: "document:trim" }],
    };
  });
}

async function startBridge(editors, folder) {
  const bridge = createBridge({
    listen: { host: "127.0.0.1", port: 0 },
    editors,
    embedded: { sample: false },
    files: { roots: [folder] },
    limits: { longCallTimeoutMs: 600_000 },
  });
  await bridge.start();
  return bridge;
}

/**
 * One job of all the variants on a bridge with `editors` editors, pinged from another thread while it runs; a short
 * job first warms each editor (its compositor's JIT), outside the timing.
 */
async function job(editors, folder, variants, bare, round) {
  const bridge = await startBridge(editors, folder);
  try {
    const ws = await openSocket(bridge.wsUrl);
    const template = { path: join(folder, "card.psd") };
    const warm = await request(ws, "warm", "template:render", { template, variants: variants.slice(0, 2 * editors), output: { path: join(folder, "warm", "{id}.png") } }, 600_000);
    if (!warm.ok) throw new Error(`warm-up: ${warm.error?.code} ${warm.error?.message}`);
    const params = { template, variants, output: { path: join(folder, `out-${editors}-${round}`, "{id}.png") } };
    let ms = 0;
    const { health, ws: rpc, bare: bareSamples, outcome } = await pingDuring(bridge, bare, async () => {
      const t0 = now();
      const answer = await request(ws, "job", "template:render", params, 600_000);
      ms = now() - t0;
      return answer;
    });
    if (outcome.ok !== true) throw new Error(`job: ${outcome.error?.code ?? ""} ${outcome.error?.message ?? outcome.error}`);
    const failed = outcome.result.variants.filter((v) => !v.ok);
    if (failed.length > 0) throw new Error(`job: ${failed.length} variants failed, e.g. ${failed[0].id}: ${failed[0].error?.code} ${failed[0].error?.message}`);
    await closeAll([ws]);
    const figures = {
      ms,
      rate: (variants.length * 1000) / ms,
      health: { worst: worst(health), p99: percentile(health, 99), n: health.length },
      ws: { worst: worst(rpc), p99: percentile(rpc, 99) },
      bare: { worst: worst(bareSamples), p99: percentile(bareSamples, 99) },
      // The pinger times the two in lock-step (one of each per tick, sent together): what the bridge took beyond the
      // bare handler at the same moment, on the same thread, is the bridge's own doing, not the machine's.
      excess: worst(health.map((ms, i) => ms - bareSamples[i])),
      // And the other way round: a stall of the shared thread or of the machine catches whichever request it finds.
      shortfall: worst(health.map((ms, i) => bareSamples[i] - ms)),
    };
    log(
      `  editors ${editors}: ${variants.length} variants in ${fmtMs(ms)} (${figures.rate.toFixed(2)}/s); /health worst ${fmtMs(figures.health.worst)} ` +
        `p99 ${fmtMs(figures.health.p99)} (${health.length} pings), WS getServerInfo worst ${fmtMs(figures.ws.worst)}; bare worst ${fmtMs(figures.bare.worst)} p99 ${fmtMs(figures.bare.p99)}; ` +
        `most a /health ping took beyond the bare one sent with it ${fmtMs(figures.excess)}, ` +
        `a bare ping beyond its /health one ${fmtMs(figures.shortfall)}`,
    );
    return figures;
  } finally {
    await bridge.close();
  }
}

/** The card's layers drawn once, as a plain pipeline would have them ready: backdrops, badge, each row's two texts. */
async function preparedLayers(variants) {
  const svg = (w, h, body) => sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${body}</svg>`)).png().toBuffer();
  const text = (t, size, fill) => svg(340, size + 12, `<text x="0" y="${size}" font-family="DejaVu Sans" font-size="${size}" fill="${fill}">${t.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</text>`);
  const layers = {
    square: await sharp({ create: { width: 360, height: 360, channels: 4, background: "#ffffff" } }).png().toBuffer(),
    story: await sharp({ create: { width: 360, height: 640, channels: 4, background: "#f4efe6" } }).png().toBuffer(),
    badge: await svg(90, 44, `<rect width="90" height="44" rx="10" fill="#dc1428"/>`),
    texts: new Map(),
  };
  for (const v of variants) layers.texts.set(v.id, { headline: await text(v.text.Headline, 26, "#141414"), price: await text(v.text.Price, 24, "#c81e1e") });
  return layers;
}

/** One card by sharp: the photo scaled 110 % and turned −6° about the frame's centre, the texts and badge placed per comp. */
async function sharpCard(variant, layers, out) {
  const story = variant.comp === "story";
  const photo = await sharp(variant.images.Photo).resize(264, 198).rotate(-6, { background: { r: 0, g: 0, b: 0, alpha: 0 } }).png().toBuffer({ resolveWithObject: true });
  const texts = layers.texts.get(variant.id);
  const over = [
    { input: photo.data, left: Math.round(180 - photo.info.width / 2), top: Math.round(178 - photo.info.height / 2) },
    { input: texts.headline, left: 20, top: story ? 374 : 18 },
    { input: texts.price, left: 20, top: story ? 452 : 312 },
  ];
  if (variant.visible.Badge) over.push({ input: layers.badge, left: 250, top: story ? 450 : 300 });
  await writeFile(out, await sharp(story ? layers.story : layers.square).composite(over).png().toBuffer());
}

/** ms per variant of the plain pipeline, one variant at a time. */
async function sharpPerVariant(folder, variants, layers, round) {
  const t0 = now();
  for (const v of variants) await sharpCard(v, layers, join(folder, `sharp-${round}-${v.id}.png`));
  return (now() - t0) / variants.length;
}

export async function run() {
  const folder = await mkdtemp(join(tmpdir(), "bench-template-"));
  const bare = await bareHttp();
  try {
    await makeTemplate(folder);
    await mkdir(join(folder, "warm"));
    const variants = await variantsOf(folder);
    const layers = await preparedLayers(variants);
    await sharpPerVariant(folder, variants.slice(0, 10), layers, "warm");
    const runs = { 2: [], 1: [], sharp: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const editors of round % 2 === 0 ? [2, 1] : [1, 2]) {
        await mkdir(join(folder, `out-${editors}-${round}`));
        runs[editors].push(await job(editors, folder, variants, bare, round));
      }
      runs.sharp.push(await sharpPerVariant(folder, variants, layers, round));
      log(`  round ${round + 1}: sharp ${fmtMs(runs.sharp.at(-1))} per variant`);
    }
    const med = (list, pick) => median(list.map(pick));
    const two = med(runs[2], (r) => r.rate);
    const one = med(runs[1], (r) => r.rate);
    const perVariant = med(runs[1], (r) => r.ms / VARIANTS);
    const sharpMs = median(runs.sharp);
    const health = { worst: med(runs[2], (r) => r.health.worst), p99: med(runs[2], (r) => r.health.p99) };
    const bareHealth = { worst: med(runs[2], (r) => r.bare.worst), p99: med(runs[2], (r) => r.bare.p99) };
    const rate = (n) => `${n.toFixed(2)} variants/s`;
    return [
      {
        benchmark: `template: ${VARIANTS} variants/s, editors 2 vs editors 1`,
        bridge: rate(two),
        baseline: rate(one),
        ratio: fmtRatio(two / one),
        target: `>= ${POOL_TARGET.toFixed(2)}x`,
        result: verdict(two / one, POOL_TARGET, true),
      },
      {
        benchmark: "template: time per variant, embedded editor (editors 1) vs sharp pipeline",
        bridge: fmtMs(perVariant),
        baseline: fmtMs(sharpMs),
        ratio: fmtRatio(perVariant / sharpMs),
        target: "(info)",
        result: "-",
      },
      {
        benchmark: "template: worst /health during the job (editors 2) vs bare node:http",
        bridge: fmtMs(health.worst),
        baseline: fmtMs(bareHealth.worst),
        ratio: fmtRatio(health.worst / bareHealth.worst),
        target: `<= bare + ${WORST_MARGIN_MS} ms`,
        result: health.worst <= bareHealth.worst + WORST_MARGIN_MS ? "pass" : "FAIL",
      },
      {
        benchmark: "template: p99 /health during the job (editors 2) vs bare node:http",
        bridge: fmtMs(health.p99),
        baseline: fmtMs(bareHealth.p99),
        ratio: fmtRatio(health.p99 / bareHealth.p99),
        target: `<= ${P99_TARGET.toFixed(2)}x`,
        result: verdict(health.p99 / bareHealth.p99, P99_TARGET, false),
      },
      {
        benchmark: "template: most one /health ping took beyond the bare ping sent with it, and the reverse (editors 2)",
        bridge: fmtMs(med(runs[2], (r) => r.excess)),
        baseline: fmtMs(med(runs[2], (r) => r.shortfall)),
        ratio: fmtRatio(med(runs[2], (r) => r.excess) / med(runs[2], (r) => r.shortfall)),
        target: "(info)",
        result: "-",
      },
      {
        benchmark: "template: worst /health during the job (editors 1) vs bare node:http",
        bridge: fmtMs(med(runs[1], (r) => r.health.worst)),
        baseline: fmtMs(med(runs[1], (r) => r.bare.worst)),
        ratio: fmtRatio(med(runs[1], (r) => r.health.worst) / med(runs[1], (r) => r.bare.worst)),
        target: "(info)",
        result: "-",
      },
    ];
  } finally {
    await bare.close();
    await rm(folder, { recursive: true, force: true });
  }
}

await printIfMain(import.meta, run);
