/**
 * The destructive operations: `layer:adjust` (an adjustment, rendered by the same code as adjustment layers from
 * the record the typed settings make) and `filter:apply` (`../filters/kernels.ts`), on a pixel layer's pixels, inside
 * the selection when there is one (its soft edges mix the result in partly). A filter that spreads pixels (a blur)
 * works over the layer's buffer grown to the canvas, so a blur reaches past a layer cropped to its content; the
 * result is cropped to its pixels again. The layer's buffer is replaced, never written into.
 */
import { BridgeError } from "../../../protocol/errors.js";
import type { HostBounds } from "../../../protocol/index.js";
import { compileAdjustment } from "../adjustments/apply.js";
import { runProgram } from "../adjustments/run.js";
import { adjustmentRecord } from "../adjustments/typed.js";
import { canvasRegion } from "../composite.js";
import type { EmbeddedDocument, PixelLayer } from "../document.js";
import { runFilter } from "../filters/kernels.js";
import { copyOnto } from "../pixel-loops.js";
import { cropRaster, emptyRaster, type Raster, unionBounds } from "../raster.js";
import { selectionMask } from "../selection.js";
import { requireLayer } from "../tree.js";
import { ROW_BAND } from "../work.js";
import { reserveBuffer } from "./buffers.js";
import type { EditContext, EditHandlers } from "./context.js";
import { alphaBox, ownRect, rowsOf } from "./layer-pixels.js";
import { checkUnlocked } from "./locks.js";


/** A pixel layer of the document by id. @throws BridgeError `BAD_REQUEST` for another kind, `LOCKED` when its pixels are locked. */
function pixelLayer(doc: EmbeddedDocument, layerId: number, what: string): PixelLayer {
  const { layer } = requireLayer(doc, layerId);
  if (layer.kind !== "pixel" && layer.kind !== "background") {
    throw new BridgeError("BAD_REQUEST", `Cannot ${what} a ${layer.kind} layer: only pixel layers (rasterize it first)`, { details: { layerId, kind: layer.kind } });
  }
  checkUnlocked(doc, layerId, `${what} it`);
  return layer;
}

/**
 * `result` (covering `region`) mixed into `before` (the same region) by the selection's coverage: the result
 * inside, `before` outside, soft edges in proportion (colours mixed premultiplied by alpha). No selection: `result`.
 */
function withinSelection(doc: EmbeddedDocument, before: Raster, result: Raster, region: HostBounds, context: EditContext): Raster {
  const selection = selectionMask(doc);
  if (selection === null) return result;
  const out = emptyRaster(before.width, before.height);
  const b = before.data;
  const r = result.data;
  const o = out.data;
  for (let y = 0; y < before.height; y++) {
    if (y % ROW_BAND === 0) context.checkpoint(context.call);
    const sy = y + region.top - selection.y;
    for (let x = 0; x < before.width; x++) {
      const sx = x + region.left - selection.x;
      const cover = sy >= 0 && sy < selection.height && sx >= 0 && sx < selection.width ? (selection.data[sy * selection.width + sx] as number) / 255 : 0;
      const i = (y * before.width + x) * 4;
      if (cover === 0) {
        o[i] = b[i] as number;
        o[i + 1] = b[i + 1] as number;
        o[i + 2] = b[i + 2] as number;
        o[i + 3] = b[i + 3] as number;
        continue;
      }
      const a0 = ((b[i + 3] as number) * (1 - cover)) / 255;
      const a1 = ((r[i + 3] as number) * cover) / 255;
      const alpha = a0 + a1;
      o[i + 3] = alpha * 255;
      if (alpha === 0) continue;
      for (let c = 0; c < 3; c++) o[i + c] = ((b[i + c] as number) * a0 + (r[i + c] as number) * a1) / alpha;
    }
  }
  return out;
}

/** Puts `raster` (covering `region`) into the layer as its buffer, cropped to its pixels. */
function place(layer: PixelLayer, raster: Raster, region: HostBounds, context: EditContext): void {
  const box = alphaBox(raster, () => context.checkpoint(context.call));
  if (box === undefined) {
    Object.assign(layer, { left: region.left, top: region.top, width: 0, height: 0, data: new Uint8ClampedArray(0) });
    return;
  }
  const whole = box.left === 0 && box.top === 0 && box.right === raster.width && box.bottom === raster.height;
  const out = whole ? raster : cropRaster(raster, { x: box.left, y: box.top, width: box.right - box.left, height: box.bottom - box.top });
  Object.assign(layer, { left: region.left + box.left, top: region.top + box.top, width: out.width, height: out.height, data: out.data });
}

export const filterEdits: EditHandlers = {
  /** The adjustment on the layer's own pixels (alpha untouched): only colour changes, so the buffer keeps its box. */
  "layer:adjust"(context, edit) {
    const { doc } = context;
    const layer = pixelLayer(doc, edit.layerId, "adjust");
    if (layer.width === 0 || layer.height === 0) return undefined;
    const region = ownRect(layer);
    const held = reserveBuffer(context, "An adjusted layer", layer.width, layer.height, 8);
    try {
      const before: Raster = { width: layer.width, height: layer.height, data: layer.data };
      const program = compileAdjustment(adjustmentRecord(edit.adjustment), doc.grayscale === true);
      const adjusted = runProgram(program, before, rowsOf(context));
      layer.data = withinSelection(doc, before, adjusted, region, context).data;
    } finally {
      held.release();
    }
    context.changed(doc, { pixels: true });
    return undefined;
  },

  /** The filter over the layer's buffer grown to the canvas (edges beyond it repeat), then cropped to its pixels. */
  async "filter:apply"(context, edit) {
    const { doc } = context;
    const layer = pixelLayer(doc, edit.layerId, "filter");
    const region = layer.width > 0 && layer.height > 0 ? unionBounds(ownRect(layer), canvasRegion(doc)) : canvasRegion(doc);
    const width = region.right - region.left;
    const height = region.bottom - region.top;
    // The layer over the region, the filtered copy, the selection's mix and the library's own copies.
    const held = reserveBuffer(context, "A filtered layer", width, height, 16);
    try {
      const before = emptyRaster(width, height);
      if (layer.width > 0 && layer.height > 0) copyOnto(before, layer, layer.left - region.left, layer.top - region.top, rowsOf(context));
      const filtered = await runFilter(edit.filter, before, rowsOf(context), Math.random);
      context.checkpoint(context.call);
      place(layer, withinSelection(doc, before, filtered, region, context), region, context);
    } finally {
      held.release();
    }
    context.changed(doc, { pixels: true });
    return undefined;
  },
};
