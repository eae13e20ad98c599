import type { ResolvedAdjustment, ResolvedFilter } from "../protocol/adjustments.js";
import type { ResolvedEffects, ResolvedGlobalLight } from "../protocol/effects.js";
import type { ResolvedFill } from "../protocol/fills.js";
import type { HostRect, TEXT_ALIGNMENTS, TEXT_ANTI_ALIAS, TEXT_DIRECTIONS } from "../protocol/index.js";

/*
 * The editing vocabulary as editors receive it. The methods (`src/methods/edit-layer.ts`, `edit-document.ts`, `edit-selection.ts`) decide every default, check every
 * reference against the document's tree and turn colours, anchors and places into the plain values below, so an
 * editor implements each edit once, narrowly, with nothing left to interpret. Each edit is one step of the
 * document's history where the editor has one (an undo group on GIMP, one history state on Photoshop).
 */

/**
 * A colour as red, green, blue and alpha, each 0–255: the same shape as the editor interface's `Rgba`, written out
 * here because that interface is built on this file (a type import back would make a circle).
 */
type Rgba = readonly [number, number, number, number];

/** Where a layer goes in the stack: above or below a layer, at the top of a group's children, or at a stack end. */
export type EditPlace =
  | { readonly above: number }
  | { readonly below: number }
  /** Inside this group, at the top of its children. */
  | { readonly parent: number }
  /** The top or bottom of the document's own stack (outside every group). */
  | { readonly to: "top" | "bottom" };

export type ResampleMethod = "nearest" | "bilinear" | "bicubic";

export type FlipDirection = "horizontal" | "vertical" | "both";

/** How a new selection combines with the one there is. */
export type SelectionMode = "replace" | "add" | "subtract" | "intersect";

/**
 * A text layer's text and type settings, resolved by the methods: every field decided (an update's fields merged
 * over what the layer had), colours parsed. The editor finds `font` among its fonts (`FONT_NOT_FOUND` with the
 * closest names when it has none such) and turns points into pixels with the document's resolution.
 */
export interface TextSpec {
  /** `\n` breaks lines. */
  readonly text: string;
  /** A PostScript name, a full name (`Noto Sans Bold`) or a family (its regular style), as the caller gave it. */
  readonly font: string;
  /** Points. */
  readonly size: number;
  readonly color: Rgba;
  /**
   * Point text: where the first line's baseline starts, in document pixels (its left end for left alignment, its
   * middle for centre, its right end for right). Exactly one of `position` and `box`.
   */
  readonly position?: { readonly x: number; readonly y: number } | undefined;
  /** Paragraph text: the box, in document pixels, the lines wrap in (and are cut at). */
  readonly box?: HostRect | undefined;
  readonly alignment: (typeof TEXT_ALIGNMENTS)[number];
  /** Points between baselines; undefined: the font's own line height. */
  readonly leading?: number | undefined;
  /** Thousandths of an em added after every character. */
  readonly tracking: number;
  /** Points the glyphs move up from the baseline (down when negative); undefined: 0. */
  readonly baselineShift?: number | undefined;
  readonly antiAlias: (typeof TEXT_ANTI_ALIAS)[number];
  /** Undefined: from the text's script. Vertical directions are refused by editors that cannot set them. */
  readonly direction?: (typeof TEXT_DIRECTIONS)[number] | undefined;
  /** ISO 15924 tag; undefined: from the text. */
  readonly script?: string | undefined;
  /** BCP 47 tag; undefined: none. */
  readonly language?: string | undefined;
}

