/**
 * Layers moved through an affine map of document pixels, `p → Q·S·p + t`: `S` scales each axis (a resize), `Q`
 * turns and mirrors (a rotation, a flip), `t` moves. What `layer:transform` and the whole-document edits share.
 *
 * Work is planned before anything is allocated (every new buffer's size is known from the layer's box: checked
 * against `maxDocumentPixels`, charged to the memory budget), made while the document is untouched, and only then
 * committed in one synchronous step, so a refused or cancelled edit leaves the document as it was.
 */
import { BridgeError } from "../../../protocol/errors.js";
import type { ResampleMethod } from "../../edits.js";
import type { EmbeddedLayer, LayerMask, PixelLayer } from "../document.js";
import type { EditorMemory } from "../memory.js";
import { compsAfterMove, mappedRecord, rasterisedRecord, translatedRecord } from "../psd-records.js";
import { isQuarterTurn, mapPlane, type Matrix, type Plane, resizePlane, turnPlane } from "../resample.js";
import type { SelectionMask } from "../selection.js";

/** `p → Q·S·p + t` in document pixels, `S = diag(sx, sy)` with positive scales, `Q` a rotation or mirror. */
export interface Placement {
  readonly sx: number;
  readonly sy: number;
  readonly q: Matrix;
  readonly tx: number;
  readonly ty: number;
  readonly resample: ResampleMethod;
}

export const IDENTITY: Matrix = [1, 0, 0, 1];

/** `a · b` of two matrices. */
export function multiply(a: Matrix, b: Matrix): Matrix {
  return [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]];
}

/**
 * The turn by `degrees` clockwise on screen (y grows downwards). Quarter turns are exact integers, so they move
 * pixels without resampling.
 */
export function rotation(degrees: number): Matrix {
  const turn = ((degrees % 360) + 360) % 360;
  if (turn === 0) return IDENTITY;
  if (turn === 90) return [0, -1, 1, 0];
  if (turn === 180) return [-1, 0, 0, -1];
  if (turn === 270) return [0, 1, -1, 0];
  const r = (turn * Math.PI) / 180;
  const cos = Math.cos(r);
  const sin = Math.sin(r);
  return [cos, -sin, sin, cos];
}

/** The mirror of a flip direction. */
export function mirror(flip: "horizontal" | "vertical" | "both" | "none"): Matrix {
  return [flip === "horizontal" || flip === "both" ? -1 : 1, 0, 0, flip === "vertical" || flip === "both" ? -1 : 1];
}

/** A box of whole document pixels. */
export interface Box {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/** How one plane (a layer's pixels, a mask) gets to its new box. */
interface PlanePlan {
  /** Its size once scaled (undefined: not scaled). */
  readonly scaled: { readonly width: number; readonly height: number } | undefined;
  /** Its top-left corner once scaled, before `Q` and `t` (document pixels, maybe fractional). */
  readonly origin: { readonly x: number; readonly y: number };
  readonly out: Box;
  /** `move`: only shifted; `turn`: quarter turns and mirrors, exact; `map`: resampled. */
  readonly how: "move" | "turn" | "map";
}

/** Where a placement puts a point of the document: scaled, then turned or mirrored by `q`, then moved by `t`. */
export function placePoint(g: Placement, x: number, y: number): readonly [number, number] {
  const [a, b, c, d] = g.q;
  return [a * x * g.sx + b * y * g.sy + g.tx, c * x * g.sx + d * y * g.sy + g.ty];
}

/** Whether a placement only moves (by whole pixels once rounded). */
export function isMove(g: Placement): boolean {
  return g.sx === 1 && g.sy === 1 && g.q[0] === 1 && g.q[1] === 0 && g.q[2] === 0 && g.q[3] === 1;
}

/** Where a box of pixels lands: its new box, and how it gets there. */
export function planBox(box: Box, g: Placement): PlanePlan {
  const scaling = g.sx !== 1 || g.sy !== 1;
  const width = scaling ? Math.max(1, Math.round(box.width * g.sx)) : box.width;
  const height = scaling ? Math.max(1, Math.round(box.height * g.sy)) : box.height;
  const scaled = scaling ? { width, height } : undefined;
  const origin = { x: box.left * g.sx, y: box.top * g.sy };
  const [a, b, c, d] = g.q;
  const xs = [0, a * width, b * height, a * width + b * height].map((v) => v + a * origin.x + b * origin.y + g.tx);
  const ys = [0, c * width, d * height, c * width + d * height].map((v) => v + c * origin.x + d * origin.y + g.ty);
  const minX = Math.min(...xs);
  const minY = Math.min(...ys);
  if (isQuarterTurn(g.q)) {
    const swap = a === 0;
    const out = { left: Math.round(minX), top: Math.round(minY), width: swap ? height : width, height: swap ? width : height };
    return { scaled, origin, out, how: a === 1 && d === 1 ? "move" : "turn" };
  }
  // Every pixel the turned box touches (a sliver of a pixel included; the rounding noise of the trigonometry not).
  const EPS = 1e-6;
  const left = Math.floor(minX + EPS);
  const top = Math.floor(minY + EPS);
  const right = Math.ceil(Math.max(...xs) - EPS);
  const bottom = Math.ceil(Math.max(...ys) - EPS);
  return { scaled, origin, out: { left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) }, how: "map" };
}

