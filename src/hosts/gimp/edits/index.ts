/**
 * GIMP's edits (see `../../edits.ts` for the vocabulary): each edit becomes one call of a `br-…` procedure of the
 * library (`scheme-*.ts`), which checks its references, then changes the image as one undo step. Ids here are
 * GIMP's; `../stable-ids.ts` turns them into the adapter's, raises the document's revision and reports the change.
 */
import { writeFile } from "node:fs/promises";
import sharp from "sharp";
import { BridgeError, type FontInfo } from "../../../protocol/index.js";
import { fontNotFound, matchFont } from "../../_internal/fonts.js";
import type {
  DocumentEdit,
  EditCapabilities,
  EditOp,
  EditImage,
  EditPlace,
  FilterEdit,
  FitMode,
  FlipDirection,
  LayerEdit,
  ReplaceContents,
  ResampleMethod,
  SelectionEdit,
  SelectionMode,
  TextSpec,
} from "../../edits.js";
import type { HostCallContext, Rgba } from "../../host.js";
import type { GimpSession } from "../connection.js";
import { asNumber, int, lit, num, type Sexp } from "../scheme.js";
import { writeXcfLayer } from "../xcf.js";
import { filterForm, GIMP_UNSUPPORTED_ADJUSTMENTS, GIMP_UNSUPPORTED_FILTERS } from "./filters.js";
import { GIMP_LAYER_MODES, NOT_PAINT_MODES } from "./modes.js";
import { exactTurn, layerMatrix } from "./transform.js";

/**
 * Every edit GIMP 2.10 makes, with the fields it cannot honour: GIMP has no fill opacity apart from a layer's
 * opacity, a layer mask that always moves with its layer, at full density, with no feather of its own, text whose
 * script Pango finds from the characters (no setting for it), and no adjustment or fill layers.
 */
export const GIMP_EDIT_CAPABILITIES: EditCapabilities = {
  // GIMP 2.10 has no adjustment or fill layers (its adjustments and gradient fills change pixels: layer:adjust).
  "layer:create": { unsupported: ["script"], unsupportedTypes: ["adjustment", "fill"] },
  "layer:updateText": { unsupported: ["script"] },
  "layer:update": { unsupported: ["fillOpacity", "adjustment", "fill"] },
  "layer:delete": {},
  "layer:duplicate": {},
  "layer:move": {},
  "layer:group": {},
  "layer:ungroup": {},
  "layer:merge": {},
  "layer:rasterize": {},
  "layer:fill": {},
  "layer:clear": {},
  "layer:transform": {},
  "layer:addMask": {},
  "layer:deleteMask": {},
  "layer:applyMask": {},
  "layer:updateMask": { unsupported: ["linked", "density", "feather"] },
  // GIMP 2.10 has no smart objects: every layer whose contents are replaced is (or becomes) a pixel layer.
  "layer:replaceContents": {},
  "document:resize": {},
  "document:resizeCanvas": {},
  "document:crop": {},
  "document:rotate": {},
  "document:flip": {},
  "document:duplicate": {},
  "document:flatten": {},
  "document:trim": {},
  "selection:all": {},
  "selection:clear": {},
  "selection:invert": {},
  "selection:modify": {},
  "selection:fromLayer": {},
  "selection:fromColor": {},
  "layer:adjust": { unsupportedTypes: GIMP_UNSUPPORTED_ADJUSTMENTS },
  "filter:apply": { unsupportedTypes: GIMP_UNSUPPORTED_FILTERS },
};

/** What an edit made, in GIMP's ids. */
export interface GimpEditMade {
  readonly layerId?: number | undefined;
  readonly documentId?: number | undefined;
}

/** `br-where`'s place kinds. */
const PLACE_KIND = { above: 0, below: 1, parent: 2, top: 3, bottom: 4 } as const;

/** GIMP's `GimpInterpolationType` per resampling method. */
const INTERPOLATION: Readonly<Record<ResampleMethod, number>> = { nearest: 0, bilinear: 1, bicubic: 2 };

/** GIMP's `GimpChannelOps` per selection mode. */
const CHANNEL_OP: Readonly<Record<SelectionMode, number>> = { add: 0, subtract: 1, replace: 2, intersect: 3 };

