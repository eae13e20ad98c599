/**
 * The selection as a mask. `doc.selection` keeps the bounding rectangle (what `selection:getArea` and the
 * `selection:changed` event report: the mask's bbox, an exact rectangle for rectangle selections); the mask
 * itself lives beside the document here. A mask whose bounds no longer match `doc.selection` (something set
 * the rectangle directly) is ignored and the rectangle counts as the selection.
 */
import { BridgeError } from "../../protocol/errors.js";
import type { HostRect } from "../../protocol/index.js";
import type { HostAdapter, HostCallContext, SelectionOutline, SelectionShape } from "../host.js";
import type { EmbeddedDocument } from "./document.js";
import { MAX_SELECTION_POLYGON_POINTS } from "./limits.js";
import { maskToSvgPath } from "./trace/index.js";
import { ROW_BAND } from "./work.js";

/** Called every few rows of a mask loop; throws to stop it (a cancelled call). */
type Check = () => void;
const NO_CHECK: Check = () => {};

/** Selection coverage of a canvas region: one byte per pixel, 255 = selected (soft edges in between). */
export interface SelectionMask {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

/** What the selection functions need of a document. */
export interface SelectionHolder {
  readonly width: number;
  readonly height: number;
  selection: HostRect | null;
}

const masks = new WeakMap<SelectionHolder, SelectionMask>();

/**
 * The whole pixels of the canvas a shape's box touches (fractional edges widen), or `null` when it misses the
 * canvas: masks are only ever allocated inside the canvas, however large the shape (scripts pass any size).
 * @throws BridgeError `BAD_REQUEST` for non-finite or negative sizes.
 */
function canvasBox(rect: HostRect, width: number, height: number): HostRect | null {
  const values = [rect.x, rect.y, rect.width, rect.height];
  if (!values.every(Number.isFinite) || rect.width < 0 || rect.height < 0) {
    throw new BridgeError("BAD_REQUEST", "A selection needs finite x, y and non-negative width, height", { details: { rect } });
  }
  const left = Math.max(0, Math.floor(rect.x));
  const top = Math.max(0, Math.floor(rect.y));
  const right = Math.min(width, Math.ceil(rect.x + rect.width));
  const bottom = Math.min(height, Math.ceil(rect.y + rect.height));
  if (right <= left || bottom <= top) return null;
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** Bytes the selection's stored mask holds (a plain rectangle holds none). */
export function selectionMaskBytes(doc: SelectionHolder): number {
  return masks.get(doc)?.data.byteLength ?? 0;
}

/** The selection as it stands: its rectangle and its stored mask (both replaced, never changed in place). */
export interface SelectionState {
  readonly rect: HostRect | null;
  readonly mask: SelectionMask | undefined;
}

/** The selection now, to put back later with {@link restoreSelection}. */
export function selectionState(doc: SelectionHolder): SelectionState {
  return { rect: doc.selection === null ? null : { ...doc.selection }, mask: masks.get(doc) };
}

/** Puts back a selection {@link selectionState} read. */
export function restoreSelection(doc: SelectionHolder, state: SelectionState): void {
  doc.selection = state.rect === null ? null : { ...state.rect };
  if (state.mask === undefined) masks.delete(doc);
  else masks.set(doc, state.mask);
}

/** The selection's mask, or `null` when nothing is selected. A plain rectangle becomes a full mask of it. */
export function selectionMask(doc: SelectionHolder): SelectionMask | null {
  const rect = doc.selection;
  if (!rect) return null;
  const mask = masks.get(doc);
  if (mask && mask.x === rect.x && mask.y === rect.y && mask.width === rect.width && mask.height === rect.height) return mask;
  return { ...rect, data: new Uint8Array(rect.width * rect.height).fill(255) };
}

/**
 * Replaces the selection with a mask in document pixels: clipped to the canvas, cropped to its bbox; `null` or
 * a mask with no pixel at or above 1 clears the selection. Returns the new bounds. `check` runs every few rows.
 */
export function setSelectionMask(doc: SelectionHolder, mask: SelectionMask | null, check: Check = NO_CHECK): HostRect | null {
  const tight = mask ? cropToContent(mask, doc.width, doc.height, check) : null;
  doc.selection = tight ? { x: tight.x, y: tight.y, width: tight.width, height: tight.height } : null;
  if (tight) masks.set(doc, tight);
  else masks.delete(doc);
  return doc.selection ? { ...doc.selection } : null;
}

/**
 * Selects a shape (replacing the selection). Rectangles keep the exact rectangle (on whole pixels, in the
 * canvas); ellipses and polygons cover the pixels whose centres fall inside (polygons by the even-odd rule).
 * `check` runs every few rows of the rasterisation (a cancelled call throws from it).
 * @throws BridgeError `BAD_REQUEST` for non-finite coordinates or too many polygon points.
 */
export function selectShape(doc: SelectionHolder, shape: SelectionShape, check: Check = NO_CHECK): HostRect | null {
  if (shape.kind === "rect") {
    const rect = canvasBox(shape.rect, doc.width, doc.height);
    return setSelectionMask(doc, rect ? { ...rect, data: new Uint8Array(rect.width * rect.height).fill(255) } : null, check);
  }
  const mask = shape.kind === "ellipse" ? ellipseMask(shape.rect, doc, check) : polygonMask(shape.points, doc, check);
  return setSelectionMask(doc, mask, check);
}

function ellipseMask(rect: HostRect, canvas: { width: number; height: number }, check: Check): SelectionMask | null {
  const box = canvasBox(rect, canvas.width, canvas.height);
  if (!box) return null;
  const rx = rect.width / 2;
  const ry = rect.height / 2;
  const cx = rect.x + rx;
  const cy = rect.y + ry;
  const data = new Uint8Array(box.width * box.height);
  for (let y = 0; y < box.height; y++) {
    if (y % ROW_BAND === 0) check();
    const ny = (box.y + y + 0.5 - cy) / ry;
    for (let x = 0; x < box.width; x++) {
      const nx = (box.x + x + 0.5 - cx) / rx;
      if (nx * nx + ny * ny <= 1) data[y * box.width + x] = 255;
    }
  }
  return { ...box, data };
}

function polygonMask(
  points: ReadonlyArray<{ readonly x: number; readonly y: number }>,
  canvas: { width: number; height: number },
  check: Check,
): SelectionMask | null {
  if (points.length > MAX_SELECTION_POLYGON_POINTS) {
    throw new BridgeError("BAD_REQUEST", `A polygon selection takes at most ${MAX_SELECTION_POLYGON_POINTS} points`, {
      details: { points: points.length, maxPoints: MAX_SELECTION_POLYGON_POINTS },
    });
  }
  if (points.length < 3) throw new BridgeError("BAD_REQUEST", "A polygon selection needs at least 3 points", { details: { points: points.length } });
  if (!points.every((p) => Number.isFinite(p.x) && Number.isFinite(p.y))) {
    throw new BridgeError("BAD_REQUEST", "Polygon points need finite x and y");
  }
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const minX = Math.min(...xs);
  const minY = Math.min(...ys);
  const box = canvasBox({ x: minX, y: minY, width: Math.max(...xs) - minX, height: Math.max(...ys) - minY }, canvas.width, canvas.height);
  if (!box) return null;
  const data = new Uint8Array(box.width * box.height);
  const crossings: number[] = [];
  for (let y = 0; y < box.height; y++) {
    if (y % ROW_BAND === 0) check();
    const sy = box.y + y + 0.5;
    crossings.length = 0;
    for (let i = 0; i < points.length; i++) {
      const a = points[i]!;
      const b = points[(i + 1) % points.length]!;
      // Half-open rule: an edge counts when the scanline lies in [min y, max y).
      if ((a.y <= sy && b.y > sy) || (b.y <= sy && a.y > sy)) crossings.push(a.x + ((sy - a.y) / (b.y - a.y)) * (b.x - a.x));
    }
    crossings.sort((p, q) => p - q);
    for (let k = 0; k + 1 < crossings.length; k += 2) {
      // Pixel centres x + 0.5 in [from, to).
      const from = Math.max(0, Math.ceil((crossings[k] ?? 0) - 0.5 - box.x));
      const to = Math.min(box.width, Math.ceil((crossings[k + 1] ?? 0) - 0.5 - box.x));
      if (to > from) data.fill(255, y * box.width + from, y * box.width + to);
    }
  }
  return { ...box, data };
}

/** The mask clipped to the canvas and cropped to its non-zero pixels, or `null` when it has none. */
function cropToContent(mask: SelectionMask, canvasWidth: number, canvasHeight: number, check: Check): SelectionMask | null {
  const x0 = Math.max(0, mask.x);
  const y0 = Math.max(0, mask.y);
  const x1 = Math.min(canvasWidth, mask.x + mask.width);
  const y1 = Math.min(canvasHeight, mask.y + mask.height);
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (let y = y0; y < y1; y++) {
    if ((y - y0) % ROW_BAND === 0) check();
    const row = (y - mask.y) * mask.width - mask.x;
    for (let x = x0; x < x1; x++) {
      if (mask.data[row + x]) {
        if (x < left) left = x;
        if (x >= right) right = x + 1;
        if (y < top) top = y;
        bottom = y + 1;
      }
    }
  }
  if (right <= left) return null;
  if (left === mask.x && top === mask.y && right - left === mask.width && bottom - top === mask.height) return mask;
  const width = right - left;
  const height = bottom - top;
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const start = (top + y - mask.y) * mask.width + (left - mask.x);
    data.set(mask.data.subarray(start, start + width), y * width);
  }
  return { x: left, y: top, width, height, data };
}

/**
 * The selection's outline, grown by `expand` px: SVG path data in document pixels and the box of its vertices;
 * `null` when nothing is selected.
 */
export function selectionOutline(doc: SelectionHolder, expand: number): SelectionOutline | null {
  const mask = selectionMask(doc);
  if (!mask) return null;
  const traced = maskToSvgPath(mask, { left: mask.x, top: mask.y, expand });
  return traced ? { d: traced.d, box: traced.box } : null;
}

// --- Host operations ----------------------------------------------------------------------------------------

/** What the selection operations need from the editor. */
export interface SelectionOpsDeps {
  document(documentId: number | undefined): EmbeddedDocument;
  /** Reports an edit (events, dirty flag). */
  changed(doc: EmbeddedDocument, changes: { selection?: boolean }): void;
  /** Throws the abort reason once the call is cancelled or out of time (see `work.ts`). */
  checkpoint(ctx: HostCallContext): void;
}

/** The embedded editor's selection operations of {@link HostAdapter}. */
export function selectionOps(deps: SelectionOpsDeps): Required<Pick<HostAdapter, "getSelection" | "setSelection" | "getSelectionOutline">> {
  return {
    async getSelection(_ctx, documentId) {
      const selection = deps.document(documentId).selection;
      return selection ? { ...selection } : null;
    },
    async setSelection(ctx, { documentId, shape }) {
      const doc = deps.document(documentId);
      deps.checkpoint(ctx);
      // The selection changes only once the mask is complete: a cancelled rasterisation leaves it as it was.
      const bounds = shape ? selectShape(doc, shape, () => deps.checkpoint(ctx)) : setSelectionMask(doc, null);
      deps.changed(doc, { selection: true });
      return bounds;
    },
    async getSelectionOutline(ctx, { documentId, expand }) {
      const doc = deps.document(documentId);
      deps.checkpoint(ctx);
      return selectionOutline(doc, expand);
    },
  };
}
