import { randomUUID } from "node:crypto";
import sharp from "sharp";
import { fontNotFound, matchFont } from "../_internal/fonts.js";
import { BridgeError, type FontInfo } from "../../protocol/index.js";
import type { Filesystem } from "../../files/index.js";
import type { EditCapabilities, EditCapability, EditName, EditOp, EditOutcome, LayerCompList } from "../edits.js";
import type { HostAdapter, HostCallContext } from "../host.js";
import type { ResolvedAdjustment } from "../../protocol/adjustments.js";
import type { ResolvedFill } from "../../protocol/fills.js";
import { replaceContents } from "./contents.js";
import { checkEffects } from "./effects.js";
import type { Operation, RunOperation } from "./operations.js";
import type { Revisions } from "./revisions.js";
import { withTempPng } from "./temp-file.js";

/** The script that makes each edit (`jsx/edit.*.jsx`). */
const SCRIPT_OF: Readonly<Partial<Record<EditName, Operation>>> = {
  "layer:create": "edit.layer",
  "layer:updateText": "edit.layer",
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
  "layer:adjust": "edit.filter",
  "filter:apply": "edit.filter",
  "layer:replaceContents": "edit.contents",
  "layerComp:apply": "edit.comps",
  "layerComp:create": "edit.comps",
  "layerComp:update": "edit.comps",
  "layerComp:delete": "edit.comps",
  "layer:setEffects": "edit.effects",
};

/**
 * The adjustment types Photoshop's adjustment layers are made with here (`make` of an `adjustmentLayer` whose
 * `type` is the adjustment's class): all of the vocabulary's today. A type added to the vocabulary later answers
 * `NOT_SUPPORTED` `{editor, capability: "adjustment layers", field: "adjustment.type"}` until its descriptor is
 * written in `edit.layer.jsx` and checked on a Photoshop (checklist row E10).
 */
export const PHOTOSHOP_ADJUSTMENT_LAYER_TYPES = [
  "brightnessContrast",
  "levels",
  "curves",
  "exposure",
  "hueSaturation",
  "vibrance",
  "colorBalance",
  "channelMixer",
  "invert",
  "posterize",
  "threshold",
  "gradientMap",
  "blackAndWhite",
  "photoFilter",
  "selectiveColor",
] as const;

function notSupported(message: string, details: Record<string, unknown>): BridgeError {
  return new BridgeError("NOT_SUPPORTED", message, { details: { editor: "photoshop", ...details } });
}

/**
 * What of a fill or adjustment layer Photoshop is not asked to make here, refused before the script runs: a solid
 * fill's alpha (a fill layer's colour is opaque: its opacity is the layer's), and the adjustment types not in
 * `PHOTOSHOP_ADJUSTMENT_LAYER_TYPES`.
 * @throws BridgeError `NOT_SUPPORTED` `{editor, capability, field}`
 */
function checkContent(edit: EditOp): void {
  if (edit.op !== "layer:create" && edit.op !== "layer:update") return;
  if (edit.op === "layer:create" && edit.kind !== "fill" && edit.kind !== "adjustment") return;
  const { fill, adjustment } = edit as { fill?: ResolvedFill; adjustment?: ResolvedAdjustment };
  if (fill?.type === "solid" && fill.color[3] !== 255) {
    throw notSupported("A fill layer's colour is opaque in Photoshop: set the layer's opacity instead", { capability: "fill layers", field: "fill.color" });
  }
  if (adjustment === undefined) return;
  if (!(PHOTOSHOP_ADJUSTMENT_LAYER_TYPES as readonly string[]).includes(adjustment.type)) {
    throw notSupported(`Photoshop's adjustment layers are not made here with ${adjustment.type}`, { capability: "adjustment layers", field: "adjustment.type", type: adjustment.type });
  }
}

/**
 * What Photoshop cannot honour of each edit. `selection:fromColor`'s `color`: Photoshop selects by colour from a
 * point (the magic wand, which compares each channel with a 0–255 tolerance); its Color Range takes a fuzziness over
 * Lab colours, which is not the same selection, so a colour without a point is `NOT_SUPPORTED` rather than something
 * close to it. Text's `script` and `language`: the DOM's TextItem has no script, and its `language` is a list of
 * Photoshop's own dictionaries, not BCP 47 tags. Adjustment and fill layers are made through the ActionManager
 * (`checkContent` says which settings are not). Every adjustment and filter type is made: those without a DOM method
 * as ActionManager events (`edit.filter.jsx`).
 */
const LIMITS: Partial<Record<EditName, EditCapability>> = {
  "selection:fromColor": { unsupported: ["color"] },
  "layer:create": { unsupported: ["script", "language"] },
  "layer:updateText": { unsupported: ["script", "language"] },
};

/** Every edit of the vocabulary, with what Photoshop cannot honour of it. */
export const PHOTOSHOP_EDIT_CAPABILITIES: EditCapabilities = Object.fromEntries(
  Object.keys(SCRIPT_OF).map((name) => [name, LIMITS[name as EditName] ?? {}]),
);

/**
 * A text edit with its font named by the PostScript name Photoshop takes.
 * @throws BridgeError `FONT_NOT_FOUND` `{font, near}`; `NOT_SUPPORTED` for a direction the DOM cannot set
 */
