/**
 * What every edit method shares: the editor's capability checked before anything is read, the document's revision
 * compared with `ifRevision`, references and places resolved against the tree, the edit sent as one plain value,
 * and the changed layer read back. Nothing here knows an editor.
 */
import type { DocumentTree } from "../../hosts/host.js";
import type { EditName, EditOp, EditOutcome, EditPlace } from "../../hosts/edits.js";
import { type ANCHOR_NAMES, BridgeError, type HostLayer } from "../../protocol/index.js";
import type { MethodContext } from "../define.js";
import { flattenTree, findLayer, requireLayer, layerRefOf, shownLayer } from "./targets.js";

/** The blend mode names layer records use, which every editor's edits take. */
export const EDIT_BLEND_MODES: readonly string[] = [
  "pass through", "normal", "dissolve", "darken", "multiply", "color burn", "linear burn", "darker color", "lighten",
  "screen", "color dodge", "linear dodge", "lighter color", "overlay", "soft light", "hard light", "vivid light",
  "linear light", "pin light", "hard mix", "difference", "exclusion", "subtract", "divide", "hue", "saturation",
  "color", "luminosity",
];

/**
 * Where each named anchor sits in a box, as fractions of its width and height: a point of a layer's bounds for a
 * transform, where the old canvas lands within the size difference for a canvas resize.
 */
export const ANCHOR_FRACTIONS: Readonly<Record<(typeof ANCHOR_NAMES)[number], readonly [number, number]>> = {
  center: [0.5, 0.5],
  topLeft: [0, 0],
  top: [0.5, 0],
  topRight: [1, 0],
  left: [0, 0.5],
  right: [1, 0.5],
  bottomLeft: [0, 1],
  bottom: [0.5, 1],
  bottomRight: [1, 1],
};

/** A document's revision as its editor reports it (0 for an editor that does not count them). */
export const revisionOf = (tree: DocumentTree): number => tree.document.revision ?? 0;

function notSupported(ctx: MethodContext, method: EditName, field?: string): BridgeError {
  const what = field === undefined ? method : `${method}'s ${field}`;
  return new BridgeError("NOT_SUPPORTED", `The ${ctx.host.kind} editor cannot do ${what}`, {
    details: { editor: ctx.host.kind, capability: method, ...(field !== undefined ? { field } : {}) },
  });
}

/**
 * The document an edit acts on, as it is now. Checks, in order, that the editor makes this edit at all and every
 * field the caller passed, then that the document is still at `ifRevision`.
 * @throws BridgeError `NOT_SUPPORTED` `{editor, capability, field?}`, `CONFLICT` `{documentId, revision, ifRevision}`
 */
export async function editTarget(
  ctx: MethodContext,
  method: EditName,
  params: { readonly documentId?: number | undefined; readonly ifRevision?: number | undefined },
): Promise<DocumentTree> {
  const capability = ctx.host.editCapabilities?.[method];
  if (capability === undefined || typeof ctx.host.edit !== "function") throw notSupported(ctx, method);
  for (const field of capability.unsupported ?? []) {
    if ((params as Record<string, unknown>)[field] !== undefined) throw notSupported(ctx, method, field);
  }
  const tree = await ctx.host.getDocumentTree(ctx.call, params.documentId);
  checkRevision(tree, params.ifRevision);
  return tree;
}

/** @throws BridgeError `CONFLICT` when `ifRevision` is given and the document is at another revision. */
export function checkRevision(tree: DocumentTree, ifRevision: number | undefined): void {
  const revision = revisionOf(tree);
  if (ifRevision === undefined || ifRevision === revision) return;
  throw new BridgeError("CONFLICT", `Document ${tree.document.id} is at revision ${revision}, not ${ifRevision}: read it again, then edit`, {
    details: { documentId: tree.document.id, revision, ifRevision },
  });
}

/**
 * What an edit would make, checked against the bridge's `maxDocumentPixels` (the limit `document:create` checks) before
 * it is sent: every editor refuses the same canvases and layers, those whose editor checks nothing itself (Photoshop,
 * GIMP) too. `width` × `height` in whole pixels; `what` names it in the message (`The canvas`, `Layer Label`).
 * @throws BridgeError `PAYLOAD_TOO_LARGE` `{limit: "maxDocumentPixels", maxPixels, width, height, what}`
 */
export function checkDocumentPixels(ctx: MethodContext, what: string, width: number, height: number): void {
  const maxPixels = ctx.bridge.limits.maxDocumentPixels;
  if (width * height <= maxPixels) return;
  throw new BridgeError("PAYLOAD_TOO_LARGE", `${what} would become ${width}×${height} px, more than the ${maxPixels} pixels of maxDocumentPixels`, {
    details: { limit: "maxDocumentPixels", maxPixels, width, height, what },
  });
}

/** The bounding box of a `width` × `height` box turned `degrees`, in whole pixels (what a rotation makes room for). */
export function turnedSize(width: number, height: number, degrees: number): { width: number; height: number } {
  const r = (degrees * Math.PI) / 180;
  const [c, s] = [Math.abs(Math.cos(r)), Math.abs(Math.sin(r))];
  return { width: Math.ceil(width * c + height * s - 1e-9), height: Math.ceil(width * s + height * c - 1e-9) };
}

/** Sends one edit of the tree's document. */
export function sendEdit(ctx: MethodContext, tree: DocumentTree, edit: EditOp): Promise<EditOutcome> {
  // `editTarget` checked the editor has it.
  return ctx.host.edit!(ctx.call, { documentId: tree.document.id, edit });
}