/** `br-doc-flip`'s directions. */
const FLIP: Readonly<Record<FlipDirection, number>> = { horizontal: 1, vertical: 2, both: 3 };

/** `br-select-modify`'s changes. */
const MODIFY = { expand: 0, contract: 1, feather: 2, smooth: 3, border: 4 } as const;

/** GIMP's `GimpAddMaskType` per mask source, and `GimpMaskApplyMode`. */
const ADD_MASK = { revealAll: 0, hideAll: 1, selection: 4 } as const;
const MASK_APPLY = 0;
const MASK_DISCARD = 1;

/** Most a colour channel differs from another (0–255) as GIMP's sample threshold (0–1), inclusive of `tolerance`. */
function threshold(tolerance: number): string {
  return num(Math.min(1, (tolerance + 0.5) / 255));
}

/** `place` as `br-where`'s kind and target. */
function where(place: EditPlace): string {
  if ("above" in place) return `${PLACE_KIND.above} ${int(place.above)}`;
  if ("below" in place) return `${PLACE_KIND.below} ${int(place.below)}`;
  if ("parent" in place) return `${PLACE_KIND.parent} ${int(place.parent)}`;
  return `${PLACE_KIND[place.to]} -1`;
}

const rgb = ([r, g, b]: Rgba): string => `${int(r)} ${int(g)} ${int(b)}`;
const ids = (list: readonly number[]): string => `(list ${list.map(int).join(" ")})`;
const flag = (value: boolean | undefined): string => (value === undefined ? "-1" : value ? "1" : "0");

/** A layer mode by the records' name. @throws BridgeError `NOT_SUPPORTED` naming `blendMode` when GIMP has none. */
function layerMode(edit: EditOp, name: string, painting: boolean): string {
  const mode = GIMP_LAYER_MODES[name];
  if (mode === undefined || (painting && NOT_PAINT_MODES.has(name))) {
    throw new BridgeError("NOT_SUPPORTED", `GIMP cannot ${painting ? "paint" : "blend"} in ${name} mode`, {
      details: { editor: "gimp", capability: edit.op, field: "blendMode", blendMode: name },
    });
  }
  return int(mode);
}

/** What the edits need to know besides the edit. */
export interface GimpEditLimits {
  /** Most pixels (width × height) a document or layer may have after an edit: the bridge's `maxDocumentPixels`. */
  readonly maxDocumentPixels: number;
}

/** @throws BridgeError `PAYLOAD_TOO_LARGE` `{limit: "maxDocumentPixels"}` when a `width` × `height` result passes the limit. */
export function checkPixels(width: number, height: number, maxPixels: number): void {
  if (width * height <= maxPixels) return;
  throw new BridgeError("PAYLOAD_TOO_LARGE", `A result of ${width}×${height} exceeds ${maxPixels} pixels`, {
    details: { width, height, maxPixels, limit: "maxDocumentPixels" },
  });
}

/** GIMP's `GimpTextJustification` per alignment. */
const JUSTIFY: Readonly<Record<TextSpec["alignment"], number>> = { left: 0, right: 1, center: 2, justify: 3 };
/** GIMP's `GimpTextDirection` for the horizontal directions. */
const TEXT_DIRECTION = { ltr: 0, rtl: 1 } as const;

/**
 * `br-text-create`'s and `br-text-update`'s arguments after the layer: text, GIMP's name of the font, size, colour,
 * justification, leading (0: the font's own), tracking in ems, antialiasing, direction, language, then the
 * placement (`x y w h`, `w` 0 for a point).
 * @throws BridgeError `FONT_NOT_FOUND` `{font, near}`; `NOT_SUPPORTED` for vertical text, a colour that is not
 * opaque, a baseline shift, or an anti-aliasing method other than `smooth` and `none`
 */
