/*
 * A layer's vector mask (ag-psd's `LayerVectorMask`) rasterised into the model's one-byte mask. ag-psd already
 * gives the knots in document pixels (it scales the file's fractions of the canvas by its size); each knot is
 * `[preceding control x, y, anchor x, y, leaving control x, y]`.
 *
 * Paths combine in order, each with its operation; a path without one continues the shape before it (its
 * subpaths fill together under that shape's fill rule). The mask starts empty, or full when the first shape
 * subtracts or intersects, or when there is no path at all and the record says the fill starts with all pixels
 * (an empty vector mask hides nothing). Coverage combines as fractions: combine `a + b − ab`, subtract
 * `a − b`, intersect `ab`, exclude `a + b − 2ab`.
 */
import type { BezierPath, LayerVectorMask } from "ag-psd";
import { BridgeError } from "../../protocol/errors.js";
import { blurPlane } from "./_internal/blur.js";
import { type Box, type Polygon, polygonCoverage } from "./_internal/path-coverage.js";
import type { LayerMask } from "./document.js";
import { DEFAULT_MAX_DOCUMENT_PIXELS } from "./limits.js";
import type { RowWork } from "./work.js";

/**
 * Most pixels a rasterised vector mask may cover (its box, after density and feather spread it): as large as the
 * largest document. Its work planes take 4 bytes a pixel, so this bounds that memory (400 MB) too.
 * @default 100_000_000
 */
export const MAX_VECTOR_MASK_PIXELS = DEFAULT_MAX_DOCUMENT_PIXELS;

/** Most line segments the paths may flatten into: coverage is O(segments × rows), a hostile file could ask for millions. */
export const MAX_VECTOR_MASK_SEGMENTS = 200_000;

/** Largest feather radius honoured (Photoshop's own maximum is 1000 px; a bigger blur is refused). */
export const MAX_VECTOR_MASK_FEATHER = 1000;

/** How far (in px) a flattened curve may stray from the true one: far below what 8-bit coverage can show. */
const FLATNESS = 0.05;

/** Options of {@link rasterizeVectorMask}. */
export interface VectorMaskOptions {
  /** How much the mask hides, 0–255 (Photoshop's "Density": 255 is 100 %, 0 hides nothing). @default 255 */
  readonly density?: number | undefined;
  /** Feather radius in px: a Gaussian blur whose standard deviation is the radius. @default 0 */
  readonly feather?: number | undefined;
  /** Told every `ROW_BAND` rows; may throw to stop (a cancelled call). */
  readonly work?: RowWork | undefined;
}

/**
 * The vector mask as a {@link LayerMask} in document coordinates: 255 where it shows the layer, 0 where it hides
 * it, anti-aliased at the edges. The box covers the paths (grown by the feather, clipped to the canvas); outside
 * it the mask is `defaultColor`, or, when density leaves the outside neither 0 nor 255, the box is the canvas.
 * `invert` and `disable` are honoured (a disabled mask shows everything).
 *
 * @throws BridgeError `PAYLOAD_TOO_LARGE` above {@link MAX_VECTOR_MASK_PIXELS} or {@link MAX_VECTOR_MASK_SEGMENTS},
 * `BAD_REQUEST` for a feather above {@link MAX_VECTOR_MASK_FEATHER}.
 * @example
 * const mask = rasterizeVectorMask(layer.vectorMask, psd, { density: layer.mask?.vectorMaskDensity * 255 });
 */
