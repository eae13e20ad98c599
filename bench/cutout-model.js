// Cutouts of real photos: the segmentation model, alone and refined by GrabCut from its trimap, vs the flood fill
// refined by GrabCut (the method before it).
//
//   per method: one 1024 px photo (scikit-image's motorcycle, scaled up) cut out by `cutoutSubject`, each method in
//               a child process of its own so the peaks do not mix: the first cutout (the model loads its session
//               then), the median of the next BENCH_CUTOUTS (5), and the child's peak RSS (`resourceUsage().maxRSS`).
//               "model + refinement" is the model with `refine: "always"`; the baseline is GrabCut
//               (`method: "grabcut"`), both measured the same way.
//   stall:      while one client runs `action:removeBackground` with the model through a bridge (editor in its own
//               process), other clients ping `GET /health` and WS `getServerInfo` every 20 ms; their worst latency
//               beside a bare `node:http` handler pinged at the same moment.
//
//   node bench/cutout-model.js   (after `npm run build`; needs the photos `.ci/run` unpacks from Debian's
//   python3-skimage, else it says so and measures nothing)
import { fork } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { fmtBytes, fmtMs, fmtRatio, log, median, now, openSocket, printIfMain, request } from "./_lib.js";
import { bareHttp, pingDuring, worst } from "./_stall.js";

const CUTOUTS = Number(process.env.BENCH_CUTOUTS ?? 5);
const EDGE = 1024;
const PHOTO_DIRS = [
  process.env.BRIDGE_TEST_PHOTOS,
  "/opt/image-editor-bridge-photos/usr/lib/python3/dist-packages/skimage/data",
  "/usr/lib/python3/dist-packages/skimage/data",
];
const PHOTO = "motorcycle_left.png";
/** What each child runs: a name for the rows, the cutout's method and refine option. */
const RUNS = [
  { name: "model", method: "model", refine: "never" },
  { name: "model + refinement", method: "model", refine: "always" },
  { name: "grabcut", method: "grabcut", refine: "always" },
];

function photoPath() {
  const dir = PHOTO_DIRS.find((d) => d !== undefined && existsSync(join(d, PHOTO)));
  return dir === undefined ? undefined : join(dir, PHOTO);
}

/** The child: cuts the photo out one way, answers its times and peak RSS. */
async function child(name, file) {
  const { method, refine } = RUNS.find((r) => r.name === name);
  const { cutoutSubject, DEFAULT_CUTOUT_OPTIONS } = await import("../dist/hosts/embedded/cutout/index.js");
  const { data, info } = await sharp(file).resize(EDGE, EDGE, { fit: "inside" }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const raster = { width: info.width, height: info.height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength) };
  const times = [];
  let result;
  for (let i = 0; i <= CUTOUTS; i++) {
    const t0 = now();
    result = await cutoutSubject(raster, { ...DEFAULT_CUTOUT_OPTIONS, method, refine });
    times.push(now() - t0);
  }
  process.send({
    first: times[0],
    median: median(times.slice(1)),
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    coverage: result.coverage,
    ran: result.refined && result.method === "model" ? "model, refined" : result.method,
  });
}

