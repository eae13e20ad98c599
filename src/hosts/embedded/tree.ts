/**
 * The layer tree and its index spaces.
 *
 * Index space: `index` is the 0-based position in the flattened tree listed top to bottom as a Layers panel shows
 * it, a group counted before its children. Example: `[Label, Product, Subject, Shadow, Background]` → indices
 * 0–4 with `Product` (a group) at 1 and its children at 2 and 3.
 *
 * Selection index space: `{by: "selectionIndex", index: n}` is the n-th active layer in index order;
 * `{by: "active"}` is the first active layer in index order.
 */
import { BridgeError } from "../../protocol/index.js";
import type { HostBounds, HostDocument, HostLayer } from "../../protocol/index.js";
import type { LayerRef } from "../host.js";
import type { EmbeddedDocument, EmbeddedLayer, GroupLayer, PixelLayer } from "./document.js";
import { opacityPercent } from "./document.js";
import { EMPTY_BOUNDS, boundsToRect, unionBounds } from "./raster.js";

/** A layer with its place in the tree. */
export interface LayerEntry {
  readonly layer: EmbeddedLayer;
  readonly index: number;
  /** The array holding the layer (the document's `layers` or a group's `children`). */
  readonly siblings: EmbeddedLayer[];
}

/** Every layer in index order (see the file comment). */
export function flattenLayers(layers: EmbeddedLayer[]): LayerEntry[] {
  const out: LayerEntry[] = [];
  const walk = (siblings: EmbeddedLayer[]): void => {
    for (const layer of siblings) {
      out.push({ layer, index: out.length, siblings });
      if (layer.kind === "group") walk(layer.children);
    }
  };
  walk(layers);
  return out;
}

/** Active layers of a document in index order. */
export function activeEntries(doc: EmbeddedDocument): LayerEntry[] {
  const active = new Set(doc.activeLayerIds);
  return flattenLayers(doc.layers).filter((entry) => active.has(entry.layer.id));
}

/**
 * Resolves a layer reference; `null` only for `{by: "active"}` with nothing active.
 * @throws BridgeError `LAYER_NOT_FOUND` for any other reference that names no layer.
 */
export function resolveLayerRef(doc: EmbeddedDocument, ref: LayerRef): LayerEntry | null {
  const entries = flattenLayers(doc.layers);
  let found: LayerEntry | undefined;
  switch (ref.by) {
    case "id":
      found = entries.find((entry) => entry.layer.id === ref.id);
      if (!found) throw layerNotFound(`No layer with id ${ref.id} in document ${doc.id}`, { layerId: ref.id, documentId: doc.id });
      return found;
    case "index":
      found = entries[ref.index];
      if (!found) throw layerNotFound(`No layer at index ${ref.index} in document ${doc.id}`, { index: ref.index, documentId: doc.id });
      return found;
    case "selectionIndex":
      found = activeEntries(doc)[ref.index];
      if (!found) {
        throw layerNotFound(`No active layer at selection index ${ref.index} in document ${doc.id}`, {
          selectionIndex: ref.index,
          documentId: doc.id,
        });
      }
      return found;
    case "active":
      return activeEntries(doc)[0] ?? null;
  }
}

/** Like {@link resolveLayerRef} but `LAYER_NOT_FOUND` also when nothing is active. */
export function requireLayerRef(doc: EmbeddedDocument, ref: LayerRef): LayerEntry {
  const entry = resolveLayerRef(doc, ref);
  if (!entry) throw layerNotFound(`Document ${doc.id} has no active layer`, { documentId: doc.id });
  return entry;
}

function layerNotFound(message: string, details: Record<string, unknown>): BridgeError {
  return new BridgeError("LAYER_NOT_FOUND", message, { details });
}

/** Box of non-transparent pixels relative to the buffer, per buffer (buffers are never mutated in place). */
const alphaBoxCache = new WeakMap<Uint8ClampedArray, HostBounds>();

function alphaBox(layer: PixelLayer): HostBounds {
  const cached = alphaBoxCache.get(layer.data);
  if (cached) return cached;
  const { data, width, height } = layer;
  let left = width;
  let top = height;
  let right = 0;
  let bottom = 0;
  for (let y = 0; y < height; y++) {
    const row = y * width * 4;
    for (let x = 0; x < width; x++) {
      if (data[row + x * 4 + 3] === 0) continue;
      if (x < left) left = x;
      if (x >= right) right = x + 1;
      if (y < top) top = y;
      bottom = y + 1;
    }
  }
  const box = right > left ? { left, top, right, bottom } : EMPTY_BOUNDS;
  alphaBoxCache.set(layer.data, box);
  return box;
}

/** Document-space box of the layer's non-transparent pixels (groups: union of children); empty → all zero. */
export function layerBounds(layer: EmbeddedLayer): HostBounds {
  if (layer.kind === "group") return layer.children.reduce((acc, child) => unionBounds(acc, layerBounds(child)), EMPTY_BOUNDS);
  const box = alphaBox(layer);
  if (box === EMPTY_BOUNDS) return EMPTY_BOUNDS;
  return { left: box.left + layer.left, top: box.top + layer.top, right: box.right + layer.left, bottom: box.bottom + layer.top };
}

/** The wire shape of a layer; `children` (recursively) only for groups and only when asked. */
export function toHostLayer(entry: LayerEntry, entries: readonly LayerEntry[], withChildren: boolean): HostLayer {
  const { layer } = entry;
  const bounds = layerBounds(layer);
  const out: HostLayer = {
    id: layer.id,
    index: entry.index,
    name: layer.name,
    kind: layer.kind,
    visible: layer.visible,
    opacity: opacityPercent(layer.opacity),
    blendMode: layer.blendMode,
    bounds,
    rect: boundsToRect(bounds),
    clipped: false,
  };
  if (withChildren && layer.kind === "group") out.children = childEntries(layer, entries).map((child) => toHostLayer(child, entries, true));
  return out;
}

function childEntries(group: GroupLayer, entries: readonly LayerEntry[]): LayerEntry[] {
  return entries.filter((entry) => entry.siblings === group.children);
}

/** The layer tree of a document on the wire, top-most first, groups with `children`. */
export function toHostLayerTree(doc: EmbeddedDocument): HostLayer[] {
  const entries = flattenLayers(doc.layers);
  return entries.filter((entry) => entry.siblings === doc.layers).map((entry) => toHostLayer(entry, entries, true));
}

/** The wire shape of a document; `activeLayerIds` in index order. */
export function toHostDocument(doc: EmbeddedDocument): HostDocument {
  const out: HostDocument = {
    id: doc.id,
    name: doc.name,
    width: doc.width,
    height: doc.height,
    resolution: doc.resolution,
    colorMode: "RGB",
    isDirty: doc.isDirty,
    activeLayerIds: activeEntries(doc).map((entry) => entry.layer.id),
  };
  if (doc.filePath !== undefined) out.filePath = doc.filePath;
  return out;
}
