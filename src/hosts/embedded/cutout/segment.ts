import sharp from "sharp";
import type { CutoutMethod } from "../../../protocol/index.js";
import type { Raster } from "../raster.js";
import { rasterBuffer } from "../raster.js";
import { type FloodOptions, type FloodResult, floodSegment } from "./flood.js";
import { GRABCUT_ITERATIONS, refineWithGrabCut } from "./grabcut.js";
import { modelAvailable, modelMask, modelSessionBytes } from "./model.js";
import { refineModelMask } from "./refine.js";

/**
 * The embedded editor's cutouts: `model` (the segmentation model), `grabcut` (flood fill from the border refined
 * by GrabCut), `flood` (flood fill alone), or `auto`: the model where it can run, else flood fill refined by
 * GrabCut when unsure.
 */
export const EMBEDDED_CUTOUT_METHODS: readonly CutoutMethod[] = ["model", "grabcut", "flood"];

/** Longest edge the model's mask is refined at (guided filter) before it is scaled to full size. */
export const MODEL_WORK_EDGE = 1024;

/** How a cutout runs. */
export interface CutoutOptions {
  /** Longest edge flood fill and GrabCut work at (the model's mask is refined at {@link MODEL_WORK_EDGE}). @default CUTOUT_WORK_EDGE (512) */
  readonly workEdge: number;
  /** Gaussian σ (px, full size) that feathers the upscaled mask. @default 1.2 */
  readonly featherSigma: number;
  /**
   * GrabCut refinement. Flood fill: `auto` refines only when it is unsure. The model: `always` refines its mask
   * with GrabCut seeded from its trimap; `auto` and `never` leave it as it is (on the test photos refinement
   * changed no check and tripled the time; see docs/cutouts.md). @default "auto"
   */
  readonly refine: "auto" | "always" | "never";
  /** Flood fill tuning. */
  readonly flood?: Partial<FloodOptions> | undefined;
  /** Checked between stages and GrabCut iterations; throwing stops the work. */
  readonly checkpoint?: (() => void) | undefined;
  /** Told when a stage starts: `done` of {@link CUTOUT_PROGRESS_UNITS} units, and what runs now. */
  readonly progress?: ((done: number, total: number, message: string) => void) | undefined;
  /** Which way the subject is found. @default "auto" */
  readonly method?: CutoutMethod | undefined;
  /**
   * Called before the model's session is loaded (once per process): throws (the editor's memory budget's
   * `PAYLOAD_TOO_LARGE`) when the session (`MODEL_SESSION_BYTES`) does not fit. Then `model` fails with that error and
   * `auto` falls back to flood fill and GrabCut. @default none (nothing is charged)
   */
  readonly reserveModel?: (() => void) | undefined;
}

/** Units of a cutout's progress: scaling, flood fill, GrabCut's iterations (skipped without refinement), feathering. */
export const CUTOUT_PROGRESS_UNITS = 3 + GRABCUT_ITERATIONS;

/** A subject mask at the input's size and how much to trust it. */
export interface CutoutResult {
  readonly width: number;
  readonly height: number;
  /** One byte per pixel, 255 = subject, feathered edges. */
  readonly alpha: Uint8Array;
  /** 0–1: 0 when nothing was found. */
  readonly confidence: number;
  /** Share of the image that is subject (alpha ≥ 128 at work size). */
  readonly coverage: number;
  /** Whether GrabCut refined the flood fill or the model's mask. */
  readonly refined: boolean;
  /** Why the confidence is low, when it is. */
  readonly reason: string | undefined;
  /** The way that ran. */
  readonly method: Exclude<CutoutMethod, "auto">;
}

/** Below this flood-fill confidence, `refine: "auto"` runs GrabCut. */
const AUTO_REFINE_BELOW = 0.75;

/**
 * Finds the subject of an image by `options.method`: the segmentation model (`auto` where it can run), or flood
 * fill from the border at `workEdge` with optional GrabCut refinement; the mask comes back at full size.
 */
export async function cutoutSubject(raster: Raster, options: CutoutOptions): Promise<CutoutResult> {
  const method = options.method ?? "auto";
  if (method === "model" || (method === "auto" && modelFits(options) && (await modelAvailable()))) {
    if (modelSessionBytes() === 0) options.reserveModel?.();
    return modelCutout(raster, options);
  }
  return floodCutout(raster, { ...options, refine: method === "grabcut" ? "always" : method === "flood" ? "never" : options.refine });
}

