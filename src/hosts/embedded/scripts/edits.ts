/**
 * Edits of the layer tree used by the script API. Pixel buffers and masks are replaced, never mutated in place
 * (cached bounds are keyed by buffer), so a duplicate may share them with its original.
 */
import { BridgeError } from "../../../protocol/errors.js";
import type { HostRect } from "../../../protocol/index.js";
import type { Rgba } from "../../host.js";
import { renderDocument } from "../composite.js";
import type { EmbeddedDocument, EmbeddedLayer, GroupLayer, PixelLayer } from "../document.js";
import { blendOnto } from "../blend.js";
import { emptyRaster, solidRaster } from "../raster.js";
import type { EditorMemory } from "../memory.js";
import { ROW_BAND, type RowWork } from "../work.js";
import type { SelectionMask } from "../selection.js";
import type { LayerEntry } from "../tree.js";
import { flattenLayers, requireLayer } from "../tree.js";
import { rasterisedRecord, translatedRecord } from "../psd-records.js";

/**
 * The pixel layer an edit needs.
 * @throws BridgeError `BAD_REQUEST` for a group, naming the operation.
 */
export function pixelLayer(entry: LayerEntry, op: string): PixelLayer {
  if (entry.layer.kind === "group") {
    throw new BridgeError("BAD_REQUEST", `${op} needs a pixel layer; ${entry.layer.name} is a group`, { details: { op, layerId: entry.layer.id } });
  }
  return entry.layer;
}

/** Ids of a layer and everything inside it. */
export function subtreeIds(layer: EmbeddedLayer): number[] {
  return layer.kind === "group" ? [layer.id, ...layer.children.flatMap(subtreeIds)] : [layer.id];
}

/**
 * Fills the selection (`coverage`: one byte per pixel over its rectangle, soft edges allowed; the whole canvas
 * when `null`) of a pixel layer with a colour composited over it, or erases it when `erase` (alpha scaled by
 * 1 − coverage). The buffer grows to cover the area. `work` hears of every band of rows done (a checkpoint: it may
 * throw to stop the fill, which then leaves the layer as it was).
 * @throws BridgeError `PAYLOAD_TOO_LARGE` when the grown buffer would exceed `maxPixels` (a layer moved far off
 * the canvas, then filled over it, would have to span both).
 */
export function fillLayer(
  doc: EmbeddedDocument,
  layer: PixelLayer,
  color: Rgba,
  coverage: SelectionMask | null,
  options: { erase?: boolean | undefined; work?: RowWork | undefined; maxPixels: number; memory?: EditorMemory | undefined },
): void {
  const { work, maxPixels } = options;
  const erase = options.erase === true;
  const area: HostRect | null = coverage ? { x: coverage.x, y: coverage.y, width: coverage.width, height: coverage.height } : null;
  const soft = coverage?.data.some((v) => v !== 255) === true;
  if (layer.kind === "background" && color[3] < 255 && erase) {
    throw new BridgeError("BAD_REQUEST", "The background layer cannot hold transparency; convert or use another layer", {
      details: { layerId: layer.id },
    });
  }
  const rect = area ?? { x: 0, y: 0, width: doc.width, height: doc.height };
  if (rect.width <= 0 || rect.height <= 0) return;
  const hasPixels = layer.width > 0 && layer.height > 0;
  const left = hasPixels ? Math.min(layer.left, rect.x) : rect.x;
  const top = hasPixels ? Math.min(layer.top, rect.y) : rect.y;
  const right = hasPixels ? Math.max(layer.left + layer.width, rect.x + rect.width) : rect.x + rect.width;
  const bottom = hasPixels ? Math.max(layer.top + layer.height, rect.y + rect.height) : rect.y + rect.height;
  if ((right - left) * (bottom - top) > maxPixels) {
    const [width, height] = [right - left, bottom - top];
    throw new BridgeError("PAYLOAD_TOO_LARGE", `Filling ${layer.name} would grow it to ${width}×${height}, over ${maxPixels} pixels`, {
      details: { layerId: layer.id, width, height, maxPixels, limit: "maxDocumentPixels" },
    });
  }
  // The grown layer is a new buffer (the old one is let go after): both exist for a moment.
  options.memory?.check(`Filling layer "${layer.name}" at ${right - left}×${bottom - top}`, (right - left) * (bottom - top) * 4, { layerId: layer.id });
  const out = emptyRaster(right - left, bottom - top);
  if (hasPixels) {
    for (let y = 0; y < layer.height; y++) {
      const from = y * layer.width * 4;
      out.data.set(layer.data.subarray(from, from + layer.width * 4), ((layer.top - top + y) * out.width + (layer.left - left)) * 4);
    }
  }
  if (soft && coverage) {
    for (let y = 0; y < rect.height; y++) {
      if (work !== undefined && y % ROW_BAND === 0) work.rows(Math.min(ROW_BAND, rect.height - y));
      for (let x = 0; x < rect.width; x++) {
        const c = coverage.data[y * rect.width + x] as number;
        if (c === 0) continue;
        const i = ((rect.y - top + y) * out.width + (rect.x - left + x)) * 4;
        const d = out.data;
        if (erase) {
          d[i + 3] = ((d[i + 3] as number) * (255 - c)) / 255;
          continue;
        }
        // Source-over of the colour at coverage × its alpha (the `normal` formula of composite.ts).
        const as = (color[3] / 255) * (c / 255);
        const keep = (1 - as) * ((d[i + 3] as number) / 255);
        const ao = as + keep;
        if (ao <= 0) continue;
        for (let k = 0; k < 3; k++) d[i + k] = ((color[k] as number) * as + (d[i + k] as number) * keep) / ao;
        d[i + 3] = ao * 255;
      }
    }
  } else if (erase || color[3] === 255) {
    const row = solidRaster(rect.width, 1, color).data;
    for (let y = 0; y < rect.height; y++) out.data.set(row, ((rect.y - top + y) * out.width + (rect.x - left)) * 4);
  } else {
    blendOnto(out, solidRaster(rect.width, rect.height, color), { dx: rect.x - left, dy: rect.y - top, opacity: 1, blendMode: "normal", work });
  }
  layer.left = left;
  layer.top = top;
  layer.width = out.width;
  layer.height = out.height;
  layer.data = out.data;
  rasterise(layer);
}

