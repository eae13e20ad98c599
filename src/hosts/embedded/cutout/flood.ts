/**
 * Model-free subject segmentation: background is what a flood fill from the image border reaches through
 * background-coloured, edge-free pixels (reference "Background removal / select subject", recipe A). Built for
 * product shots: plain, gradient or sweep backgrounds with soft shadows. Runs at a few hundred pixels on the
 * long edge; the caller scales the mask back up.
 */
import { type LabColor, type LabImage, deltaE, kMeans, toLab } from "./lab.js";

/** Tuning of the flood fill; the defaults were measured on the synthetic product shots (`bench/cutout-iou.js`). */
export interface FloodOptions {
  /** Width of the border ring sampled for the background palette. @default 3 */
  readonly ring: number;
  /** Background palette size. @default 4 */
  readonly paletteSize: number;
  /** Smallest colour tolerance (ΔE) whatever the border spread. @default 12 */
  readonly minTolerance: number;
  /** Tolerance = max(minTolerance, spreadFactor × mean border spread). @default 4 */
  readonly spreadFactor: number;
  /** Weight of "darker than the background" in the distance, so soft shadows count as background. @default 0.35 */
  readonly shadowWeight: number;
  /** The fill stops at pixels whose edge strength (ΔE over 2 px) reaches this. @default 5 */
  readonly edgeStop: number;
  /** Times the edge map is grown by a 3×3 max filter, closing 1–2 px gaps in outlines. @default 3 */
  readonly edgeDilations: number;
  /** Smooth-continuation step (ΔE to the pixel the fill came from) allowed up to 3× the tolerance. @default 2.5 */
  readonly smoothStep: number;
  /** Foreground specks smaller than this share of the image are dropped. @default 0.002 */
  readonly minSpeck: number;
  /** Enclosed background-coloured regions become holes from this share of the image… @default 0.0015 */
  readonly minHole: number;
  /** …up to this share of the foreground (else a white-on-white subject would vanish)… @default 0.3 */
  readonly maxHoleOfSubject: number;
  /** …and only when their mean palette distance is below this share of the tolerance. @default 0.5 */
  readonly holeMatch: number;
}

export const DEFAULT_FLOOD_OPTIONS: FloodOptions = Object.freeze({
  ring: 3,
  paletteSize: 4,
  minTolerance: 12,
  spreadFactor: 4,
  shadowWeight: 0.35,
  edgeStop: 5,
  edgeDilations: 3,
  smoothStep: 2.5,
  minSpeck: 0.002,
  minHole: 0.0015,
  maxHoleOfSubject: 0.3,
  holeMatch: 0.5,
});

/** The subject mask (1 = subject) at the input size, with the numbers the confidence is derived from. */
export interface FloodResult {
  readonly width: number;
  readonly height: number;
  readonly subject: Uint8Array;
  /** Colour tolerance used (ΔE). */
  readonly tolerance: number;
  /** Mean ΔE of border samples to their palette colour: high means a busy background. */
  readonly borderSpread: number;
  /** Share of the image the fill reached. */
  readonly backgroundShare: number;
  /** Share of the image left as subject. */
  readonly subjectShare: number;
  /** Share of border pixels left as subject (a cropped subject, or a fill that could not start). */
  readonly borderSubjectShare: number;
}

/**
 * Segments the subject of straight RGBA pixels. Transparent pixels (alpha < 128) are always background.
 *
 * @example
 * const { subject } = floodSegment(rgba, 512, 384);
 */
