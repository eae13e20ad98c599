import sharp from "sharp";
import { BridgeError } from "../../protocol/index.js";
import type { HostBounds, ImageFormat } from "../../protocol/index.js";
import type { EncodedImage } from "../host.js";
import { MAX_EXPORT_PIXELS, MAX_WEBP_EDGE } from "./limits.js";
import type { Raster } from "./raster.js";
import { EMPTY_BOUNDS, emptyRaster, rasterBuffer } from "./raster.js";

/** How to encode: the pixel part of `ExportOptions`. */
export interface EncodeOptions {
  readonly format: ImageFormat;
  readonly quality?: number | undefined;
  readonly scale?: number | undefined;
  readonly maxSize?: number | undefined;
}

/** JPEG has no alpha; transparent areas become white, as an editor's "flatten" does. */
const JPEG_BACKGROUND = { r: 255, g: 255, b: 255 };

/** Output size: `scale` first, then shrink so the longest edge is at most `maxSize` (never enlarges). */
export function targetSize(width: number, height: number, options: Pick<EncodeOptions, "scale" | "maxSize">): { width: number; height: number } {
  const { scale, maxSize } = options;
  if (scale !== undefined && !(Number.isFinite(scale) && scale > 0)) {
    throw new BridgeError("BAD_REQUEST", "scale must be a positive number", { details: { scale } });
  }
  if (maxSize !== undefined && !(Number.isFinite(maxSize) && maxSize >= 1)) {
    throw new BridgeError("BAD_REQUEST", "maxSize must be at least 1", { details: { maxSize } });
  }
  let w = Math.max(1, Math.round(width * (scale ?? 1)));
  let h = Math.max(1, Math.round(height * (scale ?? 1)));
  const longest = Math.max(w, h);
  if (maxSize !== undefined && longest > maxSize) {
    w = Math.max(1, Math.round((w * maxSize) / longest));
    h = Math.max(1, Math.round((h * maxSize) / longest));
  }
  if (w * h > MAX_EXPORT_PIXELS) {
    throw new BridgeError("PAYLOAD_TOO_LARGE", `Export of ${w}×${h} exceeds ${MAX_EXPORT_PIXELS} pixels`, {
      details: { width: w, height: h, maxPixels: MAX_EXPORT_PIXELS },
    });
  }
  return { width: w, height: h };
}

/**
 * Encodes pixels with sharp. A `null` raster (an empty layer) becomes a 1×1 transparent image with zero-size
 * bounds, so callers always get a decodable image.
 */
export async function encodeRaster(raster: Raster | null, bounds: HostBounds, options: EncodeOptions): Promise<EncodedImage> {
  const source = raster ?? emptyRaster(1, 1);
  const placed = raster ? bounds : EMPTY_BOUNDS;
  const { width, height } = raster ? targetSize(source.width, source.height, options) : { width: 1, height: 1 };
  if (options.format === "webp" && Math.max(width, height) > MAX_WEBP_EDGE) {
    throw new BridgeError("BAD_REQUEST", `WebP cannot hold an edge longer than ${MAX_WEBP_EDGE} px; use png or jpeg, or maxSize`, {
      details: { width, height, format: "webp" },
    });
  }
  let image = sharp(rasterBuffer(source), { raw: { width: source.width, height: source.height, channels: 4 } });
  if (width !== source.width || height !== source.height) image = image.resize(width, height, { fit: "fill" });
  const quality = clampQuality(options.quality);
  switch (options.format) {
    case "png":
      image = image.png();
      break;
    case "jpeg":
      image = image.flatten({ background: JPEG_BACKGROUND }).jpeg(quality === undefined ? {} : { quality });
      break;
    case "webp":
      image = image.webp(quality === undefined ? {} : { quality });
      break;
    default:
      throw new BridgeError("BAD_REQUEST", `Unknown image format ${String(options.format)}`, { details: { format: options.format } });
  }
  const bytes = await image.toBuffer();
  return { bytes, format: options.format, width, height, bounds: placed };
}

function clampQuality(quality: number | undefined): number | undefined {
  if (quality === undefined || !Number.isFinite(quality)) return undefined;
  return Math.min(100, Math.max(1, Math.round(quality)));
}

/** `data:image/<format>;base64,…` of encoded bytes. */
export function toDataUri(image: Pick<EncodedImage, "bytes" | "format">): string {
  return `data:image/${image.format};base64,${Buffer.from(image.bytes.buffer, image.bytes.byteOffset, image.bytes.byteLength).toString("base64")}`;
}

/** Image format implied by a file extension (`.png`, `.jpg`, `.jpeg`, `.webp`), or `undefined`. */
export function formatForExtension(ext: string): ImageFormat | undefined {
  switch (ext.toLowerCase()) {
    case ".png":
      return "png";
    case ".jpg":
    case ".jpeg":
      return "jpeg";
    case ".webp":
      return "webp";
    default:
      return undefined;
  }
}
