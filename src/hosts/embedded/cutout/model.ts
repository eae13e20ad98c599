import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { packageRoot } from "../../../package-root.js";
import { BridgeError } from "../../../protocol/errors.js";
import type { Raster } from "../raster.js";
import { rasterBuffer } from "../raster.js";
import { forEachBox } from "./box.js";

/*
 * Salient-object segmentation with U²-Netp (the small U²-Net, Apache-2.0 weights by its authors), run on the CPU
 * with onnxruntime-node in the editor's own process. The weights ship in the repository (`models/`), checked
 * against their sha256 before use; nothing is downloaded.
 *
 * The model sees the image at 320×320 and answers a soft subject probability at that size. What is done with it:
 *   1. the probability is scaled up to the work size and sharpened along the image's own edges with a guided
 *      filter (the image's luminance is the guide), so the outline follows the subject, not the 320² grid;
 *   2. an alpha curve pushes the model's half-sure clutter towards transparent and its near-sure subject to
 *      opaque, keeping a soft ramp where it is unsure (hair, fur);
 *   3. the result is scaled to full size.
 */

/** The model file, shipped in the package's `models/`. */
const modelPath = (): string => join(packageRoot(), "models", "u2netp.onnx");
/** sha256 of the shipped `u2netp.onnx`: a different file is refused rather than run. */
export const MODEL_SHA256 = "309c8469258dda742793dce0ebea8e6dd393174f89934733ecc8b14c76f4ddd8";
/** The model's input edge: it was trained at 320², and larger inputs make it worse, not sharper. */
const MODEL_EDGE = 320;
const MEAN = [0.485, 0.456, 0.406] as const;
const STD = [0.229, 0.224, 0.225] as const;

/** Below this alpha (after the curve) a pixel is background, above `1 - ` it is subject; between is the soft ramp. */
export const ALPHA_CURVE = { low: 0.4, high: 0.85 } as const;
/** Guided filter: radius in work pixels per 320 px of the work edge, and regularisation (on 0–1 values). */
export const GUIDED_FILTER = { radiusPer320: 2, epsilon: 1e-3 } as const;

interface Session {
  run(feeds: Record<string, unknown>): Promise<Record<string, { data: unknown }>>;
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
}

interface Runtime {
  readonly session: Session;
  readonly Tensor: new (type: "float32", data: Float32Array, dims: readonly number[]) => unknown;
}

let loading: Promise<Runtime> | undefined;

/**
 * Memory the model's session takes once loaded (weights, graph, onnxruntime's own buffers, and the peak of one
 * inference with its CPU arena off): the peak resident memory of a process cutting out a 1024 px photo with the
 * model, less that of one doing it with GrabCut (+238 to +273 MiB over runs of `bench/cutout-model.js`), rounded up.
 * Charged to the editor's memory budget before the session is created.
 */
export const MODEL_SESSION_BYTES = 320 * 1024 * 1024;

/** Memory this process holds for the model: {@link MODEL_SESSION_BYTES} once its loading has started, else 0. */
export function modelSessionBytes(): number {
  return loading === undefined ? 0 : MODEL_SESSION_BYTES;
}

/** Whether the model can run here: onnxruntime-node installed (it is an optional dependency) and the weights intact. */
export async function modelAvailable(): Promise<boolean> {
  try {
    await runtime();
    return true;
  } catch {
    return false;
  }
}