/**
 * A layer whose pixels were painted on is plain pixels from now on, as when Photoshop rasterises a text, smart
 * object, shape or fill layer: its record keeps everything but that content (a save then reports the content as
 * dropped unless the caller agrees).
 */
function rasterise(layer: PixelLayer): void {
  if (layer.kind === "pixel" || layer.kind === "background") return;
  (layer as { kind: PixelLayer["kind"] }).kind = "pixel";
  layer.record = rasterisedRecord(layer.record);
}

/**
 * Moves a layer (a group: everything in it and its own masks) with its masks and what its record places in
 * document pixels (text transform, smart-object corners, vector mask path).
 */
export function translateLayer(layer: EmbeddedLayer, dx: number, dy: number): void {
  if (layer.mask) layer.mask = { ...layer.mask, x: layer.mask.x + dx, y: layer.mask.y + dy };
  if (layer.vectorMask) layer.vectorMask = { ...layer.vectorMask, x: layer.vectorMask.x + dx, y: layer.vectorMask.y + dy };
  if (layer.vectorShape) layer.vectorShape = { ...layer.vectorShape, x: layer.vectorShape.x + dx, y: layer.vectorShape.y + dy };
  layer.record = translatedRecord(layer.record, dx, dy);
  if (layer.kind === "group") {
    for (const child of layer.children) translateLayer(child, dx, dy);
    return;
  }
  layer.left += dx;
  layer.top += dy;
}

/** A copy of a layer (recursively) with fresh ids from the document; buffers are shared (never mutated). */
function copyLayer(doc: EmbeddedDocument, layer: EmbeddedLayer, name: string): EmbeddedLayer {
  const id = doc.nextLayerId++;
  if (layer.kind === "group") {
    const group: GroupLayer = { ...layer, id, name, children: [] };
    group.children = layer.children.map((child) => copyLayer(doc, child, child.name));
    return group;
  }
  // A copy keeps what the original is (a text layer's copy is a text layer), as Photoshop's Duplicate Layer does;
  // a document has one background, so its copy is a plain layer.
  return { ...layer, id, name, kind: layer.kind === "background" ? "pixel" : layer.kind };
}

/** Duplicates a layer just above itself; returns the copy. */
export function duplicateLayer(doc: EmbeddedDocument, entry: LayerEntry, name?: string): EmbeddedLayer {
  const copy = copyLayer(doc, entry.layer, name ?? `${entry.layer.name} copy`);
  entry.siblings.splice(entry.siblings.indexOf(entry.layer), 0, copy);
  return copy;
}