export type LayerEdit =
  | {
      readonly op: "layer:create";
      readonly kind: "pixel" | "group" | "adjustment" | "fill";
      readonly name: string;
      readonly fillColor?: Rgba | undefined;
      /** With kind `adjustment`. */
      readonly adjustment?: ResolvedAdjustment | undefined;
      /** With kind `fill`. */
      readonly fill?: ResolvedFill | undefined;
      readonly place: EditPlace;
    }
  /** A new text layer, made the active one. */
  | { readonly op: "layer:create"; readonly kind: "text"; readonly name: string; readonly text: TextSpec; readonly place: EditPlace }
  /** The layer's text and settings become `text` (every field, merged by the methods); it is drawn again. */
  | { readonly op: "layer:updateText"; readonly layerId: number; readonly text: TextSpec }
  | {
      readonly op: "layer:update";
      readonly layerId: number;
      readonly name?: string | undefined;
      readonly visible?: boolean | undefined;
      /** 0–100. */
      readonly opacity?: number | undefined;
      /** One of the layer records' names (`normal`, `multiply`, `linear burn`…). */
      readonly blendMode?: string | undefined;
      readonly locked?: boolean | undefined;
      /** 0–100. */
      readonly fillOpacity?: number | undefined;
      /** An adjustment layer's settings, replacing its own. */
      readonly adjustment?: ResolvedAdjustment | undefined;
      /** A fill layer's fill, replacing its own. */
      readonly fill?: ResolvedFill | undefined;
    }
  | { readonly op: "layer:delete"; readonly layerId: number }
  | { readonly op: "layer:duplicate"; readonly layerId: number; readonly name: string; readonly place: EditPlace }
  | { readonly op: "layer:move"; readonly layerId: number; readonly place: EditPlace }
  /** The layers (top-most first, as in the tree) become the children of a new group, put where the top-most was. */
  | { readonly op: "layer:group"; readonly layerIds: readonly number[]; readonly name: string }
  /** The group's children take its place, in order; the group goes. */
  | { readonly op: "layer:ungroup"; readonly layerId: number }
  /** The layers (top-most first, at least two) become one pixel layer named `name`, where the top-most was. */
  | { readonly op: "layer:merge"; readonly layerIds: readonly number[]; readonly name: string }
  | { readonly op: "layer:rasterize"; readonly layerId: number }
  /** Fills the selection, or the whole layer when nothing is selected. */
  | { readonly op: "layer:fill"; readonly layerId: number; readonly color: Rgba; readonly opacity: number; readonly blendMode: string }
  /** Makes the selected pixels transparent (the whole layer when nothing is selected). */
  | { readonly op: "layer:clear"; readonly layerId: number }
  /**
   * Puts `image` into the layer, which keeps its name, place, masks, style, blend mode and opacity (see
   * {@link ReplaceContents}).
   */
  | ReplaceContents
  /**
   * Scale (percent), then rotate (degrees, clockwise), then flip, all about `anchor` (document pixels), then move by
   * `dx`, `dy`.
   */
  | {
      readonly op: "layer:transform";
      readonly layerId: number;
      readonly dx: number;
      readonly dy: number;
      readonly scaleX: number;
      readonly scaleY: number;
      readonly angle: number;
      readonly flip: FlipDirection | "none";
      readonly anchor: { readonly x: number; readonly y: number };
      readonly resample: ResampleMethod;
    }
  | { readonly op: "layer:addMask"; readonly layerId: number; readonly from: "selection" | "revealAll" | "hideAll" }
  | { readonly op: "layer:deleteMask"; readonly layerId: number }
  | { readonly op: "layer:applyMask"; readonly layerId: number }
  | {
      readonly op: "layer:updateMask";
      readonly layerId: number;
      readonly enabled?: boolean | undefined;
      readonly linked?: boolean | undefined;
      /** 0–100. */
      readonly density?: number | undefined;
      /** Pixels. */
      readonly feather?: number | undefined;
    };

/** An image the methods read and checked (its header: format and size), not yet decoded. */
export interface EditImage {
  readonly bytes: Uint8Array;
  readonly format: string;
  readonly width: number;
  readonly height: number;
}

/** How an image is sized into a box: whole inside it, covering it (cut), stretched to it, or at its own size. */
export type FitMode = "contain" | "cover" | "fill" | "none";

/**
 * `layer:replaceContents`. A pixel layer (text, shape and fill layers become one) takes the image sized by `fit`
 * into `box` (document pixels), placed by `alignment` (fractions of the spare room: 0 left/top, 1 right/bottom),
 * cut to the box. A smart object takes the image into its own frame (`box` is then null) through its transform,
 * and stays a smart object whose embedded file is the image.
 */
export interface ReplaceContents {
  readonly op: "layer:replaceContents";
  readonly layerId: number;
  readonly image: EditImage;
  readonly fit: FitMode;
  readonly alignment: readonly [number, number];
  /** Null: the layer's own bounds (the canvas when it is empty); always null on a smart object. */
  readonly box: HostRect | null;
}

/** What a layer comp records of each layer. */
export interface LayerCompCaptures {
  readonly visibility: boolean;
  readonly position: boolean;
  readonly appearance: boolean;
}

/** A layer comp as editors report it. */
export interface LayerCompInfo {
  readonly id: number;
  readonly name: string;
  readonly comment: string | null;
  readonly captures: LayerCompCaptures;
}

/** A document's layer comps, in the file's order, and the one last applied (null: none). */
export interface LayerCompList {
  readonly documentId: number;
  readonly comps: readonly LayerCompInfo[];
  readonly lastApplied: number | null;
}

/** The layer comp edits: each one step of the document's history. Comps are named by id (the methods look names up). */
export type CompEdit =
  /** Sets every layer's visibility and position (as the comp captures them) to what the comp recorded. */
  | { readonly op: "layerComp:apply"; readonly compId: number }
  /** A new comp recording every layer as it is now; the outcome's `compId` names it. */
  | { readonly op: "layerComp:create"; readonly name: string; readonly comment: string | null; readonly captures: LayerCompCaptures }
  /** Renames, re-describes or changes what the comp captures; with `recapture`, records the layers as they are now. */
  | {
      readonly op: "layerComp:update";
      readonly compId: number;
      readonly name: string;
      readonly comment: string | null;
      readonly captures: LayerCompCaptures;
      readonly recapture: boolean;
    }
  | { readonly op: "layerComp:delete"; readonly compId: number };

