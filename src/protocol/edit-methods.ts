import { z } from "zod";
import { AdjustmentSchema } from "./adjustments.js";
import { FillSchema } from "./fills.js";
import { BinaryPartSchema, EditedLayerSchema, HostDocumentSchema, HostLayerSchema, HostRectSchema, PointSchema } from "./resources.js";
import { onePlacement, onePlacementMessage, TEXT_SETTINGS, TextStringSchema } from "./text.js";

/*
 * Params and result schemas of the editing vocabulary: layers, documents, selections and masks as typed methods
 * that behave the same on every editor. Every one takes `documentId?` (default: the active document) and
 * `ifRevision?` (answered `CONFLICT` when the document's revision moved on); one acting on one layer takes
 * `layerId?` or `layerIndex?` (none: the active layer).
 */

/** Longest side of a document or a canvas an edit may ask for, in pixels (as `document:create`). */
export const MAX_EDIT_SIDE = 30_000;
/** Most layers one edit may name. */
export const MAX_EDIT_LAYERS = 10_000;
/** Largest move, in pixels, either way. */
const MAX_OFFSET = 1_000_000;
/** Largest scale, in percent. */
const MAX_SCALE_PERCENT = 10_000;
/** Largest radius of a selection change, in pixels. */
export const MAX_SELECTION_RADIUS = 1_000;

const documentId = z.number().int().optional();
const layerId = z.number().int();
const layerIndex = z.number().int().nonnegative();
/** The revision the caller last saw; the edit is refused with `CONFLICT` when the document has another. */
const ifRevision = z.number().int().nonnegative().optional();
/** A colour string: `#rgb`, `#rrggbb`, `#rrggbbaa`, or a name (white, black, transparent, red, green, blue, gray). */
const color = z.string().min(1).max(64);
const percent = z.number().min(0).max(100);
const side = z.number().int().min(1).max(MAX_EDIT_SIDE);
const name = z.string().min(1).max(255);
const resample = z.enum(["nearest", "bilinear", "bicubic"]);
const flip = z.enum(["horizontal", "vertical", "both"]);
const selectionMode = z.enum(["replace", "add", "subtract", "intersect"]);
/** The nine points of a box by name, or a point in document pixels. */
export const ANCHOR_NAMES = ["center", "topLeft", "top", "topRight", "left", "right", "bottomLeft", "bottom", "bottomRight"] as const;
const anchor = z.union([z.enum(ANCHOR_NAMES), PointSchema]);
const ids = z.array(layerId).min(1).max(MAX_EDIT_LAYERS);

const Edit = { documentId, ifRevision };
const Ref = { ...Edit, layerId: layerId.optional(), layerIndex: layerIndex.optional() };
/** Where a layer goes: at most one; none means above the active layer (the top of the stack when none is active). */
const Place = {
  above: layerId.optional(),
  below: layerId.optional(),
  /** A group: at the top of its children. */
  parent: layerId.optional(),
  to: z.enum(["top", "bottom"]).optional(),
};

type RefFields = { layerId?: number | undefined; layerIndex?: number | undefined };
type PlaceFields = { above?: number | undefined; below?: number | undefined; parent?: number | undefined; to?: string | undefined };
const oneRef = (p: unknown): boolean => (p as RefFields).layerId === undefined || (p as RefFields).layerIndex === undefined;
const oneRefMessage = { message: "pass at most one of layerId and layerIndex", path: ["layerId"] };
const onePlace = (p: PlaceFields): boolean => [p.above, p.below, p.parent, p.to].filter((v) => v !== undefined).length <= 1;
const onePlaceMessage = { message: "pass at most one of above, below, parent and to", path: ["above"] };
const distinct = (list: readonly number[] | undefined): boolean => list === undefined || new Set(list).size === list.length;
const distinctMessage = { message: "ids must not repeat", path: ["ids"] };

/** A selection after an edit: its bounds (`null`: nothing selected) and the document's revision. */
export const EditedSelectionSchema = z.object({ documentId: z.number().int(), revision: z.number().int().nonnegative(), bounds: HostRectSchema.nullable() });

/** The fields only a text layer takes. */
const TEXT_FIELDS = ["text", ...Object.keys(TEXT_SETTINGS)] as ReadonlyArray<"text" | keyof typeof TEXT_SETTINGS>;