/** Whether the model is loaded, or its session would fit the editor's memory budget (`auto` asks before loading it). */
function modelFits(options: CutoutOptions): boolean {
  if (modelSessionBytes() > 0 || options.reserveModel === undefined) return true;
  try {
    options.reserveModel();
    return true;
  } catch {
    return false;
  }
}

/** `raster` at most `edge` pixels on its longest side, as RGBA bytes. */
async function workCopy(raster: Raster, edge: number): Promise<{ small: Uint8Array; ww: number; wh: number }> {
  const { width, height } = raster;
  const scale = Math.min(1, edge / Math.max(width, height));
  const ww = Math.max(1, Math.round(width * scale));
  const wh = Math.max(1, Math.round(height * scale));
  const small =
    scale < 1
      ? new Uint8Array(
          await sharp(rasterBuffer(raster), { raw: { width, height, channels: 4 } })
            .resize(ww, wh, { fit: "fill" })
            .raw()
            .toBuffer(),
        )
      : new Uint8Array(raster.data.buffer, raster.data.byteOffset, raster.data.byteLength);
  return { small, ww, wh };
}

/**
 * The segmentation model's cutout: its mask refined along the image's edges at {@link MODEL_WORK_EDGE}, with
 * `refine: "always"` by GrabCut seeded from its trimap, then scaled to full size. Confidence is the share of the
 * mask that is decided (near 0 or 1).
 */
async function modelCutout(raster: Raster, options: CutoutOptions): Promise<CutoutResult> {
  const { width, height } = raster;
  const progress = (done: number, message: string): void => options.progress?.(done, CUTOUT_PROGRESS_UNITS, message);
  progress(0, "scaling");
  const { small, ww, wh } = await workCopy(raster, MODEL_WORK_EDGE);
  options.checkpoint?.();
  progress(1, "segmenting");
  let mask = await modelMask(raster, small, ww, wh, options.checkpoint);
  options.checkpoint?.();
  let refined = false;
  if (options.refine === "always") {
    progress(2, "refining");
    const better = await refineModelMask(small, ww, wh, mask, options.workEdge, (done) => {
      options.checkpoint?.();
      progress(2 + done, "refining");
    });
    if (better) {
      mask = better;
      refined = true;
    }
  }
  let subject = 0;
  let decided = 0;
  const soft = new Uint8Array(mask.length);
  for (let i = 0; i < mask.length; i++) {
    const a = mask[i]!;
    if (a >= 0.5) subject++;
    if (a < 0.1 || a > 0.9) decided++;
    soft[i] = Math.round(a * 255);
  }
  const coverage = subject / mask.length;
  const reason = coverage < 0.002 ? "no subject found" : coverage > 0.97 ? "no background found" : undefined;
  const confidence = reason === undefined ? Math.round((decided / mask.length) * 100) / 100 : 0;
  progress(CUTOUT_PROGRESS_UNITS - 1, "scaling the mask");
  const alpha = await upscale(soft, ww, wh, width, height, 0);
  progress(CUTOUT_PROGRESS_UNITS, "done");
  return { width, height, alpha, confidence, coverage, refined, reason, method: "model" };
}

/** Flood fill from the border, then, when asked or unsure, GrabCut refinement. */
async function floodCutout(raster: Raster, options: CutoutOptions): Promise<CutoutResult> {
  const { width, height } = raster;
  const progress = (done: number, message: string): void => options.progress?.(done, CUTOUT_PROGRESS_UNITS, message);
  progress(0, "scaling");
  const { small, ww, wh } = await workCopy(raster, options.workEdge);
  options.checkpoint?.();
  progress(1, "flood fill");
  const flood = floodSegment(small, ww, wh, options.flood);
  options.checkpoint?.();
  const judged = judge(flood);
  let subject = flood.subject;
  let refined = false;
  const wantRefine = options.refine === "always" || (options.refine === "auto" && judged.confidence > 0 && judged.confidence < AUTO_REFINE_BELOW);
  if (wantRefine) {
    progress(2, "refining");
    const better = await refineWithGrabCut(small, ww, wh, flood.subject, (done) => {
      options.checkpoint?.();
      progress(2 + done, "refining");
    });
    options.checkpoint?.();
    if (better) {
      subject = better;
      refined = true;
    }
  }
  let area = 0;
  for (const v of subject) area += v;
  progress(CUTOUT_PROGRESS_UNITS - 1, "feathering");
  const alpha = await upscale(softEdges(small, ww, wh, subject), ww, wh, width, height, options.featherSigma);
  progress(CUTOUT_PROGRESS_UNITS, "feathering");
  return { width, height, alpha, confidence: judged.confidence, reason: judged.reason, coverage: area / (ww * wh), refined, method: refined ? "grabcut" : "flood" };
}

