/**
 * Layer references, resolved once for every editor from the document tree the editor reports. Each editor keeps
 * its own index space (`HostLayer.index`; Photoshop's counts from the bottom); the selection index space is the
 * active layers top-most first, in the tree's order, on every editor.
 */
import { BridgeError, type HostLayer, type LayerSpec } from "../../protocol/index.js";
import type { DocumentTree } from "../../hosts/host.js";

/** Which layer a call targets. `active` is the document's top-most active layer. */
export type LayerRef =
  | { readonly by: "id"; readonly id: number }
  | { readonly by: "index"; readonly index: number }
  | { readonly by: "selectionIndex"; readonly index: number }
  | { readonly by: "active" };

/** `layerId` or `layerIndex` (validated to be at most one), else the active layer. */
export function layerRefOf(params: { layerId?: number | undefined; layerIndex?: number | undefined }): LayerRef {
  if (params.layerId !== undefined) return { by: "id", id: params.layerId };
  if (params.layerIndex !== undefined) return { by: "index", index: params.layerIndex };
  return { by: "active" };
}

/** A preview's `layerSpec`: a layer id, `"current"`, `"id:N"` or `"index:N"`. */
export function layerRefOfSpec(spec: LayerSpec): LayerRef {
  if (typeof spec === "number") return { by: "id", id: spec };
  if (spec === "current") return { by: "active" };
  const [kind, value] = spec.split(":") as [string, string];
  return kind === "id" ? { by: "id", id: Number(value) } : { by: "index", index: Number(value) };
}

/** Every layer of a tree, top-most first, a group before its children. */
export function flattenTree(layers: readonly HostLayer[]): HostLayer[] {
  return layers.flatMap((layer) => [layer, ...flattenTree(layer.children ?? [])]);
}

/** The active layers, top-most first. */
export function activeLayers(tree: DocumentTree): HostLayer[] {
  const active = new Set(tree.document.activeLayerIds);
  return flattenTree(tree.layers).filter((layer) => active.has(layer.id));
}

function notFound(message: string, details: Record<string, unknown>): BridgeError {
  return new BridgeError("LAYER_NOT_FOUND", message, { details });
}

/**
 * The layer a reference names, or `null` only for `{by: "active"}` with nothing active.
 * @throws BridgeError `LAYER_NOT_FOUND` for any other reference that names no layer.
 */
export function findLayer(tree: DocumentTree, ref: LayerRef): HostLayer | null {
  const documentId = tree.document.id;
  switch (ref.by) {
    case "id": {
      const found = flattenTree(tree.layers).find((layer) => layer.id === ref.id);
      if (!found) throw notFound(`No layer with id ${ref.id} in document ${documentId}`, { layerId: ref.id, documentId });
      return found;
    }
    case "index": {
      const found = flattenTree(tree.layers).find((layer) => layer.index === ref.index);
      if (!found) throw notFound(`No layer at index ${ref.index} in document ${documentId}`, { layerIndex: ref.index, documentId });
      return found;
    }
    case "selectionIndex": {
      const found = activeLayers(tree)[ref.index];
      if (!found) {
        throw notFound(`No active layer at selection index ${ref.index} in document ${documentId}`, { selectionIndex: ref.index, documentId });
      }
      return found;
    }
    case "active":
      return activeLayers(tree)[0] ?? null;
  }
}

/** Like {@link findLayer}, but `LAYER_NOT_FOUND` also when nothing is active. */
export function requireLayer(tree: DocumentTree, ref: LayerRef): HostLayer {
  const layer = findLayer(tree, ref);
  if (layer === null) throw notFound(`No layer is active in document ${tree.document.id}`, { documentId: tree.document.id });
  return layer;
}

/** A layer as the wire shows it: `children` only for groups and only when asked. */
export function shownLayer(layer: HostLayer, withChildren: boolean): HostLayer {
  const { children, ...rest } = layer;
  return withChildren && children !== undefined ? { ...rest, children } : rest;
}
