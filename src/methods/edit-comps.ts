import type { LayerCompCaptures, LayerCompInfo, LayerCompList } from "../hosts/edits.js";
import { BridgeError } from "../protocol/index.js";
import { defineMethod, type MethodContext, type MethodDefinition } from "./define.js";
import { editTarget, sendEdit } from "./_internal/edits.js";
import { requireOp } from "./_internal/support.js";

/** The capability an editor without layer comps is `NOT_SUPPORTED` for. */
export const LAYER_COMPS_CAPABILITY = "layer comps";

/** What a new comp captures when the caller says nothing: everything, so applying it brings back the layers as they were. */
const CAPTURE_ALL: LayerCompCaptures = { visibility: true, position: true, appearance: true };

function comps(ctx: MethodContext, documentId: number): Promise<LayerCompList> {
  return requireOp(ctx.host, "layerComps", LAYER_COMPS_CAPABILITY)(ctx.call, { documentId });
}

/**
 * The comp a call names, by `id` or `name`.
 * @throws BridgeError `NOT_FOUND` `{documentId, id | name, comps}` listing the names there are.
 */
function findComp(list: LayerCompList, ref: { id?: number | undefined; name?: string | undefined }): LayerCompInfo {
  const found = list.comps.find((comp) => (ref.id !== undefined ? comp.id === ref.id : comp.name === ref.name));
  if (found !== undefined) return found;
  const what = ref.id !== undefined ? `id ${ref.id}` : `name "${ref.name}"`;
  throw new BridgeError("NOT_FOUND", `Document ${list.documentId} has no layer comp with ${what}`, {
    details: { documentId: list.documentId, ...(ref.id !== undefined ? { id: ref.id } : { name: ref.name }), comps: list.comps.map((comp) => comp.name) },
  });
}

/** @throws BridgeError `BAD_REQUEST` `{documentId, name, id}` when another comp than `self` has this name. */
function checkNameFree(list: LayerCompList, name: string, self?: number): void {
  const taken = list.comps.find((comp) => comp.id !== self && comp.name === name);
  if (taken === undefined) return;
  throw new BridgeError("BAD_REQUEST", `Document ${list.documentId} already has a layer comp named "${name}"`, {
    details: { documentId: list.documentId, name, id: taken.id },
  });
}

/** The comp after an edit, read back, with the document's revision. */
async function editedComp(ctx: MethodContext, documentId: number, compId: number, revision: number) {
  const comp = findComp(await comps(ctx, documentId), { id: compId });
  return { documentId, revision, comp: { ...comp, captures: { ...comp.captures } } };
}

/** The editing target of a comp edit: the editor must list comps and make the edit. */
async function compTarget(ctx: MethodContext, method: "layerComp:apply" | "layerComp:create" | "layerComp:update" | "layerComp:delete", params: { documentId?: number | undefined; ifRevision?: number | undefined }) {
  // An editor without comps is refused by its capability name before anything is read.
  requireOp(ctx.host, "layerComps", LAYER_COMPS_CAPABILITY);
  const tree = await editTarget(ctx, method, params);
  return { tree, list: await comps(ctx, tree.document.id) };
}

/** Layer comps: a document's saved states of its layers' visibility, position and appearance (PSD image resource 1065). */
export const compMethods: MethodDefinition[] = [
  defineMethod("document:layerComps", {
    description:
      "The document's layer comps, in the file's order: each one's `id`, `name`, `comment` (`null`: none) and `captures` (`visibility`, `position`, `appearance`: what it records of each layer), and `lastApplied` (the id of the comp last applied, `null`: none). A PSD's comps are read from the file and saved back into it.",
    examples: [{}, { documentId: 2 }],
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/document/layer-comps" },
    run: async (ctx, params) => {
      const documentId = params.documentId ?? (await ctx.host.getDocument(ctx.call, undefined)).id;
      const list = await comps(ctx, documentId);
      return { documentId: list.documentId, comps: list.comps.map((comp) => ({ ...comp, captures: { ...comp.captures } })), lastApplied: list.lastApplied };
    },
  }),
  defineMethod("layerComp:apply", {
    description:
      "Applies a layer comp (by `id` or `name`): each layer's visibility and position, as far as the comp captures them, become what it recorded. Appearance (layer styles) is listed but not switched by the embedded editor. One history step. Answers the comp.",
    examples: [{ name: "Square" }, { id: 1111700597 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer-comp/apply" },
    run: async (ctx, params) => {
      const { tree, list } = await compTarget(ctx, "layerComp:apply", params);
      const comp = findComp(list, params);
      const outcome = await sendEdit(ctx, tree, { op: "layerComp:apply", compId: comp.id });
      return editedComp(ctx, tree.document.id, comp.id, outcome.revision);
    },
  }),
  defineMethod("layerComp:create", {
    description:
      "Records the layers as they are now as a new layer comp named `name` (with `comment`); `captures` `{visibility, position, appearance}` says what it records (each true unless set false). A name already taken is refused. One history step. Answers the comp with its new id.",
    examples: [{ name: "Story", comment: "1080×1920", captures: { appearance: false } }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer-comp/create" },
    run: async (ctx, params) => {
      const { tree, list } = await compTarget(ctx, "layerComp:create", params);
      checkNameFree(list, params.name);
      const captures = { ...CAPTURE_ALL, ...params.captures };
      const outcome = await sendEdit(ctx, tree, { op: "layerComp:create", name: params.name, comment: params.comment ?? null, captures });
      return editedComp(ctx, tree.document.id, outcome.compId!, outcome.revision);
    },
  }),
  defineMethod("layerComp:update", {
    description:
      "Changes a layer comp (by `id` or `name`): records the layers as they are now (unless `recapture: false`), and takes a new name (`rename`), `comment` (`null` clears it) or `captures`. One history step. Answers the comp.",
    examples: [{ name: "Square" }, { id: 1929495603, rename: "Square (sale)", recapture: false }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer-comp/update" },
    run: async (ctx, params) => {
      const { tree, list } = await compTarget(ctx, "layerComp:update", params);
      const comp = findComp(list, params);
      const name = params.rename ?? comp.name;
      checkNameFree(list, name, comp.id);
      const outcome = await sendEdit(ctx, tree, {
        op: "layerComp:update",
        compId: comp.id,
        name,
        comment: params.comment === undefined ? comp.comment : params.comment,
        captures: { ...comp.captures, ...params.captures },
        recapture: params.recapture ?? true,
      });
      return editedComp(ctx, tree.document.id, comp.id, outcome.revision);
    },
  }),
  defineMethod("layerComp:delete", {
    description: "Deletes a layer comp (by `id` or `name`); the layers stay as they are. One history step.",
    examples: [{ name: "Story" }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer-comp/delete" },
    run: async (ctx, params) => {
      const { tree, list } = await compTarget(ctx, "layerComp:delete", params);
      const comp = findComp(list, params);
      const outcome = await sendEdit(ctx, tree, { op: "layerComp:delete", compId: comp.id });
      return { documentId: tree.document.id, revision: outcome.revision, id: comp.id, deleted: true as const };
    },
  }),
];
