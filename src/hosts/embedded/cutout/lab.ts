/** sRGB → CIE L*a*b* (D65), the space where colour distances roughly match what the eye sees. */

const LINEAR = new Float64Array(256);
for (let i = 0; i < 256; i++) {
  const c = i / 255;
  LINEAR[i] = c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

const f = (t: number): number => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116);

/** L*, a*, b* planes of an RGBA image, one float per pixel each. */
export interface LabImage {
  readonly width: number;
  readonly height: number;
  readonly l: Float32Array;
  readonly a: Float32Array;
  readonly b: Float32Array;
}

/** Converts straight RGBA bytes to Lab planes (alpha is ignored here). */
export function toLab(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): LabImage {
  const n = width * height;
  const l = new Float32Array(n);
  const a = new Float32Array(n);
  const b = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const r = LINEAR[rgba[4 * i] ?? 0] ?? 0;
    const g = LINEAR[rgba[4 * i + 1] ?? 0] ?? 0;
    const bl = LINEAR[rgba[4 * i + 2] ?? 0] ?? 0;
    const x = f((0.4124564 * r + 0.3575761 * g + 0.1804375 * bl) / 0.95047);
    const y = f(0.2126729 * r + 0.7151522 * g + 0.072175 * bl);
    const z = f((0.0193339 * r + 0.119192 * g + 0.9503041 * bl) / 1.08883);
    l[i] = 116 * y - 16;
    a[i] = 500 * (x - y);
    b[i] = 200 * (y - z);
  }
  return { width, height, l, a, b };
}

/** Euclidean Lab distance (ΔE 1976) between two pixels of one image. */
export function deltaE(lab: LabImage, i: number, j: number): number {
  const dl = (lab.l[i] ?? 0) - (lab.l[j] ?? 0);
  const da = (lab.a[i] ?? 0) - (lab.a[j] ?? 0);
  const db = (lab.b[i] ?? 0) - (lab.b[j] ?? 0);
  return Math.sqrt(dl * dl + da * da + db * db);
}

/** A colour in Lab. */
export type LabColor = readonly [number, number, number];

/**
 * k-means in Lab with deterministic farthest-point seeding (same input, same palette). Returns up to `k`
 * centres and the mean distance of the samples to their nearest centre (how varied the samples are).
 */
export function kMeans(samples: readonly LabColor[], k: number, iterations = 8): { centers: LabColor[]; spread: number } {
  if (samples.length === 0) return { centers: [], spread: 0 };
  const dist = (p: LabColor, q: LabColor): number => Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
  const centers: LabColor[] = [samples[0]!];
  while (centers.length < k) {
    let best = -1;
    let bestDist = 0;
    for (let i = 0; i < samples.length; i++) {
      const d = Math.min(...centers.map((c) => dist(samples[i]!, c)));
      if (d > bestDist) {
        bestDist = d;
        best = i;
      }
    }
    if (best < 0) break; // fewer distinct colours than k
    centers.push(samples[best]!);
  }
  const assign = new Int32Array(samples.length);
  for (let it = 0; it < iterations; it++) {
    const sums = centers.map(() => [0, 0, 0, 0]);
    samples.forEach((s, i) => {
      let bestC = 0;
      let bestD = Infinity;
      centers.forEach((c, ci) => {
        const d = dist(s, c);
        if (d < bestD) {
          bestD = d;
          bestC = ci;
        }
      });
      assign[i] = bestC;
      const sum = sums[bestC]!;
      sum[0]! += s[0];
      sum[1]! += s[1];
      sum[2]! += s[2];
      sum[3]! += 1;
    });
    sums.forEach((sum, ci) => {
      const count = sum[3] ?? 0;
      if (count > 0) centers[ci] = [(sum[0] ?? 0) / count, (sum[1] ?? 0) / count, (sum[2] ?? 0) / count];
    });
  }
  let total = 0;
  samples.forEach((s, i) => {
    total += dist(s, centers[assign[i] ?? 0]!);
  });
  return { centers, spread: total / samples.length };
}
