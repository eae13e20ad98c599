import sharp from "sharp";
import type { Metadata } from "sharp";
import type { FileFeatures } from "../../files/index.js";
import { BridgeError } from "../../protocol/errors.js";
import { imageFeatures } from "../_internal/image-features.js";
import type { Raster } from "./raster.js";

/** Input formats accepted from clients and files; SVG and PDF are left out (they can reference other resources). */
const DECODABLE_FORMATS: ReadonlySet<string> = new Set(["png", "jpeg", "webp", "gif", "tiff"]);

/** A decoded image and its resolution when the file states one. */
export interface DecodedImage {
  readonly raster: Raster;
  readonly density: number | undefined;
  /** What the file held beyond 8-bit RGB pixels (ICC profile, 16-bit, grayscale, metadata). */
  readonly features: FileFeatures;
}

/**
 * Decodes an encoded image to upright RGBA (EXIF orientation applied), scaled to exactly `size` when given. The
 * header is checked first so an oversized image is refused before any pixel is decoded (a small file can declare
 * a huge image).
 *
 * @throws BridgeError `BAD_REQUEST` for undecodable data or another format, `PAYLOAD_TOO_LARGE` above `maxPixels`.
 */
export async function decodeImage(
  bytes: Uint8Array,
  options: {
    maxPixels: number;
    size?: { width: number; height: number } | undefined;
    details?: Record<string, unknown>;
    /** Told the bytes the decoded pixels take (from the header), before decoding; throws to refuse. */
    charge?: ((bytes: number, details?: Record<string, unknown>) => void) | undefined;
  },
): Promise<DecodedImage> {
  const details = options.details ?? {};
  let meta: Metadata;
  try {
    // Header only: no limit here so an oversized image is reported as too large rather than undecodable.
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (cause) {
    throw new BridgeError("BAD_REQUEST", "Image data could not be decoded", { details, cause });
  }
  if (!meta.format || !DECODABLE_FORMATS.has(meta.format) || !meta.width || !meta.height) {
    throw new BridgeError("BAD_REQUEST", `Unsupported image format ${meta.format ?? "unknown"}; use png, jpeg, webp, gif or tiff`, {
      details: { ...details, format: meta.format },
    });
  }
  const pixels = meta.width * meta.height;
  const target = options.size;
  if (pixels > options.maxPixels || (target && target.width * target.height > options.maxPixels)) {
    throw new BridgeError("PAYLOAD_TOO_LARGE", `Image of ${meta.width}×${meta.height} exceeds ${options.maxPixels} pixels`, {
      details: { ...details, width: meta.width, height: meta.height, maxPixels: options.maxPixels },
    });
  }
  const out = target ?? { width: meta.width, height: meta.height };
  options.charge?.(out.width * out.height * 4, { ...details, width: out.width, height: out.height });
  try {
    let image = sharp(bytes, { limitInputPixels: options.maxPixels }).rotate().toColourspace("srgb").ensureAlpha();
    if (target) image = image.resize(target.width, target.height, { fit: "fill" });
    const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
    if (info.channels !== 4) throw new Error(`expected 4 channels, got ${info.channels}`);
    const raster = { data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
    return { raster, density: meta.density, features: imageFeatures(meta) };
  } catch (cause) {
    throw new BridgeError("BAD_REQUEST", "Image data could not be decoded", { details, cause });
  }
}