function textArgs(edit: EditOp & { readonly text: TextSpec }, fonts: readonly FontInfo[]): string {
  const spec = edit.text;
  const font = matchFont(fonts, spec.font);
  if (font === undefined) throw fontNotFound(fonts, spec.font);
  const refuse = (field: string, why: string, value: unknown): BridgeError =>
    new BridgeError("NOT_SUPPORTED", `GIMP 2.10 ${why}`, { details: { editor: "gimp", capability: edit.op, field, [field]: value } });
  if (spec.direction === "ttb" || spec.direction === "btt") throw refuse("direction", "text layers run horizontally here", spec.direction);
  // A text layer's colour has no alpha in GIMP (the layer's opacity is a separate setting).
  if (spec.color[3] !== 255) throw refuse("color", "text colours are opaque: set the layer's opacity instead", spec.color[3]);
  // GIMP's text layers are anti-aliased or not, and shift no baseline (only markup shifts characters).
  if (spec.antiAlias !== "smooth" && spec.antiAlias !== "none") throw refuse("antiAlias", "anti-aliases text on or off only (smooth or none)", spec.antiAlias);
  if ((spec.baselineShift ?? 0) !== 0) throw refuse("baselineShift", "text layers have no baseline shift", spec.baselineShift);
  const place = spec.box === undefined ? `${num(spec.position?.x ?? 0)} ${num(spec.position?.y ?? 0)} 0 0` : `${int(Math.round(spec.box.x))} ${int(Math.round(spec.box.y))} ${int(Math.max(1, Math.round(spec.box.width)))} ${int(Math.max(1, Math.round(spec.box.height)))}`;
  return [
    lit(spec.text),
    lit(font.postScriptName),
    num(spec.size),
    rgb(spec.color),
    JUSTIFY[spec.alignment],
    num(spec.leading ?? 0),
    num(spec.tracking / 1000),
    spec.antiAlias === "none" ? 0 : 1,
    TEXT_DIRECTION[spec.direction ?? "ltr"],
    lit(spec.language ?? ""),
    place,
  ].join(" ");
}

function layerForm(img: string, edit: LayerEdit, limits: GimpEditLimits, fonts: readonly FontInfo[]): string {
  switch (edit.op) {
    case "layer:create": {
      if (edit.kind === "text") return `(br-text-create ${img} ${lit(edit.name)} ${textArgs(edit, fonts)} ${where(edit.place)})`;
      const [fill, color, opacity] = edit.fillColor === undefined ? [0, [0, 0, 0, 0] as const, 0] : [1, edit.fillColor, (edit.fillColor[3] * 100) / 255];
      return `(br-layer-create ${img} ${edit.kind === "group" ? 1 : 0} ${lit(edit.name)} ${fill} ${rgb(color)} ${num(opacity)} ${where(edit.place)})`;
    }
    case "layer:update": {
      const mode = edit.blendMode === undefined ? "-1" : layerMode(edit, edit.blendMode, false);
      const name = edit.name === undefined ? "#f" : lit(edit.name);
      return `(br-layer-update ${img} ${int(edit.layerId)} ${name} ${flag(edit.visible)} ${edit.opacity === undefined ? "-1" : num(edit.opacity)} ${mode} ${flag(edit.locked)})`;
    }
    case "layer:updateText":
      return `(br-text-update ${img} ${int(edit.layerId)} ${textArgs(edit, fonts)})`;
    case "layer:delete":
      return `(br-layer-delete ${img} ${int(edit.layerId)})`;
    case "layer:duplicate":
      return `(br-layer-duplicate ${img} ${int(edit.layerId)} ${lit(edit.name)} ${where(edit.place)})`;
    case "layer:move":
      return `(br-layer-move ${img} ${int(edit.layerId)} ${where(edit.place)})`;
    case "layer:group":
      return `(br-layer-group ${img} ${ids(edit.layerIds)} ${lit(edit.name)})`;
    case "layer:ungroup":
      return `(br-layer-ungroup ${img} ${int(edit.layerId)})`;
    case "layer:merge":
      return `(br-layer-merge ${img} ${ids(edit.layerIds)} ${lit(edit.name)})`;
    case "layer:rasterize":
      return `(br-layer-rasterize ${img} ${int(edit.layerId)})`;
    case "layer:fill": {
      const opacity = (edit.opacity * edit.color[3]) / 255;
      return `(br-layer-fill ${img} ${int(edit.layerId)} ${rgb(edit.color)} ${num(opacity)} ${layerMode(edit, edit.blendMode, true)})`;
    }
    case "layer:clear":
      return `(br-layer-clear ${img} ${int(edit.layerId)})`;
    case "layer:transform": {
      const m = layerMatrix(edit);
      const turn = exactTurn(m);
      // 1: a whole-pixel move; 2: quarter turns and a mirror, made exactly; 0: resampled through the matrix.
      const how = turn === undefined ? 0 : m.translation ? 1 : 2;
      const coefficients = [m.a, m.b, m.c, m.d, m.e, m.f].map(num).join(" ");
      const exact = `${turn?.quarters ?? 0} ${turn?.mirror === true ? 1 : 0}`;
      return `(br-layer-transform ${img} ${int(edit.layerId)} ${how} ${exact} ${coefficients} ${INTERPOLATION[edit.resample]} ${int(limits.maxDocumentPixels)})`;
    }
    case "layer:addMask":
      return `(br-mask-add ${img} ${int(edit.layerId)} ${ADD_MASK[edit.from]})`;
    case "layer:deleteMask":
      return `(br-mask-remove ${img} ${int(edit.layerId)} ${MASK_DISCARD})`;
    case "layer:applyMask":
      return `(br-mask-remove ${img} ${int(edit.layerId)} ${MASK_APPLY})`;
    case "layer:updateMask":
      return `(br-mask-update ${img} ${int(edit.layerId)} ${flag(edit.enabled)})`;
    case "layer:replaceContents":
      // Its image goes through a file: `editOps` stages it and makes the form with `replaceForm`.
      throw new Error("layer:replaceContents needs its image staged: use replaceForm");
  }
}