/** The plane's pixels in their new box (see {@link planBox}); outside the source a mask shows `outside`. */
export async function placePlane(plane: Plane, plan: PlanePlan, g: Placement, outside: number, check: () => void): Promise<Plane> {
  let p = plane;
  if (plan.scaled !== undefined) p = await resizePlane(plane, plan.scaled.width, plan.scaled.height, g.resample);
  check();
  if (plan.how === "move") return p;
  if (plan.how === "turn") return turnPlane(p, g.q, check);
  const [a, b, c, d] = g.q;
  const det = a * d - b * c;
  const inv = [d / det, -b / det, -c / det, a / det] as const;
  // The centre of output pixel (X, Y) is (left + X + ½, top + Y + ½); back through Q and t into the scaled plane.
  const cx = plan.out.left + 0.5 - g.tx;
  const cy = plan.out.top + 0.5 - g.ty;
  const map = {
    u0: inv[0] * cx + inv[1] * cy - plan.origin.x - 0.5,
    ux: inv[0],
    uy: inv[1],
    v0: inv[2] * cx + inv[3] * cy - plan.origin.y - 0.5,
    vx: inv[2],
    vy: inv[3],
  };
  return mapPlane(p, plan.out, map, g.resample, outside, check);
}

/** Bytes a plan allocates: the scaled copy and the placed one. */
function planBytes(plan: PlanePlan, channels: number): number {
  const scaled = plan.scaled === undefined ? 0 : plan.scaled.width * plan.scaled.height * channels;
  return scaled + (plan.how === "move" ? 0 : plan.out.width * plan.out.height * channels);
}

/** One buffer an edit will make: checked against `maxDocumentPixels` before anything is allocated. */
export interface PlannedBuffer {
  readonly what: string;
  readonly width: number;
  readonly height: number;
}

/** The work of moving some layers: what it allocates, and the pixels it makes, ready to commit. */
export interface LayerWork {
  readonly buffers: PlannedBuffer[];
  bytes: number;
  readonly steps: Array<(check: () => void) => Promise<() => void>>;
}

export function newWork(): LayerWork {
  return { buffers: [], bytes: 0, steps: [] };
}

/** Whose masks move: every one (the whole document moves), or only those linked to their layer. */
export type MaskRule = "all" | "linked";

/** Whether a mask moves with its layer (masks are linked unless marked otherwise). */
export function maskLinked(mask: LayerMask): boolean {
  return (mask as LayerMask & { readonly linked?: boolean }).linked !== false;
}

/** A mask as a plane, and back. */
const maskPlane = (mask: LayerMask): Plane => ({ data: mask.data, width: mask.width, height: mask.height, channels: 1 });

