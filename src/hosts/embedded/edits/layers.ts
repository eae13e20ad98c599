/**
 * Layer edits of the embedded editor: the stack (create, update, delete, duplicate, move, group, ungroup) here,
 * pixels (merge, rasterize, fill, clear) in `layer-pixels.ts`. Every handler checks everything before it changes
 * anything, so a refused edit leaves the document as it was. New, copied and merged layers take fresh ids
 * (`doc.nextLayerId`, never reused) and become the active layer.
 */
import { BridgeError } from "../../../protocol/errors.js";
import { type EmbeddedLayer, type GroupLayer, type PixelLayer, percentByte } from "../document.js";
import { emptyRaster, solidRaster } from "../raster.js";
import { flattenLayers, requireLayer } from "../tree.js";
import { reserveBuffer } from "./buffers.js";
import { newContentLayer, updateContent } from "./content-layers.js";
import type { EditHandlers } from "./context.js";
import { pixelEdits } from "./layer-pixels.js";
import { checkOpenGroup, checkUnlocked, lockHolder } from "./locks.js";
import { createTextLayer, updateTextLayer } from "./text.js";
import { checkAboveBackground, copyLayer, keepActiveValid, neighbourOf, parentOfSiblings, slotOf, subtree, takeOut } from "./stack.js";

/** @throws BridgeError `BAD_REQUEST`: the background layer stays the bottom of the document, outside any group. */
function checkNotBackground(layer: EmbeddedLayer, what: string): void {
  if (layer.kind !== "background") return;
  throw new BridgeError("BAD_REQUEST", `The background layer cannot be ${what}: duplicate it first`, { details: { layerId: layer.id, kind: layer.kind } });
}

