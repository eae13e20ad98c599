/**
 * Layer edits that make pixels: merge (layers composited as they render into one), rasterize (a text, smart
 * object, shape or fill layer as the pixels it shows), fill and clear (inside the selection, or everywhere when
 * nothing is selected). Each new buffer is reserved against the editor's limits before it is made, loops stop at
 * the call's checkpoints, and the layer's buffer is replaced, never written into (see `document.ts`).
 */
import { BridgeError } from "../../../protocol/errors.js";
import type { HostBounds } from "../../../protocol/index.js";
import { blendOnto } from "../blend.js";
import { canvasRegion, renderLayers } from "../composite.js";
import { recordedFill } from "../content-layers.js";
import type { EmbeddedDocument, EmbeddedLayer, PixelLayer } from "../document.js";
import { styleContext } from "../effects/index.js";
import { drawnFromRecord, effectiveMask } from "../masks.js";
import { copyOnto } from "../pixel-loops.js";
import { rasterisedRecord } from "../psd-records.js";
import type { Raster } from "../raster.js";
import { cropRaster, emptyRaster, solidRaster, unionBounds } from "../raster.js";
import { selectionMask } from "../selection.js";
import { flattenLayers, layerBounds, requireLayer } from "../tree.js";
import type { RowWork } from "../work.js";
import { ROW_BAND } from "../work.js";
import { reserveBuffer } from "./buffers.js";
import type { EditContext, EditHandlers } from "./context.js";
import { checkUnlocked } from "./locks.js";
import { subtree, takeOut } from "./stack.js";

/** The call's checkpoints as the compositor's row reports. */
export const rowsOf = (context: EditContext): RowWork => ({ rows: () => context.checkpoint(context.call) });

/** A pixel layer's own rectangle in document pixels (empty for a layer without a buffer). */
export function ownRect(layer: PixelLayer): HostBounds {
  return layer.width > 0 && layer.height > 0 ? { left: layer.left, top: layer.top, right: layer.left + layer.width, bottom: layer.top + layer.height } : { left: 0, top: 0, right: 0, bottom: 0 };
}

/** The box of a raster's non-transparent pixels (relative to it), or undefined when it has none. */
export function alphaBox(raster: Raster, check: () => void): HostBounds | undefined {
  let left = raster.width;
  let top = raster.height;
  let right = 0;
  let bottom = 0;
  const { data, width, height } = raster;
  for (let y = 0; y < height; y++) {
    if (y % ROW_BAND === 0) check();
    const row = y * width * 4;
    for (let x = 0; x < width; x++) {
      if (data[row + x * 4 + 3] === 0) continue;
      if (x < left) left = x;
      if (x >= right) right = x + 1;
      if (y < top) top = y;
      bottom = y + 1;
    }
  }
  return right > left ? { left, top, right, bottom } : undefined;
}

/** A raster covering `region` as a layer's buffer: cropped to its pixels (none when it has none). */
function trimmed(raster: Raster, region: HostBounds, check: () => void): Pick<PixelLayer, "left" | "top" | "width" | "height" | "data"> {
  const box = alphaBox(raster, check);
  if (box === undefined) return { left: region.left, top: region.top, width: 0, height: 0, data: new Uint8ClampedArray(0) };
  const whole = box.left === 0 && box.top === 0 && box.right === raster.width && box.bottom === raster.height;
  const out = whole ? raster : cropRaster(raster, { x: box.left, y: box.top, width: box.right - box.left, height: box.bottom - box.top });
  return { left: region.left + box.left, top: region.top + box.top, width: out.width, height: out.height, data: out.data };
}

/** A pixel layer of the document by id. @throws BridgeError `BAD_REQUEST` for a group or a layer of another kind. */
function pixelLayer(doc: EmbeddedDocument, layerId: number, what: string): { layer: PixelLayer; siblings: EmbeddedLayer[] } {
  const { layer, siblings } = requireLayer(doc, layerId);
  if (layer.kind !== "pixel" && layer.kind !== "background") {
    throw new BridgeError("BAD_REQUEST", `Cannot ${what} a ${layer.kind} layer: only pixel layers (rasterize it first)`, { details: { layerId, kind: layer.kind } });
  }
  return { layer, siblings };
}

