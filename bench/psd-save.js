// Embedded editor, saving the big layered PSD of psd-open-export.js (A4 at 300 dpi, 3508×4960, groups, a mask,
// blend modes, a text layer) after an edit (a small layer imported, so the save composites and writes anew), and
// reading the written file back before it replaces anything. The figure is the read-back's time beside the whole
// save's in the same child process: what the guarantee "a file that does not open again never replaces the
// user's" costs a save. Each side's figure is the median of its runs.
//
//   node bench/psd-save.js                              3 saves (≈ 1 minute)
//   BENCH_PSD_RUNS=1 BENCH_PSD_WIDTH=1754 BENCH_PSD_HEIGHT=2480 node bench/psd-save.js
// The save with and without the read-back, as two builds: `npm run bench -- psd-save --compare HEAD --patch
// bench/ablations/no-save-read-back.patch`.
import { fork } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { fmtMs, fmtRatio, log, median, now, printIfMain } from "./_lib.js";
import { designLayers, psdOf } from "./psd-open-export.js";

const WIDTH = Number(process.env.BENCH_PSD_WIDTH ?? 3508);
const HEIGHT = Number(process.env.BENCH_PSD_HEIGHT ?? 4960);
/** Saves timed; at least 3 for a median that one slow run cannot move. */
const RUNS = Math.max(1, Number(process.env.BENCH_PSD_RUNS ?? 3));

async function saveRun({ psd, dir }) {
  const { createEmbeddedHost } = await import("../dist/index.js");
  const { psdFileReadBackProblem } = await import("../dist/hosts/embedded/psd-file/verify.js");
  const ctx = { signal: new AbortController().signal, caller: "bench" };
  const host = createEmbeddedHost({ sample: false });
  await host.connect();
  const doc = await host.openDocument(ctx, psd);
  const bytes = await sharp({ create: { width: 64, height: 64, channels: 4, background: "#ff00ff" } }).png().toBuffer();
  await host.importLayer(ctx, {
    documentId: doc.id,
    image: { bytes, format: "png", width: 64, height: 64 },
    size: { width: 64, height: 64 },
    position: { x: 10, y: 10 },
    name: "Edit",
    aboveLayerId: null,
  });
  const saves = [];
  const readBacks = [];
  for (let i = 0; i < RUNS; i++) {
    const path = join(dir, `saved-${i}.psd`);
    const t0 = now();
    await host.saveDocument(ctx, { documentId: doc.id, path, backup: false });
    saves.push(now() - t0);
    const t1 = now();
    const problem = await psdFileReadBackProblem(path);
    readBacks.push(now() - t1);
    if (problem !== undefined) throw new Error(`the saved file does not read back: ${problem}`);
    await rm(path, { force: true });
  }
  await host.close();
  return { saves, readBacks };
}

function runChild(args) {
  return new Promise((resolve, reject) => {
    const proc = fork(fileURLToPath(import.meta.url), ["--save-child", JSON.stringify(args)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    let result;
    proc.on("message", (message) => {
      result = message;
    });
    proc.on("error", reject);
    proc.on("exit", (code) => (code === 0 && result ? resolve(result) : reject(new Error(`save child exited with ${code}`))));
  });
}

export async function run() {
  const dir = await mkdtemp(join(tmpdir(), "bench-psd-save-"));
  try {
    const psd = join(dir, "poster.psd");
    await writeFile(psd, psdOf(designLayers()));
    const { saves, readBacks } = await runChild({ psd, dir });
    const save = median(saves);
    const readBack = median(readBacks);
    log(`  saves ${saves.map(fmtMs).join(", ")}; read-backs ${readBacks.map(fmtMs).join(", ")}`);
    return [
      {
        benchmark: `embedded PSD ${WIDTH}x${HEIGHT} edited save: read-back (bridge) vs the whole save (baseline)`,
        bridge: fmtMs(readBack),
        baseline: fmtMs(save),
        ratio: fmtRatio(readBack / save),
        target: "(info)",
        result: "-",
      },
      {
        // The figure `--compare HEAD --patch bench/ablations/no-save-read-back.patch` sets beside the same save
        // without the read-back (the baseline of this row is that other build, measured in the same command).
        benchmark: `embedded PSD ${WIDTH}x${HEIGHT} edited save`,
        bridge: fmtMs(save),
        baseline: "-",
        ratio: "-",
        target: "(info, for --compare)",
        result: "-",
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// Its own flag: psd-open-export.js, imported for the file, answers to "--child" itself.
const childIndex = process.argv.indexOf("--save-child");
if (childIndex !== -1) process.send(await saveRun(JSON.parse(process.argv[childIndex + 1])));
else await printIfMain(import.meta, run);
