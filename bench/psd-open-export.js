// Embedded editor, a big layered PSD: open plus a full-size PNG export of an A4-at-300-dpi file (3508×4960) with
// groups, a layer mask, blend modes, half-transparent layers and a text layer, beside sharp decoding the same
// layer pixels (PNG files, opacity and mask already applied) and compositing and encoding them. The file is built
// once, deterministically; each run of either side is a fresh child process, so its peak RSS
// (`process.resourceUsage().maxRSS`) is its own. Sides alternate; figures are medians.
//
//   node bench/psd-open-export.js                      3 runs a side (≈ 1–2 minutes)
//   BENCH_PSD_RUNS=1 BENCH_PSD_WIDTH=1754 BENCH_PSD_HEIGHT=2480 node bench/psd-open-export.js
import { fork } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { initializeCanvas, writePsdBuffer } from "ag-psd";
import sharp from "sharp";
import { fmtBytes, fmtMs, fmtRatio, log, median, now, printIfMain } from "./_lib.js";

const WIDTH = Number(process.env.BENCH_PSD_WIDTH ?? 3508);
const HEIGHT = Number(process.env.BENCH_PSD_HEIGHT ?? 4960);
/** Runs per side; at least 3 for a median that one slow run cannot move. */
const RUNS = Math.max(1, Number(process.env.BENCH_PSD_RUNS ?? 3));
/** sharp's names for the modes the file uses (the baseline composites flat: groups here are pass-through). */
const SHARP_BLEND = { normal: "over", multiply: "multiply", screen: "screen", overlay: "overlay", "soft light": "soft-light", difference: "difference" };

const s = (v) => Math.round((v * Math.min(WIDTH, HEIGHT)) / 3508);

/** Straight RGBA of `width`×`height` from `pixel(x, y)` → [r, g, b, a]; a solid colour is an array instead. */
function paint(width, height, pixel) {
  const data = new Uint8ClampedArray(width * height * 4);
  if (Array.isArray(pixel)) {
    for (let i = 0; i < data.length; i += 4) data.set(pixel, i);
    return { width, height, data };
  }
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i += 4) {
      const [r, g, b, a] = pixel(x, y);
      data[i] = r;
      data[i + 1] = g;
      data[i + 2] = b;
      data[i + 3] = a;
    }
  }
  return { width, height, data };
}

const disc = (size, rgb) =>
  paint(size, size, (x, y) => {
    const d = Math.hypot(x - size / 2, y - size / 2) / (size / 2);
    return [...rgb, d < 0.95 ? 255 : d < 1 ? Math.round((1 - d) * 20 * 255) : 0];
  });

/**
 * The layers top-most first, as the file's panel lists them: `{ name, left, top, image, blendMode, opacity, mask,
 * text, group }`; `group` names the pass-through group a layer sits in.
 */