const layerEdit = <S extends z.ZodRawShape>(shape: S) => z.object({ ...Ref, ...shape }).strict().refine(oneRef, oneRefMessage);

/** How `layer:replaceContents` sizes an image into its box (see docs/editing.md). */
export const FIT_MODES = ["contain", "cover", "fill", "none"] as const;
/** Longest layer comp name, and comment, in characters. */
const MAX_COMP_NAME = 255;
const MAX_COMP_COMMENT = 4_096;

/** What a layer comp records of each layer. */
export const LayerCompCapturesSchema = z.object({ visibility: z.boolean(), position: z.boolean(), appearance: z.boolean() });
/** One layer comp: its id (Photoshop's, kept in the file), name, comment (`null`: none) and what it captures. */
export const LayerCompSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  comment: z.string().nullable(),
  captures: LayerCompCapturesSchema,
});
/** A comp by `id` or by `name` (exactly one). */
const compRef = { id: z.number().int().optional(), name: z.string().min(1).max(MAX_COMP_NAME).optional() };
const oneComp = (p: { id?: number | undefined; name?: string | undefined }): boolean => (p.id === undefined) !== (p.name === undefined);
const oneCompMessage = { message: "pass exactly one of id and name", path: ["id"] };
/** What the layer comp edits answer: the comp as it is now, the document and its revision. */
const EditedCompSchema = z.object({ documentId: z.number().int(), revision: z.number().int().nonnegative(), comp: LayerCompSchema });

