import { BridgeError, METHOD_SCHEMAS, type HostLayer } from "../protocol/index.js";
import type { LayerRef } from "../hosts/host.js";
import { defineMethod, type MethodContext, type MethodDefinition } from "./define.js";
import { resolveImportSource } from "../files/index.js";
import { requireOp } from "./_internal/support.js";
import { layerRefOf } from "./_internal/layer-ref.js";

/** Longest edge of `layer:getCurrentPreview` unless the caller asks otherwise (DESIGN §3). */
export const DEFAULT_PREVIEW_MAX_SIZE = 300;

async function requireLayer(
  ctx: MethodContext,
  documentId: number | undefined,
  ref: LayerRef,
  children: boolean | undefined,
): Promise<HostLayer> {
  const layer = await ctx.host.getLayer(ctx.call, { documentId, ref, children });
  if (layer === null) throw new BridgeError("LAYER_NOT_FOUND", "No layer is active in the document");
  return layer;
}

/** Layer inspection, selection, preview and import. */
export const layerMethods: MethodDefinition[] = [
  defineMethod("layer:getInfo", METHOD_SCHEMAS["layer:getInfo"], {
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/layer/info" },
    run: (ctx, params) =>
      ctx.host.getLayer(ctx.call, { documentId: params.documentId, ref: layerRefOf(params), children: params.getChildren }),
  }),
  defineMethod("layer:getInfoById", METHOD_SCHEMAS["layer:getInfoById"], {
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/layer/by-id/:layerId" },
    run: (ctx, { documentId, layerId, getChildren }) =>
      requireLayer(ctx, documentId, { by: "id", id: layerId }, getChildren),
  }),
  defineMethod("layer:getInfoByIndex", METHOD_SCHEMAS["layer:getInfoByIndex"], {
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/layer/by-index/:layerIndex" },
    run: (ctx, { documentId, layerIndex, getChildren }) =>
      requireLayer(ctx, documentId, { by: "index", index: layerIndex }, getChildren),
  }),
  defineMethod("layer:getInfoBySelectionIndex", METHOD_SCHEMAS["layer:getInfoBySelectionIndex"], {
    host: true,
    mutates: false,
    run: (ctx, { documentId, selectionIndex }) =>
      requireLayer(ctx, documentId, { by: "selectionIndex", index: selectionIndex }, false),
  }),
  defineMethod("layer:getCurrentPreview", METHOD_SCHEMAS["layer:getCurrentPreview"], {
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/layer/current-preview" },
    run: (ctx, { documentId, maxSize }) =>
      ctx.host.layerPreview(ctx.call, { documentId, maxSize: maxSize ?? DEFAULT_PREVIEW_MAX_SIZE }),
  }),
  defineMethod("layer:select", METHOD_SCHEMAS["layer:select"], {
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/select" },
    run: (ctx, params) => requireOp(ctx.host, "selectLayers", "layer:select")(ctx.call, params),
  }),
  defineMethod("layer:importImage", METHOD_SCHEMAS["layer:importImage"], {
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/layer/import-image", body: "import" },
    run: async (ctx, params) => {
      const importImage = requireOp(ctx.host, "importImage", "layer:importImage");
      return importImage(ctx.call, { ...params, image: await resolveImportSource(ctx.bridge.files, params.image) });
    },
  }),
];