export function designLayers() {
  const W = WIDTH;
  const H = HEIGHT;
  const card = { w: s(2400), h: s(1600) };
  const mask = paint(card.w, card.h, (x, y) => {
    const d = Math.hypot((x - card.w / 2) / (card.w / 2), (y - card.h / 2) / (card.h / 2));
    const v = d < 0.9 ? 255 : d < 1 ? Math.round((1 - d) * 10 * 255) : 0;
    return [v, v, v, 255];
  });
  return [
    {
      name: "Title",
      left: s(300),
      top: s(300),
      image: paint(s(2900), s(400), (x, y) => [20, 24, 40, (Math.floor(x / s(90)) % 3 !== 2 && y > s(60) && y < s(340)) ? 255 : 0]),
      text: "A4 poster title",
    },
    { name: "Card shadow", group: "Cards", left: s(560), top: s(1220), image: paint(card.w, card.h, [0, 0, 0, 200]), blendMode: "multiply", opacity: 0.6 },
    { name: "Card", group: "Cards", left: s(500), top: s(1150), image: paint(card.w, card.h, (x, y) => [240, 200 + (y % 40), 120 + (x % 60), 255]), mask },
    { name: "Glow", left: s(850), top: s(2800), image: paint(s(1800), s(1800), (x, y) => [255, 220, 160, Math.max(0, 255 - Math.round(Math.hypot(x - s(900), y - s(900)) / (s(900) / 255)))]), blendMode: "screen" },
    { name: "Texture", left: 0, top: 0, image: paint(W, H, (x, y) => ((x + y) % 64 < 32 ? [255, 255, 255, 255] : [60, 60, 60, 255])), blendMode: "overlay", opacity: 0.5 },
    { name: "Badge 1", group: "Badges", left: s(400), top: s(4000), image: disc(s(600), [200, 40, 40]) },
    { name: "Badge 2", group: "Badges", left: s(1200), top: s(4000), image: disc(s(600), [40, 160, 60]), blendMode: "soft light" },
    { name: "Badge 3", group: "Badges", left: s(2000), top: s(4000), image: disc(s(600), [40, 60, 200]), blendMode: "difference" },
    { name: "Warm tint", left: 0, top: 0, image: paint(W, H, [255, 180, 90, 255]), blendMode: "multiply", opacity: 0.35 },
    { name: "Background", left: 0, top: 0, image: paint(W, H, (x, y) => [30 + Math.round((y * 200) / H), 90, 160 - Math.round((x * 100) / W), 255]) },
  ];
}

/** The PSD the editor opens: groups "Cards" and "Badges" (pass-through) around their layers. */
export function psdOf(layers) {
  initializeCanvas(
    (width, height) => ({ width, height }),
    (width, height) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) }),
  );
  const toPsd = (l) => ({
    name: l.name,
    left: l.left,
    top: l.top,
    imageData: l.image,
    blendMode: l.blendMode ?? "normal",
    opacity: l.opacity ?? 1,
    ...(l.mask ? { mask: { left: l.left, top: l.top, right: l.left + l.mask.width, bottom: l.top + l.mask.height, defaultColor: 0, imageData: l.mask } } : {}),
    ...(l.text ? { text: { text: l.text, transform: [1, 0, 0, 1, l.left, l.top + l.image.height], style: { fontSize: s(200) } } } : {}),
  });
  const children = [];
  for (const layer of layers) {
    if (!layer.group) children.push(toPsd(layer));
    else if (children.at(-1)?.name === layer.group) children.at(-1).children.push(toPsd(layer));
    else children.push({ name: layer.group, blendMode: "pass through", opened: true, children: [toPsd(layer)] });
  }
  // ag-psd lists children bottom-most first; the background doubles as the stored composite (the editor reads layers).
  for (const group of children) group.children?.reverse();
  const background = layers.at(-1).image;
  return writePsdBuffer({ width: WIDTH, height: HEIGHT, imageData: background, children: children.reverse() }, { generateThumbnail: false });
}

/** The baseline's inputs: each layer's pixels as a PNG with its opacity and mask multiplied into alpha. */
async function baselineInputs(layers, dir) {
  const inputs = [];
  for (const [i, l] of layers.entries()) {
    const data = Uint8ClampedArray.from(l.image.data);
    for (let p = 0; p < data.length; p += 4) data[p + 3] = Math.round(data[p + 3] * (l.opacity ?? 1) * (l.mask ? l.mask.data[p] / 255 : 1));
    const path = join(dir, `layer-${i}.png`);
    await sharp(Buffer.from(data.buffer), { raw: { width: l.image.width, height: l.image.height, channels: 4 } }).png().toFile(path);
    inputs.push({ path, left: l.left, top: l.top, blend: SHARP_BLEND[l.blendMode ?? "normal"] });
  }
  return inputs.reverse(); // bottom-most first, as composite() stacks them
}