async function withFont(ctx: HostCallContext, edit: EditOp, fonts: (ctx: HostCallContext) => Promise<FontInfo[]>): Promise<EditOp> {
  if (edit.op !== "layer:updateText" && !(edit.op === "layer:create" && edit.kind === "text")) return edit;
  const spec = edit.text;
  // TextItem.direction is horizontal or vertical only; right-to-left text needs Photoshop's Middle Eastern composer.
  if (spec.direction !== undefined && spec.direction !== "ltr") {
    throw new BridgeError("NOT_SUPPORTED", `Photoshop's scripting cannot set ${spec.direction} text`, {
      details: { editor: "photoshop", capability: edit.op, field: "direction", direction: spec.direction },
    });
  }
  if (spec.color[3] !== 255) {
    throw new BridgeError("NOT_SUPPORTED", "Photoshop's text colours are opaque: set the layer's opacity instead", {
      details: { editor: "photoshop", capability: edit.op, field: "color" },
    });
  }
  const list = await fonts(ctx);
  const font = matchFont(list, spec.font);
  if (font === undefined) throw fontNotFound(list, spec.font);
  return { ...edit, text: { ...spec, font: font.postScriptName } };
}

type PatternFill = Extract<ResolvedFill, { type: "pattern" }>;

/** The pattern fill a `layer:create` or `layer:update` makes, if any. */
function patternFillOf(edit: EditOp): PatternFill | undefined {
  if (edit.op !== "layer:create" && edit.op !== "layer:update") return undefined;
  const { fill } = edit as { fill?: ResolvedFill };
  return fill?.type === "pattern" ? fill : undefined;
}

/**
 * A pattern fill on Photoshop: its layer names one of Photoshop's pattern presets, so the image goes to Photoshop as
 * a temporary PNG that `edit.layer` defines as the preset `bridge pattern <uuid>`, makes the layer from, and deletes
 * again (`_content.jsx`). The script gets the preset's name in place of the image's bytes.
 * @throws BridgeError `NOT_SUPPORTED` when Photoshop runs elsewhere (it cannot open the file, as with
 * `layer:importImage`); `BAD_REQUEST` `{field: "fill.image"}` for an image that does not decode
 */
async function withPatternFile(edit: EditOp, fill: PatternFill, filesystem: Filesystem, apply: (params: Record<string, unknown>) => Promise<void>): Promise<void> {
  if (filesystem !== "local") {
    throw notSupported("Photoshop runs on another machine: it cannot open the pattern's image the bridge would write", { capability: "pattern fills", field: "fill.image", filesystem });
  }
  const png = await sharp(fill.image.bytes)
    .png()
    .toBuffer()
    .catch((e: unknown) => {
      throw new BridgeError("BAD_REQUEST", `The pattern's image cannot be decoded: ${e instanceof Error ? e.message : String(e)}`, { details: { field: "fill.image" } });
    });
  const preset = `bridge pattern ${randomUUID()}`;
  await withTempPng("pattern", png, (path) => apply({ edit: { ...edit, fill: { type: "pattern", name: fill.name, preset } }, path }));
}

/** What the edits need from the adapter. */
export interface EditDeps {
  readonly run: RunOperation;
  readonly revisions: Revisions;
  /** Where Photoshop reads files: `layer:replaceContents` and pattern fills hand it a temporary file of this machine. */
  readonly filesystem: Filesystem;
}

/**
 * Photoshop's edits: one script run each, one history state named after the method; the document's revision rises
 * and the host emits `documentChanged` `{documentId, revision, method}` after each. Layer comps are the DOM's
 * (`Document.layerComps`), which gives a comp no id: a comp's id is its 1-based place in the Layer Comps panel, so
 * deleting a comp renumbers the comps after it.
 */
export function editOps({ run, revisions, filesystem }: EditDeps): Required<Pick<HostAdapter, "edit" | "editCapabilities" | "listFonts" | "layerComps">> {
  // Photoshop's fonts are read for each text edit: fonts installed while it runs show up at once.
  const listFonts = async (ctx: HostCallContext): Promise<FontInfo[]> => {
    const { fonts } = await run<{ fonts: FontInfo[] }>(ctx.signal, "font.list");
    const seen = new Set<string>();
    return fonts
      .filter((f) => !seen.has(f.postScriptName) && seen.add(f.postScriptName) !== undefined)
      .sort((a, b) => a.family.localeCompare(b.family) || a.style.localeCompare(b.style));
  };
  return {
    // Replacing contents hands Photoshop a temporary file of this machine: a Photoshop elsewhere cannot open it.
    editCapabilities:
      filesystem === "local" ? PHOTOSHOP_EDIT_CAPABILITIES : Object.fromEntries(Object.entries(PHOTOSHOP_EDIT_CAPABILITIES).filter(([name]) => name !== "layer:replaceContents")),
    listFonts,
    layerComps: (ctx, { documentId }) => run<LayerCompList>(ctx.signal, "document.comps", { documentId }),

    async edit(ctx, { documentId, edit: asked }): Promise<EditOutcome> {
      checkContent(asked);
      checkEffects(asked);
      const edit = await withFont(ctx, asked, listFonts);
      const script = SCRIPT_OF[edit.op]!;
      type Outcome = Awaited<ReturnType<typeof revisions.change<{ layerId?: number; documentId?: number; compId?: number }>>>;
      let outcome: Outcome | undefined;
      const apply = async (params: Record<string, unknown>): Promise<void> => {
        outcome = await revisions.change(documentId, () => run<{ layerId?: number; documentId?: number; compId?: number }>(ctx.signal, script, { documentId, history: edit.op, ...params }));
      };
      const pattern = patternFillOf(edit);
      if (pattern !== undefined) {
        await withPatternFile(edit, pattern, filesystem, apply);
      } else if (edit.op === "layer:replaceContents") {
        // The image's bytes stay here: the script gets the file they were written to.
        const { image: _bytes, ...rest } = edit;
        await replaceContents(ctx, { run, filesystem }, documentId, edit, (where) => apply({ edit: rest, ...where }));
      } else {
        await apply({ edit });
      }
      const { result, revision } = outcome!;
      revisions.edited$.next({ documentId, revision, method: edit.op });
      return { revision, ...(result as object) };
    },
  };
}
