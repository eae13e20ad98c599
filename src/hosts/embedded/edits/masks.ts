/**
 * Layer mask edits: add (from the selection, revealing all or hiding all), delete, apply (what the mask hid
 * becomes transparent) and change (enabled, linked, density, feather). The mask is the layer's user mask (the
 * vector mask is left alone); masks are replaced, never written into. A mask the model drops also leaves the
 * layer's kept record, or a save would write the file's old mask back.
 */
import { BridgeError } from "../../../protocol/errors.js";
import { type EmbeddedDocument, type EmbeddedLayer, type LayerMask, type PixelLayer, percentByte } from "../document.js";
import { MAX_MASK_FEATHER_PX, productMask } from "../masks.js";
import type { PsdLayerRecord } from "../psd-records.js";
import { selectionMask } from "../selection.js";
import { requireLayer } from "../tree.js";
import { ROW_BAND } from "../work.js";
import { reserveBuffer } from "./buffers.js";
import type { EditHandlers } from "./context.js";
import { checkUnlocked } from "./locks.js";

/** @throws BridgeError `BAD_REQUEST` `{layerId, mask: false}` when the layer has no (user) mask. */
function maskOf(layer: EmbeddedLayer): LayerMask {
  if (layer.mask !== undefined) return layer.mask;
  throw new BridgeError("BAD_REQUEST", `Layer ${layer.id} has no layer mask`, { details: { layerId: layer.id, mask: false } });
}

/**
 * The layer's record without its user mask's flags: ag-psd keeps the user mask as `mask`, or as `realMask` beside
 * a vector mask (whose rasterisation is then `mask`).
 */
function recordWithoutMask(layer: EmbeddedLayer): PsdLayerRecord | undefined {
  const record = layer.record;
  if (record === undefined) return undefined;
  const { mask, realMask: _real, ...rest } = record;
  return mask?.fromVectorData === true ? { ...rest, mask } : rest;
}

/** Puts `next` where `layer` was (a background given a mask or transparency becomes a pixel layer). */
function replace(doc: EmbeddedDocument, layer: EmbeddedLayer, next: EmbeddedLayer): void {
  const { siblings } = requireLayer(doc, layer.id);
  siblings[siblings.indexOf(layer)] = next;
}

/** The area a reveal-all mask covers: the layer's buffer, or the canvas for a group or an empty layer. */
function maskArea(doc: EmbeddedDocument, layer: EmbeddedLayer): { x: number; y: number; width: number; height: number } {
  if (layer.kind !== "group" && layer.width > 0 && layer.height > 0) return { x: layer.left, y: layer.top, width: layer.width, height: layer.height };
  return { x: 0, y: 0, width: doc.width, height: doc.height };
}

