import sharp from "sharp";
import type { HostBounds, ImageFormat } from "../../protocol/index.js";
import type { EncodedImage } from "../host.js";
import { withFormat } from "../_internal/file-format.js";

/** Largest encoded export, in pixels; bounds the memory sharp needs for one image. */
export const MAX_ENCODE_PIXELS = 100_000_000;
/** Bounds of an empty layer. */
export const EMPTY_BOUNDS: HostBounds = { left: 0, top: 0, right: 0, bottom: 0 };

export interface EncodeOptions {
  readonly format: ImageFormat;
  readonly quality?: number | undefined;
  readonly scale?: number | undefined;
  readonly maxSize?: number | undefined;
}


/** Raw RGBA pixels to encode, or `null` for an empty layer (encoded as 1×1 transparent with empty bounds). */
export interface RgbaImage {
  readonly width: number;
  readonly height: number;
  readonly rgba: Buffer;
}

/** Encodes RGBA pixels with sharp to exactly `size` (or the pixels' own size). */
export async function encodePixels(
  pixels: RgbaImage | null,
  bounds: HostBounds,
  options: EncodeOptions,
  size?: { width: number; height: number },
  overlay?: Buffer,
): Promise<EncodedImage> {
  const empty = pixels === null || pixels.width === 0 || pixels.height === 0;
  const source = empty ? { width: 1, height: 1, rgba: Buffer.alloc(4) } : pixels;
  const { width, height } = empty ? { width: 1, height: 1 } : (size ?? { width: source.width, height: source.height });
  let image = sharp(source.rgba, { raw: { width: source.width, height: source.height, channels: 4 } });
  if (width !== source.width || height !== source.height) image = image.resize(width, height, { fit: "fill" });
  if (overlay) image = sharp(await image.png().toBuffer()).composite([{ input: overlay, top: 0, left: 0 }]);
  image = withFormat(image, options.format, options.quality);
  return { bytes: await image.toBuffer(), format: options.format, width, height, bounds: empty ? EMPTY_BOUNDS : bounds };
}
