import type { HostRect } from "../../../protocol/index.js";
import { traceContours, type MaskLike } from "./contour.js";
import { dilateMask } from "./distance.js";
import { simplifyLoop } from "./simplify.js";

/** RDP tolerance in pixels (reference: ε 0.8 re-renders at IoU 0.9994 and keeps rectangles exact). */
export const PATH_SIMPLIFY_EPSILON = 0.8;

/** Outline of a mask as SVG path data in document pixels, with the bounding box of its vertices. */
export interface TracedPath {
  /** `M x y L … Z` per loop; holes wind opposite to outer outlines (render with `fill-rule="evenodd"`). */
  readonly d: string;
  /** Bounding box of the vertices, in document pixels. */
  readonly box: HostRect;
  readonly loops: number;
}

/**
 * Traces a mask placed at `(left, top)` in the document, after growing it by `expand` pixels; `null` when no
 * pixel is inside.
 */
export function maskToSvgPath(
  mask: MaskLike,
  options: { left: number; top: number; expand?: number; epsilon?: number; threshold?: number },
): TracedPath | null {
  const threshold = options.threshold ?? 128;
  const grown = options.expand ? dilateMask(mask, options.expand, threshold) : { ...mask, pad: 0 };
  const loops = traceContours(grown, options.expand ? 128 : threshold);
  if (loops.length === 0) return null;
  const ox = options.left - grown.pad;
  const oy = options.top - grown.pad;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const parts: string[] = [];
  for (const raw of loops) {
    const loop = simplifyLoop(raw, options.epsilon ?? PATH_SIMPLIFY_EPSILON);
    const points: string[] = [];
    for (let i = 0; i < loop.length; i += 2) {
      const x = (loop[i] ?? 0) + ox;
      const y = (loop[i + 1] ?? 0) + oy;
      minX = Math.min(minX, x);
      minY = Math.min(minY, y);
      maxX = Math.max(maxX, x);
      maxY = Math.max(maxY, y);
      points.push(`${x} ${y}`);
    }
    parts.push(`M${points.join("L")}Z`);
  }
  return { d: parts.join(""), box: { x: minX, y: minY, width: maxX - minX, height: maxY - minY }, loops: loops.length };
}