export function floodSegment(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number, tuning: Partial<FloodOptions> = {}): FloodResult {
  const o = { ...DEFAULT_FLOOD_OPTIONS, ...tuning };
  const n = width * height;
  const lab = toLab(rgba, width, height);
  const clear = new Uint8Array(n);
  for (let i = 0; i < n; i++) clear[i] = (rgba[4 * i + 3] ?? 0) < 128 ? 1 : 0;

  const samples: LabColor[] = [];
  forEachBorder(width, height, o.ring, (i) => {
    if (!clear[i]) samples.push([lab.l[i] ?? 0, lab.a[i] ?? 0, lab.b[i] ?? 0]);
  });
  const { centers, spread } = kMeans(samples, o.paletteSize);
  const tolerance = Math.max(o.minTolerance, o.spreadFactor * spread);
  const dist = paletteDistance(lab, centers, o.shadowWeight);
  const edge = edgeMap(lab, o.edgeDilations);

  // 1. Flood from the border through edge-free, background-coloured pixels.
  const background = new Uint8Array(n);
  const queue = new Int32Array(n);
  let head = 0;
  let tail = 0;
  const passes = (i: number, from: number): boolean => {
    if (clear[i]) return true;
    if ((edge[i] ?? 0) >= o.edgeStop) return false;
    const d = dist[i] ?? Infinity;
    return d < tolerance || (from >= 0 && deltaE(lab, i, from) < o.smoothStep && d < 3 * tolerance);
  };
  forEachBorder(width, height, 1, (i) => {
    if (!background[i] && passes(i, -1)) {
      background[i] = 1;
      queue[tail++] = i;
    }
  });
  const visit = (from: number, accept: (i: number, from: number) => boolean): void => {
    const x = from % width;
    const y = (from - x) / width;
    const push = (i: number): void => {
      if (!background[i] && accept(i, from)) {
        background[i] = 1;
        queue[tail++] = i;
      }
    };
    if (x > 0) push(from - 1);
    if (x < width - 1) push(from + 1);
    if (y > 0) push(from - width);
    if (y < height - 1) push(from + width);
  };
  while (head < tail) visit(queue[head++] ?? 0, passes);

  // 2. The grown edge map stops the fill a few pixels short of the outline: win back background-coloured
  //    pixels within that many steps of the filled region (too short a reach to leak through a gap).
  const depth = new Uint8Array(n);
  head = 0;
  const reach = o.edgeDilations + 1;
  while (head < tail) {
    const from = queue[head++] ?? 0;
    if ((depth[from] ?? 0) >= reach) continue;
    const start = tail;
    visit(from, (i) => clear[i] === 1 || (dist[i] ?? Infinity) < tolerance);
    for (let k = start; k < tail; k++) depth[queue[k] ?? 0] = (depth[from] ?? 0) + 1;
  }

  const subject = new Uint8Array(n);
  for (let i = 0; i < n; i++) subject[i] = background[i] ? 0 : 1;
  // 3. Cleanup: specks out, large enclosed background-coloured regions become holes.
  const components = label(subject, width, height);
  for (const c of components) if (c.pixels.length < o.minSpeck * n) for (const i of c.pixels) subject[i] = 0;
  let subjectArea = 0;
  for (let i = 0; i < n; i++) subjectArea += subject[i] ?? 0;
  const holeCandidate = new Uint8Array(n);
  for (let i = 0; i < n; i++) holeCandidate[i] = subject[i] && ((dist[i] ?? Infinity) < tolerance || clear[i]) ? 1 : 0;
  for (const c of label(holeCandidate, width, height)) {
    if (c.pixels.length < o.minHole * n || c.pixels.length >= o.maxHoleOfSubject * subjectArea) continue;
    // Background seen through a hole matches the palette closely; a light label on a subject only roughly.
    let sum = 0;
    for (const i of c.pixels) sum += clear[i] ? 0 : (dist[i] ?? 0);
    if (sum / c.pixels.length < o.holeMatch * tolerance) for (const i of c.pixels) subject[i] = 0;
  }

  let kept = 0;
  for (let i = 0; i < n; i++) kept += subject[i] ?? 0;
  let border = 0;
  let borderSubject = 0;
  forEachBorder(width, height, 1, (i) => {
    border++;
    borderSubject += subject[i] ?? 0;
  });
  let reached = 0;
  for (let i = 0; i < n; i++) reached += background[i] ?? 0;
  return {
    width,
    height,
    subject,
    tolerance,
    borderSpread: spread,
    backgroundShare: reached / n,
    subjectShare: kept / n,
    borderSubjectShare: border ? borderSubject / border : 0,
  };
}

