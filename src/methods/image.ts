import { parseColor } from "../hosts/_internal/color.js";
import type { OutlineStroke } from "../hosts/host.js";
import { PREVIEW_MAX_SIZE, type ImageFormat } from "../protocol/index.js";
import { defineMethod, type MethodContext, type MethodDefinition } from "./define.js";
import { WireImage } from "./image-result.js";
import { exportSize, layerExportSize, layerPreviewSize } from "./_internal/images.js";
import { requireOp } from "./_internal/support.js";
import { layerRefOf, layerRefOfSpec, requireLayer, type LayerRef } from "./_internal/targets.js";

/** Format of image results when the caller names none. */
export const DEFAULT_IMAGE_FORMAT: ImageFormat = "png";
/** Colour of the selection outline `image:exportLayerWithSelectedPath` draws unless told otherwise. */
export const DEFAULT_OUTLINE_COLOR = "#ff0000";
/** Width of that outline in output pixels. */
export const DEFAULT_OUTLINE_WIDTH = 2;

interface LayerExport {
  readonly documentId?: number | undefined;
  readonly format?: ImageFormat | undefined;
  readonly quality?: number | undefined;
  readonly maxSize?: number | undefined;
  readonly scale?: number | undefined;
}

/** Exports one layer at the size the caller asked for, its outline stroked over it when one is given. */
async function exportLayer(
  ctx: MethodContext,
  ref: LayerRef,
  params: LayerExport,
  outline?: (documentId: number) => Promise<OutlineStroke | undefined>,
): Promise<WireImage> {
  const tree = await ctx.host.getDocumentTree(ctx.call, params.documentId);
  const layer = requireLayer(tree, ref);
  const format = params.format ?? DEFAULT_IMAGE_FORMAT;
  const size = layerExportSize(layer.rect, { format, scale: params.scale, maxSize: params.maxSize }, ctx.bridge.limits.maxExportPixels);
  const stroke = outline === undefined ? undefined : await outline(tree.document.id);
  const documentId = tree.document.id;
  return new WireImage(await ctx.host.exportLayerImage(ctx.call, { documentId, layerId: layer.id, format, quality: params.quality, size, outline: stroke }));
}

/** Image results: encoded pixels as data URIs over JSON, raw bytes over HTTP with `Accept: image/*`. */
export const imageMethods: MethodDefinition[] = [
  defineMethod("image:exportDocument", {
    description:
      "The composite image of a document, encoded as PNG, JPEG or WebP and optionally scaled; a data URI in JSON, raw bytes with `Accept: image/*`.",
    examples: [{ format: "jpeg", quality: 85, maxSize: 1024 }],
    host: true,
    mutates: false,
    long: true,
    http: { verb: "POST", path: "/image/export-document", image: true },
    run: async (ctx, { documentId, format = DEFAULT_IMAGE_FORMAT, quality, scale, maxSize, alpha }) => {
      const doc = await ctx.host.getDocument(ctx.call, documentId);
      const size = exportSize(doc.width, doc.height, { format, scale, maxSize }, ctx.bridge.limits.maxExportPixels);
      return new WireImage(await ctx.host.exportDocumentImage(ctx.call, { documentId: doc.id, format, quality, size, ...(alpha === true ? { alpha } : {}) }));
    },
  }),
  defineMethod("image:exportLayer", {
    description:
      "One layer's image (the active layer by default), encoded and optionally scaled like `image:exportDocument`.",
    examples: [{ layerId: 3, format: "png" }],
    host: true,
    mutates: false,
    long: true,
    http: { verb: "POST", path: "/image/export-layer", image: true },
    run: (ctx, params) => exportLayer(ctx, layerRefOf(params), params),
  }),
  defineMethod("image:exportLayerWithSelectedPath", {
    description:
      "One layer's image with the selection's outline stroked over it (colour and width configurable); the plain layer when nothing is selected.",
    examples: [{ layerId: 3, strokeColor: "#ff0000", strokeWidth: 2 }],
    host: true,
    mutates: false,
    long: true,
    http: { verb: "POST", path: "/image/export-layer-with-selected-path", image: true },
    // With no selection there is no outline to draw: the plain layer, on every editor.
    run: (ctx, params) => {
      const trace = requireOp(ctx.host, "getSelectionOutline", "image:exportLayerWithSelectedPath");
      const color = parseColor(params.strokeColor ?? DEFAULT_OUTLINE_COLOR, "strokeColor");
      const width = params.strokeWidth ?? DEFAULT_OUTLINE_WIDTH;
      return exportLayer(ctx, layerRefOf(params), params, async (documentId) => {
        const outline = await trace(ctx.call, { documentId, expand: params.expand ?? 0 });
        return outline ? { ...outline, color, width } : undefined;
      });
    },
  }),
  defineMethod("image:getPreview", {
    description:
      "A PNG preview of a layer named by `layerSpec` (an id, `current`, `id:N` or `index:N`), its longest edge at most `maxSize`.",
    examples: [{ layerSpec: "current", maxSize: 300 }],
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/image/preview/:layerSpec", image: true },
    run: async (ctx, { documentId, layerSpec, maxSize }) => {
      const tree = await ctx.host.getDocumentTree(ctx.call, documentId);
      const layer = requireLayer(tree, layerRefOfSpec(layerSpec));
      const size = layerPreviewSize(layer, maxSize ?? PREVIEW_MAX_SIZE);
      return new WireImage(await ctx.host.exportLayerImage(ctx.call, { documentId: tree.document.id, layerId: layer.id, format: "png", size }));
    },
  }),
];
