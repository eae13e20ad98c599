import type { ImageFormat } from "../../protocol/index.js";
import { IMAGE_MIME, isWireImage } from "../../methods/index.js";
import { HttpResponse } from "./respond.js";

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
interface ImageBytes {
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
function imageBytesOf(result: unknown): ImageBytes | null | undefined {
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

/**
 * The answer to an image route asked for `Accept: image/*`: the raw bytes with their `Content-Type` and size
 * headers, 204 when there is no image to send, or undefined to answer JSON as usual.
 */
export function imageResponse(result: unknown): Response | undefined {
  const image = imageBytesOf(result);
  if (image === undefined) return undefined;
  if (image === null) return new HttpResponse(null, { status: 204 });
  return new HttpResponse(image.bytes as Uint8Array<ArrayBuffer>, {
    headers: {
      "content-type": image.mime,
      "x-image-width": String(image.width),
      "x-image-height": String(image.height),
    },
  });
}
