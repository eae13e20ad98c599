import sharp from "sharp";
import type { FileFormat, ImageFormat } from "../../protocol/index.js";

/** Flattened-file format implied by an extension (`.png`, `.jpg`, `.jpeg`, `.webp`, `.tif`, `.tiff`), or undefined. */
export function formatForExtension(ext: string): FileFormat | undefined {
  switch (ext.toLowerCase()) {
    case ".png":
      return "png";
    case ".jpg":
    case ".jpeg":
      return "jpeg";
    case ".webp":
      return "webp";
    case ".tif":
    case ".tiff":
      return "tiff";
    default:
      return undefined;
  }
}

/** The message for a `document:export` whose format cannot be told. */
export const UNKNOWN_FILE_FORMAT = "Pass format or use a .png, .jpg, .jpeg, .webp, .tif or .tiff path";

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
