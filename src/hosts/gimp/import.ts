import { fileURLToPath } from "node:url";
import { readRegularFile } from "../../files/index.js";
import sharp from "sharp";
import { BridgeError } from "../../protocol/index.js";
import { MAX_DOCUMENT_PIXELS, MAX_IMPORT_BYTES } from "./limits.js";

const DATA_URI = /^data:([^;,]*)((?:;[^;,]*)*),/i;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * The image of `layer:importImage` as PNG bytes GIMP can load: a base64 `data:` URI, bare base64, a `file:` URI
 * or an absolute path. Decoding goes through sharp, so GIMP only ever sees a checked PNG of bounded size.
 *
 * @throws BridgeError `BAD_REQUEST` (malformed or undecodable), `PAYLOAD_TOO_LARGE` (above `MAX_IMPORT_BYTES`
 *   or `MAX_DOCUMENT_PIXELS`), `NOT_SUPPORTED` (URLs).
 */
export async function decodeImportImage(
  image: string,
  size: { width: number; height: number } | undefined,
  signal?: AbortSignal,
): Promise<Buffer> {
  const bytes = await sourceBytes(image.trim(), signal);
  let meta: { width?: number | undefined; height?: number | undefined };
  try {
    meta = await sharp(bytes).metadata();
  } catch (cause) {
    throw new BridgeError("BAD_REQUEST", "The image could not be decoded", { cause });
  }
  const pixels = (meta.width ?? 0) * (meta.height ?? 0);
  if (pixels > MAX_DOCUMENT_PIXELS) {
    throw new BridgeError("PAYLOAD_TOO_LARGE", `Image of ${meta.width}×${meta.height} exceeds ${MAX_DOCUMENT_PIXELS} pixels`, {
      details: { width: meta.width, height: meta.height, maxPixels: MAX_DOCUMENT_PIXELS },
    });
  }
  let pipeline = sharp(bytes).ensureAlpha();
  if (size) pipeline = pipeline.resize(size.width, size.height, { fit: "fill" });
  try {
    return await pipeline.png({ compressionLevel: 1 }).toBuffer();
  } catch (cause) {
    throw new BridgeError("BAD_REQUEST", "The image could not be decoded", { cause });
  }
}

async function sourceBytes(image: string, signal: AbortSignal | undefined): Promise<Buffer> {
  if (/^https?:/i.test(image)) {
    throw new BridgeError("NOT_SUPPORTED", "The GIMP host imports data URIs, base64 and local files, not URLs", {
      details: { capability: "import:url", editor: "gimp" },
    });
  }
  if (/^file:/i.test(image) || image.startsWith("/")) {
    let path: string;
    try {
      path = /^file:/i.test(image) ? fileURLToPath(image) : image;
    } catch (cause) {
      throw new BridgeError("BAD_REQUEST", "Malformed file: URI", { cause });
    }
    // Never blocks on a FIFO, refuses devices, bounded: see readRegularFile.
    return readRegularFile(path, { maxBytes: MAX_IMPORT_BYTES, signal });
  }
  let payload = image;
  const header = DATA_URI.exec(image.slice(0, 256));
  if (header) {
    if (!(header[1] ?? "").toLowerCase().startsWith("image/")) throw new BridgeError("BAD_REQUEST", "The data URI must hold an image");
    if (!/;base64$/i.test(header[2] ?? "")) throw new BridgeError("BAD_REQUEST", "Only base64 data URIs are accepted");
    payload = image.slice(header[0].length);
  } else if (/^data:/i.test(image)) {
    throw new BridgeError("BAD_REQUEST", "Malformed data URI");
  }
  payload = payload.replace(/\s+/g, "");
  if (!BASE64.test(payload)) throw new BridgeError("BAD_REQUEST", "The image is neither a data URI, base64 nor an absolute path");
  if ((payload.length * 3) / 4 > MAX_IMPORT_BYTES) throw tooLarge(Math.floor((payload.length * 3) / 4));
  const bytes = Buffer.from(payload, /[-_]/.test(payload) ? "base64url" : "base64");
  if (bytes.length === 0) throw new BridgeError("BAD_REQUEST", "The image is empty");
  return bytes;
}

function tooLarge(bytes: number): BridgeError {
  return new BridgeError("PAYLOAD_TOO_LARGE", `Image of ${bytes} bytes exceeds ${MAX_IMPORT_BYTES}`, {
    details: { bytes, maxBytes: MAX_IMPORT_BYTES },
  });
}
