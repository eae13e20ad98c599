/*
 * A Gaussian blur of a float plane, approximated by three box blurs per axis (within a few percent of the true
 * kernel, in time independent of the radius). Pixels beyond the plane count as `outside`, the value the plane
 * stands for there (a mask's default colour), so edges do not darken or lighten.
 */

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
export function blurPlane(plane: Float32Array, width: number, height: number, sigma: number, outside: number): void {
  if (sigma <= 0 || width === 0 || height === 0) return;
  const line = new Float64Array(Math.max(width, height));
  const result = new Float64Array(Math.max(width, height));
  for (const size of boxWidths(sigma)) {
    const radius = (size - 1) / 2;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) line[x] = plane[y * width + x] ?? outside;
      boxLine(line, result, width, radius, outside);
      for (let x = 0; x < width; x++) plane[y * width + x] = result[x] ?? outside;
    }
    for (let x = 0; x < width; x++) {
      for (let y = 0; y < height; y++) line[y] = plane[y * width + x] ?? outside;
      boxLine(line, result, height, radius, outside);
      for (let y = 0; y < height; y++) plane[y * width + x] = result[y] ?? outside;
    }
  }
}

/** A running-sum box average of `n` values with `radius` on each side; values past the ends are `outside`. */
function boxLine(line: Float64Array, out: Float64Array, n: number, radius: number, outside: number): void {
  const at = (i: number): number => (i < 0 || i >= n ? outside : (line[i] ?? outside));
  let sum = 0;
  for (let i = -radius; i <= radius; i++) sum += at(i);
  const size = 2 * radius + 1;
  for (let i = 0; i < n; i++) {
    out[i] = sum / size;
    sum += at(i + radius + 1) - at(i - radius);
  }
}
