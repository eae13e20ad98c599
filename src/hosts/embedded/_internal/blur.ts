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

/**
 * Radii of `passes` box blurs whose combined variance is `sigma`²: a box of width w adds (w² − 1) / 12, so some
 * passes take the odd width just below the ideal one and the rest the next odd width up.
 */
export function gaussianBoxes(sigma: number, passes: number): number[] {
  const variance = sigma * sigma;
  const ideal = Math.sqrt((12 * variance) / passes + 1);
  let lower = Math.floor(ideal);
  if (lower % 2 === 0) lower--;
  lower = Math.max(1, lower);
  const upper = lower + 2;
  // m passes of `lower` and the rest of `upper`: m·(lower² − 1) + (passes − m)·(upper² − 1) = 12·variance.
  const m = Math.round((passes * (upper * upper - 1) - 12 * variance) / (upper * upper - lower * lower));
  const count = Math.min(passes, Math.max(0, m));
  return Array.from({ length: passes }, (_, i) => ((i < count ? lower : upper) - 1) / 2);
}

/** Blurs `plane` (`width × height`, row-major) in place with standard deviation `sigma` px. */
export function blurPlane(plane: Float32Array, width: number, height: number, sigma: number, beyond: Beyond): void {
  if (sigma <= 0 || width === 0 || height === 0) return;
  const line = new Float64Array(width);
  const result = new Float64Array(width);
  const source = new Float32Array(plane.length);
  for (const radius of gaussianBoxes(sigma, 3)) {
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) line[x] = plane[y * width + x] as number;
      boxLine(line, result, width, radius, beyond.left, beyond.right);
      for (let x = 0; x < width; x++) plane[y * width + x] = result[x] as number;
    }
    source.set(plane);
    boxColumns(source, plane, width, height, radius, beyond.top, beyond.bottom);
  }
}

/**
 * The vertical pass, row by row with a running sum per column (a column-by-column walk would stride through the
 * whole plane and miss the cache on every pixel).
 */
function boxColumns(source: Float32Array, out: Float32Array, width: number, height: number, radius: number, top: number | "edge", bottom: number | "edge"): void {
  const sums = new Float64Array(width);
  const value = (x: number, y: number): number => {
    if (y < 0) return top === "edge" ? (source[x] as number) : top;
    if (y >= height) return bottom === "edge" ? (source[(height - 1) * width + x] as number) : bottom;
    return source[y * width + x] as number;
  };
  for (let y = -radius; y <= radius; y++) for (let x = 0; x < width; x++) sums[x] = (sums[x] as number) + value(x, y);
  const size = 2 * radius + 1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      out[row + x] = (sums[x] as number) / size;
      sums[x] = (sums[x] as number) + value(x, y + radius + 1) - value(x, y - radius);
    }
  }
}

/** A running-sum box average of `n` values with `radius` on each side (plain loops: this runs per pixel). */
function boxLine(line: Float64Array, out: Float64Array, n: number, radius: number, before: number | "edge", after: number | "edge"): void {
  const first = before === "edge" ? (line[0] as number) : before;
  const last = after === "edge" ? (line[n - 1] as number) : after;
  let sum = 0;
  for (let i = -radius; i <= radius; i++) sum += i < 0 ? first : i >= n ? last : (line[i] as number);
  const size = 2 * radius + 1;
  for (let i = 0; i < n; i++) {
    out[i] = sum / size;
    const enter = i + radius + 1;
    const leave = i - radius;
    sum += (enter >= n ? last : (line[enter] as number)) - (leave < 0 ? first : (line[leave] as number));
  }
}