/** Plans moving one mask: its pixels through the placement, its default colour beyond them. */
function planMask(work: LayerWork, mask: LayerMask, g: Placement, what: string, commit: (mask: LayerMask) => void): void {
  if (mask.width === 0 || mask.height === 0 || isMove(g)) {
    const dx = Math.round(g.tx);
    const dy = Math.round(g.ty);
    work.steps.push(async () => () => commit({ ...mask, x: mask.x + dx, y: mask.y + dy }));
    return;
  }
  const plan = planBox({ left: mask.x, top: mask.y, width: mask.width, height: mask.height }, g);
  work.buffers.push({ what, width: plan.out.width, height: plan.out.height });
  if (plan.scaled) work.buffers.push({ what, ...plan.scaled });
  work.bytes += planBytes(plan, 1);
  work.steps.push(async (check) => {
    const placed = await placePlane(maskPlane(mask), plan, g, mask.defaultColor, check);
    const data = placed.data instanceof Uint8Array ? placed.data : new Uint8Array(placed.data.buffer, placed.data.byteOffset, placed.data.byteLength);
    return () => commit({ ...mask, x: plan.out.left, y: plan.out.top, width: plan.out.width, height: plan.out.height, data });
  });
}

/** Plans the masks of a layer (`layer` is read at commit time: the layer object a step before may have replaced it). */
function planMasks(work: LayerWork, layer: () => EmbeddedLayer, g: Placement, rule: MaskRule): void {
  const current = layer();
  for (const key of ["mask", "vectorMask", "vectorShape"] as const) {
    const mask = current[key];
    if (mask === undefined || (rule === "linked" && !maskLinked(mask))) continue;
    planMask(work, mask, g, `${current.name}'s mask`, (moved) => {
      layer()[key] = moved;
    });
  }
}

/** Whether a layer's vector mask path moves with it: always when the whole document moves, else when linked. */
function pathMoves(layer: EmbeddedLayer, rule: MaskRule): boolean {
  return rule === "all" || layer.vectorMask === undefined || maskLinked(layer.vectorMask);
}

/** `moved` with the vector mask path of `before` when the path stays (an unlinked mask stays where it is). */
function keepPath(moved: EmbeddedLayer["record"], before: EmbeddedLayer["record"], moves: boolean): EmbeddedLayer["record"] {
  if (moves || moved === undefined || before?.vectorMask === undefined) return moved;
  return { ...moved, vectorMask: before.vectorMask };
}

/** Kinds whose content lives in their record: moved pixels are no longer that content, so they become pixel layers. */
const RECORDED = new Set(["text", "smartObject", "shape", "fill"]);

/**
 * Plans moving a layer (a group: every layer in it) and its masks (those `rule` moves). A pure move shifts
 * pixels and what the record places in document pixels; anything else resamples the pixels into a new buffer, and
 * a text, smart object, shape or fill layer becomes a pixel layer of them, as when an editor rasterises it.
 */
export function planLayer(work: LayerWork, layer: EmbeddedLayer, siblings: EmbeddedLayer[], g: Placement, rule: MaskRule): void {
  let current: EmbeddedLayer = layer;
  const get = (): EmbeddedLayer => current;
  planMasks(work, get, g, rule);
  // A layer the user moves keeps its layer comps' places: their offsets from it shrink by the move.
  if (rule === "linked" && isMove(g) && layer.record?.comps !== undefined) {
    work.steps.push(async () => () => {
      current.record = compsAfterMove(current.record, Math.round(g.tx), Math.round(g.ty));
    });
  }
  if (layer.kind === "group") {
    // A group's own vector mask path goes with its mask.
    if (layer.record?.vectorMask !== undefined && pathMoves(layer, rule)) {
      work.steps.push(async () => () => {
        layer.record = isMove(g) ? translatedRecord(layer.record, Math.round(g.tx), Math.round(g.ty)) : mappedRecord(layer.record, (x, y) => placePoint(g, x, y));
      });
    }
    for (const child of layer.children) planLayer(work, child, layer.children, g, rule);
    return;
  }
  if (isMove(g)) {
    const dx = Math.round(g.tx);
    const dy = Math.round(g.ty);
    work.steps.push(async () => () => {
      const pixels = current as PixelLayer;
      pixels.left += dx;
      pixels.top += dy;
      pixels.record = keepPath(translatedRecord(pixels.record, dx, dy), pixels.record, pathMoves(pixels, rule));
    });
    return;
  }
  if (layer.width === 0 || layer.height === 0) return;
  const plan = planBox({ left: layer.left, top: layer.top, width: layer.width, height: layer.height }, g);
  work.buffers.push({ what: layer.name, width: plan.out.width, height: plan.out.height });
  if (plan.scaled) work.buffers.push({ what: layer.name, ...plan.scaled });
  work.bytes += planBytes(plan, 4);
  // The layer object may be replaced by its pixel-layer form now, so the mask steps read it at commit time.
  work.steps.unshift(async (check) => {
    const placed = await placePlane({ data: layer.data, width: layer.width, height: layer.height, channels: 4 }, plan, g, 0, check);
    const data = placed.data instanceof Uint8ClampedArray ? placed.data : new Uint8ClampedArray(placed.data.buffer, placed.data.byteOffset, placed.data.byteLength);
    return () => {
      const box = { left: plan.out.left, top: plan.out.top, width: plan.out.width, height: plan.out.height, data };
      // The vector mask path goes where the pixels went (the mask's pixels are resampled beside them).
      const kept = RECORDED.has(layer.kind) ? rasterisedRecord(layer.record) : layer.record;
      const record = keepPath(mappedRecord(kept, (x, y) => placePoint(g, x, y)), kept, pathMoves(layer, rule));
      if (RECORDED.has(layer.kind)) {
        const pixel: PixelLayer = { ...layer, ...box, kind: "pixel", record };
        siblings.splice(siblings.indexOf(layer), 1, pixel);
        current = pixel;
      } else {
        Object.assign(layer, box, { record });
      }
    };
  });
}

