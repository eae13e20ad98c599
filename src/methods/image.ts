import { METHOD_SCHEMAS, type ImageFormat } from "../protocol/index.js";
import { defineMethod, type MethodDefinition } from "./define.js";
import { requireOp } from "./_internal/support.js";
import { layerRefOf, layerRefOfSpec } from "./_internal/layer-ref.js";
import { WireImage } from "./image-result.js";
import { DEFAULT_PREVIEW_MAX_SIZE } from "./layer.js";

/** Format of image results when the caller names none. */
export const DEFAULT_IMAGE_FORMAT: ImageFormat = "png";

/** Image results: encoded pixels as data URIs over JSON, raw bytes over HTTP with `Accept: image/*`. */
export const imageMethods: MethodDefinition[] = [
  defineMethod("image:exportDocument", METHOD_SCHEMAS["image:exportDocument"], {
    host: true,
    mutates: false,
    long: true,
    http: { verb: "POST", path: "/image/export-document", image: true },
    run: async (ctx, params) =>
      new WireImage(await ctx.host.exportDocumentImage(ctx.call, { ...params, format: params.format ?? DEFAULT_IMAGE_FORMAT })),
  }),
  defineMethod("image:exportLayer", METHOD_SCHEMAS["image:exportLayer"], {
    host: true,
    mutates: false,
    long: true,
    http: { verb: "POST", path: "/image/export-layer", image: true },
    run: async (ctx, params) =>
      new WireImage(
        await ctx.host.exportLayerImage(ctx.call, {
          ...params,
          format: params.format ?? DEFAULT_IMAGE_FORMAT,
          ref: layerRefOf(params),
        }),
      ),
  }),
  defineMethod("image:exportLayerWithSelectedPath", METHOD_SCHEMAS["image:exportLayerWithSelectedPath"], {
    host: true,
    mutates: false,
    long: true,
    http: { verb: "POST", path: "/image/export-layer-with-selected-path", image: true },
    run: async (ctx, params) => {
      const exportWithPath = requireOp(ctx.host, "exportLayerWithSelectedPath", "image:exportLayerWithSelectedPath");
      return new WireImage(
        await exportWithPath(ctx.call, { ...params, format: params.format ?? DEFAULT_IMAGE_FORMAT, ref: layerRefOf(params) }),
      );
    },
  }),
  defineMethod("image:getPreview", METHOD_SCHEMAS["image:getPreview"], {
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/image/preview/:layerSpec", image: true },
    run: async (ctx, { documentId, layerSpec, maxSize }) =>
      new WireImage(
        await ctx.host.exportLayerImage(ctx.call, {
          documentId,
          format: "png",
          maxSize: maxSize ?? DEFAULT_PREVIEW_MAX_SIZE,
          ref: layerRefOfSpec(layerSpec),
        }),
      ),
  }),
];
