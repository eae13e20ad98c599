import type { HostRect } from "../../../protocol/index.js";
import type { Rgba } from "../../host.js";
import { renderDocument } from "../composite.js";
import type { DocumentContent, EmbeddedDocument, EmbeddedLayer, PixelLayer } from "../document.js";
import { rgbaBytes } from "../memory.js";
import { copyOnto, normalOnto } from "../pixel-loops.js";
import { translatedRecord } from "../psd-records.js";
import { cropRaster, emptyRaster, solidRaster } from "../raster.js";
import { flattenDocument } from "../scripts/edits.js";
import { selectionMask, setSelectionMask } from "../selection.js";
import type { EditContext, EditHandlers } from "./context.js";
import { alphaBox } from "./layer-pixels.js";
import {
  IDENTITY,
  type LayerWork,
  type Placement,
  checkBuffers,
  isMove,
  mirror,
  newWork,
  placePlane,
  placeSelection,
  planBox,
  planLayer,
  rotation,
  runWork,
  selectionBytes,
} from "./geometry.js";

/** What a background layer's new area is filled with when the whole document turns by an angle other than a quarter. */
const ROTATED_BACKGROUND_FILL: Rgba = [255, 255, 255, 255];

type Context = EditContext & { readonly doc: EmbeddedDocument };

const checker = (context: Context) => (): void => context.checkpoint(context.call);

/** Plans moving the selection (if any) with the document; it is kept inside the new canvas. */
function planSelection(work: LayerWork, doc: EmbeddedDocument, g: Placement): boolean {
  const mask = selectionMask(doc);
  if (mask === null) return false;
  work.bytes += selectionBytes(mask, g);
  work.steps.push(async (check) => {
    const placed = await placeSelection(mask, g, check);
    return () => setSelectionMask(doc, placed);
  });
  return true;
}

/** Plans the canvas's new size, checked first (committed before the selection, which is clipped to it). */
function planCanvas(work: LayerWork, doc: EmbeddedDocument, size: { width: number; height: number }, resolution = doc.resolution): void {
  work.buffers.push({ what: "The document", ...size });
  work.steps.push(async () => () => {
    doc.width = size.width;
    doc.height = size.height;
    doc.resolution = resolution;
  });
}

/**
 * Plans a background layer on a canvas of `size` filled with `fill`, its pixels placed by `g` over it (a resized
 * canvas, a document turned by any angle): it still covers the whole canvas.
 */
function planBackground(work: LayerWork, layer: PixelLayer, size: { width: number; height: number }, g: Placement, fill: Rgba): void {
  const plan = planBox({ left: layer.left, top: layer.top, width: layer.width, height: layer.height }, g);
  work.buffers.push({ what: layer.name, ...size }, { what: layer.name, width: plan.out.width, height: plan.out.height });
  work.bytes += rgbaBytes(size.width, size.height) + (isMove(g) ? 0 : rgbaBytes(plan.out.width, plan.out.height));
  work.steps.push(async (check) => {
    const placed = await placePlane({ data: layer.data, width: layer.width, height: layer.height, channels: 4 }, plan, g, 0, check);
    const canvas = solidRaster(size.width, size.height, fill);
    const pixels = { data: placed.data as Uint8ClampedArray, width: placed.width, height: placed.height };
    const work = { rows: check };
    if (isMove(g)) copyOnto(canvas, pixels, plan.out.left, plan.out.top, work);
    else normalOnto(canvas, pixels, plan.out.left, plan.out.top, 1, work);
    return () => Object.assign(layer, { left: 0, top: 0, width: size.width, height: size.height, data: canvas.data });
  });
}

/** Plans every layer of the document through `g`, a background layer (at the bottom) onto `fill` when given. */
function planLayers(work: LayerWork, doc: EmbeddedDocument, g: Placement, background?: { size: { width: number; height: number }; fill: Rgba }): void {
  for (const layer of doc.layers) {
    if (background !== undefined && layer.kind === "background") planBackground(work, layer, background.size, g, background.fill);
    else planLayer(work, layer, doc.layers, g, "all");
  }
}

/** Runs a whole-document edit's work and reports what it changed (nothing, for work with no step). */
async function finish(context: Context, work: LayerWork, what: string, selection: boolean): Promise<void> {
  await runWork(work, { what, maxPixels: context.maxDocumentPixels, memory: context.memory }, checker(context));
  if (work.steps.length > 0) context.changed(context.doc, { pixels: true, layers: true, selection });
}

