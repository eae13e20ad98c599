import type { HostDocument, HostLayer } from "../../protocol/index.js";
import type { HostAdapter, PixelSize, PreviewEvent } from "../host.js";
import { outlineOverlay } from "../_internal/outline.js";
import { previewSize } from "../_internal/target-size.js";
import { EMPTY_BOUNDS, encodePixels } from "./encode.js";
import type { PhotoshopLimits } from "./limits.js";
import type { PhotoshopLink, PixmapReply } from "./link.js";
import type { RunOperation } from "./operations.js";

/** What the image operations need from the adapter. */
export interface ImageDeps {
  readonly run: RunOperation;
  readonly link: PhotoshopLink;
  readonly limits: PhotoshopLimits;
}

/** The image exports, and the preview the `layer:previewChange` event reports. */
export interface ImageOps extends Pick<HostAdapter, "exportDocumentImage" | "exportLayerImage"> {
  /** The active layer of the active document and its preview, or `null` when no layer is active. */
  activePreview(signal: AbortSignal): Promise<PreviewEvent | null>;
}

/** Photoshop's exports: pixmaps asked at about the output size, encoded with sharp at exactly that size. */
export function imageOps({ run, link, limits }: ImageDeps): ImageOps {
  /**
   * The scale to ask Photoshop for: a big canvas or layer at full size is slow and huge, so
   * Photoshop scales first, never below the output size and never past the pixmap edge limit; sharp then
   * resizes to the exact size.
   */
  const pixmapScale = (width: number, height: number, size: PixelSize): number =>
    Math.min(1, Math.max(size.width / width, size.height / height), limits.maxPixmapEdge / Math.max(width, height));

  /** A layer's pixels scaled toward `size`, or `null` when the layer is empty. */
  async function layerPixels(signal: AbortSignal, documentId: number, layer: HostLayer, size: PixelSize): Promise<PixmapReply | null> {
    const { width, height } = layer.rect;
    if (width <= 0 || height <= 0) return null;
    const scale = pixmapScale(width, height, size);
    return link.pixmap({ documentId, layerId: layer.id, scale, maxDimension: limits.maxPixmapEdge }, signal);
  }

  return {
    async exportDocumentImage(ctx, { documentId, format, quality, size }) {
      const doc = await run<HostDocument>(ctx.signal, "document.get", { documentId });
      const scale = pixmapScale(doc.width, doc.height, size);
      const reply = await link.pixmap({ documentId: doc.id, scale, maxDimension: limits.maxPixmapEdge }, ctx.signal);
      const bounds = { left: 0, top: 0, right: doc.width, bottom: doc.height };
      return encodePixels(reply.pixmap, bounds, { format, quality }, size);
    },

    async exportLayerImage(ctx, { documentId, layerId, format, quality, size, outline }) {
      const layer = await run<HostLayer>(ctx.signal, "layer.get", { documentId, layerId });
      const reply = await layerPixels(ctx.signal, documentId, layer, size);
      if (reply === null) return encodePixels(null, EMPTY_BOUNDS, { format, quality }, size);
      const overlay = outline ? outlineOverlay(outline, reply.bounds, size) : null;
      return encodePixels(reply.pixmap, reply.bounds, { format, quality }, size, overlay);
    },

    async activePreview(signal) {
      const { documentId, layers } = await run<{ documentId: number; layers: HostLayer[] }>(signal, "layer.active", {});
      const layer = layers[0];
      if (layer === undefined) return null;
      const size = previewSize(layer.rect.width, layer.rect.height);
      const reply = await layerPixels(signal, documentId, layer, size);
      const image = await encodePixels(reply?.pixmap ?? null, reply?.bounds ?? EMPTY_BOUNDS, { format: "png" }, size);
      return { documentId, layer: { id: layer.id, name: layer.name, index: layer.index }, image };
    },
  };
}
