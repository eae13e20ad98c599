// File access through the bridge, beside the least work each operation needs, in the same process:
//
//   write:  writeFileAtomic of a PSD's bytes (temporary sibling, fsync, rename, .bak)  vs  fs.writeFile of them
//   save:   document:save over WS of a 2000×1500 document with 4 layers, replacing   vs  sharp composite (the merged
//           the file and keeping .bak (composite, serialise, atomic write, transport)    image) + ag-psd + fs.writeFile
//   open:   document:open over WS of that PSD (resolve in files roots, stat, bounded    vs  fs.readFile + ag-psd readPsd
//           non-blocking read, parse, inventory of what a save would drop)
//   refuse: document:open of a FIFO and of a .png symlink to /dev/zero (info: before, the FIFO call never answered
//           and /dev/zero was read until memory ran out)
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initializeCanvas, readPsd, writePsdBuffer } from "ag-psd";
import sharp from "sharp";
import { createBridge } from "../dist/index.js";
import { writeFileAtomic } from "../dist/files/index.js";
import { fmtBytes, fmtMs, latencyRow, log, max, median, medianDuration, min, openSocket, printIfMain, request, ROUNDS, closeAll } from "./_lib.js";

const WIDTH = Number(process.env.BENCH_EXPORT_WIDTH ?? 2000);
const HEIGHT = Number(process.env.BENCH_EXPORT_HEIGHT ?? 1500);
const REPEATS = Number(process.env.BENCH_EXPORT_REPEATS ?? 3);

function layer(width, height, seed) {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) {
    data[i] = (i / 4) % 251;
    data[i + 1] = (seed * 53) % 256;
    data[i + 2] = ((i / 4) * seed) % 241;
    data[i + 3] = 255;
  }
  return { width, height, data };
}

function fixture() {
  initializeCanvas(
    (width, height) => ({ width, height }),
    (width, height) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) }),
  );
  const w = Math.round(WIDTH * 0.6);
  const h = Math.round(HEIGHT * 0.6);
  return {
    width: WIDTH,
    height: HEIGHT,
    children: [
      { name: "Background", id: 1, imageData: layer(WIDTH, HEIGHT, 1) },
      { name: "A", id: 2, imageData: layer(w, h, 2) },
      { name: "B", id: 3, left: WIDTH - w, imageData: layer(w, h, 3) },
      { name: "C", id: 4, top: HEIGHT - h, imageData: layer(w, h, 4) },
    ],
  };
}

/** The least work a PSD save needs: the merged image other readers show (sharp composite), the layers, a write. */
async function directSave(psd, path) {
  const [base, ...rest] = psd.children;
  const raw = (l) => ({ width: l.imageData.width, height: l.imageData.height, channels: 4 });
  const merged = await sharp(Buffer.from(base.imageData.data.buffer), { raw: raw(base) })
    .composite(rest.map((l) => ({ input: Buffer.from(l.imageData.data.buffer), raw: raw(l), left: l.left ?? 0, top: l.top ?? 0 })))
    .raw()
    .toBuffer();
  const imageData = { width: psd.width, height: psd.height, data: new Uint8ClampedArray(merged.buffer, merged.byteOffset, merged.byteLength) };
  await writeFile(path, writePsdBuffer({ ...psd, imageData }));
}

/** Alternates which side goes first each round; returns the medians of the per-round medians. */
async function alternate(bridgeRun, baselineRun) {
  const bridge = [];
  const baseline = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [bridgeRun, baselineRun] : [baselineRun, bridgeRun];
    for (const fn of order) (fn === bridgeRun ? bridge : baseline).push(await medianDuration(REPEATS, fn));
  }
  return { bridge, baseline };
}

export async function run() {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "bench-files-")));
  const psd = fixture();
  const bytes = writePsdBuffer(psd);
  const source = join(dir, "doc.psd");
  await writeFile(source, bytes);
  execFileSync("mkfifo", [join(dir, "pipe.psd")]);
  await symlink("/dev/zero", join(dir, "zero.png"));
  const bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 }, embedded: { sample: false }, files: { roots: [dir] } });
  await bridge.start();
  const ws = await openSocket(bridge.wsUrl);
  let id = 0;
  const call = async (method, params) => {
    const reply = await request(ws, String(++id), method, params, 120_000);
    if (!reply.ok) throw new Error(`${method} failed: ${JSON.stringify(reply.error)}`);
    return reply.result;
  };
  const rows = [];
  try {
    log(`  fixture: ${WIDTH}×${HEIGHT}, 4 layers, ${fmtBytes(bytes.byteLength)} PSD`);
    const atomic = await alternate(
      () => writeFileAtomic(join(dir, "atomic.psd"), bytes, { backup: true }),
      () => writeFile(join(dir, "plain.psd"), bytes),
    );
    log(`  write: atomic [${fmtMs(min(atomic.bridge))}..${fmtMs(max(atomic.bridge))}], plain [${fmtMs(min(atomic.baseline))}..${fmtMs(max(atomic.baseline))}]`);
    rows.push(latencyRow("files: atomic write + .bak vs fs.writeFile (same bytes)", median(atomic.bridge), median(atomic.baseline)));

    const opened = await call("document:open", { path: "doc.psd" });
    const saved = await alternate(
      () => call("document:save", { documentId: opened.id, savePath: "saved.psd" }),
      () => directSave(psd, join(dir, "direct.psd")),
    );
    log(`  save: bridge [${fmtMs(min(saved.bridge))}..${fmtMs(max(saved.bridge))}], composite+ag-psd+write [${fmtMs(min(saved.baseline))}..${fmtMs(max(saved.baseline))}]`);
    rows.push(latencyRow(`files: document:save ${WIDTH}x${HEIGHT} over WS vs sharp composite + ag-psd + fs.writeFile`, median(saved.bridge), median(saved.baseline)));

    const open = await alternate(
      async () => {
        const doc = await call("document:open", { path: "doc.psd" });
        await call("document:close", { documentId: doc.id });
      },
      async () => readPsd(await readFile(source), { useImageData: true, skipThumbnail: true, skipCompositeImageData: true }),
    );
    log(`  open: bridge [${fmtMs(min(open.bridge))}..${fmtMs(max(open.bridge))}], readFile+readPsd [${fmtMs(min(open.baseline))}..${fmtMs(max(open.baseline))}]`);
    rows.push(latencyRow(`files: document:open ${WIDTH}x${HEIGHT} over WS vs fs.readFile + ag-psd`, median(open.bridge), median(open.baseline)));

    const rss = process.memoryUsage().rss;
    const refusals = [];
    for (let i = 0; i < ROUNDS; i++) {
      for (const path of ["pipe.psd", "zero.png"]) {
        const t0 = performance.now();
        const reply = await request(ws, String(++id), "document:open", { path }, 10_000);
        if (reply.ok) throw new Error(`${path} was opened`);
        refusals.push(performance.now() - t0);
      }
    }
    const growth = process.memoryUsage().rss - rss;
    log(`  refusals of a FIFO and a /dev/zero link: median ${fmtMs(median(refusals))}, RSS change ${fmtBytes(Math.max(0, growth))}`);
    rows.push({
      benchmark: "files: document:open of a FIFO / a /dev/zero link (answer time)",
      bridge: fmtMs(median(refusals)),
      baseline: "never answered before",
      ratio: "-",
      target: "(info)",
      result: "-",
    });
  } finally {
    await closeAll([ws]);
    await bridge.close();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

await printIfMain(import.meta, run);