/**
 * Plans cropping every layer to `rect` of the canvas, which becomes the canvas: pixels outside it are dropped,
 * masks and what records place in document pixels move with their layers.
 */
function planCrop(work: LayerWork, doc: EmbeddedDocument, rect: HostRect): boolean {
  const dx = -rect.x;
  const dy = -rect.y;
  const visit = (layer: EmbeddedLayer): void => {
    for (const key of ["mask", "vectorMask", "vectorShape"] as const) {
      const mask = layer[key];
      if (mask === undefined) continue;
      work.steps.push(async () => () => {
        layer[key] = { ...mask, x: mask.x + dx, y: mask.y + dy };
      });
    }
    if (layer.kind === "group") {
      work.steps.push(async () => () => {
        layer.record = translatedRecord(layer.record, dx, dy);
      });
      layer.children.forEach(visit);
      return;
    }
    const left = Math.max(layer.left, rect.x);
    const top = Math.max(layer.top, rect.y);
    const right = Math.min(layer.left + layer.width, rect.x + rect.width);
    const bottom = Math.min(layer.top + layer.height, rect.y + rect.height);
    const keep = right > left && bottom > top ? { x: left - layer.left, y: top - layer.top, width: right - left, height: bottom - top } : null;
    work.bytes += keep === null ? 0 : rgbaBytes(keep.width, keep.height);
    work.steps.push(async () => {
      const data = keep === null ? emptyRaster(0, 0).data : keep.width === layer.width && keep.height === layer.height ? layer.data : cropRaster(layer, keep).data;
      return () => {
        Object.assign(layer, { left: keep === null ? 0 : left + dx, top: keep === null ? 0 : top + dy, width: keep?.width ?? 0, height: keep?.height ?? 0, data });
        layer.record = translatedRecord(layer.record, dx, dy);
      };
    });
  };
  doc.layers.forEach(visit);
  planCanvas(work, doc, { width: rect.width, height: rect.height });
  return planSelection(work, doc, { sx: 1, sy: 1, q: IDENTITY, tx: dx, ty: dy, resample: "nearest" });
}

/** The box of the composite's pixels that are not fully transparent, or `null` when there is none. */
function opaqueBox(context: Context): HostRect | null {
  const { doc } = context;
  context.memory.check("Trimming the document", rgbaBytes(doc.width, doc.height), { width: doc.width, height: doc.height });
  const check = checker(context);
  const composite = renderDocument(doc, { rows: check });
  const box = alphaBox(composite, check);
  return box === undefined ? null : { x: box.left, y: box.top, width: box.right - box.left, height: box.bottom - box.top };
}

/** A copy of a document's content: layers copied object by object, sharing their buffers (never mutated in place). */
function copyContent(doc: EmbeddedDocument): DocumentContent {
  const copy = (layer: EmbeddedLayer): EmbeddedLayer => (layer.kind === "group" ? { ...layer, children: layer.children.map(copy) } : { ...layer });
  return {
    width: doc.width,
    height: doc.height,
    resolution: doc.resolution,
    layers: doc.layers.map(copy),
    nextLayerId: doc.nextLayerId,
    activeLayerIds: [...doc.activeLayerIds],
    ...(doc.globalLight !== undefined ? { globalLight: doc.globalLight } : {}),
    ...(doc.patterns !== undefined ? { patterns: doc.patterns } : {}),
    ...(doc.layerComps !== undefined ? { layerComps: doc.layerComps } : {}),
    ...(doc.grayscale !== undefined ? { grayscale: doc.grayscale } : {}),
    ...(doc.sourceColor !== undefined ? { sourceColor: doc.sourceColor } : {}),
  };
}

