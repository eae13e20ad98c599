import sharp from "sharp";
import { BridgeError } from "../../protocol/index.js";
import type { FileFormat, HostBounds, ImageFormat } from "../../protocol/index.js";
import type { EncodedImage } from "../host.js";
import { MAX_EXPORT_PIXELS, MAX_WEBP_EDGE } from "./limits.js";
import { targetSize } from "../_internal/target-size.js";
import { withFormat } from "../_internal/file-format.js";
import { plainStack, renderDocument } from "./composite.js";
import type { EmbeddedLayer } from "./document.js";
import type { Raster } from "./raster.js";
import { EMPTY_BOUNDS, emptyRaster, rasterBuffer } from "./raster.js";

/** Formats a flattened file export can write: the wire's image formats plus TIFF (chosen by a `.tif`/`.tiff` path). */
export type FileImageFormat = FileFormat;

/** How to encode: the pixel part of `ExportOptions`. */
export interface EncodeOptions<F extends FileImageFormat = ImageFormat> {
  readonly format: F;
  readonly quality?: number | undefined;
  readonly scale?: number | undefined;
  readonly maxSize?: number | undefined;
}



/**
 * Encodes pixels with sharp. A `null` raster (an empty layer) becomes a 1×1 transparent image with zero-size
 * bounds, so callers always get a decodable image.
 */
export async function encodeRaster<F extends FileImageFormat = ImageFormat>(
  raster: Raster | null,
  bounds: HostBounds,
  options: EncodeOptions<F>,
): Promise<Omit<EncodedImage, "format"> & { format: F }> {
  const source = raster ?? emptyRaster(1, 1);
  const placed = raster ? bounds : EMPTY_BOUNDS;
  const { width, height } = raster ? targetSize(source.width, source.height, options, MAX_EXPORT_PIXELS) : { width: 1, height: 1 };
  checkWebpEdge(options.format, width, height);
  let image = sharp(rasterBuffer(source), { raw: { width: source.width, height: source.height, channels: 4 } });
  if (width !== source.width || height !== source.height) image = image.resize(width, height, { fit: "fill" });
  const bytes = await withFormat(image, options.format, options.quality).toBuffer();
  return { bytes, format: options.format, width, height, bounds: placed };
}

function checkWebpEdge(format: FileImageFormat, width: number, height: number): void {
  if (format === "webp" && Math.max(width, height) > MAX_WEBP_EDGE) {
    throw new BridgeError("BAD_REQUEST", `WebP cannot hold an edge longer than ${MAX_WEBP_EDGE} px; use png or jpeg, or maxSize`, {
      details: { width, height, format: "webp" },
    });
  }
}

/**
 * Encodes a whole document. A document that is a plain stack (see `plainStack`) is composited by libvips inside
 * the encoding pipeline: no full-canvas buffer in JS and libvips' threads do the blending, which matters for big
 * canvases. Anything else (blend modes, opacity, masks, isolated groups) is rendered by `renderDocument` first.
 */
export async function encodeDocument<F extends FileImageFormat = ImageFormat>(
  doc: { width: number; height: number; layers: readonly EmbeddedLayer[] },
  options: EncodeOptions<F>,
): Promise<Omit<EncodedImage, "format"> & { format: F }> {
  const bounds = { left: 0, top: 0, right: doc.width, bottom: doc.height };
  const stack = plainStack(doc);
  if (!stack) return encodeRaster(renderDocument(doc), bounds, options);
  const { width, height } = targetSize(doc.width, doc.height, options, MAX_EXPORT_PIXELS);
  checkWebpEdge(options.format, width, height);
  const [bottom] = stack;
  const fullBottom = bottom !== undefined && bottom.left === 0 && bottom.top === 0 && bottom.width === doc.width && bottom.height === doc.height;
  // A full-canvas bottom layer over transparency is itself: it becomes the pipeline's input, the rest overlays.
  let image = fullBottom
    ? sharp(rasterBuffer(bottom), { raw: { width: doc.width, height: doc.height, channels: 4 } })
    : sharp({ create: { width: doc.width, height: doc.height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } });
  const overlays = (fullBottom ? stack.slice(1) : stack).map((layer) => ({
    input: rasterBuffer(layer),
    raw: { width: layer.width, height: layer.height, channels: 4 as const },
    left: layer.left,
    top: layer.top,
  }));
  if (overlays.length > 0) image = image.composite(overlays);
  if (width !== doc.width || height !== doc.height) {
    // sharp resizes before compositing within one pipeline: composite first, then scale in a second one.
    const composed = await image.raw().toBuffer();
    image = sharp(composed, { raw: { width: doc.width, height: doc.height, channels: 4 } }).resize(width, height, { fit: "fill" });
  }
  const bytes = await withFormat(image, options.format, options.quality).toBuffer();
  return { bytes, format: options.format, width, height, bounds };
}

/** `data:image/<format>;base64,…` of encoded bytes. */
export function toDataUri(image: Pick<EncodedImage, "bytes" | "format">): string {
  return `data:image/${image.format};base64,${Buffer.from(image.bytes.buffer, image.bytes.byteOffset, image.bytes.byteLength).toString("base64")}`;
}

export { formatForExtension } from "../_internal/file-format.js";
