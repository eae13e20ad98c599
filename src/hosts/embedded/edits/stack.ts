/**
 * The layer stack as edits rearrange it: where a place puts a layer, taking layers out, fresh ids for new and
 * copied layers, and the active layers kept pointing at layers that exist. Nothing here checks locks (see
 * `locks.ts`); every function either changes nothing and throws, or does all it says.
 */
import { BridgeError } from "../../../protocol/errors.js";
import type { EditPlace } from "../../edits.js";
import type { EmbeddedDocument, EmbeddedLayer, GroupLayer } from "../document.js";
import { flattenLayers, requireLayer } from "../tree.js";

/** A sibling list and a position in it: where a layer goes. */
export interface Slot {
  readonly siblings: EmbeddedLayer[];
  readonly index: number;
  /** The group holding `siblings`, or `null` for the document's own stack. */
  readonly parent: GroupLayer | null;
}

/** The group whose children are `siblings`, or `null` for the document's stack. */
export function parentOfSiblings(doc: EmbeddedDocument, siblings: EmbeddedLayer[]): GroupLayer | null {
  if (siblings === doc.layers) return null;
  const entry = flattenLayers(doc.layers).find(({ layer }) => layer.kind === "group" && layer.children === siblings);
  return (entry?.layer as GroupLayer | undefined) ?? null;
}

/** The groups holding a layer, innermost first. */
export function ancestorsOf(doc: EmbeddedDocument, layerId: number): GroupLayer[] {
  const out: GroupLayer[] = [];
  let siblings = requireLayer(doc, layerId).siblings;
  for (let parent = parentOfSiblings(doc, siblings); parent !== null; parent = parentOfSiblings(doc, siblings)) {
    out.push(parent);
    siblings = requireLayer(doc, parent.id).siblings;
  }
  return out;
}

/**
 * Where a place puts a layer, read now (call it after taking out a layer that moves, so indices are current).
 * @throws BridgeError `LAYER_NOT_FOUND` for a layer the place names that is gone, `BAD_REQUEST` for a parent that is
 * not a group.
 */
export function slotOf(doc: EmbeddedDocument, place: EditPlace): Slot {
  if ("to" in place) return { siblings: doc.layers, index: place.to === "top" ? 0 : doc.layers.length, parent: null };
  if ("parent" in place) {
    const group = requireLayer(doc, place.parent).layer;
    if (group.kind !== "group") {
      throw new BridgeError("BAD_REQUEST", `parent must be a group; layer ${group.id} is a ${group.kind} layer`, { details: { parent: group.id, kind: group.kind } });
    }
    return { siblings: group.children, index: 0, parent: group };
  }
  const id = "above" in place ? place.above : place.below;
  const { siblings, layer } = requireLayer(doc, id);
  const at = siblings.indexOf(layer);
  return { siblings, index: "above" in place ? at : at + 1, parent: parentOfSiblings(doc, siblings) };
}

/**
 * @throws BridgeError `BAD_REQUEST` when a slot would put a layer under the background layer, which stays the
 * bottom of the document (as in Photoshop; duplicate it or turn it into a pixel layer by clearing it first).
 */
export function checkAboveBackground(slot: Slot): void {
  const below = slot.siblings[slot.index];
  if (below !== undefined || slot.parent !== null) return;
  const bottom = slot.siblings[slot.siblings.length - 1];
  if (bottom?.kind === "background") {
    throw new BridgeError("BAD_REQUEST", `Nothing goes below the background layer ${bottom.id}`, { details: { layerId: bottom.id, kind: bottom.kind } });
  }
}

/** Takes a layer out of its siblings; answers where it was. */
export function takeOut(doc: EmbeddedDocument, layerId: number): Slot {
  const { siblings, layer } = requireLayer(doc, layerId);
  const index = siblings.indexOf(layer);
  siblings.splice(index, 1);
  return { siblings, index, parent: parentOfSiblings(doc, siblings) };
}

/** Every layer of a subtree, the root first. */
export function subtree(layer: EmbeddedLayer): EmbeddedLayer[] {
  return layer.kind === "group" ? [layer, ...layer.children.flatMap(subtree)] : [layer];
}

/**
 * A deep copy of a layer (a group with its children) under fresh ids. Pixel and mask buffers are shared: the model
 * replaces buffers, never writes into them. Each copy gets its own record object, so a save neither takes it for the
 * record the file held (written byte for byte) nor matches it to the original's blocks (matched by id). A copy of the
 * background is a plain pixel layer.
 */
export function copyLayer(doc: EmbeddedDocument, layer: EmbeddedLayer): EmbeddedLayer {
  const id = doc.nextLayerId++;
  const record = layer.record === undefined ? {} : { record: { ...layer.record } };
  if (layer.kind === "group") return { ...layer, ...record, id, children: layer.children.map((child) => copyLayer(doc, child)) };
  // A copy of the background is a plain layer above it (one background per document).
  return { ...layer, ...record, id, kind: layer.kind === "background" ? "pixel" : layer.kind };
}

/**
 * Active layers after layers left the tree: those still present; when none is, `fallback` if it still exists, else
 * the top-most layer (none in an empty document).
 */
export function keepActiveValid(doc: EmbeddedDocument, fallback?: number): void {
  const present = new Set(flattenLayers(doc.layers).map(({ layer }) => layer.id));
  const kept = doc.activeLayerIds.filter((id) => present.has(id));
  if (kept.length > 0) doc.activeLayerIds = kept;
  else if (fallback !== undefined && present.has(fallback)) doc.activeLayerIds = [fallback];
  else doc.activeLayerIds = doc.layers[0] === undefined ? [] : [doc.layers[0].id];
}

/** The layer now at a slot's position, else the one above it, else its group: where the active layer falls back to. */
export function neighbourOf(slot: Slot): number | undefined {
  return (slot.siblings[slot.index] ?? slot.siblings[slot.index - 1] ?? slot.parent)?.id;
}