/**
 * Makes the planned pixels, then commits them all at once. Refuses first, allocating nothing, when a buffer would
 * pass `maxPixels` or the work would not fit the memory budget; holds its bytes while it runs.
 * @throws BridgeError `PAYLOAD_TOO_LARGE` `{limit: "maxDocumentPixels" | "editorMemoryBudgetBytes", …}`
 */
export async function runWork(
  work: LayerWork,
  budget: { readonly what: string; readonly maxPixels: number; readonly memory: EditorMemory; readonly extraBytes?: number },
  check: () => void,
): Promise<void> {
  checkBuffers(work.buffers, budget.maxPixels);
  const held = budget.memory.reserve(budget.what, work.bytes + (budget.extraBytes ?? 0));
  try {
    const commits: Array<() => void> = [];
    for (const step of work.steps) {
      check();
      commits.push(await step(check));
    }
    check();
    for (const commit of commits) commit();
  } finally {
    held.release();
  }
}

/** @throws BridgeError `PAYLOAD_TOO_LARGE` naming `maxDocumentPixels` for the first buffer past it. */
export function checkBuffers(buffers: readonly PlannedBuffer[], maxPixels: number): void {
  for (const { what, width, height } of buffers) {
    if (width * height <= maxPixels) continue;
    throw new BridgeError("PAYLOAD_TOO_LARGE", `${what} would become ${width}×${height} px, more than the ${maxPixels} pixels of maxDocumentPixels`, {
      details: { limit: "maxDocumentPixels", maxPixels, width, height, what },
    });
  }
}

/** The selection's mask through a placement, kept inside the canvas by `setSelectionMask` later. */
export async function placeSelection(mask: SelectionMask, g: Placement, check: () => void): Promise<SelectionMask> {
  if (isMove(g)) return { ...mask, x: mask.x + Math.round(g.tx), y: mask.y + Math.round(g.ty) };
  // Soft edges stay soft: a resized selection is sampled like a mask, never with nearest neighbours.
  const smooth: Placement = { ...g, resample: g.resample === "nearest" ? "bilinear" : g.resample };
  const plan = planBox({ left: mask.x, top: mask.y, width: mask.width, height: mask.height }, smooth);
  const placed = await placePlane({ data: mask.data, width: mask.width, height: mask.height, channels: 1 }, plan, smooth, 0, check);
  return { x: plan.out.left, y: plan.out.top, width: plan.out.width, height: plan.out.height, data: placed.data as Uint8Array };
}

/** Bytes of a planned selection move. */
export function selectionBytes(mask: SelectionMask | null, g: Placement): number {
  if (mask === null || isMove(g)) return 0;
  return planBytes(planBox({ left: mask.x, top: mask.y, width: mask.width, height: mask.height }, g), 1);
}