function measure(name, file) {
  return new Promise((resolve, reject) => {
    const proc = fork(fileURLToPath(import.meta.url), ["--child", name, file], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    proc.once("message", resolve);
    proc.once("exit", (code) => (code === 0 ? undefined : reject(new Error(`${name} child exited ${code}`))));
  });
}

async function stall(file) {
  const { createBridge } = await import("../dist/index.js");
  const dir = await mkdtemp(join(tmpdir(), "bench-cutout-"));
  const big = join(dir, "photo.png");
  await sharp(file).resize(EDGE, EDGE, { fit: "inside" }).png().toFile(big);
  const bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 }, embedded: { sample: false } });
  await bridge.start();
  const bare = await bareHttp();
  try {
    const ws = await openSocket(bridge.wsUrl);
    const doc = await request(ws, "o", "document:open", { path: big }, 120_000);
    let took = 0;
    const samples = await pingDuring(bridge, bare, async () => {
      const t0 = now();
      const answer = await request(ws, "cut", "action:removeBackground", { documentId: doc.result.id, method: "model" }, 120_000);
      took = now() - t0;
      return answer;
    });
    ws.close();
    const answer = samples.outcome;
    if (!answer.ok) throw new Error(`removeBackground failed: ${JSON.stringify(answer.error)}`);
    return { took, health: worst(samples.health), ws: worst(samples.ws), bare: worst(samples.bare) };
  } finally {
    await bridge.close();
    await bare.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run() {
  const file = photoPath();
  if (file === undefined) {
    log(`cutout-model: ${PHOTO} not found (.ci/run unpacks Debian's python3-skimage): nothing measured`);
    return [];
  }
  log(`Cutouts of ${PHOTO} at ${EDGE} px, each method in its own process (first cutout, then median of ${CUTOUTS})`);
  const results = {};
  for (const { name } of RUNS) {
    results[name] = await measure(name, file);
    const r = results[name];
    log(`  ${name}: first ${fmtMs(r.first)}, median ${fmtMs(r.median)}, peak RSS ${fmtBytes(r.maxRssBytes)}, coverage ${r.coverage.toFixed(3)} (ran ${r.ran})`);
  }
  const s = await stall(file);
  log(`  stall: removeBackground by the model took ${fmtMs(s.took)}; worst /health ${fmtMs(s.health)}, WS getServerInfo ${fmtMs(s.ws)}, bare node:http ${fmtMs(s.bare)}`);
  const { model, grabcut } = results;
  const refined = results["model + refinement"];
  return [
    { benchmark: "cutout 1024 px: model vs GrabCut, median ms", bridge: fmtMs(model.median), baseline: fmtMs(grabcut.median), ratio: fmtRatio(model.median / grabcut.median), target: "(info)", result: "-" },
    { benchmark: "cutout 1024 px: model + refinement vs GrabCut, median ms", bridge: fmtMs(refined.median), baseline: fmtMs(grabcut.median), ratio: fmtRatio(refined.median / grabcut.median), target: "(info)", result: "-" },
    { benchmark: "cutout 1024 px: first model cutout (loads it) vs GrabCut's", bridge: fmtMs(model.first), baseline: fmtMs(grabcut.first), ratio: fmtRatio(model.first / grabcut.first), target: "(info)", result: "-" },
    { benchmark: "cutout 1024 px: peak RSS, model vs GrabCut", bridge: fmtBytes(model.maxRssBytes), baseline: fmtBytes(grabcut.maxRssBytes), ratio: fmtRatio(model.maxRssBytes / grabcut.maxRssBytes), target: "(info)", result: "-" },
    { benchmark: "cutout 1024 px: peak RSS, model + refinement vs GrabCut", bridge: fmtBytes(refined.maxRssBytes), baseline: fmtBytes(grabcut.maxRssBytes), ratio: fmtRatio(refined.maxRssBytes / grabcut.maxRssBytes), target: "(info)", result: "-" },
    { benchmark: "during a model cutout: worst /health vs bare", bridge: fmtMs(s.health), baseline: fmtMs(s.bare), ratio: fmtRatio(s.health / s.bare), target: "<= 50 ms", result: s.health <= 50 ? "pass" : "FAIL" },
    { benchmark: "during a model cutout: worst WS getServerInfo vs bare", bridge: fmtMs(s.ws), baseline: fmtMs(s.bare), ratio: fmtRatio(s.ws / s.bare), target: "<= 50 ms", result: s.ws <= 50 ? "pass" : "FAIL" },
  ];
}

if (process.argv[2] === "--child") await child(process.argv[3], process.argv[4]);
else await printIfMain(import.meta, run);
