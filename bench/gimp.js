// GIMP host: per-call latency through the bridge (WS request → mailbox → adapter → Script-Fu → reply) beside a
// direct Script-Fu call to the same GIMP (one TCP connection per call, the wire protocol only). Sequential calls,
// one in flight; medians per round, rounds alternate which side goes first. Skips when GIMP is not installed.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import sharp from "sharp";
import { createBridge } from "../dist/index.js";
import { createGimpHost, exchange, GimpSupervisor } from "../dist/hosts/gimp/index.js";
import { closeAll, fmtMs, fmtRatio, log, max, median, min, now, openSocket, printIfMain, request, ROUNDS } from "./_lib.js";

const BINARY = process.env.BRIDGE_GIMP_BINARY || "gimp-console-2.10";
/** Calls per side per round (BENCH_GIMP_CALLS). */
const CALLS = Number(process.env.BENCH_GIMP_CALLS ?? 100);

const installed = () => (process.env.PATH ?? "").split(delimiter).some((dir) => dir && existsSync(join(dir, BINARY)));

async function timeEach(n, fn) {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const t0 = now();
    await fn(i);
    samples.push(now() - t0);
  }
  return median(samples);
}

export async function run() {
  if (!installed()) {
    log(`  gimp: skipped, ${BINARY} is not installed`);
    return [{ benchmark: "gimp", bridge: "skipped", baseline: "-", ratio: "-", target: "-", result: "-" }];
  }
  const gimp = new GimpSupervisor({ binary: BINARY });
  const endpoint = await gimp.start();
  const host = createGimpHost({ binary: BINARY, attach: `${endpoint.host}:${endpoint.port}`, sample: true });
  const bridge = createBridge({ host, listen: { host: "127.0.0.1", port: 0 } });
  await bridge.start();
  const ws = await openSocket(bridge.wsUrl);
  const scratch = join(await mkdtemp(join(tmpdir(), "bench-gimp-")), "direct.png");
  try {
    const doc = (await request(ws, "doc", "document:current")).result;
    const importPng = await sharp({ create: { width: 200, height: 150, channels: 4, background: { r: 200, g: 80, b: 40, alpha: 0.8 } } }).png().toBuffer();
    const importFile = join(dirname(scratch), "import.png");
    await writeFile(importFile, importPng);
    const figures = [
      {
        name: "gimp: jsx:run (+ 1 2)",
        bridge: (i) => request(ws, `s${i}`, "jsx:run", { script: "(+ 1 2)", language: "script-fu" }),
        direct: () => exchange(endpoint, "(+ 1 2)"),
      },
      {
        name: "gimp: selection:getArea",
        bridge: (i) => request(ws, `g${i}`, "selection:getArea", { documentId: doc.id }),
        direct: () => exchange(endpoint, `(gimp-selection-bounds ${doc.id})`),
      },
      {
        name: "gimp: document:layers (5 layers)",
        bridge: (i) => request(ws, `l${i}`, "document:layers", { documentId: doc.id }),
        // The same PDB reads the adapter's tree makes, as one raw script.
        direct: () =>
          exchange(
            endpoint,
            `(let loop ((ls (vector->list (cadr (gimp-image-get-layers ${doc.id})))) (out '())) (if (null? ls) out (let ((l (car ls))) (loop (append (cdr ls) (if (= 1 (car (gimp-item-is-group l))) (vector->list (cadr (gimp-item-get-children l))) '())) (cons (list l (gimp-item-get-name l) (gimp-item-get-visible l) (gimp-layer-get-opacity l) (gimp-layer-get-mode l) (gimp-drawable-offsets l) (gimp-drawable-width l) (gimp-drawable-height l)) out)))))`,
          ),
      },
      {
        // GIMP's composite as PNG: the bridge has GIMP write XCF (its core) and encodes the PNG with sharp; the
        // direct side is what glue code does, GIMP's own PNG export (the file-png plug-in, a process per save).
        name: "gimp: image:exportDocument png (320×240)",
        calls: Number(process.env.BENCH_GIMP_EXPORTS ?? 10),
        bridge: (i) => request(ws, `e${i}`, "image:exportDocument", { documentId: doc.id, format: "png" }),
        direct: async () => {
          await exchange(
            endpoint,
            `(let* ((dup (car (gimp-image-duplicate ${doc.id}))) (m (car (gimp-image-merge-visible-layers dup CLIP-TO-IMAGE)))) (file-png-save2 RUN-NONINTERACTIVE dup m "${scratch}" "${scratch}" 0 3 0 0 0 1 0 0 0) (gimp-image-delete dup))`,
          );
          await readFile(scratch);
        },
      },
      {
        // A 200×150 PNG placed as a new layer: the bridge decodes it and hands GIMP an XCF (its core loads it); the
        // direct side has GIMP load the PNG itself (the file-png plug-in, a process per load).
        name: "gimp: layer:importImage png (200×150)",
        calls: Number(process.env.BENCH_GIMP_EXPORTS ?? 10),
        bridge: (i) => request(ws, `i${i}`, "layer:importImage", { documentId: doc.id, image: `data:image/png;base64,${importPng.toString("base64")}` }),
        direct: () =>
          exchange(endpoint, `(let ((l (car (gimp-file-load-layer RUN-NONINTERACTIVE ${doc.id} "${importFile}")))) (gimp-image-insert-layer ${doc.id} l 0 0))`),
      },
    ];
    const rows = [];
    for (const figure of figures) {
      const calls = figure.calls ?? CALLS;
      await timeEach(Math.min(10, calls), figure.bridge); // warm-up: library load, JIT
      await timeEach(Math.min(10, calls), figure.direct);
      const bridgeRounds = [];
      const directRounds = [];
      for (let round = 0; round < ROUNDS; round++) {
        if (round % 2 === 0) {
          bridgeRounds.push(await timeEach(calls, figure.bridge));
          directRounds.push(await timeEach(calls, figure.direct));
        } else {
          directRounds.push(await timeEach(calls, figure.direct));
          bridgeRounds.push(await timeEach(calls, figure.bridge));
        }
      }
      const b = median(bridgeRounds);
      const d = median(directRounds);
      log(
        `  ${figure.name}: bridge ${fmtMs(b)} [${fmtMs(min(bridgeRounds))}..${fmtMs(max(bridgeRounds))}], ` +
          `direct ${fmtMs(d)} [${fmtMs(min(directRounds))}..${fmtMs(max(directRounds))}], ratio ${fmtRatio(b / d)}`,
      );
      rows.push({ benchmark: figure.name, bridge: fmtMs(b), baseline: fmtMs(d), ratio: fmtRatio(b / d), target: "(info)", result: "-" });
    }
    return rows;
  } finally {
    await rm(dirname(scratch), { recursive: true, force: true });
    await closeAll([ws]);
    await bridge.close();
    await gimp.stop();
  }
}

await printIfMain(import.meta, run);