/** Loads the session once per process, on first use, and keeps it. */
function runtime(): Promise<Runtime> {
  loading ??= (async () => {
    let ort: typeof import("onnxruntime-node");
    try {
      ort = await import("onnxruntime-node");
    } catch (error) {
      throw new BridgeError("NOT_SUPPORTED", "The segmentation model needs onnxruntime-node, which is not installed", {
        details: { capability: "cutout:model" },
        cause: error,
      });
    }
    const bytes = await readFile(modelPath()).catch((error: unknown) => {
      throw new BridgeError("NOT_SUPPORTED", "The segmentation model's weights (models/u2netp.onnx) are missing", { details: { capability: "cutout:model" }, cause: error });
    });
    const digest = createHash("sha256").update(bytes).digest("hex");
    if (digest !== MODEL_SHA256) {
      throw new BridgeError("NOT_SUPPORTED", "The segmentation model's weights (models/u2netp.onnx) are not the shipped file", {
        details: { capability: "cutout:model", sha256: digest, expected: MODEL_SHA256 },
      });
    }
    // The CPU memory arena keeps its peak for the process's life; off, a cutout's memory is given back after it.
    // The runtime's threads spin between the model's steps by default: on cores shared with the bridge and other
    // editors that is CPU taken for waiting. Without spinning a cutout took 0.86x the CPU (median of five runs of six
    // cutouts each, at load 7 on two cores), in the same time or less, with the same mask.
    const session = await ort.InferenceSession.create(bytes, {
      intraOpNumThreads: Math.max(1, availableParallelism()),
      enableCpuMemArena: false,
      graphOptimizationLevel: "all",
      extra: { session: { intra_op: { allow_spinning: "0" } } },
    });
    return { session: session as unknown as Session, Tensor: ort.Tensor as unknown as Runtime["Tensor"] };
  })();
  // A failed load is retried on the next cutout (a transient error must not disable the model for good).
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** The model's mask of `raster` at the work size (`ww`×`wh`), 0–1 per pixel, guided by `small` (RGBA at work size). */
export async function modelMask(raster: Raster, small: Uint8Array, ww: number, wh: number, checkpoint?: () => void): Promise<Float32Array> {
  const { session, Tensor } = await runtime();
  const { width, height } = raster;
  const rgb = await sharp(rasterBuffer(raster), { raw: { width, height, channels: 4 } })
    .removeAlpha()
    .resize(MODEL_EDGE, MODEL_EDGE, { fit: "fill" })
    .raw()
    .toBuffer();
  checkpoint?.();
  let max = 1;
  for (const v of rgb) if (v > max) max = v;
  const plane = MODEL_EDGE * MODEL_EDGE;
  const input = new Float32Array(3 * plane);
  for (let i = 0; i < plane; i++) {
    for (let c = 0; c < 3; c++) input[c * plane + i] = ((rgb[i * 3 + c] ?? 0) / max - MEAN[c]!) / STD[c]!;
  }
  const output = await session.run({ [session.inputNames[0]!]: new Tensor("float32", input, [1, 3, MODEL_EDGE, MODEL_EDGE]) });
  checkpoint?.();
  const probability = output[session.outputNames[0]!]!.data as Float32Array;
  const bytes = Buffer.alloc(plane);
  for (let i = 0; i < plane; i++) bytes[i] = Math.round(Math.min(1, Math.max(0, probability[i] ?? 0)) * 255);
  const scaled = await sharp(bytes, { raw: { width: MODEL_EDGE, height: MODEL_EDGE, channels: 1 } })
    .resize(ww, wh, { fit: "fill", kernel: "linear" })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const p = new Float32Array(ww * wh);
  for (let i = 0; i < p.length; i++) p[i] = (scaled[i] ?? 0) / 255;
  const guide = new Float32Array(ww * wh);
  for (let i = 0; i < guide.length; i++) guide[i] = (0.299 * (small[4 * i] ?? 0) + 0.587 * (small[4 * i + 1] ?? 0) + 0.114 * (small[4 * i + 2] ?? 0)) / 255;
  const radius = Math.max(1, Math.round((GUIDED_FILTER.radiusPer320 * Math.max(ww, wh)) / MODEL_EDGE));
  const filtered = guidedFilter(guide, p, ww, wh, radius, GUIDED_FILTER.epsilon);
  for (let i = 0; i < filtered.length; i++) filtered[i] = alphaCurve(filtered[i]!);
  return filtered;
}

/** Pushes half-sure values towards 0 and near-sure ones to 1, with a smooth ramp between {@link ALPHA_CURVE}'s bounds. */
export function alphaCurve(a: number): number {
  const t = Math.min(1, Math.max(0, (a - ALPHA_CURVE.low) / (ALPHA_CURVE.high - ALPHA_CURVE.low)));
  return t * t * (3 - 2 * t);
}

/**
 * He, Sun and Tang's guided filter with a grey guide: `p` smoothed so that its edges follow the guide's. Box means
 * come from summed-area tables, so the cost does not grow with the radius.
 */
export function guidedFilter(guide: Float32Array, p: Float32Array, width: number, height: number, radius: number, epsilon: number): Float32Array {
  const n = width * height;
  const ip = new Float32Array(n);
  const ii = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    ip[i] = guide[i]! * p[i]!;
    ii[i] = guide[i]! * guide[i]!;
  }
  const meanI = boxMean(guide, width, height, radius);
  const meanP = boxMean(p, width, height, radius);
  const meanIp = boxMean(ip, width, height, radius);
  const meanII = boxMean(ii, width, height, radius);
  const a = new Float32Array(n);
  const b = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const variance = meanII[i]! - meanI[i]! * meanI[i]!;
    a[i] = (meanIp[i]! - meanI[i]! * meanP[i]!) / (variance + epsilon);
    b[i] = meanP[i]! - a[i]! * meanI[i]!;
  }
  const meanA = boxMean(a, width, height, radius);
  const meanB = boxMean(b, width, height, radius);
  const q = new Float32Array(n);
  for (let i = 0; i < n; i++) q[i] = Math.min(1, Math.max(0, meanA[i]! * guide[i]! + meanB[i]!));
  return q;
}

/** Mean over the (2r+1)² box around each pixel, clipped at the borders. */
function boxMean(values: Float32Array, width: number, height: number, radius: number): Float32Array {
  const out = new Float32Array(width * height);
  forEachBox(values, width, height, radius, (i, sum, count) => {
    out[i] = sum / count;
  });
  return out;
}
