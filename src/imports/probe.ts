import sharp from "sharp";
import { BridgeError } from "../protocol/index.js";
import type { ImportedBytes } from "./source.js";
import type { ImportFormat } from "./sniff.js";

/** An import source whose header was read: what an editor needs to place it, nothing decoded yet. */
export interface ProbedImage {
  readonly bytes: Uint8Array;
  readonly format: ImportFormat;
  readonly width: number;
  readonly height: number;
  readonly source: ImportedBytes["source"];
}

/**
 * Reads an image's header only (sharp `metadata`, asynchronous and cheap: no pixel is decoded) for its size, and
 * refuses images above `maxPixels` (a small file can declare a huge image) and a requested `size` above it too.
 * Decoding is the editor's work.
 * @throws BridgeError `BAD_REQUEST` (undecodable header), `PAYLOAD_TOO_LARGE` (too many pixels).
 */
export async function probeImage(
  imported: ImportedBytes,
  maxPixels: number,
  size?: { width: number; height: number } | undefined,
): Promise<ProbedImage> {
  const details = { source: imported.source, format: imported.format };
  let width: number | undefined;
  let height: number | undefined;
  try {
    // The upright size (EXIF orientation applied): what the editor's layer will be, so defaults centre it right.
    const meta = await sharp(imported.bytes, { limitInputPixels: false }).metadata();
    ({ width, height } = meta.autoOrient ?? meta);
  } catch (cause) {
    throw new BridgeError("BAD_REQUEST", "Image data could not be decoded", { details, cause });
  }
  if (!width || !height) throw new BridgeError("BAD_REQUEST", "Image data could not be decoded", { details });
  if (width * height > maxPixels || (size !== undefined && size.width * size.height > maxPixels)) {
    throw new BridgeError("PAYLOAD_TOO_LARGE", `Image of ${width}×${height} exceeds ${maxPixels} pixels`, {
      details: { ...details, width, height, maxPixels },
    });
  }
  return { bytes: imported.bytes, format: imported.format, width, height, source: imported.source };
}