async function hostRun({ psd }) {
  const { createEmbeddedHost } = await import("../dist/index.js");
  const ctx = { signal: new AbortController().signal, caller: "bench" };
  const host = createEmbeddedHost({ sample: false });
  await host.connect();
  const t0 = now();
  const doc = await host.openDocument(ctx, psd);
  const t1 = now();
  const image = await host.exportDocumentImage(ctx, { documentId: doc.id, format: "png", size: { width: doc.width, height: doc.height } });
  const t2 = now();
  const layers = (await host.getDocumentTree(ctx, doc.id)).layers.length;
  await host.close();
  return { open: t1 - t0, export: t2 - t1, total: t2 - t0, pngBytes: image.bytes.length, topLevelLayers: layers };
}

async function baselineRun({ inputs }) {
  const [base, ...rest] = inputs;
  const t0 = now();
  const png = await sharp(base.path)
    .composite(rest.map((l) => ({ input: l.path, left: l.left, top: l.top, blend: l.blend })))
    .removeAlpha()
    .png()
    .toBuffer();
  return { total: now() - t0, pngBytes: png.length };
}

function runChild(mode, args) {
  return new Promise((resolve, reject) => {
    const proc = fork(fileURLToPath(import.meta.url), ["--child", mode, JSON.stringify(args)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    let result;
    proc.on("message", (message) => {
      result = message;
    });
    proc.on("error", reject);
    proc.on("exit", (code) => (code === 0 && result ? resolve(result) : reject(new Error(`${mode} child exited with ${code}`))));
  });
}

export async function run() {
  const dir = await mkdtemp(join(tmpdir(), "bench-psd-"));
  try {
    const t0 = now();
    const layers = designLayers();
    const psd = join(dir, "poster.psd");
    await writeFile(psd, psdOf(layers));
    const inputs = await baselineInputs(layers, dir);
    log(`  built ${WIDTH}×${HEIGHT} PSD with ${layers.length} layers in 2 groups (${fmtMs(now() - t0)})`);
    const hosts = [];
    const baselines = [];
    for (let i = 0; i < RUNS; i++) {
      // Alternate which side goes first so machine drift does not favour one.
      const order = i % 2 === 0 ? ["host", "baseline"] : ["baseline", "host"];
      for (const side of order) {
        if (side === "host") hosts.push(await runChild("host", { psd }));
        else baselines.push(await runChild("baseline", { inputs }));
      }
    }
    const pick = (runs, key) => median(runs.map((r) => r[key]));
    const host = { open: pick(hosts, "open"), export: pick(hosts, "export"), total: pick(hosts, "total"), rss: pick(hosts, "maxRss") };
    const baseline = { total: pick(baselines, "total"), rss: pick(baselines, "maxRss") };
    log(
      `  host: open ${fmtMs(host.open)} + PNG export ${fmtMs(host.export)} = ${fmtMs(host.total)} (runs ${hosts.map((r) => fmtMs(r.total)).join(", ")}), ` +
        `peak RSS ${fmtBytes(host.rss)}, PNG ${fmtBytes(hosts[0].pngBytes)}; sharp decode+composite+PNG ${fmtMs(baseline.total)} ` +
        `(runs ${baselines.map((r) => fmtMs(r.total)).join(", ")}), peak RSS ${fmtBytes(baseline.rss)}, PNG ${fmtBytes(baselines[0].pngBytes)}`,
    );
    const label = `embedded PSD ${WIDTH}x${HEIGHT}, ${layers.length} layers`;
    return [
      { benchmark: `${label}: open + PNG export`, bridge: fmtMs(host.total), baseline: fmtMs(baseline.total), ratio: fmtRatio(host.total / baseline.total), target: "(info)", result: "-" },
      { benchmark: `${label}: peak RSS`, bridge: fmtBytes(host.rss), baseline: fmtBytes(baseline.rss), ratio: fmtRatio(host.rss / baseline.rss), target: "(info)", result: "-" },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const modeIndex = process.argv.indexOf("--child");
if (modeIndex !== -1) {
  const mode = process.argv[modeIndex + 1];
  const args = JSON.parse(process.argv[modeIndex + 2]);
  const figures = mode === "host" ? await hostRun(args) : await baselineRun(args);
  process.send({ ...figures, maxRss: process.resourceUsage().maxRSS * 1024 });
} else await printIfMain(import.meta, run);
