import { crc32 } from "node:zlib";
import sharp, { type Sharp } from "sharp";
import { BridgeError } from "../../protocol/errors.js";
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

/** What an encoded file says besides its pixels. */
export interface EncodeExtras {
  /** The document's resolution in dots per inch, written where the format keeps one. @default none written */
  readonly dpi?: number | undefined;
  /** Every pixel is opaque: PNG, WebP and TIFF are written without an alpha channel. @default false */
  readonly opaque?: boolean | undefined;
  /** A grayscale document: PNG, JPEG and TIFF are written gray (WebP has no gray form). @default false */
  readonly grayscale?: boolean | undefined;
}

/**
 * Ends a sharp pipeline in a format, the same way on every editor: JPEG flattened on white, TIFF lossless (LZW,
 * alpha kept unless `opaque`; `quality` only matters to the lossy formats). TIFF and WebP get the resolution here
 * (TIFF's own tags; WebP's EXIF); PNG and JPEG get it after encoding (`stampDensity`). WebP's encoder leaves out an
 * alpha channel no pixel uses, whatever is asked.
 */
export function withFormat(image: Sharp, format: FileFormat, quality: number | undefined, extras: EncodeExtras = {}): Sharp {
  const q = clampQuality(quality);
  const dpi = validDpi(extras.dpi);
  const colour = extras.grayscale === true && format !== "webp" ? image.toColourspace("b-w") : image;
  const rgb = extras.opaque === true ? colour.removeAlpha() : colour;
  switch (format) {
    case "png":
      return rgb.png();
    case "jpeg":
      return colour.flatten({ background: JPEG_BACKGROUND }).jpeg(q === undefined ? {} : { quality: q });
    case "webp":
      // WebP keeps a resolution only in EXIF, which libvips writes from the image's own (with an sRGB profile).
      return (dpi === undefined ? rgb : rgb.withMetadata({ density: dpi })).webp(q === undefined ? {} : { quality: q });
    case "tiff":
      // libvips takes pixels per millimetre and writes them per inch when told.
      return rgb.tiff({ compression: "lzw", ...(dpi === undefined ? {} : { xres: dpi / 25.4, yres: dpi / 25.4, resolutionUnit: "inch" as const }) });
    default:
      throw new BridgeError("BAD_REQUEST", `Unknown image format ${String(format)}`, { details: { format } });
  }
}

/** A resolution a file can carry: positive and finite, whole dots per inch (JPEG's JFIF holds 1–65535). */
function validDpi(dpi: number | undefined): number | undefined {
  if (dpi === undefined || !Number.isFinite(dpi) || dpi <= 0) return undefined;
  return Math.min(65_535, Math.max(1, Math.round(dpi)));
}

/** Encodes a pipeline in a format with its resolution written (see `withFormat`). */
export async function encodeImage(image: Sharp, format: FileFormat, quality: number | undefined, extras: EncodeExtras = {}): Promise<Buffer> {
  return stampDensity(await withFormat(image, format, quality, extras).toBuffer(), format, extras.dpi);
}

const PNG_SIGNATURE_BYTES = 8;
const JFIF_DENSITY_OFFSET = 13;

/**
 * Writes the resolution into an encoded PNG (a `pHYs` chunk after `IHDR`, replacing any) or JPEG (its JFIF
 * header's density, in dots per inch); other formats and files without the expected layout are returned as they are.
 */
export function stampDensity(bytes: Buffer, format: FileFormat, dpi: number | undefined): Buffer {
  const dots = validDpi(dpi);
  if (dots === undefined) return bytes;
  if (format === "png") return pngWithDensity(bytes, dots);
  if (format !== "jpeg" || bytes[0] !== 0xff || bytes[1] !== 0xd8) return bytes;
  if (bytes[2] === 0xff && bytes[3] === 0xe0 && bytes.toString("latin1", 6, 11) === "JFIF\0") {
    const out = Buffer.from(bytes);
    out[JFIF_DENSITY_OFFSET] = 1; // units: dots per inch
    out.writeUInt16BE(dots, JFIF_DENSITY_OFFSET + 1);
    out.writeUInt16BE(dots, JFIF_DENSITY_OFFSET + 3);
    return out;
  }
  // No JFIF header (mozjpeg writes none): one goes right after the start-of-image marker.
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x01, 0, 0, 0, 0, 0x00, 0x00]);
  app0.writeUInt16BE(dots, 12);
  app0.writeUInt16BE(dots, 14);
  return Buffer.concat([bytes.subarray(0, 2), app0, bytes.subarray(2)]);
}

function pngWithDensity(png: Buffer, dpi: number): Buffer {
  const chunks: Buffer[] = [png.subarray(0, PNG_SIGNATURE_BYTES)];
  const perMetre = Math.round(dpi / 0.0254);
  for (let at = PNG_SIGNATURE_BYTES; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString("latin1", at + 4, at + 8);
    const end = at + 12 + length;
    if (end > png.length) return png; // not a PNG as expected: left alone
    if (type !== "pHYs") chunks.push(png.subarray(at, end));
    if (type === "IHDR") {
      const chunk = Buffer.alloc(21);
      chunk.writeUInt32BE(9, 0);
      chunk.write("pHYs", 4, "latin1");
      chunk.writeUInt32BE(perMetre, 8);
      chunk.writeUInt32BE(perMetre, 12);
      chunk[16] = 1; // unit: the metre
      chunk.writeUInt32BE(crc32(chunk.subarray(4, 17)), 17);
      chunks.push(chunk);
    }
    at = end;
  }
  return Buffer.concat(chunks);
}
