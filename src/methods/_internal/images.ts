import { checkEncodable } from "../../files/index.js";
import { BridgeError, PREVIEW_MAX_SIZE, type FileFormat, type HostLayer, type HostRect, type LayerPreviewPayload } from "../../protocol/index.js";
import type { EncodedImage, PixelSize, PreviewEvent } from "../../hosts/host.js";
import { previewSize } from "../../hosts/_internal/target-size.js";

/** Media types of the formats an image can be encoded in. */
export const IMAGE_MIME: Readonly<Record<FileFormat, string>> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
  tiff: "image/tiff",
};

/** `data:<mime>;base64,…` of encoded bytes: the one place a data URI is built. */
export function dataUri(image: Pick<EncodedImage, "bytes" | "format">): string {
  const { bytes } = image;
  return `data:${IMAGE_MIME[image.format]};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")}`;
}

/**
 * Output size of an export, the same on every editor: `scale` first, then shrink so the longest edge is at most
 * `maxSize` (never enlarges), at least 1×1. Refuses sizes above `maxPixels` (a large `scale` must not allocate
 * unbounded buffers) and sizes the format cannot hold.
 * @throws BridgeError `PAYLOAD_TOO_LARGE`, `BAD_REQUEST`
 */
export function exportSize(
  width: number,
  height: number,
  options: { readonly format: FileFormat; readonly scale?: number | undefined; readonly maxSize?: number | undefined },
  maxPixels: number,
): PixelSize {
  const { scale, maxSize } = options;
  let w = Math.max(1, Math.round(width * (scale ?? 1)));
  let h = Math.max(1, Math.round(height * (scale ?? 1)));
  const longest = Math.max(w, h);
  if (maxSize !== undefined && longest > maxSize) {
    w = Math.max(1, Math.round((w * maxSize) / longest));
    h = Math.max(1, Math.round((h * maxSize) / longest));
  }
  if (w * h > maxPixels) {
    throw new BridgeError("PAYLOAD_TOO_LARGE", `Export of ${w}×${h} exceeds ${maxPixels} pixels`, { details: { width: w, height: h, maxPixels } });
  }
  const size = { width: w, height: h };
  checkEncodable(options.format, size);
  return size;
}

/** The size a layer exports at: its `rect` scaled as asked; an empty layer is 1×1. */
export function layerExportSize(
  rect: HostRect,
  options: { readonly format: FileFormat; readonly scale?: number | undefined; readonly maxSize?: number | undefined },
  maxPixels: number,
): PixelSize {
  if (rect.width <= 0 || rect.height <= 0) return { width: 1, height: 1 };
  return exportSize(rect.width, rect.height, options, maxPixels);
}

/** The size of a preview of a layer: longest edge at most `maxSize` (default `PREVIEW_MAX_SIZE`). */
export function layerPreviewSize(layer: HostLayer, maxSize: number = PREVIEW_MAX_SIZE): PixelSize {
  return previewSize(layer.rect.width, layer.rect.height, maxSize);
}

/**
 * The wire payload of a layer preview, from the layer and its encoded preview: the one builder for
 * `layer:getCurrentPreview` and every `layer:previewChange` event.
 */
export function previewPayload(event: PreviewEvent | null): LayerPreviewPayload {
  if (event === null) return null;
  const { documentId, layer, image } = event;
  return { documentId, id: layer.id, name: layer.name, index: layer.index, width: image.width, height: image.height, data: dataUri(image) };
}