/**
 * Confidence from cheap signals: a busy border (high spread), a fill that reached little of the
 * image, a subject touching much of the border, or a subject that is nearly nothing or nearly everything.
 */
export function judge(flood: FloodResult): { confidence: number; reason: string | undefined } {
  if (flood.subjectShare < 0.002) return { confidence: 0, reason: "no subject found" };
  if (flood.subjectShare > 0.97) return { confidence: 0, reason: "no background found" };
  const factors: Array<[number, string]> = [
    [clamp01(1 - (flood.borderSpread - 4) / 12), "busy or textured background"],
    [clamp01(flood.backgroundShare / 0.2), "background covers little of the image"],
    [clamp01(1 - flood.borderSubjectShare * 2), "subject touches the image border"],
  ];
  let confidence = 1;
  let reason: string | undefined;
  for (const [value, why] of factors) {
    if (value < confidence) {
      confidence = value;
      reason = value < 0.75 ? why : undefined;
    }
  }
  return { confidence: Math.round(confidence * 100) / 100, reason };
}

const clamp01 = (v: number): number => Math.min(1, Math.max(0, v));

/**
 * 0/1 subject mask → 0–255 alpha where pixels on the outline get their estimated coverage. A pixel at the
 * outline of a downscaled image mixes subject and background; projecting its colour onto the line between a
 * background pixel and a subject pixel two steps away on either side gives the mix (in RGB, where downscaling
 * mixes). Without this the outline sits up to a work pixel off, which costs IoU once scaled up.
 */
export function softEdges(rgba: Uint8Array, width: number, height: number, subject: Uint8Array): Uint8Array {
  const alpha = new Uint8Array(subject.length);
  for (let i = 0; i < subject.length; i++) alpha[i] = subject[i] ? 255 : 0;
  const steps: Array<[number, number]> = [
    [1, 0],
    [-1, 0],
    [0, 1],
    [0, -1],
  ];
  const at = (x: number, y: number): number => (x < 0 || y < 0 || x >= width || y >= height ? -1 : y * width + x);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const inside = subject[i] === 1;
      let sum = 0;
      let count = 0;
      for (const [dx, dy] of steps) {
        const across = at(x + dx, y + dy);
        if (across < 0 || (subject[across] === 1) === inside) continue;
        // Reference pixels: two steps into the background side and two into the subject side.
        const far = at(x + 2 * dx, y + 2 * dy);
        const back = at(x - dx, y - dy);
        const bg = inside ? (far >= 0 && !subject[far] ? far : across) : back >= 0 && !subject[back] ? back : i;
        const fg = inside ? (back >= 0 && subject[back] ? back : i) : far >= 0 && subject[far] ? far : across;
        let dot = 0;
        let len = 0;
        for (let c = 0; c < 3; c++) {
          const span = (rgba[4 * fg + c] ?? 0) - (rgba[4 * bg + c] ?? 0);
          dot += ((rgba[4 * i + c] ?? 0) - (rgba[4 * bg + c] ?? 0)) * span;
          len += span * span;
        }
        // Too little contrast to say: keep the hard decision.
        if (len < 100) continue;
        sum += Math.min(1, Math.max(0, dot / len));
        count++;
      }
      if (count > 0) alpha[i] = Math.round((sum / count) * 255);
    }
  }
  return alpha;
}

/** Work-size alpha → feathered 0–255 alpha at full size. */
async function upscale(soft: Uint8Array, ww: number, wh: number, width: number, height: number, sigma: number): Promise<Uint8Array> {
  const bytes = Buffer.from(soft.buffer, soft.byteOffset, soft.byteLength);
  let image = sharp(bytes, { raw: { width: ww, height: wh, channels: 1 } });
  if (ww !== width || wh !== height) image = image.resize(width, height, { fit: "fill", kernel: "linear" });
  // One pipeline resizes before blurring; single-channel input would come out as 3 channels without extractChannel.
  const resized = await image.extractChannel(0).raw().toBuffer();
  if (sigma < 0.3) return new Uint8Array(resized);
  const out = await sharp(resized, { raw: { width, height, channels: 1 } }).blur(sigma).extractChannel(0).raw().toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