/** Whole-document edits: resize, canvas size, crop, rotate, flip, duplicate, flatten, trim. */
export const documentEdits: EditHandlers = {
  "document:resize": async (context, edit) => {
    const { doc } = context;
    const work = newWork();
    let selection = false;
    if (edit.width !== doc.width || edit.height !== doc.height) {
      const g: Placement = { sx: edit.width / doc.width, sy: edit.height / doc.height, q: IDENTITY, tx: 0, ty: 0, resample: edit.resample };
      planCanvas(work, doc, edit, edit.resolution);
      planLayers(work, doc, g);
      selection = planSelection(work, doc, g);
    } else {
      // The same size: only the resolution changes, no pixel is resampled.
      planCanvas(work, doc, edit, edit.resolution);
    }
    await finish(context, work, `Resizing ${doc.name} to ${edit.width}×${edit.height}`, selection);
    return undefined;
  },

  "document:resizeCanvas": async (context, edit) => {
    const { doc } = context;
    const size = { width: edit.width, height: edit.height };
    const g: Placement = { sx: 1, sy: 1, q: IDENTITY, tx: edit.offsetX, ty: edit.offsetY, resample: "nearest" };
    const work = newWork();
    planCanvas(work, doc, size);
    planLayers(work, doc, g, { size, fill: edit.fillColor });
    const selection = planSelection(work, doc, g);
    await finish(context, work, `Resizing the canvas of ${doc.name} to ${edit.width}×${edit.height}`, selection);
    return undefined;
  },

  "document:crop": async (context, edit) => {
    const work = newWork();
    const selection = planCrop(work, context.doc, edit.rect);
    await finish(context, work, `Cropping ${context.doc.name}`, selection);
    return undefined;
  },

  "document:rotate": async (context, edit) => {
    const { doc } = context;
    const q = rotation(edit.angle);
    const { width: w, height: h } = doc;
    const quarter = edit.angle % 90 === 0;
    // The canvas's corners through the turn: the new canvas is their box (exact for quarter turns).
    const xs = [0, q[0] * w, q[1] * h, q[0] * w + q[1] * h];
    const ys = [0, q[2] * w, q[3] * h, q[2] * w + q[3] * h];
    const size = quarter
      ? { width: edit.angle % 180 === 0 ? w : h, height: edit.angle % 180 === 0 ? h : w }
      : { width: Math.ceil(Math.max(...xs) - Math.min(...xs) - 1e-9), height: Math.ceil(Math.max(...ys) - Math.min(...ys) - 1e-9) };
    // Quarter turns: the canvas's new top-left corner at (0, 0); other angles: its centre at the new centre.
    const tx = quarter ? -Math.min(...xs) : size.width / 2 - (q[0] * w + q[1] * h) / 2;
    const ty = quarter ? -Math.min(...ys) : size.height / 2 - (q[2] * w + q[3] * h) / 2;
    const g: Placement = { sx: 1, sy: 1, q, tx, ty, resample: "bicubic" };
    const work = newWork();
    planCanvas(work, doc, size);
    planLayers(work, doc, g, quarter ? undefined : { size, fill: ROTATED_BACKGROUND_FILL });
    const selection = planSelection(work, doc, g);
    await finish(context, work, `Rotating ${doc.name}`, selection);
    return undefined;
  },

  "document:flip": async (context, edit) => {
    const { doc } = context;
    const q = mirror(edit.direction);
    const g: Placement = { sx: 1, sy: 1, q, tx: q[0] === -1 ? doc.width : 0, ty: q[3] === -1 ? doc.height : 0, resample: "nearest" };
    const work = newWork();
    planLayers(work, doc, g);
    const selection = planSelection(work, doc, g);
    await finish(context, work, `Flipping ${doc.name}`, selection);
    return undefined;
  },

  "document:duplicate": (context, edit) => {
    const { doc } = context;
    const copy = context.store.add(copyContent(doc), { name: edit.name, source: doc.source });
    const mask = selectionMask(doc);
    if (mask !== null) setSelectionMask(copy, { ...mask, data: mask.data.slice() });
    context.documentAdded(copy);
    return { documentId: copy.id };
  },

  "document:flatten": (context) => {
    const { doc } = context;
    // The composite and the background it is laid on.
    const bytes = 2 * rgbaBytes(doc.width, doc.height);
    checkBuffers([{ what: "The flattened layer", width: doc.width, height: doc.height }], context.maxDocumentPixels);
    context.memory.check(`Flattening ${doc.name}`, bytes, { width: doc.width, height: doc.height });
    flattenDocument(doc, checker(context));
    context.changed(doc, { pixels: true, layers: true, activeLayers: true });
    return undefined;
  },

  "document:trim": async (context) => {
    const { doc } = context;
    const box = opaqueBox(context);
    const work = newWork();
    let selection = false;
    // Nothing to trim when the composite is transparent all over or has no transparent edge.
    if (box !== null && (box.width !== doc.width || box.height !== doc.height)) selection = planCrop(work, doc, box);
    await finish(context, work, `Trimming ${doc.name}`, selection);
    return undefined;
  },
};