const stackEdits: EditHandlers = {
  async "layer:create"(context, edit) {
    if (edit.kind === "text") return createTextLayer(context, edit);
    const { doc } = context;
    const slot = slotOf(doc, edit.place);
    checkOpenGroup(doc, slot.parent);
    checkAboveBackground(slot);
    let layer: EmbeddedLayer;
    let pixels = false;
    if (edit.kind === "group") {
      layer = { id: doc.nextLayerId++, kind: "group", name: edit.name, visible: true, opacity: 255, blendMode: "pass through", children: [] };
    } else if (edit.kind === "adjustment" || edit.kind === "fill") {
      layer = await newContentLayer(context, doc, { ...edit, kind: edit.kind });
      pixels = true;
    } else {
      // A transparent layer holds no buffer (its bounds are empty either way); a filled one covers the canvas.
      const color = edit.fillColor;
      let raster = emptyRaster(0, 0);
      if (color !== undefined && color[3] > 0) {
        const held = reserveBuffer(context, "A new layer", doc.width, doc.height, 4);
        try {
          raster = solidRaster(doc.width, doc.height, color);
        } finally {
          held.release();
        }
        pixels = true;
      }
      const made: PixelLayer = { id: doc.nextLayerId++, kind: "pixel", name: edit.name, visible: true, opacity: 255, blendMode: "normal", left: 0, top: 0, ...raster };
      layer = made;
    }
    slot.siblings.splice(slot.index, 0, layer);
    doc.activeLayerIds = [layer.id];
    context.changed(doc, { layers: true, pixels, activeLayers: true });
    return { layerId: layer.id };
  },

  async "layer:update"(context, edit) {
    const { doc } = context;
    const { layer } = requireLayer(doc, edit.layerId);
    const blends = edit.opacity !== undefined || edit.blendMode !== undefined || edit.fillOpacity !== undefined;
    const holder = lockHolder(doc, layer.id);
    // An update that unlocks the layer may change the rest in the same step; a locked group around it still holds.
    if (blends && holder !== undefined && !(edit.locked === false && holder === layer.id)) checkUnlocked(doc, layer.id, "change how it blends");
    if (edit.blendMode === "pass through" && layer.kind !== "group") {
      throw new BridgeError("BAD_REQUEST", "Only a group can pass through", { details: { layerId: layer.id, blendMode: edit.blendMode } });
    }
    const content = await updateContent(context, doc, layer, edit);
    if (edit.name !== undefined) layer.name = edit.name;
    if (edit.visible !== undefined) layer.visible = edit.visible;
    if (edit.opacity !== undefined) layer.opacity = percentByte(edit.opacity);
    if (edit.blendMode !== undefined) layer.blendMode = edit.blendMode;
    if (edit.locked !== undefined) layer.locked = edit.locked ? true : undefined;
    if (edit.fillOpacity !== undefined) {
      const byte = percentByte(edit.fillOpacity);
      layer.fillOpacity = byte === 255 ? undefined : byte;
    }
    context.changed(doc, { layers: true, pixels: blends || content || edit.visible !== undefined });
    return undefined;
  },

  "layer:delete"(context, edit) {
    const { doc } = context;
    const entry = requireLayer(doc, edit.layerId);
    if (entry.siblings === doc.layers && doc.layers.length === 1) {
      throw new BridgeError("BAD_REQUEST", `Layer ${entry.layer.id} is the document's last layer: a document keeps at least one`, {
        details: { layerId: entry.layer.id },
      });
    }
    const slot = takeOut(doc, entry.layer.id);
    keepActiveValid(doc, neighbourOf(slot));
    context.changed(doc, { layers: true, pixels: true, activeLayers: true });
    return undefined;
  },

  "layer:duplicate"(context, edit) {
    const { doc } = context;
    const { layer } = requireLayer(doc, edit.layerId);
    const slot = slotOf(doc, edit.place);
    checkOpenGroup(doc, slot.parent);
    checkAboveBackground(slot);
    const copy = copyLayer(doc, layer);
    copy.name = edit.name;
    slot.siblings.splice(slot.index, 0, copy);
    doc.activeLayerIds = [copy.id];
    context.changed(doc, { layers: true, pixels: true, activeLayers: true });
    return { layerId: copy.id };
  },

  "layer:move"(context, edit) {
    const { doc } = context;
    const { layer } = requireLayer(doc, edit.layerId);
    checkUnlocked(doc, layer.id, "move it");
    checkNotBackground(layer, "moved");
    const target = "above" in edit.place ? edit.place.above : "below" in edit.place ? edit.place.below : "parent" in edit.place ? edit.place.parent : undefined;
    if (target !== undefined) {
      requireLayer(doc, target);
      if (subtree(layer).some((inside) => inside.id === target)) {
        throw new BridgeError("BAD_REQUEST", target === layer.id ? "A layer cannot be placed relative to itself" : `Group ${layer.id} cannot go inside itself (layer ${target} is in it)`, {
          details: { layerId: layer.id, target },
        });
      }
    }
    const from = takeOut(doc, layer.id);
    try {
      const slot = slotOf(doc, edit.place);
      checkOpenGroup(doc, slot.parent);
      checkAboveBackground(slot);
      slot.siblings.splice(slot.index, 0, layer);
    } catch (error) {
      from.siblings.splice(from.index, 0, layer);
      throw error;
    }
    context.changed(doc, { layers: true, pixels: true });
    return undefined;
  },

  "layer:group"(context, edit) {
    const { doc } = context;
    const order = new Map(flattenLayers(doc.layers).map((entry) => [entry.layer.id, entry.index]));
    const layers = edit.layerIds.map((id) => requireLayer(doc, id).layer).sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    for (const layer of layers) {
      checkUnlocked(doc, layer.id, "group it");
      checkNotBackground(layer, "grouped");
      const inside = layers.find((other) => other !== layer && subtree(layer).includes(other));
      if (inside !== undefined) {
        throw new BridgeError("BAD_REQUEST", `Group ${layer.id} and its own layer ${inside.id} cannot be grouped together`, { details: { group: layer.id, layerId: inside.id } });
      }
    }
    const top = requireLayer(doc, layers[0]!.id);
    checkOpenGroup(doc, parentOfSiblings(doc, top.siblings));
    const group: GroupLayer = { id: doc.nextLayerId++, kind: "group", name: edit.name, visible: true, opacity: 255, blendMode: "pass through", children: [] };
    top.siblings.splice(top.siblings.indexOf(top.layer), 0, group);
    for (const layer of layers) {
      takeOut(doc, layer.id);
      group.children.push(layer);
    }
    doc.activeLayerIds = [group.id];
    context.changed(doc, { layers: true, pixels: true, activeLayers: true });
    return { layerId: group.id };
  },

  "layer:ungroup"(context, edit) {
    const { doc } = context;
    const { layer, siblings } = requireLayer(doc, edit.layerId);
    if (layer.kind !== "group") {
      throw new BridgeError("BAD_REQUEST", `Layer ${layer.id} is not a group`, { details: { layerId: layer.id, kind: layer.kind } });
    }
    checkUnlocked(doc, layer.id, "ungroup it");
    const at = siblings.indexOf(layer);
    siblings.splice(at, 1, ...layer.children);
    if (layer.children.length > 0) doc.activeLayerIds = layer.children.map((child) => child.id);
    else keepActiveValid(doc, neighbourOf({ siblings, index: at, parent: parentOfSiblings(doc, siblings) }));
    context.changed(doc, { layers: true, pixels: true, activeLayers: true });
    return undefined;
  },
};

/** Layer edits: create, update, delete, duplicate, move, group, ungroup, merge, rasterize, fill, clear. */
export const layerEdits: EditHandlers = { ...stackEdits, ...pixelEdits, "layer:updateText": updateTextLayer };