export function rasterizeVectorMask(mask: LayerVectorMask, canvas: { width: number; height: number }, options: VectorMaskOptions = {}): LayerMask {
  const density = Math.min(255, Math.max(0, options.density ?? 255)) / 255;
  const feather = Math.max(0, options.feather ?? 0);
  if (feather > MAX_VECTOR_MASK_FEATHER) {
    throw new BridgeError("BAD_REQUEST", `Vector mask feather of ${feather} px exceeds ${MAX_VECTOR_MASK_FEATHER} px`, {
      details: { feather, max: MAX_VECTOR_MASK_FEATHER },
    });
  }
  if (mask.disable) return { x: 0, y: 0, width: 0, height: 0, data: new Uint8Array(0), defaultColor: 255 };
  const shapes = toShapes(mask.paths);
  const first = shapes[0]?.operation;
  const start = shapes.length === 0 ? (mask.fillStartsWithAllPixels ? 1 : 0) : first === "subtract" || first === "intersect" ? 1 : 0;
  // Outside every path each shape covers nothing: run the operations on 0 coverage to know the outside.
  const planeOutside = shapes.reduce((value, shape) => combine(shape.operation, value, 0), start);
  let outside = mask.invert ? 1 - planeOutside : planeOutside;
  outside = 1 - density * (1 - outside);
  const outsideByte = Math.round(outside * 255);
  const box = maskBox(shapes, canvas, feather, outsideByte);
  checkSize(box);
  const plane = new Float32Array(box.width * box.height).fill(start);
  const cover = new Float32Array(box.width * box.height);
  for (const shape of shapes) {
    polygonCoverage(shape.polygons, shape.rule, box, cover, options.work);
    for (let i = 0; i < plane.length; i++) plane[i] = combine(shape.operation, plane[i] ?? 0, cover[i] ?? 0);
  }
  if (feather > 0) {
    // Where the box stops at the canvas the paths go on beyond it: continue the edge rather than the outside.
    const side = (atCanvasEdge: boolean): number | "edge" => (atCanvasEdge ? "edge" : planeOutside);
    blurPlane(plane, box.width, box.height, feather, {
      left: side(box.x === 0),
      top: side(box.y === 0),
      right: side(box.x + box.width === canvas.width),
      bottom: side(box.y + box.height === canvas.height),
    });
  }
  const data = new Uint8Array(plane.length);
  for (let i = 0; i < plane.length; i++) {
    const v = mask.invert ? 1 - (plane[i] ?? 0) : (plane[i] ?? 0);
    data[i] = Math.round(255 * (1 - density * (1 - Math.min(1, Math.max(0, v)))));
  }
  return { ...box, data, defaultColor: outsideByte >= 128 ? 255 : 0 };
}

type Operation = NonNullable<BezierPath["operation"]>;

interface Shape {
  readonly operation: Operation;
  readonly rule: "even-odd" | "non-zero";
  readonly polygons: Polygon[];
}

function combine(operation: Operation, a: number, b: number): number {
  switch (operation) {
    case "subtract":
      return Math.max(0, a - b);
    case "intersect":
      return a * b;
    case "exclude":
      return a + b - 2 * a * b;
    default:
      return a + b - a * b;
  }
}

/** Paths grouped into shapes: a path without an operation joins the shape before it. */
function toShapes(paths: readonly BezierPath[]): Shape[] {
  const shapes: Shape[] = [];
  let segments = 0;
  for (const path of paths) {
    const polygon = flatten(path);
    segments += polygon.xs.length;
    if (segments > MAX_VECTOR_MASK_SEGMENTS) {
      throw new BridgeError("PAYLOAD_TOO_LARGE", `Vector mask flattens into more than ${MAX_VECTOR_MASK_SEGMENTS} segments`, {
        details: { limit: "maxVectorMaskSegments", max: MAX_VECTOR_MASK_SEGMENTS },
      });
    }
    const last = shapes[shapes.length - 1];
    if (path.operation === undefined && last) last.polygons.push(polygon);
    else shapes.push({ operation: path.operation ?? "combine", rule: path.fillRule === "non-zero" ? "non-zero" : "even-odd", polygons: [polygon] });
  }
  return shapes;
}

