import { z } from "zod";
import { ProtocolErrorSchema } from "./errors.js";
import { FileFormatSchema, ImageResultSchema } from "./resources.js";

/*
 * `template:render`: one template (a layered file, or an open document) and a table of variants, each a few edits by
 * layer name, rendered to files or images. Every step of a variant is an ordinary method call.
 */

/** A layer's name as a template's variants address it. */
const layerName = z.string().min(1).max(255);
/** Placeholders of an output path: `{id}` and the variant's `vars`. */
const varName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, "a var name is letters, digits, _ and -, starting with a letter or _");

export const TemplateVariantSchema = z
  .object({
    /** Names the variant in the answer and fills `{id}` of the output path. @default its index in `variants` */
    id: z.string().min(1).max(255).optional(),
    /** New text of text layers, by layer name (`layer:updateText`). */
    text: z.record(layerName, z.string().max(100_000)).optional(),
    /** New contents of layers, by layer name: an image source as `layer:replaceContents` takes it. */
    images: z.record(layerName, z.union([z.string().min(1), z.record(z.string(), z.unknown())])).optional(),
    /**
     * Layers shown or hidden, by layer name or name pattern: a key that is some layer's name is that layer; otherwise a
     * key with `*` (any run of characters) or `?` (one character) sets every layer whose whole name it matches
     * (case-sensitive). Keys apply in order, so a later one overrides an earlier one on the layers both address.
     */
    visible: z.record(layerName, z.boolean()).optional(),
    /** New colour of solid fill layers, by layer name (`layer:update {fill}`). */
    fills: z.record(layerName, z.string().min(1).max(64)).optional(),
    /** A layer comp to apply first (`layerComp:apply {name}`). */
    comp: z.string().min(1).max(255).optional(),
    /** Values of the output path's placeholders. */
    vars: z.record(varName, z.string().max(255)).optional(),
    /** Further calls on the variant's document, after the rest; `documentId` is filled in. */
    edits: z.array(z.object({ method: z.string().min(1).max(128), params: z.record(z.string(), z.unknown()).optional() }).strict()).max(64).optional(),
  })
  .strict();
export type TemplateVariant = z.infer<typeof TemplateVariantSchema>;

export const TemplateRenderParamsSchema = z
  .object({
    /** The template: a layered file inside the files roots (never written), or an open document (copied, never changed). */
    template: z.union([z.object({ path: z.string().min(1).max(4096) }).strict(), z.object({ documentId: z.number().int() }).strict()]),
    variants: z.array(TemplateVariantSchema).min(1),
    output: z
      .object({
        /** A file name pattern inside the files roots, e.g. `out/{id}-{size}.png`; without it the images are answered. */
        path: z.string().min(1).max(4096).optional(),
        format: FileFormatSchema.optional(),
        quality: z.number().int().min(1).max(100).optional(),
        /** Resize factor applied to each variant before it is written (1 = as designed). */
        scale: z.number().positive().max(16).optional(),
      })
      .strict()
      .optional(),
    /** Variants running at once; at most the number of editors that take calls. @default that number */
    concurrency: z.number().int().min(1).max(64).optional(),
  })
  .strict();
export type TemplateRenderParams = z.infer<typeof TemplateRenderParamsSchema>;

export const TemplateVariantResultSchema = z.object({
  id: z.string(),
  ok: z.boolean(),
  /** The file written (output `path` given). */
  path: z.string().optional(),
  /** The image (no output `path`): a data URI, or on a `binary` WebSocket a binary part's reference (`data: {binary: n, mime, bytes}`). */
  image: ImageResultSchema.optional(),
  error: ProtocolErrorSchema.optional(),
});

export const TEMPLATE_METHOD_SCHEMAS = {
  "template:render": {
    params: TemplateRenderParamsSchema,
    result: z.object({ variants: z.array(TemplateVariantResultSchema) }),
  },
} as const;
