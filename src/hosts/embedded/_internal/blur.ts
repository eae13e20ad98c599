/*
 * A Gaussian blur of a float plane, approximated by three box blurs per axis (within a few percent of the true
 * kernel, in time independent of the radius). Beyond each side of the plane the values are either a constant
 * (what the plane stands for there, a mask's default colour) or, where the plane was cut at the canvas edge,
 * the edge's own values continued, so edges do not darken or lighten.
 */

/** What lies beyond each side: a constant, or `"edge"` to continue the outermost values. */
export interface Beyond {
  readonly left: number | "edge";
  readonly right: number | "edge";
  readonly top: number | "edge";
  readonly bottom: number | "edge";
}

/** Box widths of three passes whose combination has standard deviation `sigma`. */
function boxWidths(sigma: number): [number, number, number] {
  const ideal = Math.sqrt((12 * sigma * sigma) / 3 + 1);
  let lower = Math.floor(ideal);
  if (lower % 2 === 0) lower--;
  const upper = lower + 2;
  const m = Math.round((12 * sigma * sigma - 3 * lower * lower - 12 * lower - 9) / (-4 * lower - 4));
  return [0, 1, 2].map((i) => (i < m ? lower : upper)) as [number, number, number];
}

/** Blurs `plane` (`width × height`, row-major) in place with standard deviation `sigma` px. */
export function blurPlane(plane: Float32Array, width: number, height: number, sigma: number, beyond: Beyond): void {
  if (sigma <= 0 || width === 0 || height === 0) return;
  const line = new Float64Array(Math.max(width, height));
  const result = new Float64Array(Math.max(width, height));
  for (const size of boxWidths(sigma)) {
    const radius = (size - 1) / 2;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) line[x] = plane[y * width + x] ?? 0;
      boxLine(line, result, width, radius, beyond.left, beyond.right);
      for (let x = 0; x < width; x++) plane[y * width + x] = result[x] ?? 0;
    }
    for (let x = 0; x < width; x++) {
      for (let y = 0; y < height; y++) line[y] = plane[y * width + x] ?? 0;
      boxLine(line, result, height, radius, beyond.top, beyond.bottom);
      for (let y = 0; y < height; y++) plane[y * width + x] = result[y] ?? 0;
    }
  }
}

/** A running-sum box average of `n` values with `radius` on each side. */
function boxLine(line: Float64Array, out: Float64Array, n: number, radius: number, before: number | "edge", after: number | "edge"): void {
  const first = before === "edge" ? (line[0] ?? 0) : before;
  const last = after === "edge" ? (line[n - 1] ?? 0) : after;
  const at = (i: number): number => (i < 0 ? first : i >= n ? last : (line[i] ?? 0));
  let sum = 0;
  for (let i = -radius; i <= radius; i++) sum += at(i);
  const size = 2 * radius + 1;
  for (let i = 0; i < n; i++) {
    out[i] = sum / size;
    sum += at(i + radius + 1) - at(i - radius);
  }
}