/** A path's Bézier segments as a closed polygon (an open path is closed by a straight line, as it fills). */
function flatten(path: BezierPath): Polygon {
  const xs: number[] = [];
  const ys: number[] = [];
  const knots = path.knots.filter((knot) => knot.points.length >= 6 && knot.points.every(Number.isFinite));
  for (let i = 0; i < knots.length; i++) {
    const a = knots[i]!.points;
    const b = knots[(i + 1) % knots.length]!.points;
    xs.push(a[2]!);
    ys.push(a[3]!);
    if (path.open && i === knots.length - 1) break;
    subdivide(a[2]!, a[3]!, a[4]!, a[5]!, b[0]!, b[1]!, b[2]!, b[3]!, xs, ys, 0);
  }
  return { xs, ys };
}

/** Appends the interior points of a cubic Bézier until each piece is flat within {@link FLATNESS}. */
function subdivide(x0: number, y0: number, x1: number, y1: number, x2: number, y2: number, x3: number, y3: number, xs: number[], ys: number[], depth: number): void {
  // Distance of the control points from the chord bounds the curve's.
  const dx = x3 - x0;
  const dy = y3 - y0;
  const length = Math.hypot(dx, dy) || 1;
  const d1 = Math.abs((x1 - x0) * dy - (y1 - y0) * dx) / length;
  const d2 = Math.abs((x2 - x0) * dy - (y2 - y0) * dx) / length;
  const straight = d1 + d2 <= FLATNESS && (length > 0 || Math.hypot(x1 - x0, y1 - y0) + Math.hypot(x2 - x0, y2 - y0) <= FLATNESS);
  if (straight || depth >= 16) return;
  const ax = (x0 + x1) / 2;
  const ay = (y0 + y1) / 2;
  const bx = (x1 + x2) / 2;
  const by = (y1 + y2) / 2;
  const cx = (x2 + x3) / 2;
  const cy = (y2 + y3) / 2;
  const abx = (ax + bx) / 2;
  const aby = (ay + by) / 2;
  const bcx = (bx + cx) / 2;
  const bcy = (by + cy) / 2;
  const mx = (abx + bcx) / 2;
  const my = (aby + bcy) / 2;
  subdivide(x0, y0, ax, ay, abx, aby, mx, my, xs, ys, depth + 1);
  xs.push(mx);
  ys.push(my);
  subdivide(mx, my, bcx, bcy, cx, cy, x3, y3, xs, ys, depth + 1);
}

/**
 * The pixel box the mask is computed over: the paths' bounds grown by three standard deviations of feather,
 * clipped to the canvas; the whole canvas when the outside is neither 0 nor 255 (it has to be spelled out).
 */
function maskBox(shapes: readonly Shape[], canvas: { width: number; height: number }, feather: number, outsideByte: number): Box {
  if (outsideByte !== 0 && outsideByte !== 255) return { x: 0, y: 0, width: canvas.width, height: canvas.height };
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const shape of shapes) {
    for (const { xs, ys } of shape.polygons) {
      for (const x of xs) [left, right] = [Math.min(left, x), Math.max(right, x)];
      for (const y of ys) [top, bottom] = [Math.min(top, y), Math.max(bottom, y)];
    }
  }
  if (left > right) return { x: 0, y: 0, width: 0, height: 0 };
  const grow = Math.ceil(3 * feather);
  const x0 = Math.max(0, Math.floor(left) - grow);
  const y0 = Math.max(0, Math.floor(top) - grow);
  const x1 = Math.min(canvas.width, Math.ceil(right) + grow);
  const y1 = Math.min(canvas.height, Math.ceil(bottom) + grow);
  return x1 <= x0 || y1 <= y0 ? { x: 0, y: 0, width: 0, height: 0 } : { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

function checkSize(box: Box): void {
  const pixels = box.width * box.height;
  if (pixels <= MAX_VECTOR_MASK_PIXELS) return;
  throw new BridgeError("PAYLOAD_TOO_LARGE", `Vector mask of ${box.width}×${box.height} exceeds ${MAX_VECTOR_MASK_PIXELS} pixels`, {
    details: { limit: "maxVectorMaskPixels", width: box.width, height: box.height, max: MAX_VECTOR_MASK_PIXELS },
  });
}