/** The layer a call names (`layerId` / `layerIndex`, else the active one). @throws BridgeError `LAYER_NOT_FOUND` */
export function targetLayer(tree: DocumentTree, params: { layerId?: number | undefined; layerIndex?: number | undefined }): HostLayer {
  return requireLayer(tree, layerRefOf(params));
}

/** A layer by id. @throws BridgeError `LAYER_NOT_FOUND` */
export function layerById(tree: DocumentTree, id: number): HostLayer {
  return requireLayer(tree, { by: "id", id });
}

/** Whether `layer` is `ancestor` or lies inside it. */
export function isWithin(layer: HostLayer, ancestor: HostLayer): boolean {
  return layer.id === ancestor.id || flattenTree(ancestor.children ?? []).some((child) => child.id === layer.id);
}

/** The group holding a layer, or `null` at the document's top level. */
export function parentOf(tree: DocumentTree, id: number): HostLayer | null {
  const search = (layers: readonly HostLayer[], parent: HostLayer | null): HostLayer | null | undefined => {
    for (const layer of layers) {
      if (layer.id === id) return parent;
      const found = search(layer.children ?? [], layer);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return search(tree.layers, null) ?? null;
}

/** The siblings of a layer (its group's children or the top level), top-most first. */
export function siblingsOf(tree: DocumentTree, id: number): readonly HostLayer[] {
  const parent = parentOf(tree, id);
  return parent === null ? tree.layers : (parent.children ?? []);
}

/**
 * Where a layer goes, from `above` / `below` / `parent` / `to` (checked to be at most one): each named layer must
 * exist, `parent` must be a group, and a layer being moved (`moving`) cannot go inside itself. None given:
 * `fallback`.
 * @throws BridgeError `LAYER_NOT_FOUND`, `BAD_REQUEST`
 */
export function resolvePlace(
  tree: DocumentTree,
  params: { above?: number | undefined; below?: number | undefined; parent?: number | undefined; to?: "top" | "bottom" | undefined },
  fallback: EditPlace,
  moving?: HostLayer,
): EditPlace {
  if (params.to !== undefined) return { to: params.to };
  const [field, id] =
    params.above !== undefined ? (["above", params.above] as const) : params.below !== undefined ? (["below", params.below] as const) : params.parent !== undefined ? (["parent", params.parent] as const) : [undefined, undefined];
  if (field === undefined) return fallback;
  const target = layerById(tree, id);
  if (field === "parent" && target.kind !== "group") {
    throw new BridgeError("BAD_REQUEST", `parent must be a group; layer ${id} is a ${target.kind} layer`, { details: { parent: id, kind: target.kind } });
  }
  if (moving !== undefined && isWithin(target, moving)) {
    const message = target.id === moving.id ? `A layer cannot be placed relative to itself` : `Group ${moving.id} cannot go inside itself (layer ${id} is in it)`;
    throw new BridgeError("BAD_REQUEST", message, { details: { layerId: moving.id, [field]: id } });
  }
  return field === "above" ? { above: id } : field === "below" ? { below: id } : { parent: id };
}

/** Above the active layer, or the top of the stack when none is active. */
export function aboveActive(tree: DocumentTree): EditPlace {
  const active = findLayer(tree, { by: "active" });
  return active === null ? { to: "top" } : { above: active.id };
}

/**
 * Several layers of one document, checked: each exists, and none is a group named together with one of its own
 * layers. Answered top-most first, in the tree's order.
 * @throws BridgeError `LAYER_NOT_FOUND`, `BAD_REQUEST`
 */
export function layersByIds(tree: DocumentTree, ids: readonly number[]): HostLayer[] {
  const chosen = ids.map((id) => layerById(tree, id));
  for (const group of chosen) {
    if (group.kind !== "group") continue;
    const inside = chosen.find((layer) => layer.id !== group.id && isWithin(layer, group));
    if (inside !== undefined) {
      throw new BridgeError("BAD_REQUEST", `Group ${group.id} and its own layer ${inside.id} cannot be named together`, {
        details: { group: group.id, layerId: inside.id },
      });
    }
  }
  const order = new Map(flattenTree(tree.layers).map((layer, i) => [layer.id, i]));
  return chosen.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
}

/** The next free `<base> <n>` name among the document's layers (`Layer 3`, `Group 2`), as editors name new ones. */
export function nextLayerName(tree: DocumentTree, base: string): string {
  const pattern = new RegExp(`^${base} (\\d+)$`);
  let highest = 0;
  for (const layer of flattenTree(tree.layers)) {
    const n = pattern.exec(layer.name)?.[1];
    if (n !== undefined) highest = Math.max(highest, Number(n));
  }
  return `${base} ${highest + 1}`;
}

/** @throws BridgeError `BAD_REQUEST` naming the known blend modes for an unknown one. */
export function checkBlendMode(blendMode: string | undefined, field = "blendMode"): void {
  if (blendMode === undefined || EDIT_BLEND_MODES.includes(blendMode)) return;
  throw new BridgeError("BAD_REQUEST", `Unknown blend mode "${blendMode}"`, { details: { [field]: blendMode, allowed: EDIT_BLEND_MODES } });
}

/** A layer of the document after an edit, with the document's id and revision: what layer edits answer. */
export async function editedLayer(ctx: MethodContext, documentId: number, layerId: number, outcome: EditOutcome): Promise<HostLayer & { documentId: number; revision: number }> {
  const tree = await ctx.host.getDocumentTree(ctx.call, documentId);
  // A group is answered with its children: what `layer:group` made, or what a move carried along.
  const layer = shownLayer(requireLayer(tree, { by: "id", id: layerId }), true);
  return { ...layer, documentId, revision: outcome.revision };
}
