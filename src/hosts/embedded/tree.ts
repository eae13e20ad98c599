/**
 * The layer tree and its index space.
 *
 * `index` is the 0-based position in the flattened tree listed top to bottom as a Layers panel shows it, a group
 * counted before its children. Example: `[Label, Product, Subject, Shadow, Background]` → indices 0–4 with
 * `Product` (a group) at 1 and its children at 2 and 3. The methods resolve layer references from this tree.
 */
import { typedAdjustment } from "./adjustments/typed.js";
import { typedFill } from "./fills/typed.js";
import { DEFAULT_GLOBAL_ANGLE } from "./effects/style.js";
import { typedEffects } from "./effects/typed.js";
import { BridgeError } from "../../protocol/errors.js";
import { engineLayerText, recordLayerText } from "./text/record.js";
import type { HostBounds, HostDocument, HostLayer } from "../../protocol/index.js";
import type { EmbeddedDocument, EmbeddedLayer, GroupLayer, LayerMask, PixelLayer } from "./document.js";
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
 * The layer with this id and its place in the tree.
 * @throws BridgeError `LAYER_NOT_FOUND` when the document has none (it may have changed since the caller looked).
 */
export function requireLayer(doc: EmbeddedDocument, layerId: number): LayerEntry {
  const found = flattenLayers(doc.layers).find((entry) => entry.layer.id === layerId);
  if (!found) {
    throw new BridgeError("LAYER_NOT_FOUND", `No layer with id ${layerId} in document ${doc.id}`, { details: { layerId, documentId: doc.id } });
  }
  return found;
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

/** What reading a layer takes from its document. */
type LayerDocument = Pick<EmbeddedDocument, "resolution" | "globalLight">;

/**
 * The wire shape of a layer; `children` (recursively) only for groups and only when asked. `doc`: its resolution,
 * which a text layer's size in points is read with, and its global light, which effects using it are drawn with.
 */
export function toHostLayer(entry: LayerEntry, entries: readonly LayerEntry[], withChildren: boolean, doc: LayerDocument = { resolution: 72 }): HostLayer {
  const { resolution } = doc;
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
    clipped: layer.clipping === true,
    locked: layer.locked === true,
    fillOpacity: opacityPercent(layer.fillOpacity ?? 255),
  };
  if (layer.mask !== undefined) out.mask = hostMask(layer.mask);
  if (layer.kind === "text") {
    const text = layer.record?.engineText !== undefined ? engineLayerText(layer.record.engineText) : recordLayerText(layer.record?.text, resolution);
    if (text !== undefined) out.text = text;
  }
  const record = layer.kind === "group" ? undefined : layer.record;
  if (layer.kind === "adjustment" && record?.adjustment !== undefined) out.adjustment = typedAdjustment(record.adjustment);
  if ((layer.kind === "fill" || layer.kind === "shape") && record?.vectorFill !== undefined) out.fill = typedFill(record.vectorFill);
  const effects = typedEffects(layer.effects, doc.globalLight?.angle ?? DEFAULT_GLOBAL_ANGLE);
  if (effects !== undefined) out.effects = effects;
  if (withChildren && layer.kind === "group") out.children = childEntries(layer, entries).map((child) => toHostLayer(child, entries, true, doc));
  return out;
}

/** A layer mask on the wire: density 0–100 as opacity is, feather in pixels. */
function hostMask(mask: LayerMask): NonNullable<HostLayer["mask"]> {
  return { enabled: mask.disabled !== true, linked: mask.unlinked !== true, density: opacityPercent(mask.density ?? 255), feather: mask.feather ?? 0 };
}

function childEntries(group: GroupLayer, entries: readonly LayerEntry[]): LayerEntry[] {
  return entries.filter((entry) => entry.siblings === group.children);
}

/** The layer tree of a document on the wire, top-most first, groups with `children`. */
export function toHostLayerTree(doc: EmbeddedDocument): HostLayer[] {
  const entries = flattenLayers(doc.layers);
  return entries.filter((entry) => entry.siblings === doc.layers).map((entry) => toHostLayer(entry, entries, true, doc));
}

/** The wire shape of a document; `activeLayerIds` in index order. */
export function toHostDocument(doc: EmbeddedDocument): HostDocument {
  // A PSD reports its own mode (and the conversion that opened it); everything else is held as RGB.
  const psd = doc.source?.psdFile?.opened;
  const out: HostDocument = {
    id: doc.id,
    name: doc.name,
    width: doc.width,
    height: doc.height,
    resolution: doc.resolution,
    colorMode: psd?.source.colorModeName ?? "RGB",
    isDirty: doc.isDirty,
    revision: doc.revision,
    activeLayerIds: activeEntries(doc).map((entry) => entry.layer.id),
  };
  if (psd?.conversion !== undefined) out.conversion = psd.conversion;
  if (doc.filePath !== undefined) out.filePath = doc.filePath;
  return out;
}

/** The active layers on the wire (without children), in index order: the data of `layer:selectionChange`. */
export function activeHostLayers(doc: EmbeddedDocument): HostLayer[] {
  const entries = flattenLayers(doc.layers);
  return activeEntries(doc).map((entry) => toHostLayer(entry, entries, false, doc));
}