export const maskEdits: EditHandlers = {
  /**
   * `selection`: selected pixels show, the rest hides (soft edges in between); `revealAll`: white over the layer,
   * showing everything (stored as pixels: a file's empty reveal-all mask reads as none); `hideAll`: black
   * everywhere. A background layer given a mask becomes a pixel layer (Photoshop's background takes none).
   */
  "layer:addMask"(context, edit) {
    const { doc } = context;
    const { layer } = requireLayer(doc, edit.layerId);
    checkUnlocked(doc, layer.id, "add a mask to it");
    if (layer.mask !== undefined) {
      throw new BridgeError("BAD_REQUEST", `Layer ${layer.id} has a layer mask already: delete or apply it first`, { details: { layerId: layer.id, mask: true } });
    }
    let mask: LayerMask;
    if (edit.from === "hideAll") {
      mask = { x: 0, y: 0, width: 0, height: 0, data: new Uint8Array(0), defaultColor: 0 };
    } else if (edit.from === "selection") {
      const selection = selectionMask(doc);
      if (selection === null) throw new BridgeError("BAD_REQUEST", "Nothing is selected to make the mask from", { details: { layerId: layer.id, from: edit.from } });
      const held = reserveBuffer(context, "A layer mask", selection.width, selection.height, 1);
      try {
        mask = { x: selection.x, y: selection.y, width: selection.width, height: selection.height, data: selection.data.slice(), defaultColor: 0 };
      } finally {
        held.release();
      }
    } else {
      const area = maskArea(doc, layer);
      const held = reserveBuffer(context, "A layer mask", area.width, area.height, 1);
      try {
        mask = { ...area, data: new Uint8Array(area.width * area.height).fill(255), defaultColor: 255 };
      } finally {
        held.release();
      }
    }
    const next: EmbeddedLayer = layer.kind === "background" ? { ...layer, kind: "pixel", mask } : Object.assign(layer, { mask });
    if (next !== layer) replace(doc, layer, next);
    context.changed(doc, { layers: true, pixels: true });
    return undefined;
  },

  "layer:deleteMask"(context, edit) {
    const { doc } = context;
    const { layer } = requireLayer(doc, edit.layerId);
    maskOf(layer);
    checkUnlocked(doc, layer.id, "delete its mask");
    layer.record = recordWithoutMask(layer);
    delete layer.mask;
    context.changed(doc, { layers: true, pixels: true });
    return undefined;
  },

  /**
   * The layer's alpha multiplied by its mask as it renders (density and feather included; a disabled mask is
   * applied as it would render enabled, as Photoshop does), then the mask goes. Pixel layers only.
   */
  "layer:applyMask"(context, edit) {
    const { doc } = context;
    const { layer } = requireLayer(doc, edit.layerId);
    if (layer.kind !== "pixel" && layer.kind !== "background") {
      throw new BridgeError("BAD_REQUEST", `Cannot apply a mask to a ${layer.kind} layer: only pixel layers (rasterize it first)`, { details: { layerId: layer.id, kind: layer.kind } });
    }
    const mask = maskOf(layer);
    checkUnlocked(doc, layer.id, "apply its mask");
    const { left, top, width, height } = layer;
    let data = layer.data;
    if (width > 0 && height > 0) {
      const held = reserveBuffer(context, "A masked layer", width, height, 5);
      try {
        const { disabled: _off, ...enabled } = mask;
        const values = productMask([enabled], { left, top, right: left + width, bottom: top + height }).data;
        data = layer.data.slice();
        for (let y = 0; y < height; y++) {
          if (y % ROW_BAND === 0) context.checkpoint(context.call);
          for (let x = 0, i = y * width; x < width; x++, i++) data[i * 4 + 3] = Math.round(((data[i * 4 + 3] as number) * (values[i] as number)) / 255);
        }
      } finally {
        held.release();
      }
    }
    const next: PixelLayer = { ...layer, kind: layer.kind === "background" ? "pixel" : layer.kind, data, record: recordWithoutMask(layer) };
    delete next.mask;
    replace(doc, layer, next);
    context.changed(doc, { layers: true, pixels: true });
    return undefined;
  },

  "layer:updateMask"(context, edit) {
    const { doc } = context;
    const { layer } = requireLayer(doc, edit.layerId);
    const mask = maskOf(layer);
    checkUnlocked(doc, layer.id, "change its mask");
    if (edit.feather !== undefined && edit.feather > MAX_MASK_FEATHER_PX) {
      throw new BridgeError("BAD_REQUEST", `A mask's feather is at most ${MAX_MASK_FEATHER_PX} px`, { details: { feather: edit.feather, max: MAX_MASK_FEATHER_PX } });
    }
    const { disabled, unlinked, density, feather, ...rest } = mask;
    const on = edit.enabled ?? disabled !== true;
    const linked = edit.linked ?? unlinked !== true;
    const byte = edit.density === undefined ? (density ?? 255) : percentByte(edit.density);
    const radius = edit.feather ?? feather ?? 0;
    // Defaults are left out, as a file read without them has them: a mask back at its defaults is the plain one.
    layer.mask = {
      ...rest,
      ...(on ? {} : { disabled: true }),
      ...(linked ? {} : { unlinked: true }),
      ...(byte === 255 ? {} : { density: byte }),
      ...(radius > 0 ? { feather: radius } : {}),
    };
    context.changed(doc, { layers: true, pixels: true });
    return undefined;
  },
};
