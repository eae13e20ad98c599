import { z } from "zod";
import { EditedLayerSchema, HostRectSchema, PointSchema, TEXT_ALIGNMENTS, TEXT_ANTI_ALIAS, TEXT_DIRECTIONS } from "./resources.js";

/*
 * Text layers: the settings `layer:create {kind: "text"}` and `layer:updateText` take, and the editor's fonts. Sizes
 * are points (1/72 inch), turned into pixels with the document's resolution; `font` names a font by its PostScript
 * name (`NotoSans-Bold`), its full name (`Noto Sans Bold`) or its family (`Noto Sans`: the regular style); an
 * unknown one is `FONT_NOT_FOUND` with the closest names the editor has in `details.near`.
 */

/** Points in an inch: a size in points is `size × resolution / 72` pixels. */
export const POINTS_PER_INCH = 72;

/** Longest text of one layer, in UTF-16 code units. */
export const MAX_TEXT_LENGTH = 100_000;
/** Largest type size and leading, in points (Photoshop's own ceiling is 1296 pt). */
export const MAX_TEXT_POINTS = 5_000;
/** Tracking's range, in thousandths of an em (Photoshop's). */
export const TEXT_TRACKING_RANGE = [-1_000, 10_000] as const;
/** Most names `FONT_NOT_FOUND` offers in `details.near`. */
export const MAX_NEAR_FONT_NAMES = 10;

const points = z.number().min(0.01).max(MAX_TEXT_POINTS);
/** A colour string, as every edit takes it: `#rgb`, `#rrggbb`, `#rrggbbaa` or a name. */
const color = z.string().min(1).max(64);

/**
 * The type settings both methods take. `position` (where the first line's baseline starts) and `box` (a paragraph
 * box the lines wrap in) exclude each other.
 */
export const TEXT_SETTINGS = {
  font: z.string().min(1).max(255),
  size: points,
  color: color.optional(),
  position: PointSchema.optional(),
  box: HostRectSchema.refine((r) => r.width > 0 && r.height > 0, { message: "a text box needs a width and a height" }).optional(),
  alignment: z.enum(TEXT_ALIGNMENTS).optional(),
  /** Distance between baselines, in points; left out: the font's own line height. */
  leading: points.optional(),
  /** Thousandths of an em added between characters. */
  tracking: z.number().min(TEXT_TRACKING_RANGE[0]).max(TEXT_TRACKING_RANGE[1]).optional(),
  /** Points the glyphs move up from the baseline (down when negative), as Photoshop's baseline shift. */
  baselineShift: z.number().min(-MAX_TEXT_POINTS).max(MAX_TEXT_POINTS).optional(),
  /** One of `TEXT_ANTI_ALIAS`, or `true` (`smooth`) / `false` (`none`). */
  antiAlias: z.union([z.enum(TEXT_ANTI_ALIAS), z.boolean()]).optional(),
  /** The paragraphs' base direction; left out: the direction of each paragraph's first letter. */
  direction: z.enum(TEXT_DIRECTIONS).optional(),
  /** ISO 15924 script tag (`Latn`, `Arab`, `Deva`); left out: from the text. */
  script: z
    .string()
    .regex(/^[A-Z][a-z]{3}$/, "an ISO 15924 script tag such as Arab")
    .optional(),
  /** BCP 47 language tag (`en`, `ar`, `hi-IN`); it picks language-specific forms where the font has them. */
  language: z
    .string()
    .regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, "a BCP 47 language tag such as ar or hi-IN")
    .optional(),
};

/** The text itself: `\n` breaks lines. */
export const TextStringSchema = z.string().min(1).max(MAX_TEXT_LENGTH);

type TextPlacement = { position?: unknown; box?: unknown };
/** At most one of `position` and `box`. */
export const onePlacement = (p: TextPlacement): boolean => p.position === undefined || p.box === undefined;
export const onePlacementMessage = { message: "pass position or box, not both", path: ["position"] };

/** One font of the editor. */
export const FontSchema = z.object({
  family: z.string(),
  style: z.string(),
  postScriptName: z.string(),
});
export type FontInfo = z.infer<typeof FontSchema>;

/** The text methods' schemas, merged into the method table (`layer:create {kind: "text"}` is an edit method's). */
export const TEXT_METHOD_SCHEMAS = {
  "layer:updateText": {
    params: z
      .object({
        documentId: z.number().int().optional(),
        ifRevision: z.number().int().nonnegative().optional(),
        layerId: z.number().int().optional(),
        layerIndex: z.number().int().nonnegative().optional(),
        text: TextStringSchema.optional(),
        ...TEXT_SETTINGS,
        font: TEXT_SETTINGS.font.optional(),
        size: TEXT_SETTINGS.size.optional(),
      })
      .strict()
      .refine((p) => p.layerId === undefined || p.layerIndex === undefined, { message: "pass at most one of layerId and layerIndex", path: ["layerId"] })
      .refine(onePlacement, onePlacementMessage),
    result: EditedLayerSchema,
  },
  "font:list": {
    params: z.object({}).strict(),
    result: z.object({ fonts: z.array(FontSchema) }),
  },
} as const;
