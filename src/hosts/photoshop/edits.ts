import type { EditCapabilities, EditCapability, EditName, EditOutcome } from "../edits.js";
import type { HostAdapter } from "../host.js";
import type { Operation, RunOperation } from "./operations.js";
import type { Revisions } from "./revisions.js";

/** The script that makes each edit (`jsx/edit.*.jsx`). */
const SCRIPT_OF: Readonly<Partial<Record<EditName, Operation>>> = {
  "layer:create": "edit.layer",
  "layer:update": "edit.layer",
  "layer:delete": "edit.layer",
  "layer:duplicate": "edit.layer",
  "layer:move": "edit.layer",
  "layer:group": "edit.layer",
  "layer:ungroup": "edit.layer",
  "layer:merge": "edit.layer",
  "layer:rasterize": "edit.layer",
  "layer:fill": "edit.layer",
  "layer:clear": "edit.layer",
  "layer:transform": "edit.transform",
  "layer:addMask": "edit.mask",
  "layer:deleteMask": "edit.mask",
  "layer:applyMask": "edit.mask",
  "layer:updateMask": "edit.mask",
  "document:resize": "edit.document",
  "document:resizeCanvas": "edit.document",
  "document:crop": "edit.document",
  "document:rotate": "edit.document",
  "document:flip": "edit.document",
  "document:duplicate": "edit.document",
  "document:flatten": "edit.document",
  "document:trim": "edit.document",
  "selection:all": "edit.selection",
  "selection:clear": "edit.selection",
  "selection:invert": "edit.selection",
  "selection:modify": "edit.selection",
  "selection:fromLayer": "edit.selection",
  "selection:fromColor": "edit.selection",
};

/**
 * Every edit of the vocabulary, with what Photoshop cannot honour. `selection:fromColor`'s `color`: Photoshop
 * selects by colour from a point (the magic wand, which compares each channel with a 0–255 tolerance); its Color
 * Range takes a fuzziness over Lab colours, which is not the same selection, so a colour without a point is
 * `NOT_SUPPORTED` rather than something close to it. Adjustment and fill layers are not made through the scripts
 * yet (ActionManager's `make` of an adjustment or content layer): `NOT_SUPPORTED`.
 */
const LIMITS: Partial<Record<EditName, EditCapability>> = {
  "selection:fromColor": { unsupported: ["color"] },
  "layer:create": { unsupportedTypes: ["adjustment", "fill"] },
  "layer:update": { unsupported: ["adjustment", "fill"] },
};

export const PHOTOSHOP_EDIT_CAPABILITIES: EditCapabilities = Object.fromEntries(
  Object.keys(SCRIPT_OF).map((name) => [name, LIMITS[name as EditName] ?? {}]),
);

/** What the edits need from the adapter. */
export interface EditDeps {
  readonly run: RunOperation;
  readonly revisions: Revisions;
}

/**
 * Photoshop's edits: one script run each, one history state named after the method; the document's revision rises
 * and the host emits `documentChanged` `{documentId, revision, method}` after each.
 */
export function editOps({ run, revisions }: EditDeps): Required<Pick<HostAdapter, "edit" | "editCapabilities">> {
  return {
    editCapabilities: PHOTOSHOP_EDIT_CAPABILITIES,

    async edit(ctx, { documentId, edit }): Promise<EditOutcome> {
      const { result, revision } = await revisions.change(documentId, () =>
        run<{ layerId?: number; documentId?: number }>(ctx.signal, SCRIPT_OF[edit.op]!, { documentId, edit, history: edit.op }),
      );
      revisions.edited$.next({ documentId, revision, method: edit.op });
      return { revision, ...result };
    },
  };
}
