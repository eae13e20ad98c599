import sharp, { type Sharp } from "sharp";
import { BridgeError } from "../../protocol/index.js";
import type { FileFormat, ImageFormat } from "../../protocol/index.js";

/**
 * For editors that render PNG, JPEG and WebP themselves: TIFF files are rendered as PNG (lossless) and converted
 * with sharp (LZW, also lossless).
 */
export async function renderFile<T extends { bytes: Uint8Array }>(
  format: FileFormat,
  render: (format: ImageFormat) => Promise<T>,
): Promise<T> {
  if (format !== "tiff") return render(format);
  const png = await render("png");
  return { ...png, bytes: await sharp(png.bytes).tiff({ compression: "lzw" }).toBuffer() };
}

/** JPEG has no alpha; transparent areas become white, as an editor's "flatten" does. */
const JPEG_BACKGROUND = { r: 255, g: 255, b: 255 };

/** Quality 1–100 for sharp, or undefined for its default. */
function clampQuality(quality: number | undefined): number | undefined {
  if (quality === undefined || !Number.isFinite(quality)) return undefined;
  return Math.min(100, Math.max(1, Math.round(quality)));
}

/**
 * Ends a sharp pipeline in a format, the same way on every editor: JPEG flattened on white, TIFF lossless (LZW,
 * alpha kept; `quality` only matters to the lossy formats).
 */
export function withFormat(image: Sharp, format: FileFormat, quality: number | undefined): Sharp {
  const q = clampQuality(quality);
  switch (format) {
    case "png":
      return image.png();
    case "jpeg":
      return image.flatten({ background: JPEG_BACKGROUND }).jpeg(q === undefined ? {} : { quality: q });
    case "webp":
      return image.webp(q === undefined ? {} : { quality: q });
    case "tiff":
      return image.tiff({ compression: "lzw" });
    default:
      throw new BridgeError("BAD_REQUEST", `Unknown image format ${String(format)}`, { details: { format } });
  }
}
