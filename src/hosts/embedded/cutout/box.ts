/**
 * Box sums from a summed-area table: for each pixel, the sum of `values` over the (2r+1)² box around it (clipped
 * at the borders) and how many pixels that box holds, in O(1) per pixel whatever the radius.
 */
export function forEachBox(
  values: Float32Array,
  width: number,
  height: number,
  radius: number,
  each: (index: number, sum: number, count: number) => void,
): void {
  const stride = width + 1;
  const sums = new Float64Array(stride * (height + 1));
  for (let y = 0; y < height; y++) {
    let row = 0;
    for (let x = 0; x < width; x++) {
      row += values[y * width + x]!;
      sums[(y + 1) * stride + x + 1] = sums[y * stride + x + 1]! + row;
    }
  }
  for (let y = 0; y < height; y++) {
    const y0 = Math.max(0, y - radius);
    const y1 = Math.min(height, y + radius + 1);
    for (let x = 0; x < width; x++) {
      const x0 = Math.max(0, x - radius);
      const x1 = Math.min(width, x + radius + 1);
      each(y * width + x, sums[y1 * stride + x1]! - sums[y0 * stride + x1]! - sums[y1 * stride + x0]! + sums[y0 * stride + x0]!, (x1 - x0) * (y1 - y0));
    }
  }
}
