import { BridgeError } from "../../protocol/index.js";

/**
 * Output size of an export on every editor: `scale` first, then shrink so the longest edge is at most `maxSize`
 * (never enlarges). Refuses sizes above `maxPixels` so a large `scale` cannot allocate unbounded buffers.
 */
export function targetSize(
  width: number,
  height: number,
  options: { readonly scale?: number | undefined; readonly maxSize?: number | undefined },
  maxPixels: number,
): { width: number; height: number } {
  const { scale, maxSize } = options;
  if (scale !== undefined && !(Number.isFinite(scale) && scale > 0)) {
    throw new BridgeError("BAD_REQUEST", "scale must be a positive number", { details: { scale } });
  }
  if (maxSize !== undefined && !(Number.isFinite(maxSize) && maxSize >= 1)) {
    throw new BridgeError("BAD_REQUEST", "maxSize must be at least 1", { details: { maxSize } });
  }
  let w = Math.max(1, Math.round(width * (scale ?? 1)));
  let h = Math.max(1, Math.round(height * (scale ?? 1)));
  const longest = Math.max(w, h);
  if (maxSize !== undefined && longest > maxSize) {
    w = Math.max(1, Math.round((w * maxSize) / longest));
    h = Math.max(1, Math.round((h * maxSize) / longest));
  }
  if (w * h > maxPixels) {
    throw new BridgeError("PAYLOAD_TOO_LARGE", `Export of ${w}×${h} exceeds ${maxPixels} pixels`, {
      details: { width: w, height: h, maxPixels },
    });
  }
  return { width: w, height: h };
}
