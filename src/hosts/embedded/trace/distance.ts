/**
 * Exact Euclidean distance transform (Felzenszwalb & Huttenlocher's lower envelope of parabolas), linear in the
 * pixel count whatever the radius: dilating by 1000 px costs the same as by 1.
 */
import type { MaskLike } from "./contour.js";

const FAR = 1e20;
/** Lines of a pass between two calls of `squaredDistance`'s checkpoint. */
const CHECK_LINES = 64;

/**
 * Squared distance from every pixel to the nearest pixel where `seed` is non-zero (`FAR` when there is none).
 * `check` is called every `CHECK_LINES` lines of each pass: a cancellation checkpoint for large planes.
 */
export function squaredDistance(seed: Uint8Array, width: number, height: number, check?: () => void): Float64Array {
  const out = new Float64Array(width * height);
  for (let i = 0; i < out.length; i++) out[i] = seed[i] ? 0 : FAR;
  const size = Math.max(width, height);
  const f = new Float64Array(size);
  const d = new Float64Array(size);
  const v = new Int32Array(size);
  const z = new Float64Array(size + 1);
  for (let x = 0; x < width; x++) {
    if (check !== undefined && x % CHECK_LINES === 0) check();
    for (let y = 0; y < height; y++) f[y] = out[y * width + x] ?? FAR;
    transform1d(f, height, d, v, z);
    for (let y = 0; y < height; y++) out[y * width + x] = d[y] ?? FAR;
  }
  for (let y = 0; y < height; y++) {
    if (check !== undefined && y % CHECK_LINES === 0) check();
    const row = y * width;
    for (let x = 0; x < width; x++) f[x] = out[row + x] ?? FAR;
    transform1d(f, width, d, v, z);
    for (let x = 0; x < width; x++) out[row + x] = d[x] ?? FAR;
  }
  return out;
}

function transform1d(f: Float64Array, n: number, d: Float64Array, v: Int32Array, z: Float64Array): void {
  let k = 0;
  v[0] = 0;
  z[0] = -Infinity;
  z[1] = Infinity;
  for (let q = 1; q < n; q++) {
    const fq = f[q] ?? FAR;
    let s: number;
    // z[0] is −∞, so this stops at k = 0 at the latest.
    for (;;) {
      const p = v[k] ?? 0;
      s = (fq + q * q - ((f[p] ?? FAR) + p * p)) / (2 * q - 2 * p);
      if (s > (z[k] ?? -Infinity)) break;
      k--;
    }
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = Infinity;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while ((z[k + 1] ?? Infinity) < q) k++;
    const p = v[k] ?? 0;
    d[q] = (q - p) * (q - p) + (f[p] ?? FAR);
  }
}

/** A binary mask (0/255) grown by `radius` pixels (a disc), padded by `radius` on every side. */
export function dilateMask(mask: MaskLike, radius: number, threshold = 128): { width: number; height: number; data: Uint8Array; pad: number } {
  const pad = Math.max(0, Math.ceil(radius));
  const width = mask.width + 2 * pad;
  const height = mask.height + 2 * pad;
  const seed = new Uint8Array(width * height);
  for (let y = 0; y < mask.height; y++) {
    for (let x = 0; x < mask.width; x++) {
      if ((mask.data[y * mask.width + x] ?? 0) >= threshold) seed[(y + pad) * width + x + pad] = 1;
    }
  }
  const data = new Uint8Array(width * height);
  if (pad === 0) {
    for (let i = 0; i < seed.length; i++) data[i] = seed[i] ? 255 : 0;
    return { width, height, data, pad };
  }
  const dist = squaredDistance(seed, width, height);
  const r2 = radius * radius;
  for (let i = 0; i < data.length; i++) data[i] = (dist[i] ?? FAR) <= r2 ? 255 : 0;
  return { width, height, data, pad };
}

/** A binary mask (0/255) shrunk by `radius` pixels (same size). */
export function erodeMask(mask: MaskLike, radius: number, threshold = 128): Uint8Array {
  const { width, height } = mask;
  const outside = new Uint8Array(width * height);
  for (let i = 0; i < outside.length; i++) outside[i] = (mask.data[i] ?? 0) >= threshold ? 0 : 1;
  const dist = squaredDistance(outside, width, height);
  const r2 = radius * radius;
  const data = new Uint8Array(width * height);
  // Pixels beyond the mask's edge count as outside too.
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const edge = Math.min(x + 1, y + 1, width - x, height - y);
      const i = y * width + x;
      data[i] = !outside[i] && (dist[i] ?? FAR) > r2 && edge * edge > r2 ? 255 : 0;
    }
  }
  return data;
}
