/*
 * Growing a soft shape by a distance (stroke widths, shadow spread, glow and shadow chokes) with an exact
 * Euclidean distance transform: the lower envelope of parabolas (Felzenszwalb and Huttenlocher), one column pass
 * and one row pass, linear in the pixels whatever the distance. Each pixel learns its nearest covered pixel, and
 * that pixel's coverage places the edge inside it, so anti-aliased and half-transparent edges grow smoothly
 * (a pixel of 20 % coverage moves the edge 0.8 px back) instead of in whole-pixel steps.
 */
import { RowBands, type RowWork } from "../work.js";
import type { Plane } from "./planes.js";

/** "No covered pixel in this column": farther than any plane is wide. */
const FAR = 2 ** 30;

/**
 * A plane where every pixel within `by` pixels of the shape's edge is covered: `clamp((by + c − d) / ramp)` for
 * the nearest covered pixel at distance `d` with coverage `c`, never less than the pixel's own value. `by` may be
 * fractional (half a centred stroke); a `ramp` above 1 fades the edge over that many pixels (a precise glow).
 * The plane is replaced, not changed.
 */
export function growPlane(plane: Plane, by: number, work?: RowWork, ramp = 1): Plane {
  if (by <= 0 || plane.width === 0 || plane.height === 0) return plane;
  const inv = 1 / Math.max(1, ramp);
  const { width, height, data } = plane;
  const { dist2, site } = nearestCovered(data, width, height, work);
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const own = data[i] as number;
    if (own >= 1) {
      out[i] = 1;
      continue;
    }
    const s = site[i] as number;
    const reach = s < 0 ? 0 : (by + (data[s] as number) - Math.sqrt(dist2[i] as number)) * inv;
    out[i] = Math.max(own, Math.min(1, reach));
  }
  return { ...plane, data: out };
}

/** For every pixel the squared distance to the nearest pixel with a value above 0 and that pixel's index (−1: none). */
function nearestCovered(values: Float32Array, width: number, height: number, work?: RowWork): { dist2: Float32Array; site: Int32Array } {
  // Column pass: distance (in rows) to the nearest covered pixel of the same column, and its row; swept down and
  // up the rows with a per-column cursor, so every access stays row-major.
  const colDist = new Int32Array(width * height).fill(FAR);
  const colRow = new Int32Array(width * height).fill(-1);
  const last = new Int32Array(width).fill(-1);
  for (let y = 0; y < height; y++) {
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if ((values[i] as number) > 0) last[x] = y;
      const l = last[x] as number;
      if (l >= 0) {
        colDist[i] = y - l;
        colRow[i] = l;
      }
    }
  }
  last.fill(-1);
  for (let y = height - 1; y >= 0; y--) {
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if ((values[i] as number) > 0) last[x] = y;
      const l = last[x] as number;
      if (l >= 0 && l - y < (colDist[i] as number)) {
        colDist[i] = l - y;
        colRow[i] = l;
      }
    }
  }
  // Row pass: the lower envelope of the parabolas (x − q)² + colDist(q)² over the columns q that have a site.
  const dist2 = new Float32Array(width * height);
  const site = new Int32Array(width * height).fill(-1);
  const hull = new Int32Array(width);
  const bounds = new Float64Array(width + 1);
  const f = new Float64Array(width);
  const bands = new RowBands(work);
  for (let y = 0; y < height; y++) {
    bands.next();
    const row = y * width;
    let k = -1;
    for (let q = 0; q < width; q++) {
      const g = colDist[row + q] as number;
      if (g >= FAR) continue;
      f[q] = g * g;
      if (k < 0) {
        k = 0;
        hull[0] = q;
        bounds[0] = -Infinity;
        bounds[1] = Infinity;
        continue;
      }
      // Drop parabolas the new one hides (bounds[0] is −∞, so the first always stays).
      let v = hull[k] as number;
      let s = ((f[q] as number) + q * q - ((f[v] as number) + v * v)) / (2 * (q - v));
      while (s <= (bounds[k] as number)) {
        k--;
        v = hull[k] as number;
        s = ((f[q] as number) + q * q - ((f[v] as number) + v * v)) / (2 * (q - v));
      }
      k++;
      hull[k] = q;
      bounds[k] = s;
      bounds[k + 1] = Infinity;
    }
    if (k < 0) continue;
    let j = 0;
    for (let x = 0; x < width; x++) {
      while ((bounds[j + 1] as number) < x) j++;
      const q = hull[j] as number;
      dist2[row + x] = (x - q) * (x - q) + (f[q] as number);
      site[row + x] = (colRow[row + q] as number) * width + q;
    }
  }
  bands.end(height);
  return { dist2, site };
}
