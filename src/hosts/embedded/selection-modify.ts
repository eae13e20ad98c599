/**
 * A selection changed by a number of pixels: grown, shrunk, softened, rounded, or turned into a band around its
 * edge. Distances are Euclidean (an exact distance transform, in time independent of the radius); a pixel counts as
 * selected for growing and shrinking when it is at least half selected. The canvas edge does not shrink a selection:
 * what lies beyond it counts as selected, as an editor leaves a selection touching the canvas edge there.
 */
import { blurPlane, gaussianBoxes } from "./_internal/blur.js";
import type { SelectionMask } from "./selection.js";
import { squaredDistance } from "./trace/distance.js";
import { ROW_BAND } from "./work.js";

/** What a change needs to know of the canvas, and its checkpoint. */
interface Canvas {
  readonly width: number;
  readonly height: number;
  readonly check: () => void;
}

export type SelectionChange = "expand" | "contract" | "feather" | "smooth" | "border";

/** A box grown by `by` on every side and kept inside the canvas. */
function grown(mask: SelectionMask, by: number, canvas: Canvas): { x: number; y: number; width: number; height: number } {
  const x = Math.max(0, mask.x - by);
  const y = Math.max(0, mask.y - by);
  return { x, y, width: Math.min(canvas.width, mask.x + mask.width + by) - x, height: Math.min(canvas.height, mask.y + mask.height + by) - y };
}

/** The mask's values over `box` (0 outside it). */
function valuesOver(mask: SelectionMask, box: { x: number; y: number; width: number; height: number }): Uint8Array {
  const out = new Uint8Array(box.width * box.height);
  for (let y = 0; y < mask.height; y++) {
    const row = (mask.y + y - box.y) * box.width + (mask.x - box.x);
    out.set(mask.data.subarray(y * mask.width, (y + 1) * mask.width), row);
  }
  return out;
}

/** Bytes a change of a selection works with at most, over the canvas (for the memory budget). */
export function selectionChangeBytes(canvas: { width: number; height: number }): number {
  // The grown values, two seed planes, two distance planes of 8 bytes, the result.
  return canvas.width * canvas.height * 20;
}

/** The selection changed by `pixels` (see the file comment); `null` when nothing is left. */
export function modifySelection(mask: SelectionMask, how: SelectionChange, pixels: number, canvas: Canvas): SelectionMask {
  if (how === "feather") return feather(mask, pixels, canvas);
  const r = Math.round(pixels);
  // Room to grow into (a pixel more for the unselected ring a shrink measures from).
  const box = grown(mask, how === "contract" ? 1 : r + 1, canvas);
  const values = valuesOver(mask, box);
  const { width, height } = box;
  const selected = (i: number): boolean => (values[i] as number) >= 128;
  const out = new Uint8Array(width * height);
  if (how === "smooth") {
    smooth(values, box, r, canvas, out);
    return { ...box, data: out };
  }
  const r2 = r * r;
  // Beyond the canvas counts as selected: only pixels of the canvas that are not selected shrink a selection.
  const seeds = (inside: boolean): Uint8Array => {
    const seed = new Uint8Array(width * height);
    for (let i = 0; i < seed.length; i++) seed[i] = selected(i) === inside ? 1 : 0;
    return seed;
  };
  const toOutside = how === "expand" ? undefined : squaredDistance(seeds(false), width, height, canvas.check);
  const toInside = how === "contract" ? undefined : squaredDistance(seeds(true), width, height, canvas.check);
  for (let i = 0; i < out.length; i++) {
    if (i % (ROW_BAND * width) === 0) canvas.check();
    if (how === "expand") out[i] = (toInside![i] as number) <= r2 ? 255 : 0;
    else if (how === "contract") out[i] = (toOutside![i] as number) > r2 ? 255 : 0;
    else {
      // A band `r` wide across the edge: half of it outside, half inside.
      const outside = Math.ceil(r / 2);
      const inside = Math.floor(r / 2);
      out[i] = selected(i) ? ((toOutside![i] as number) <= inside * inside ? 255 : 0) : (toInside![i] as number) <= outside * outside ? 255 : 0;
    }
  }
  return { ...box, data: out };
}

/** Each pixel selected when most of the `(2r + 1)²` square around it (inside the canvas) is: corners round off. */
function smooth(values: Uint8Array, box: { x: number; y: number; width: number; height: number }, r: number, canvas: Canvas, out: Uint8Array): void {
  const { width, height } = box;
  // Summed-area table of the selected pixels.
  const sums = new Float64Array((width + 1) * (height + 1));
  for (let y = 0; y < height; y++) {
    if (y % ROW_BAND === 0) canvas.check();
    let row = 0;
    for (let x = 0; x < width; x++) {
      row += (values[y * width + x] as number) >= 128 ? 1 : 0;
      sums[(y + 1) * (width + 1) + x + 1] = (sums[y * (width + 1) + x + 1] as number) + row;
    }
  }
  for (let y = 0; y < height; y++) {
    if (y % ROW_BAND === 0) canvas.check();
    const y0 = Math.max(0, y - r);
    const y1 = Math.min(height, y + r + 1);
    for (let x = 0; x < width; x++) {
      const x0 = Math.max(0, x - r);
      const x1 = Math.min(width, x + r + 1);
      const count = (sums[y1 * (width + 1) + x1] as number) - (sums[y0 * (width + 1) + x1] as number) - (sums[y1 * (width + 1) + x0] as number) + (sums[y0 * (width + 1) + x0] as number);
      out[y * width + x] = 2 * count > (x1 - x0) * (y1 - y0) ? 255 : 0;
    }
  }
}

/** The selection blurred: a Gaussian with σ = `radius` (as a mask's feather), grown by the blur's reach. */
function feather(mask: SelectionMask, radius: number, canvas: Canvas): SelectionMask {
  const reach = gaussianBoxes(radius, 3).reduce((sum, r) => sum + r, 0);
  const box = grown(mask, reach, canvas);
  const values = valuesOver(mask, box);
  const plane = Float32Array.from(values);
  canvas.check();
  // Beyond the canvas edge the selection goes on as it is at the edge; beyond the grown box nothing is selected.
  const side = (atCanvasEdge: boolean): number | "edge" => (atCanvasEdge ? "edge" : 0);
  blurPlane(plane, box.width, box.height, radius, {
    left: side(box.x === 0),
    top: side(box.y === 0),
    right: side(box.x + box.width === canvas.width),
    bottom: side(box.y + box.height === canvas.height),
  });
  canvas.check();
  const data = new Uint8Array(plane.length);
  for (let i = 0; i < plane.length; i++) data[i] = Math.round(plane[i] as number);
  return { ...box, data };
}