/** The editing methods' schemas, merged into the method table. */
export const EDIT_METHOD_SCHEMAS = {
  "layer:create": {
    // `kind: "text"` takes `text`, `font` and `size` (and the other type settings); no other kind takes any of them.
    params: z
      .object({
        ...Edit,
        kind: z.enum(["pixel", "group", "text", "adjustment", "fill"]).optional(),
        name: name.optional(),
        fillColor: color.optional(),
        /** With `kind: "adjustment"`: what it does (see `adjustments.ts`). */
        adjustment: AdjustmentSchema.optional(),
        /** With `kind: "fill"`: what it is filled with (see `fills.ts`). */
        fill: FillSchema.optional(),
        ...Place,
        text: TextStringSchema.optional(),
        ...TEXT_SETTINGS,
        font: TEXT_SETTINGS.font.optional(),
        size: TEXT_SETTINGS.size.optional(),
      })
      .strict()
      .refine(onePlace, onePlaceMessage)
      .refine(onePlacement, onePlacementMessage)
      .refine((p) => p.kind !== "text" || (p.text !== undefined && p.font !== undefined && p.size !== undefined), {
        message: "a text layer needs text, font and size",
        path: ["text"],
      })
      .refine((p) => p.kind === "text" || TEXT_FIELDS.every((field) => p[field] === undefined), {
        message: `only kind "text" takes ${TEXT_FIELDS.join(", ")}`,
        path: ["kind"],
      })
      .refine((p) => (p.kind === "adjustment") === (p.adjustment !== undefined), { message: "an adjustment layer takes adjustment, and only it does", path: ["adjustment"] })
      .refine((p) => (p.kind === "fill") === (p.fill !== undefined), { message: "a fill layer takes fill, and only it does", path: ["fill"] }),
    result: EditedLayerSchema,
  },
  "layer:update": {
    params: layerEdit({
      name: name.optional(),
      visible: z.boolean().optional(),
      opacity: percent.optional(),
      blendMode: z.string().min(1).max(64).optional(),
      locked: z.boolean().optional(),
      fillOpacity: percent.optional(),
      /** An adjustment layer's new settings (replacing all of them; left out: Photoshop's defaults). */
      adjustment: AdjustmentSchema.optional(),
      /** A fill layer's new fill. */
      fill: FillSchema.optional(),
    }),
    result: EditedLayerSchema,
  },
  "layer:delete": {
    params: layerEdit({}),
    result: z.object({ documentId: z.number().int(), layerId: z.number().int(), deleted: z.literal(true), revision: z.number().int().nonnegative() }),
  },
  "layer:duplicate": {
    params: z
      .object({ ...Ref, name: name.optional(), ...Place })
      .strict()
      .refine(oneRef, oneRefMessage)
      .refine(onePlace, onePlaceMessage),
    result: EditedLayerSchema,
  },
  "layer:move": {
    params: z
      .object({ ...Ref, ...Place })
      .strict()
      .refine(oneRef, oneRefMessage)
      .refine(onePlace, onePlaceMessage),
    result: EditedLayerSchema,
  },
  "layer:group": {
    params: z
      .object({ ...Edit, ids, name: name.optional() })
      .strict()
      .refine((p) => distinct(p.ids), distinctMessage),
    result: EditedLayerSchema,
  },
  "layer:ungroup": {
    params: layerEdit({}),
    result: z.object({ documentId: z.number().int(), revision: z.number().int().nonnegative(), layers: z.array(HostLayerSchema) }),
  },
  "layer:merge": {
    // `ids` (two or more), or one layer (a ref, or the active one) merged down into the layer below it.
    params: z
      .object({ ...Ref, ids: ids.min(2).optional() })
      .strict()
      .refine(oneRef, oneRefMessage)
      .refine((p) => distinct(p.ids), distinctMessage)
      .refine((p) => p.ids === undefined || (p.layerId === undefined && p.layerIndex === undefined), {
        message: "pass ids, or one layer to merge down, not both",
        path: ["ids"],
      }),
    result: EditedLayerSchema,
  },
  "layer:rasterize": { params: layerEdit({}), result: EditedLayerSchema },
  "layer:fill": {
    params: layerEdit({ color, opacity: percent.optional(), blendMode: z.string().min(1).max(64).optional() }),
    result: EditedLayerSchema,
  },
  "layer:clear": { params: layerEdit({}), result: EditedLayerSchema },
  "layer:replaceContents": {
    // `box` is for pixel layers: a smart object's content always takes the frame its transform places.
    params: layerEdit({
      image: z.union([z.string().min(1), BinaryPartSchema]),
      fit: z.enum(FIT_MODES).optional(),
      alignment: z.enum(ANCHOR_NAMES).optional(),
      box: HostRectSchema.refine((r) => r.width >= 1 && r.height >= 1, { message: "box must be at least 1×1" }).optional(),
    }),
    result: EditedLayerSchema,
  },
  "layer:transform": {
    params: layerEdit({
      dx: z.number().min(-MAX_OFFSET).max(MAX_OFFSET).optional(),
      dy: z.number().min(-MAX_OFFSET).max(MAX_OFFSET).optional(),
      scaleX: z.number().positive().max(MAX_SCALE_PERCENT).optional(),
      scaleY: z.number().positive().max(MAX_SCALE_PERCENT).optional(),
      angle: z.number().min(-3600).max(3600).optional(),
      flip: flip.optional(),
      anchor: anchor.optional(),
      resample: resample.optional(),
    }),
    result: EditedLayerSchema,
  },
  "layer:addMask": {
    params: layerEdit({ from: z.enum(["selection", "revealAll", "hideAll"]).optional() }),
    result: EditedLayerSchema,
  },
  "layer:deleteMask": { params: layerEdit({}), result: EditedLayerSchema },
  "layer:applyMask": { params: layerEdit({}), result: EditedLayerSchema },
  "layer:updateMask": {
    params: layerEdit({
      enabled: z.boolean().optional(),
      linked: z.boolean().optional(),
      density: percent.optional(),
      feather: z.number().min(0).max(MAX_SELECTION_RADIUS).optional(),
    }),
    result: EditedLayerSchema,
  },
  "document:resize": {
    params: z
      .object({
        ...Edit,
        width: side.optional(),
        height: side.optional(),
        percent: z.number().positive().max(MAX_SCALE_PERCENT).optional(),
        resolution: z.number().positive().max(30_000).optional(),
        resample: resample.optional(),
      })
      .strict()
      .refine((p) => p.percent === undefined || (p.width === undefined && p.height === undefined), {
        message: "pass percent, or width and/or height, not both",
        path: ["percent"],
      })
      .refine((p) => [p.width, p.height, p.percent, p.resolution].some((v) => v !== undefined), {
        message: "pass width, height, percent or resolution",
        path: ["width"],
      }),
    result: HostDocumentSchema,
  },
  "document:resizeCanvas": {
    params: z.object({ ...Edit, width: side, height: side, anchor: z.enum(ANCHOR_NAMES).optional(), fillColor: color.optional() }).strict(),
    result: HostDocumentSchema,
  },
  "document:crop": { params: z.object({ ...Edit, rect: HostRectSchema.optional() }).strict(), result: HostDocumentSchema },
  "document:rotate": { params: z.object({ ...Edit, angle: z.number().min(-3600).max(3600) }).strict(), result: HostDocumentSchema },
  "document:flip": { params: z.object({ ...Edit, direction: flip }).strict(), result: HostDocumentSchema },
  "document:duplicate": { params: z.object({ ...Edit, name: name.optional() }).strict(), result: HostDocumentSchema },
  "document:flatten": { params: z.object(Edit).strict(), result: HostDocumentSchema },
  "document:trim": { params: z.object(Edit).strict(), result: HostDocumentSchema },
  "layerComp:apply": {
    params: z.object({ ...Edit, ...compRef }).strict().refine(oneComp, oneCompMessage),
    result: EditedCompSchema,
  },
  "layerComp:create": {
    params: z
      .object({
        ...Edit,
        name: z.string().min(1).max(MAX_COMP_NAME),
        comment: z.string().max(MAX_COMP_COMMENT).optional(),
        captures: LayerCompCapturesSchema.partial().strict().optional(),
      })
      .strict(),
    result: EditedCompSchema,
  },
  "layerComp:update": {
    params: z
      .object({
        ...Edit,
        ...compRef,
        rename: z.string().min(1).max(MAX_COMP_NAME).optional(),
        comment: z.string().max(MAX_COMP_COMMENT).nullable().optional(),
        captures: LayerCompCapturesSchema.partial().strict().optional(),
        /** Record the layers as they are now (default true); false changes only the name, comment or captures. */
        recapture: z.boolean().optional(),
      })
      .strict()
      .refine(oneComp, oneCompMessage),
    result: EditedCompSchema,
  },
  "layerComp:delete": {
    params: z.object({ ...Edit, ...compRef }).strict().refine(oneComp, oneCompMessage),
    result: z.object({ documentId: z.number().int(), revision: z.number().int().nonnegative(), id: z.number().int(), deleted: z.literal(true) }),
  },
  "selection:all": { params: z.object(Edit).strict(), result: EditedSelectionSchema },
  "selection:clear": { params: z.object(Edit).strict(), result: EditedSelectionSchema },
  "selection:invert": { params: z.object(Edit).strict(), result: EditedSelectionSchema },
  "selection:modify": {
    params: z
      .object({
        ...Edit,
        expand: z.number().int().min(1).max(MAX_SELECTION_RADIUS).optional(),
        contract: z.number().int().min(1).max(MAX_SELECTION_RADIUS).optional(),
        feather: z.number().positive().max(MAX_SELECTION_RADIUS).optional(),
        smooth: z.number().int().min(1).max(MAX_SELECTION_RADIUS).optional(),
        border: z.number().int().min(1).max(MAX_SELECTION_RADIUS).optional(),
      })
      .strict()
      .refine((p) => [p.expand, p.contract, p.feather, p.smooth, p.border].filter((v) => v !== undefined).length === 1, {
        message: "pass exactly one of expand, contract, feather, smooth and border",
        path: ["expand"],
      }),
    result: EditedSelectionSchema,
  },
  "selection:fromLayer": { params: layerEdit({ mode: selectionMode.optional() }), result: EditedSelectionSchema },
  "selection:fromColor": {
    params: z
      .object({
        ...Ref,
        point: PointSchema.optional(),
        color: color.optional(),
        tolerance: z.number().int().min(0).max(255),
        contiguous: z.boolean().optional(),
        sampleMerged: z.boolean().optional(),
        mode: selectionMode.optional(),
      })
      .strict()
      .refine(oneRef, oneRefMessage)
      .refine((p) => (p.point === undefined) !== (p.color === undefined), { message: "pass exactly one of point and color", path: ["point"] }),
    result: EditedSelectionSchema,
  },
} as const;

/** The layer comps' read, beside the edits that make and change them: it changes nothing, so it is no edit. */
export const COMP_READ_SCHEMAS = {
  "document:layerComps": {
    params: z.object({ documentId }).strict(),
    result: z.object({ documentId: z.number().int(), comps: z.array(LayerCompSchema), lastApplied: z.number().int().nullable() }),
  },
} as const;
