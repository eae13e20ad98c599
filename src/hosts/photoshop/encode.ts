import sharp from "sharp";
import type { FileFormat, HostBounds } from "../../protocol/index.js";
import type { EncodedImage, PixelSize } from "../host.js";
import { withFormat } from "../_internal/file-format.js";
import type { OverlayInput } from "../_internal/outline.js";

/** Bounds of an empty layer. */
export const EMPTY_BOUNDS: HostBounds = { left: 0, top: 0, right: 0, bottom: 0 };

/** How to encode: the format and, for the lossy ones, the quality. */
export interface EncodeOptions {
  readonly format: FileFormat;
  readonly quality?: number | undefined;
}

/** Raw RGBA pixels to encode, or `null` for an empty layer (encoded as 1×1 transparent with empty bounds). */
export interface RgbaImage {
  readonly width: number;
  readonly height: number;
  readonly rgba: Buffer;
}

/**
 * Encodes RGBA pixels with sharp at exactly `size`, with `overlay` (an outline) composited over them. Pixels that
 * are `null` or empty become a 1×1 transparent image with {@link EMPTY_BOUNDS}, whatever `size` says.
 */
export async function encodePixels(
  pixels: RgbaImage | null,
  bounds: HostBounds,
  options: EncodeOptions,
  size: PixelSize,
  overlay?: OverlayInput | null,
): Promise<EncodedImage> {
  const empty = pixels === null || pixels.width === 0 || pixels.height === 0;
  const source = empty ? { width: 1, height: 1, rgba: Buffer.alloc(4) } : pixels;
  const { width, height } = empty ? { width: 1, height: 1 } : size;
  let image = sharp(source.rgba, { raw: { width: source.width, height: source.height, channels: 4 } });
  if (width !== source.width || height !== source.height) image = image.resize(width, height, { fit: "fill" });
  // sharp composites over the resized image, so the overlay is laid out in output pixels.
  if (overlay && !empty) image = image.composite([overlay]);
  image = withFormat(image, options.format, options.quality);
  return { bytes: await image.toBuffer(), format: options.format, width, height, bounds: empty ? EMPTY_BOUNDS : bounds };
}
