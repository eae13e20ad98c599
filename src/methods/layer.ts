import type { DocumentTree } from "../hosts/host.js";
import { importedPart, probeImage, readImportSource, type ImportedBytes } from "../imports/index.js";
import { BridgeError, type BinaryPartReference } from "../protocol/index.js";
import { defineMethod, type MethodContext, type MethodDefinition } from "./define.js";
import { layerPreviewSize, previewPayload } from "./_internal/images.js";
import { requireOp } from "./_internal/support.js";
import { findLayer, flattenTree, layerRefOf, requireLayer, shownLayer, type LayerRef } from "./_internal/targets.js";
import type { HostLayer, LayerPreviewPayload } from "../protocol/index.js";

/** Name of an imported layer when the caller gives none, on every editor. */
export const IMPORTED_LAYER_NAME = "Imported Layer";

const treeOf = (ctx: MethodContext, documentId: number | undefined): Promise<DocumentTree> => ctx.host.getDocumentTree(ctx.call, documentId);

async function layerInfo(ctx: MethodContext, documentId: number | undefined, ref: LayerRef, children: boolean | undefined): Promise<HostLayer> {
  return shownLayer(requireLayer(await treeOf(ctx, documentId), ref), children === true);
}

/** The preview payload of the active layer (`null` when none is active): the layer's own export, scaled down. */
async function activePreview(ctx: MethodContext, documentId: number | undefined, maxSize: number | undefined): Promise<LayerPreviewPayload> {
  const tree = await treeOf(ctx, documentId);
  const layer = findLayer(tree, { by: "active" });
  if (layer === null) return null;
  const size = layerPreviewSize(layer, maxSize);
  const image = await ctx.host.exportLayerImage(ctx.call, { documentId: tree.document.id, layerId: layer.id, format: "png", size });
  return previewPayload({ documentId: tree.document.id, layer, image });
}

/** The bytes of an import: its `image` source read, or the binary part it names (sent right after the request). */
export function importSource(ctx: MethodContext, image: string | BinaryPartReference): Promise<ImportedBytes> | ImportedBytes {
  if (typeof image === "string") return readImportSource(image, ctx.bridge.imports, ctx.call.signal);
  const part = ctx.binaryParts?.[image.binary];
  if (part === undefined) {
    throw new BridgeError(
      "BAD_REQUEST",
      `image names binary part ${image.binary}, but none came with this request: binary parts follow the request on a WebSocket connected with ?binary=1`,
      { details: { param: "image", part: image.binary } },
    );
  }
  return importedPart(part, ctx.bridge.imports.limits);
}

/** Layer inspection, selection, preview and import. */
export const layerMethods: MethodDefinition[] = [
  defineMethod("layer:getInfo", {
    description:
      "One layer of a document: by `layerId` or `layerIndex`, else the active layer; `null` when there is no active layer.",
    examples: [{ layerId: 3, getChildren: true }],
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/layer/info" },
    run: async (ctx, params) => {
      const layer = findLayer(await treeOf(ctx, params.documentId), layerRefOf(params));
      return layer === null ? null : shownLayer(layer, params.getChildren === true);
    },
  }),
  defineMethod("layer:getInfoById", {
    description:
      "The layer with this id; `LAYER_NOT_FOUND` when there is none.",
    examples: [{ layerId: 3 }],
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/layer/by-id/:layerId" },
    run: (ctx, { documentId, layerId, getChildren }) => layerInfo(ctx, documentId, { by: "id", id: layerId }, getChildren),
  }),
  defineMethod("layer:getInfoByIndex", {
    description:
      "The layer at this index (0 is the top-most); `LAYER_NOT_FOUND` when there is none.",
    examples: [{ layerIndex: 0 }],
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/layer/by-index/:layerIndex" },
    run: (ctx, { documentId, layerIndex, getChildren }) => layerInfo(ctx, documentId, { by: "index", index: layerIndex }, getChildren),
  }),
  defineMethod("layer:getInfoBySelectionIndex", {
    description:
      "The n-th of the active (selected) layers.",
    examples: [{ selectionIndex: 0 }],
    host: true,
    mutates: false,
    run: (ctx, { documentId, selectionIndex, getChildren }) =>
      layerInfo(ctx, documentId, { by: "selectionIndex", index: selectionIndex }, getChildren),
  }),
  defineMethod("layer:getCurrentPreview", {
    description:
      "A small PNG preview of the active layer (longest edge `maxSize`, 300 px by default) as a data URI with its size; `null` when no layer is active.",
    examples: [{ maxSize: 300 }],
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/layer/current-preview", image: true },
    run: (ctx, { documentId, maxSize }) => activePreview(ctx, documentId, maxSize),
  }),
  defineMethod("layer:select", {
    description:
      "Makes the given layers the active ones and answers them.",
    examples: [{ ids: [3, 5] }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/select" },
    run: async (ctx, { documentId, ids }) => {
      const select = requireOp(ctx.host, "selectLayers", "layer:select");
      const tree = await treeOf(ctx, documentId);
      const wanted = [...new Set(ids)];
      for (const id of wanted) requireLayer(tree, { by: "id", id });
      await select(ctx.call, { documentId: tree.document.id, ids: wanted });
      const chosen = new Set(wanted);
      return flattenTree(tree.layers)
        .filter((layer) => chosen.has(layer.id))
        .map((layer) => shownLayer(layer, false));
    },
  }),
  defineMethod("layer:importImage", {
    description:
      "Imports an image as a new layer (a data URI, base64, a `file:` URI or path, an http(s) URL, or a binary part) and answers the new layer; by default centred, above the active layer.",
    examples: [{ image: "https://example.com/logo.png", name: "Logo", position: { x: 10, y: 10 } }],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/layer/import-image", body: "import" },
    run: async (ctx, params) => {
      const importLayer = requireOp(ctx.host, "importLayer", "layer:importImage");
      // The target is checked before any byte is fetched or read.
      const tree = await treeOf(ctx, params.documentId);
      const target =
        params.layerId !== undefined || params.layerIndex !== undefined ? requireLayer(tree, layerRefOf(params)) : findLayer(tree, { by: "active" });
      const source = await importSource(ctx, params.image);
      const image = await probeImage(source, ctx.bridge.imports.limits.maxPixels, params.size);
      const size = params.size ?? { width: image.width, height: image.height };
      const { width, height } = tree.document;
      // Defaults, the same on every editor: centred on the canvas, above the active layer, "Imported Layer".
      const position = params.position
        ? { x: Math.round(params.position.x), y: Math.round(params.position.y) }
        : { x: Math.round((width - size.width) / 2), y: Math.round((height - size.height) / 2) };
      const layerId = await importLayer(ctx.call, {
        documentId: tree.document.id,
        image: { bytes: image.bytes, format: image.format, width: image.width, height: image.height },
        size,
        position,
        name: params.name ?? IMPORTED_LAYER_NAME,
        aboveLayerId: target?.id ?? null,
      });
      return shownLayer(requireLayer(await treeOf(ctx, tree.document.id), { by: "id", id: layerId }), false);
    },
  }),
];
