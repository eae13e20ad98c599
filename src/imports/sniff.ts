import { fileURLToPath } from "node:url";
import { BridgeError } from "../protocol/index.js";

/** Raster formats accepted for import, recognised from their first bytes. */
export type ImportFormat = "png" | "jpeg" | "webp" | "gif" | "tiff";

/**
 * The format of encoded bytes from their magic numbers, or `undefined`. Sniffing (rather than trusting a data
 * URI's media type, a file extension or a Content-Type) keeps SVG, PDF and other decoders out of reach.
 */
export function sniffImageFormat(bytes: Uint8Array): ImportFormat | undefined {
  const at = (i: number, ...values: number[]): boolean => values.every((v, k) => bytes[i + k] === v);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "png";
  if (at(0, 0xff, 0xd8, 0xff)) return "jpeg";
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return "webp";
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (at(4, 0x37, 0x61) || at(4, 0x39, 0x61))) return "gif";
  if (at(0, 0x49, 0x49, 0x2a, 0x00) || at(0, 0x4d, 0x4d, 0x00, 0x2a)) return "tiff";
  return undefined;
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
/** Looks like a local path: rooted, relative, home, Windows drive or UNC, or has a file extension. */
const PATH_LIKE = /^(?:\/|\.{1,2}[/\\]|~[/\\]|[A-Za-z]:[/\\]|\\\\)|\.[A-Za-z0-9]{1,5}$/;
/** Base64 characters enough to sniff a format (12 bytes: WebP's tag sits at bytes 8–11). */
const SNIFF_BASE64_CHARS = 16;

/** Whether text is base64 of an image, judged from its first bytes only (no full decode). */
function isBase64Image(text: string): boolean {
  if (!BASE64.test(text)) return false;
  const head = text.slice(0, SNIFF_BASE64_CHARS);
  return sniffImageFormat(Buffer.from(head, /[-_]/.test(head) ? "base64url" : "base64")) !== undefined;
}

/**
 * The local file an import source names — a `file:` URI, or text that looks like a path and is not base64 of an
 * image (JPEG base64 starts with `/9j/`) — or `undefined` for data URIs, base64 and URLs.
 *
 * @throws BridgeError `BAD_REQUEST` for a malformed `file:` URI.
 */
export function importSourcePath(image: string): string | undefined {
  if (/^file:/i.test(image)) {
    try {
      return fileURLToPath(image);
    } catch (cause) {
      throw new BridgeError("BAD_REQUEST", "Malformed file: URI", { details: { image: image.slice(0, 256) }, cause });
    }
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(image) && !/^[A-Za-z]:[/\\]/.test(image)) return undefined; // data:, http(s): …
  const text = image.trim();
  if (isBase64Image(text.replace(/\s+/g, ""))) return undefined;
  return PATH_LIKE.test(text) ? text : undefined;
}
