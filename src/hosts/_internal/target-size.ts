import { PREVIEW_MAX_SIZE } from "../../protocol/constants.js";
import type { PixelSize } from "../host.js";

/**
 * The size a preview of `width × height` pixels is rendered at: longest edge at most `maxSize`, never enlarged,
 * at least 1×1. Editors use it for their `layer:previewChange` events; the methods for previews they are asked for.
 */
export function previewSize(width: number, height: number, maxSize: number = PREVIEW_MAX_SIZE): PixelSize {
  if (width <= 0 || height <= 0) return { width: 1, height: 1 };
  const longest = Math.max(width, height);
  if (longest <= maxSize) return { width, height };
  return { width: Math.max(1, Math.round((width * maxSize) / longest)), height: Math.max(1, Math.round((height * maxSize) / longest)) };
}
