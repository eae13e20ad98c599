import { BridgeError } from "../protocol/errors.js";
import type { FileFormat } from "../protocol/resources.js";

/** WebP cannot encode an edge longer than this (a limit of the format). */
export const MAX_WEBP_EDGE = 16_383;

/**
 * Refuses an output size the format cannot hold (WebP edges past {@link MAX_WEBP_EDGE}), before any editor renders.
 * @throws BridgeError `BAD_REQUEST`
 */
export function checkEncodable(format: FileFormat, size: { width: number; height: number }): void {
  if (format === "webp" && Math.max(size.width, size.height) > MAX_WEBP_EDGE) {
    throw new BridgeError("BAD_REQUEST", `WebP cannot hold an edge longer than ${MAX_WEBP_EDGE} px; use png or jpeg, or maxSize`, {
      details: { ...size, format },
    });
  }
}

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
