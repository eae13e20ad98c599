/**
 * Optional GrabCut refinement through opencv.js (reference recipe B): the flood fill's mask becomes a trimap
 * (eroded = sure subject, outside the dilated mask = sure background, the band between = probable) and GrabCut
 * re-decides the band from colour models. opencv.js is one ~11 MB WASM file, so it loads on first use only.
 */
import { createRequire } from "node:module";
import { dilateMask, erodeMask } from "../trace/index.js";

/** GrabCut iterations (reference: 4). */
export const GRABCUT_ITERATIONS = 4;
/** Half-width (work pixels) of the probable band on either side of the flood fill's outline. */
export const GRABCUT_BAND = 4;

interface Mat {
  data: Uint8Array;
  delete(): void;
}
interface OpenCv {
  Mat: new (rows?: number, cols?: number, type?: number) => Mat;
  Rect: new (x: number, y: number, w: number, h: number) => unknown;
  matFromArray(rows: number, cols: number, type: number, data: ArrayLike<number>): Mat;
  grabCut(img: Mat, mask: Mat, rect: unknown, bgd: Mat, fgd: Mat, iterations: number, mode: number): void;
  CV_8UC1: number;
  CV_8UC3: number;
  GC_BGD: number;
  GC_FGD: number;
  GC_PR_BGD: number;
  GC_PR_FGD: number;
  GC_INIT_WITH_MASK: number;
  GC_EVAL: number;
  onRuntimeInitialized?: () => void;
}

let loading: Promise<OpenCv> | undefined;

/** Loads opencv.js once. Its module object is a thenable resolving to itself, so it must not be awaited. */
function loadOpenCv(): Promise<OpenCv> {
  // require, not import(): the CommonJS module object has a `then`, which an ESM namespace would expose.
  loading ??= new Promise<OpenCv>((resolve, reject) => {
    try {
      const cv = createRequire(import.meta.url)("@techstark/opencv-js") as OpenCv;
      const ready = (): void => resolve(pick(cv));
      if ((cv as { Mat?: unknown }).Mat) ready();
      else cv.onRuntimeInitialized = ready;
    } catch (error) {
      loading = undefined;
      reject(error);
    }
  });
  return loading;
}

/** A plain (non-thenable) view of the module, so it can travel through promises. */
function pick(cv: OpenCv): OpenCv {
  return {
    Mat: cv.Mat,
    Rect: cv.Rect,
    matFromArray: cv.matFromArray.bind(cv),
    grabCut: cv.grabCut.bind(cv),
    CV_8UC1: cv.CV_8UC1,
    CV_8UC3: cv.CV_8UC3,
    GC_BGD: cv.GC_BGD,
    GC_FGD: cv.GC_FGD,
    GC_PR_BGD: cv.GC_PR_BGD,
    GC_PR_FGD: cv.GC_PR_FGD,
    GC_INIT_WITH_MASK: cv.GC_INIT_WITH_MASK,
    GC_EVAL: cv.GC_EVAL,
  };
}

/**
 * Refines a 0/1 subject mask of RGBA pixels; `null` when it cannot (a trimap class would be empty: opencv
 * asserts on empty sample sets) so the caller keeps the flood fill. `onIteration` runs after each of the
 * {@link GRABCUT_ITERATIONS} iterations (throwing stops the refinement): they run one call each, the first
 * initialising the colour models from the trimap and the others continuing from them, which is what one call of
 * all the iterations does.
 */
export async function refineWithGrabCut(
  rgba: Uint8Array,
  width: number,
  height: number,
  subject: Uint8Array,
  onIteration?: (done: number, total: number) => void,
): Promise<Uint8Array | null> {
  const asMask = { width, height, data: subject.map((v) => (v ? 255 : 0)) };
  const sure = erodeMask(asMask, GRABCUT_BAND);
  const grown = dilateMask(asMask, GRABCUT_BAND);
  const trimap = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const inGrown = (grown.data[(y + grown.pad) * grown.width + x + grown.pad] ?? 0) > 0;
      trimap[i] = sure[i] ? TRIMAP.subject : !inGrown ? TRIMAP.background : subject[i] ? TRIMAP.probableSubject : TRIMAP.probableBackground;
    }
  }
  return grabCutTrimap(rgba, width, height, trimap, onIteration);
}

/** Classes of a GrabCut trimap: sure background, sure subject, and the two probable ones GrabCut re-decides. */
export const TRIMAP = { background: 0, subject: 1, probableBackground: 2, probableSubject: 3 } as const;

/**
 * GrabCut of RGBA pixels from a trimap ({@link TRIMAP} values, one byte per pixel): 0/1 subject per pixel, or
 * `null` when a sure class is empty (opencv asserts on empty sample sets). `onIteration` as in
 * {@link refineWithGrabCut}.
 */
export async function grabCutTrimap(
  rgba: Uint8Array,
  width: number,
  height: number,
  trimap: Uint8Array,
  onIteration?: (done: number, total: number) => void,
): Promise<Uint8Array | null> {
  const n = width * height;
  let sureFg = 0;
  let sureBg = 0;
  for (const v of trimap) {
    if (v === TRIMAP.subject) sureFg++;
    else if (v === TRIMAP.background) sureBg++;
  }
  if (sureFg === 0 || sureBg === 0) return null;
  const cv = await loadOpenCv();
  const classes = [cv.GC_BGD, cv.GC_FGD, cv.GC_PR_BGD, cv.GC_PR_FGD];
  const trimapValues = trimap.map((v) => classes[v] ?? cv.GC_PR_BGD);
  const rgb = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    rgb[3 * i] = rgba[4 * i] ?? 0;
    rgb[3 * i + 1] = rgba[4 * i + 1] ?? 0;
    rgb[3 * i + 2] = rgba[4 * i + 2] ?? 0;
  }
  const image = cv.matFromArray(height, width, cv.CV_8UC3, rgb);
  const mask = cv.matFromArray(height, width, cv.CV_8UC1, trimapValues);
  const bgd = new cv.Mat();
  const fgd = new cv.Mat();
  try {
    const rect = new cv.Rect(0, 0, width, height);
    for (let i = 0; i < GRABCUT_ITERATIONS; i++) {
      cv.grabCut(image, mask, rect, bgd, fgd, 1, i === 0 ? cv.GC_INIT_WITH_MASK : cv.GC_EVAL);
      onIteration?.(i + 1, GRABCUT_ITERATIONS);
    }
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const v = mask.data[i];
      out[i] = v === cv.GC_FGD || v === cv.GC_PR_FGD ? 1 : 0;
    }
    return out;
  } finally {
    image.delete();
    mask.delete();
    bgd.delete();
    fgd.delete();
  }
}