function documentForm(img: string, edit: DocumentEdit, limits: GimpEditLimits): string {
  switch (edit.op) {
    case "document:resize":
      checkPixels(edit.width, edit.height, limits.maxDocumentPixels);
      return `(br-doc-resize ${img} ${int(edit.width)} ${int(edit.height)} ${num(edit.resolution)} ${INTERPOLATION[edit.resample]})`;
    case "document:resizeCanvas":
      checkPixels(edit.width, edit.height, limits.maxDocumentPixels);
      return `(br-doc-canvas ${img} ${int(edit.width)} ${int(edit.height)} ${int(edit.offsetX)} ${int(edit.offsetY)} ${rgb(edit.fillColor)} ${int(edit.fillColor[3])})`;
    case "document:crop": {
      const { x, y, width, height } = edit.rect;
      return `(br-doc-crop ${img} ${int(x)} ${int(y)} ${int(width)} ${int(height)})`;
    }
    case "document:rotate":
      return `(br-doc-rotate ${img} ${num(edit.angle)} ${int(limits.maxDocumentPixels)})`;
    case "document:flip":
      return `(br-doc-flip ${img} ${FLIP[edit.direction]})`;
    case "document:duplicate":
      return `(br-doc-duplicate ${img} ${lit(edit.name)})`;
    case "document:flatten":
      return `(br-doc-flatten ${img})`;
    case "document:trim":
      return `(br-doc-trim ${img})`;
  }
}

function selectionForm(img: string, edit: SelectionEdit): string {
  switch (edit.op) {
    case "selection:all":
      return `(br-select-all ${img})`;
    case "selection:clear":
      return `(br-select-none ${img})`;
    case "selection:invert":
      return `(br-select-invert ${img})`;
    case "selection:modify":
      return `(br-select-modify ${img} ${MODIFY[edit.how]} ${num(edit.pixels)})`;
    case "selection:fromLayer":
      return `(br-select-layer ${img} ${CHANNEL_OP[edit.mode]} ${int(edit.layerId)})`;
    case "selection:fromColor": {
      const point = edit.point ?? { x: 0, y: 0 };
      const color = edit.color ?? [0, 0, 0, 255];
      const layer = edit.layerId ?? -1;
      const args = [CHANNEL_OP[edit.mode], int(layer), edit.sampleMerged ? 1 : 0, edit.contiguous ? 1 : 0, int(point.x), int(point.y), rgb(color), threshold(edit.tolerance)];
      return `(br-select-color ${img} ${args.join(" ")})`;
    }
  }
}

/** `br-layer-replace`'s fits. */
const FIT: Readonly<Record<FitMode, number>> = { contain: 0, cover: 1, fill: 2, none: 3 };

/**
 * How GIMP scales a replaced image: cubic, as close as GIMP comes to the embedded editor's (sharp's Lanczos) without
 * NoHalo's or LoHalo's cost on large images.
 */
const REPLACE_INTERPOLATION = INTERPOLATION.bicubic;

