// Embedded editor, big documents: peak RSS of an 8000×8000 document with a few layers that is exported (JPEG)
// and saved (PSD), beside sharp creating, compositing and encoding the same pixels. Each side runs in its own
// child process so the peaks do not mix: `process.resourceUsage().maxRSS` at the end of the child.
//
//   node bench/embedded-big.js                 both sides, one run each (≈ 1 minute)
//   BENCH_BIG_SIZE=4000 node bench/embedded-big.js
import { fork } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fmtBytes, fmtMs, fmtRatio, log, now, printIfMain } from "./_lib.js";

const SIZE = Number(process.env.BENCH_BIG_SIZE ?? 8000);
const LAYER = SIZE / 2;
/** Layers over the background: [left, top, rgba]; each LAYER × LAYER, half transparent. */
const LAYERS = [
  [0, 0, [255, 0, 0, 128]],
  [SIZE / 4, SIZE / 4, [0, 255, 0, 128]],
  [SIZE / 2, SIZE / 2, [0, 0, 255, 128]],
];

async function hostSide(dir) {
  const { createEmbeddedHost } = await import("../dist/index.js");
  const ctx = { signal: new AbortController().signal, caller: "bench" };
  const host = createEmbeddedHost({ sample: false });
  await host.connect();
  const t0 = now();
  const doc = await host.createDocument(ctx, { width: SIZE, height: SIZE, name: "Big", background: [255, 255, 255, 255] });
  const script = LAYERS.map(
    ([x, y, rgba], i) =>
      `{ const l = doc.artLayers.add("L${i}"); doc.selection.select({ x: ${x}, y: ${y}, width: ${LAYER}, height: ${LAYER} }); l.fill(${JSON.stringify(rgba)}); }`,
  ).join("\n");
  const source = `const doc = app.activeDocument;\n${script}\ndoc.selection.deselect(); doc.layers.length`;
  await host.runScript(ctx, { source, language: "javascript", params: undefined, timeoutMs: 120_000 });
  const t1 = now();
  const jpeg = join(dir, "big.jpg");
  const image = await host.exportDocumentImage(ctx, { documentId: doc.id, format: "jpeg", quality: 85, size: { width: SIZE, height: SIZE } });
  await writeFile(jpeg, image.bytes);
  const t2 = now();
  const psd = join(dir, "big.psd");
  await host.saveDocument(ctx, { documentId: doc.id, path: psd, backup: false });
  const t3 = now();
  await host.close();
  return { build: t1 - t0, export: t2 - t1, save: t3 - t2, jpegBytes: (await stat(jpeg)).size, psdBytes: (await stat(psd)).size };
}

async function baselineSide(dir) {
  const { default: sharp } = await import("sharp");
  const t0 = now();
  const layers = LAYERS.map(([left, top, rgba]) => {
    const data = Buffer.alloc(LAYER * LAYER * 4);
    for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
    return { input: data, raw: { width: LAYER, height: LAYER, channels: 4 }, left, top };
  });
  const t1 = now();
  const jpeg = join(dir, "big-baseline.jpg");
  await sharp({ create: { width: SIZE, height: SIZE, channels: 4, background: "#ffffff" } })
    .composite(layers)
    .flatten({ background: "#ffffff" })
    .jpeg({ quality: 85 })
    .toFile(jpeg);
  const t2 = now();
  return { build: t1 - t0, export: t2 - t1, jpegBytes: (await stat(jpeg)).size };
}

async function child(mode) {
  const dir = await mkdtemp(join(tmpdir(), `bench-big-${mode}-`));
  try {
    const figures = mode === "host" ? await hostSide(dir) : await baselineSide(dir);
    process.send({ ...figures, maxRss: process.resourceUsage().maxRSS * 1024 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function runChild(mode) {
  return new Promise((resolve, reject) => {
    const proc = fork(fileURLToPath(import.meta.url), ["--child", mode], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    let result;
    proc.on("message", (message) => {
      result = message;
    });
    proc.on("error", reject);
    proc.on("exit", (code) => (code === 0 && result ? resolve(result) : reject(new Error(`${mode} child exited with ${code}`))));
  });
}

export async function run() {
  const baseline = await runChild("baseline");
  const host = await runChild("host");
  log(
    `  ${SIZE}×${SIZE}, background + ${LAYERS.length} layers of ${LAYER}×${LAYER}: host build ${fmtMs(host.build)}, export JPEG ${fmtMs(host.export)} ` +
      `(${fmtBytes(host.jpegBytes)}), save PSD ${fmtMs(host.save)} (${fmtBytes(host.psdBytes)}); sharp composite+JPEG ${fmtMs(baseline.export)}`,
  );
  return [
    {
      benchmark: `embedded ${SIZE}x${SIZE} peak RSS (create, ${LAYERS.length} layers, export JPEG, save PSD)`,
      bridge: fmtBytes(host.maxRss),
      baseline: fmtBytes(baseline.maxRss),
      ratio: fmtRatio(host.maxRss / baseline.maxRss),
      target: "(info)",
      result: "-",
    },
    {
      benchmark: `embedded ${SIZE}x${SIZE} export JPEG (host op)`,
      bridge: fmtMs(host.export),
      baseline: fmtMs(baseline.export),
      ratio: fmtRatio(host.export / baseline.export),
      target: "(info)",
      result: "-",
    },
  ];
}

const modeIndex = process.argv.indexOf("--child");
if (modeIndex !== -1) await child(process.argv[modeIndex + 1]);
else await printIfMain(import.meta, run);
