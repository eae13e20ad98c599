/*
 * The box of a fill layer's shape: what a gradient "aligned with the layer" spans when the fill is drawn from its
 * record (a 16- or 32-bit file stores no pixels to take the box from).
 */
import type { LayerVectorMask } from "ag-psd";
import type { HostBounds } from "../../../protocol/index.js";

/**
 * The bounds of a vector mask's anchor points, in document pixels (ag-psd's knots), or undefined when it has none
 * or they are not finite. Control points are left out: for the rectangles and ellipses of the shape tools the
 * anchors are the extremes.
 */
export function pathBounds(mask: Pick<LayerVectorMask, "paths"> | undefined): HostBounds | undefined {
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const path of mask?.paths ?? []) {
    for (const knot of path.knots) {
      const x = knot.points[2];
      const y = knot.points[3];
      if (x === undefined || y === undefined || !Number.isFinite(x) || !Number.isFinite(y)) continue;
      left = Math.min(left, x);
      top = Math.min(top, y);
      right = Math.max(right, x);
      bottom = Math.max(bottom, y);
    }
  }
  return right > left && bottom > top ? { left, top, right, bottom } : undefined;
}