/** Calls `fn` once for every pixel within `ring` pixels of the image edge. */
function forEachBorder(width: number, height: number, ring: number, fn: (i: number) => void): void {
  for (let y = 0; y < height; y++) {
    const edgeRow = y < ring || y >= height - ring;
    for (let x = 0; x < width; x++) {
      if (edgeRow || x < ring || x >= width - ring) fn(y * width + x);
      else if (x === ring) x = Math.max(x, width - ring - 1);
    }
  }
}

/** ΔE to the nearest palette colour, with "darker than the background" down-weighted (shadows). */
function paletteDistance(lab: LabImage, centers: readonly LabColor[], shadowWeight: number): Float32Array {
  const n = lab.width * lab.height;
  const out = new Float32Array(n).fill(centers.length ? 0 : Infinity);
  if (!centers.length) return out;
  for (let i = 0; i < n; i++) {
    let best = Infinity;
    for (const c of centers) {
      let dl = (lab.l[i] ?? 0) - c[0];
      if (dl < 0) dl *= shadowWeight;
      const da = (lab.a[i] ?? 0) - c[1];
      const db = (lab.b[i] ?? 0) - c[2];
      const d = dl * dl + da * da + db * db;
      if (d < best) best = d;
    }
    out[i] = Math.sqrt(best);
  }
  return out;
}

/** Edge strength: max over 4 directions of ΔE between the pixels on either side, grown `dilations` times. */
function edgeMap(lab: LabImage, dilations: number): Float32Array {
  const { width: w, height: h } = lab;
  let edge: Float32Array = new Float32Array(w * h);
  const offsets: Array<[number, number]> = [
    [1, 0],
    [0, 1],
    [1, 1],
    [1, -1],
  ];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let best = 0;
      for (const [dx, dy] of offsets) {
        const x0 = Math.max(0, Math.min(w - 1, x - dx));
        const y0 = Math.max(0, Math.min(h - 1, y - dy));
        const x1 = Math.max(0, Math.min(w - 1, x + dx));
        const y1 = Math.max(0, Math.min(h - 1, y + dy));
        const d = deltaE(lab, y0 * w + x0, y1 * w + x1);
        if (d > best) best = d;
      }
      edge[y * w + x] = best;
    }
  }
  for (let k = 0; k < dilations; k++) edge = maxFilter3(edge, w, h);
  return edge;
}

/** 3×3 max filter, separable. */
function maxFilter3(src: Float32Array, w: number, h: number): Float32Array {
  const tmp = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      tmp[i] = Math.max(src[i] ?? 0, x > 0 ? (src[i - 1] ?? 0) : 0, x < w - 1 ? (src[i + 1] ?? 0) : 0);
    }
  }
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      out[i] = Math.max(tmp[i] ?? 0, y > 0 ? (tmp[i - w] ?? 0) : 0, y < h - 1 ? (tmp[i + w] ?? 0) : 0);
    }
  }
  return out;
}

/** 4-connected components of the non-zero pixels. */
function label(mask: Uint8Array, width: number, height: number): Array<{ pixels: number[] }> {
  const seen = new Uint8Array(mask.length);
  const out: Array<{ pixels: number[] }> = [];
  const stack: number[] = [];
  for (let s = 0; s < mask.length; s++) {
    if (!mask[s] || seen[s]) continue;
    const pixels: number[] = [];
    seen[s] = 1;
    stack.push(s);
    while (stack.length) {
      const i = stack.pop()!;
      pixels.push(i);
      const x = i % width;
      const y = (i - x) / width;
      const next = [x > 0 ? i - 1 : -1, x < width - 1 ? i + 1 : -1, y > 0 ? i - width : -1, y < height - 1 ? i + width : -1];
      for (const j of next) {
        if (j >= 0 && mask[j] && !seen[j]) {
          seen[j] = 1;
          stack.push(j);
        }
      }
    }
    out.push({ pixels });
  }
  return out;
}
