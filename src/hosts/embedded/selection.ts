import { BridgeError } from "../../protocol/index.js";
import type { HostRect } from "../../protocol/index.js";

/**
 * Clips a rectangle to the canvas; fractional edges are widened to whole pixels. An empty intersection is `null`
 * (no selection), as an editor drops a selection that lies outside the canvas.
 * @throws BridgeError `BAD_REQUEST` for non-finite or negative sizes.
 */
export function clipToCanvas(rect: HostRect, width: number, height: number): HostRect | null {
  const values = [rect.x, rect.y, rect.width, rect.height];
  if (!values.every(Number.isFinite) || rect.width < 0 || rect.height < 0) {
    throw new BridgeError("BAD_REQUEST", "Selection rect needs finite x, y and non-negative width, height", { details: { rect } });
  }
  const left = Math.max(0, Math.floor(rect.x));
  const top = Math.max(0, Math.floor(rect.y));
  const right = Math.min(width, Math.ceil(rect.x + rect.width));
  const bottom = Math.min(height, Math.ceil(rect.y + rect.height));
  if (right <= left || bottom <= top) return null;
  return { x: left, y: top, width: right - left, height: bottom - top };
}