export type DocumentEdit =
  /** Resamples every layer to the new size; `resolution` is written as given (ppi). */
  | { readonly op: "document:resize"; readonly width: number; readonly height: number; readonly resolution: number; readonly resample: ResampleMethod }
  /** The canvas becomes `width` × `height`; what was at (0, 0) lands at (`offsetX`, `offsetY`). */
  | {
      readonly op: "document:resizeCanvas";
      readonly width: number;
      readonly height: number;
      readonly offsetX: number;
      readonly offsetY: number;
      /** What a background layer's new area is filled with (other layers grow transparent). */
      readonly fillColor: Rgba;
    }
  | { readonly op: "document:crop"; readonly rect: HostRect }
  /** Degrees clockwise; the canvas grows to hold the whole rotated image. */
  | { readonly op: "document:rotate"; readonly angle: number }
  | { readonly op: "document:flip"; readonly direction: FlipDirection }
  | { readonly op: "document:duplicate"; readonly name: string }
  | { readonly op: "document:flatten" }
  /** Crops away the fully transparent edges of the composite (nothing when it has none or is all transparent). */
  | { readonly op: "document:trim" };

export type SelectionEdit =
  | { readonly op: "selection:all" }
  | { readonly op: "selection:clear" }
  | { readonly op: "selection:invert" }
  | { readonly op: "selection:modify"; readonly how: "expand" | "contract" | "feather" | "smooth" | "border"; readonly pixels: number }
  /** The layer's transparency (alpha) as a selection. */
  | { readonly op: "selection:fromLayer"; readonly layerId: number; readonly mode: SelectionMode }
  /**
   * Pixels close to a colour (each channel within `tolerance`, 0–255): the colour at `point` (contiguous: the region
   * connected to it, as a magic wand) or `color` (everywhere, as a colour range), sampled from `layerId` or, with
   * `sampleMerged`, from the composite.
   */
  | {
      readonly op: "selection:fromColor";
      readonly point?: { readonly x: number; readonly y: number } | undefined;
      readonly color?: Rgba | undefined;
      readonly tolerance: number;
      readonly contiguous: boolean;
      readonly sampleMerged: boolean;
      /** The layer sampled; undefined with `sampleMerged` when none was named and none is active. */
      readonly layerId: number | undefined;
      readonly mode: SelectionMode;
    };

/**
 * The destructive operations: an adjustment or a filter applied to a pixel layer's pixels, inside the selection
 * when there is one (soft edges partly), everywhere otherwise. Settings arrive resolved (see `protocol/adjustments.ts`).
 */
export type FilterEdit =
  | { readonly op: "layer:adjust"; readonly layerId: number; readonly adjustment: ResolvedAdjustment }
  | { readonly op: "filter:apply"; readonly layerId: number; readonly filter: ResolvedFilter };

/**
 * A layer's effects replaced whole (an empty `effects` clears them), and the document's global light set when the
 * call names it, in one step. Settings arrive resolved (see `protocol/effects.ts`).
 */
export interface EffectsEdit {
  readonly op: "layer:setEffects";
  readonly layerId: number;
  readonly effects: ResolvedEffects;
  readonly globalLight?: ResolvedGlobalLight | undefined;
}

/** One edit, as the methods send it to an editor. */
export type EditOp = LayerEdit | DocumentEdit | SelectionEdit | FilterEdit | EffectsEdit | CompEdit;

/** Every edit's name: the method that sends it. */
export type EditName = EditOp["op"];

/** An edit of one document. */
export interface EditRequest {
  readonly documentId: number;
  readonly edit: EditOp;
}

/** What an edit answers. */
export interface EditOutcome {
  /** The document's revision after the edit (for `document:duplicate`, the source's). */
  readonly revision: number;
  /** The layer the edit made (`layer:create`, `duplicate`, `group`, `merge`). */
  readonly layerId?: number | undefined;
  /** The document the edit made (`document:duplicate`). */
  readonly documentId?: number | undefined;
  /** The layer comp the edit made (`layerComp:create`). */
  readonly compId?: number | undefined;
}

/**
 * What an editor can edit: each edit it implements, with the fields of that edit it cannot honour (an edit passing
 * one answers `NOT_SUPPORTED` naming the field). An edit left out is `NOT_SUPPORTED` as a whole.
 */
export type EditCapabilities = { readonly [K in EditName]?: EditCapability };

/**
 * One edit an editor makes: the fields it cannot honour, and for `layer:adjust` / `filter:apply` the adjustment or
 * filter types it cannot make (a call naming one answers `NOT_SUPPORTED` `{editor, capability, type}`); for
 * `layer:create`, the layer kinds it cannot make (`adjustment`, `fill`: `NOT_SUPPORTED` `{editor, capability:
 * "adjustment layers" | "fill layers"}`).
 */
export interface EditCapability {
  readonly unsupported?: readonly string[];
  readonly unsupportedTypes?: readonly string[];
}

/**
 * Whether an editor makes text layers: it has `layer:updateText` among its edits, and with it `layer:create`
 * `{kind: "text"}` and `listFonts`. One capability, `text`, for the three.
 */
export const hasText = (capabilities: EditCapabilities | undefined): boolean => capabilities?.["layer:updateText"] !== undefined;
