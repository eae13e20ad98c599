import type { ImageFormat } from "../protocol/index.js";
import { IMAGE_MIME, isWireImage } from "../methods/index.js";

/*
 * Content negotiation of the HTTP image routes: what an `Accept` header asks of a method (its bytes, perhaps a
 * format), and the image a result carries.
 */

const FORMAT_BY_MIME: Readonly<Record<string, ImageFormat>> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/webp": "webp",
};

/**
 * What an `Accept` header asks of an image route: nothing (null), any image, or one format. The first image type
 * listed that the bridge can encode picks the format; `image/*` alone leaves it to the route.
 */
export function imageWanted(accept: string | null): { format: ImageFormat | undefined } | null {
  if (accept === null) return null;
  let any = false;
  for (const part of accept.split(",")) {
    const type = part.split(";")[0]!.trim().toLowerCase();
    const format = FORMAT_BY_MIME[type];
    if (format !== undefined) return { format };
    if (type === "image/*") any = true;
  }
  return any ? { format: undefined } : null;
}

/** An image result as raw bytes with what the response headers say about it. */
export interface ImageBytes {
  readonly bytes: Uint8Array;
  readonly mime: string;
  readonly width: number;
  readonly height: number;
}

/** `data:image/<type>;base64,<data>`: the form every image result carries in JSON. */
const DATA_URI = /^data:(image\/[a-z0-9.+-]+);base64,/i;

/**
 * The bytes of an image result: an export (kept as bytes) or a preview payload (`{data, width, height, …}` with a
 * data URI). Null when the route answered no image (no active layer); undefined when the result is no image.
 */
export function imageBytesOf(result: unknown): ImageBytes | null | undefined {
  if (result === null) return null;
  if (isWireImage(result)) {
    const { bytes, format, width, height } = result.image;
    return { bytes, mime: IMAGE_MIME[format], width, height };
  }
  if (typeof result !== "object") return undefined;
  const { data, width, height } = result as { data?: unknown; width?: unknown; height?: unknown };
  if (typeof data !== "string" || typeof width !== "number" || typeof height !== "number") return undefined;
  const match = DATA_URI.exec(data);
  if (match === null) return undefined;
  return { bytes: Buffer.from(data.slice(match[0].length), "base64"), mime: match[1]!.toLowerCase(), width, height };
}