/** The `br-layer-replace` call putting the image staged at `file` (a PNG of the edit's image) into its layer. */
export function replaceForm(documentId: number, edit: ReplaceContents, file: string, limits: GimpEditLimits): string {
  const { image, box } = edit;
  const placed = box === null ? "0 0 -1 -1" : [box.x, box.y, box.width, box.height].map(num).join(" ");
  const fit = `${FIT[edit.fit]} ${num(edit.alignment[0])} ${num(edit.alignment[1])}`;
  return `(br-layer-replace ${int(documentId)} ${int(edit.layerId)} ${lit(file)} ${int(image.width)} ${int(image.height)} ${fit} ${placed} ${REPLACE_INTERPOLATION} ${int(limits.maxDocumentPixels)})`;
}

/**
 * The edit's image as the XCF GIMP loads (GIMP only ever loads pixels sharp decoded): upright, sRGB, with alpha, at
 * its own size (GIMP scales it into the box).
 * @throws BridgeError `BAD_REQUEST` when the image cannot be decoded
 */
async function replacementXcf(image: EditImage): Promise<Buffer> {
  try {
    const { data, info } = await sharp(image.bytes, { limitInputPixels: image.width * image.height })
      .rotate()
      .toColourspace("srgb")
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return await writeXcfLayer({ width: info.width, height: info.height, data });
  } catch (cause) {
    throw new BridgeError("BAD_REQUEST", "The image could not be decoded", { details: { format: image.format }, cause });
  }
}

/** Whether an edit names a font (a text layer made or changed). */
export const namesFont = (edit: EditOp): boolean => edit.op === "layer:updateText" || (edit.op === "layer:create" && edit.kind === "text");

/** The `br-…` call making one edit of image `documentId`; `fonts`, GIMP's, for an edit that {@link namesFont}. */
export function editForm(documentId: number, edit: EditOp, limits: GimpEditLimits, fonts: readonly FontInfo[] = []): string {
  const img = int(documentId);
  if (edit.op === "layer:adjust" || edit.op === "filter:apply") return filterForm(img, edit as FilterEdit);
  if (edit.op.startsWith("layer:")) return layerForm(img, edit as LayerEdit, limits, fonts);
  if (edit.op.startsWith("document:")) return documentForm(img, edit as DocumentEdit, limits);
  return selectionForm(img, edit as SelectionEdit);
}

/** Edits whose answer is the layer they made. */
const MAKES_LAYER: ReadonlySet<string> = new Set(["layer:create", "layer:duplicate", "layer:group", "layer:merge"]);

/** The GIMP adapter's edits, in GIMP's ids; `fonts` lists GIMP's fonts (for the text edits). */
export function editOps(
  session: GimpSession,
  limits: GimpEditLimits,
  fonts: (ctx: HostCallContext) => Promise<FontInfo[]>,
): { edit(ctx: HostCallContext, documentId: number, edit: EditOp): Promise<GimpEditMade> } {
  return {
    async edit(ctx, documentId, edit) {
      // Refused before anything is sent when the form alone shows the result is too large or names no font GIMP has.
      const send = async (form: string): Promise<Sexp> => {
        try {
          return await session.call(ctx, form);
        } catch (error) {
          // A PDB error inside the undo group ends the request with the group open: close it now.
          await session.call(ctx, "(br-edit-repair)").catch(() => {});
          throw error;
        }
      };
      let value: Sexp;
      if (edit.op === "layer:replaceContents") {
        // The image reaches GIMP as an XCF file of the exchange folder (GIMP's core loads it, no plug-in starts),
        // removed once GIMP has loaded it.
        const xcf = await replacementXcf(edit.image);
        value = await session.scratch(".xcf", async (file) => {
          await writeFile(file, xcf, { mode: 0o600, flag: "wx" });
          return send(replaceForm(documentId, edit, file, limits));
        });
      } else {
        value = await send(editForm(documentId, edit, limits, namesFont(edit) ? await fonts(ctx) : []));
      }
      if (MAKES_LAYER.has(edit.op)) return { layerId: asNumber(value, "new layer id") };
      if (edit.op === "document:duplicate") {
        const copy = asNumber(value, "new image id");
        session.activeImage = copy;
        return { documentId: copy };
      }
      return {};
    },
  };
}