/** Removes a layer (and a group's children) from the tree and from the active layers. */
export function removeLayer(doc: EmbeddedDocument, entry: LayerEntry): void {
  entry.siblings.splice(entry.siblings.indexOf(entry.layer), 1);
  const gone = new Set(subtreeIds(entry.layer));
  doc.activeLayerIds = doc.activeLayerIds.filter((id) => !gone.has(id));
}

/** Where a moved layer goes: above or below a layer (in that layer's group), at the top of a group, or of the document. */
export type LayerPlace =
  | { readonly above: number }
  | { readonly below: number }
  | { readonly parent: number }
  | { readonly to: "top" | "bottom" };

/**
 * Moves a layer (a group with everything inside it) to `place`. The document's bottom stays a background layer's
 * when it has one: "bottom" then means just above it, as in Photoshop.
 * @throws BridgeError `LAYER_NOT_FOUND` for an unknown reference, `BAD_REQUEST` for a place inside the moved layer
 * itself or a `parent` that is not a group.
 */
export function moveLayer(doc: EmbeddedDocument, entry: LayerEntry, place: LayerPlace): void {
  const moved = entry.layer;
  const inside = new Set(subtreeIds(moved));
  const reference = "to" in place ? undefined : "above" in place ? place.above : "below" in place ? place.below : place.parent;
  const target = reference === undefined ? undefined : requireLayer(doc, reference);
  if (reference !== undefined && inside.has(reference)) {
    throw new BridgeError("BAD_REQUEST", `Cannot move ${moved.name} into or next to itself or its own content`, {
      details: { layerId: moved.id, place },
    });
  }
  if ("parent" in place && target?.layer.kind !== "group") {
    throw new BridgeError("BAD_REQUEST", `${target?.layer.name ?? place.parent} is not a group`, { details: { layerId: moved.id, parent: place.parent } });
  }
  entry.siblings.splice(entry.siblings.indexOf(moved), 1);
  if ("to" in place) {
    const bottom = doc.layers.at(-1);
    const end = bottom !== undefined && bottom.kind === "background" ? doc.layers.length - 1 : doc.layers.length;
    doc.layers.splice(place.to === "top" ? 0 : end, 0, moved);
  } else if ("parent" in place) {
    (target!.layer as GroupLayer).children.splice(0, 0, moved);
  } else {
    const siblings = target!.siblings;
    const at = siblings.indexOf(target!.layer);
    siblings.splice("above" in place ? at : at + 1, 0, moved);
  }
}

/**
 * Adds an empty pixel layer or group above the first active layer (in its group), or at the top when nothing
 * is active, and makes it the only active layer.
 */
export function addLayer(doc: EmbeddedDocument, kind: "pixel" | "group", name?: string): EmbeddedLayer {
  const entries = flattenLayers(doc.layers);
  const active = new Set(doc.activeLayerIds);
  const anchor = entries.find((entry) => active.has(entry.layer.id));
  const count = entries.filter((entry) => entry.layer.kind === kind).length + 1;
  const common = { id: doc.nextLayerId++, name: name ?? (kind === "group" ? `Group ${count}` : `Layer ${count}`), visible: true, opacity: 255 };
  const layer: EmbeddedLayer =
    kind === "group"
      ? { ...common, kind: "group", blendMode: "pass through", children: [] }
      : { ...common, kind: "pixel", blendMode: "normal", left: 0, top: 0, width: 0, height: 0, data: new Uint8ClampedArray(0) };
  const siblings = anchor?.siblings ?? doc.layers;
  siblings.splice(anchor ? siblings.indexOf(anchor.layer) : 0, 0, layer);
  doc.activeLayerIds = [layer.id];
  return layer;
}

/**
 * Replaces every layer by one `Background` holding the composite over white (as an editor's Flatten Image).
 * `check` runs every few rows of the compositing; a throw leaves the document as it was.
 */
export function flattenDocument(doc: EmbeddedDocument, check?: () => void): PixelLayer {
  const work = check ? { rows: check } : undefined;
  const composite = renderDocument(doc, work);
  const background = emptyRaster(doc.width, doc.height);
  background.data.fill(255);
  blendOnto(background, composite, { dx: 0, dy: 0, opacity: 1, blendMode: "normal", work });
  const layer: PixelLayer = {
    id: doc.nextLayerId++,
    kind: "background",
    name: "Background",
    visible: true,
    opacity: 255,
    blendMode: "normal",
    left: 0,
    top: 0,
    width: doc.width,
    height: doc.height,
    data: background.data,
  };
  doc.layers = [layer];
  doc.activeLayerIds = [layer.id];
  return layer;
}