/** Puts `next` where `layer` was (a layer whose kind changes is a new object under the same id). */
function replace(siblings: EmbeddedLayer[], layer: EmbeddedLayer, next: EmbeddedLayer): void {
  siblings[siblings.indexOf(layer)] = next;
}

export const pixelEdits: EditHandlers = {
  /**
   * The layers (hidden ones drop out, as in Photoshop) composited among themselves exactly as they render, with
   * their masks, effects, clipping and modes, over the canvas and everything they hold beyond it, into one normal
   * pixel layer at full opacity where the top-most was.
   */
  "layer:merge"(context, edit) {
    const { doc } = context;
    if (edit.layerIds.length < 2) throw new BridgeError("BAD_REQUEST", "Merging takes at least two layers", { details: { ids: edit.layerIds } });
    const order = new Map(flattenLayers(doc.layers).map((entry) => [entry.layer.id, entry.index]));
    const layers = edit.layerIds.map((id) => requireLayer(doc, id).layer).sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    for (const layer of layers) {
      checkUnlocked(doc, layer.id, "merge it");
      const inside = layers.find((other) => other !== layer && subtree(layer).includes(other));
      if (inside !== undefined) {
        throw new BridgeError("BAD_REQUEST", `Group ${layer.id} and its own layer ${inside.id} cannot be merged together`, { details: { group: layer.id, layerId: inside.id } });
      }
    }
    const region = layers.reduce((box, layer) => unionBounds(box, layerBounds(layer)), canvasRegion(doc));
    const width = region.right - region.left;
    const height = region.bottom - region.top;
    const held = reserveBuffer(context, "A merged layer", width, height, 4);
    let pixels: Pick<PixelLayer, "left" | "top" | "width" | "height" | "data">;
    try {
      const check = (): void => context.checkpoint(context.call);
      pixels = trimmed(renderLayers(layers, region, rowsOf(context), styleContext(doc)), region, check);
    } finally {
      held.release();
    }
    const top = requireLayer(doc, layers[0]!.id);
    const merged: PixelLayer = { id: doc.nextLayerId++, kind: "pixel", name: edit.name, visible: true, opacity: 255, blendMode: "normal", ...pixels };
    top.siblings.splice(top.siblings.indexOf(top.layer), 0, merged);
    for (const layer of layers) takeOut(doc, layer.id);
    doc.activeLayerIds = [merged.id];
    context.changed(doc, { layers: true, pixels: true, activeLayers: true });
    return { layerId: merged.id };
  },

  /**
   * A text, smart-object, shape or fill layer becomes a pixel layer showing what it showed: the pixels the file
   * cached (a shape's path is already drawn into them, so its vector mask goes), or a fill drawn from its record
   * over the canvas, cut by its vector mask. Its user mask, effects, opacity, fill opacity and mode stay.
   */
  "layer:rasterize"(context, edit) {
    const { doc } = context;
    const { layer, siblings } = requireLayer(doc, edit.layerId);
    if (layer.kind === "group" || layer.kind === "pixel" || layer.kind === "background" || layer.kind === "adjustment") {
      const why = layer.kind === "adjustment" ? "has no pixels of its own" : layer.kind === "group" ? "is a group: merge its layers instead" : "is already a pixel layer";
      throw new BridgeError("BAD_REQUEST", `Layer ${layer.id} ${why}`, { details: { layerId: layer.id, kind: layer.kind } });
    }
    checkUnlocked(doc, layer.id, "rasterize it");
    const shape = layer.kind === "shape" || layer.kind === "fill";
    let pixels: Pick<PixelLayer, "left" | "top" | "width" | "height" | "data"> = layer;
    if (drawnFromRecord(layer)) {
      const region = canvasRegion(doc);
      const held = reserveBuffer(context, "A rasterised layer", doc.width, doc.height, 4);
      try {
        const fill = recordedFill(layer, region, doc, rowsOf(context)) ?? emptyRaster(doc.width, doc.height);
        const vector = effectiveMask({ vectorMask: layer.vectorMask, vectorShape: layer.vectorShape }, region);
        let drawn = fill;
        if (vector !== undefined) {
          drawn = emptyRaster(fill.width, fill.height);
          blendOnto(drawn, fill, { dx: 0, dy: 0, opacity: 1, blendMode: "normal", placed: { mask: vector, dx: vector.x - region.left, dy: vector.y - region.top }, work: rowsOf(context) });
        }
        pixels = trimmed(drawn, region, () => context.checkpoint(context.call));
      } finally {
        held.release();
      }
    }
    const { left, top, width, height, data } = pixels;
    const kept = rasterisedRecord(layer.record);
    const record = shape && kept !== undefined ? withoutVectorMask(kept) : kept;
    const next: PixelLayer = { ...layer, kind: "pixel", left, top, width, height, data, record };
    if (shape) {
      delete next.vectorMask;
      delete next.vectorShape;
    }
    replace(siblings, layer, next);
    context.changed(doc, { layers: true, pixels: true });
    return undefined;
  },

  /**
   * Fills the selection (the whole canvas when nothing is selected) with a colour at an opacity and blend mode,
   * soft selection edges filling partly. The layer's buffer grows to hold what the fill covers.
   */
  "layer:fill"(context, edit) {
    const { doc } = context;
    const { layer } = pixelLayer(doc, edit.layerId, "fill");
    checkUnlocked(doc, layer.id, "fill it");
    const selection = selectionMask(doc);
    const area = selection === null ? canvasRegion(doc) : { left: selection.x, top: selection.y, right: selection.x + selection.width, bottom: selection.y + selection.height };
    const target = unionBounds(ownRect(layer), area);
    const width = target.right - target.left;
    const height = target.bottom - target.top;
    const held = reserveBuffer(context, "A filled layer", width, height, 4);
    try {
      const out = emptyRaster(width, height);
      if (layer.width > 0 && layer.height > 0) copyOnto(out, layer, layer.left - target.left, layer.top - target.top, rowsOf(context));
      const color = solidRaster(area.right - area.left, area.bottom - area.top, edit.color);
      const placed = selection === null ? undefined : { mask: { ...selection, defaultColor: 0 as const }, dx: selection.x - target.left, dy: selection.y - target.top };
      blendOnto(out, color, { dx: area.left - target.left, dy: area.top - target.top, opacity: edit.opacity / 100, blendMode: edit.blendMode, placed, work: rowsOf(context) });
      layer.left = target.left;
      layer.top = target.top;
      layer.width = width;
      layer.height = height;
      layer.data = out.data;
    } finally {
      held.release();
    }
    context.changed(doc, { pixels: true });
    return undefined;
  },

  /**
   * Makes the selected pixels transparent, soft edges partly (the whole layer when nothing is selected). A cleared
   * background layer has transparency now: it becomes a plain pixel layer.
   */
  "layer:clear"(context, edit) {
    const { doc } = context;
    const { layer, siblings } = pixelLayer(doc, edit.layerId, "clear");
    checkUnlocked(doc, layer.id, "clear it");
    const selection = selectionMask(doc);
    let data = new Uint8ClampedArray(0);
    let { width, height } = layer;
    if (selection === null) {
      width = 0;
      height = 0;
    } else {
      const held = reserveBuffer(context, "A cleared layer", width, height, 4);
      try {
        data = layer.data.slice();
        const x0 = Math.max(layer.left, selection.x);
        const x1 = Math.min(layer.left + width, selection.x + selection.width);
        const y0 = Math.max(layer.top, selection.y);
        const y1 = Math.min(layer.top + height, selection.y + selection.height);
        for (let y = y0; y < y1; y++) {
          if ((y - y0) % ROW_BAND === 0) context.checkpoint(context.call);
          for (let x = x0; x < x1; x++) {
            const cover = selection.data[(y - selection.y) * selection.width + (x - selection.x)] as number;
            const i = ((y - layer.top) * width + (x - layer.left)) * 4 + 3;
            data[i] = Math.round(((data[i] as number) * (255 - cover)) / 255);
          }
        }
      } finally {
        held.release();
      }
    }
    const next: PixelLayer = { ...layer, kind: layer.kind === "background" ? "pixel" : layer.kind, width, height, data };
    replace(siblings, layer, next);
    context.changed(doc, { pixels: true, layers: layer.kind === "background" });
    return undefined;
  },
};

/** A record without its vector mask path (its shape is in the pixels now). */
function withoutVectorMask(record: NonNullable<PixelLayer["record"]>): NonNullable<PixelLayer["record"]> {
  const { vectorMask: _path, ...rest } = record;
  return rest;
}
