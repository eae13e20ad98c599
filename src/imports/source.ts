import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { readRegularFile, resolveClientPath, type FilePolicy } from "../files/index.js";
import { BridgeError } from "../protocol/index.js";
import { guardedLookup, isPrivateAddress } from "./address.js";
import type { ImportLimits } from "./limits.js";
import { importSourcePath, sniffImageFormat, type ImportFormat } from "./sniff.js";

/** Longest data URI header (`data:image/…;base64,`) allowed on top of the base64 payload. */
const MAX_DATA_URI_HEADER = 256;

const DATA_URI = /^data:([^;,]*)((?:;[^;,]*)*),/i;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Where an import may read from and how much (the bridge's `--no-file-import`, `--allow-private-import`, limits). */
export interface ImportPolicy {
  readonly limits: ImportLimits;
  /** `file:` URIs and local paths. */
  readonly allowFile: boolean;
  /** URLs whose host resolves to loopback, private, link-local or otherwise non-public addresses. */
  readonly allowPrivateUrl: boolean;
  /** Files roots: a file source is resolved like every client path. */
  readonly files: FilePolicy;
}


/** A short guess at what unsupported bytes are, for the error's details. */
function describeUnknown(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.subarray(0, 256)).toString("latin1").trimStart().toLowerCase();
  if (head.startsWith("<svg") || (head.startsWith("<?xml") && head.includes("<svg"))) return "svg";
  if (head.startsWith("%pdf")) return "pdf";
  if (head.startsWith("bm")) return "bmp";
  if (head.startsWith("<")) return "text/xml";
  return "unknown";
}

function unsupportedFormat(bytes: Uint8Array, source: string): BridgeError {
  const detected = describeUnknown(bytes);
  return new BridgeError("BAD_REQUEST", `Unsupported image format (${detected}); use png, jpeg, webp, gif or tiff`, {
    details: { source, detected, accepted: ["png", "jpeg", "webp", "gif", "tiff"] },
  });
}

function tooManyBytes(size: number, limits: ImportLimits, source: string): BridgeError {
  return new BridgeError("PAYLOAD_TOO_LARGE", `Image of ${size} bytes exceeds ${limits.maxBytes}`, {
    details: { source, size, maxBytes: limits.maxBytes },
  });
}

/** Encoded image bytes and where they came from (`data`, `base64`, `file`, `url`). */
export interface ImportedBytes {
  readonly bytes: Buffer;
  readonly format: ImportFormat;
  readonly source: "data" | "base64" | "file" | "url" | "binary";
}

/**
 * Encoded image bytes that came as a binary part of the request (a `?binary=1` WebSocket): checked like every
 * other source (size, known format), never copied.
 *
 * @throws BridgeError `PAYLOAD_TOO_LARGE` (above `limits.maxBytes`), `BAD_REQUEST` (empty, unknown format).
 */
export function importedPart(bytes: Uint8Array, limits: ImportLimits): ImportedBytes {
  if (bytes.byteLength > limits.maxBytes) throw tooManyBytes(bytes.byteLength, limits, "binary");
  return checked(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), "binary");
}

/**
 * Turns `LayerImportImageParams.image` into encoded bytes of a known raster format: a `data:` URI (base64), bare
 * base64, a `file:` URI or local path, or an http(s) URL. Nothing is decoded here.
 *
 * @throws BridgeError `BAD_REQUEST` (malformed data, unknown format, HTTP failure), `PAYLOAD_TOO_LARGE` (above
 *   `limits.maxBytes`), `FORBIDDEN` (file import disabled, private URL target), `NOT_FOUND` (missing file),
 *   `TIMEOUT` (URL too slow).
 */
export async function readImportSource(image: string, policy: ImportPolicy, signal: AbortSignal): Promise<ImportedBytes> {
  if (/^data:/i.test(image)) return checked(decodeDataUri(image, policy.limits), "data");
  // A `file:` URI, or a path that is not base64 of an image (JPEG base64 starts with "/9j/").
  const path = importSourcePath(image);
  if (path !== undefined) return checked(await readLocalFile(path, policy, signal), "file");
  if (/^https?:\/\//i.test(image)) return checked(await fetchImage(image, policy, signal), "url");
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(image)) {
    throw new BridgeError("BAD_REQUEST", "Only data:, file:, http: and https: image sources are accepted", {
      details: { scheme: image.slice(0, image.indexOf(":")) },
    });
  }
  const payload = image.replace(/\s+/g, "");
  if (BASE64.test(payload)) return checked(decodeBase64(payload, policy.limits), "base64");
  throw new BridgeError("BAD_REQUEST", "Image is neither a data URI, base64, a file path nor an http(s) URL");
}

function checked(bytes: Buffer, source: ImportedBytes["source"]): ImportedBytes {
  if (bytes.length === 0) throw new BridgeError("BAD_REQUEST", "Image data is empty", { details: { source } });
  const format = sniffImageFormat(bytes);
  if (!format) throw unsupportedFormat(bytes, source);
  return { bytes, format, source };
}

function decodeDataUri(image: string, limits: ImportLimits): Buffer {
  const header = DATA_URI.exec(image.slice(0, MAX_DATA_URI_HEADER));
  if (!header) throw new BridgeError("BAD_REQUEST", "Malformed data URI");
  const mime = (header[1] ?? "").toLowerCase();
  if (!mime.startsWith("image/")) {
    throw new BridgeError("BAD_REQUEST", `Data URI must hold an image, not "${mime || "text/plain"}"`, { details: { mediaType: mime } });
  }
  if (!/;base64$/i.test(header[2] ?? "")) throw new BridgeError("BAD_REQUEST", "Only base64 data URIs are accepted");
  const payload = image.slice(header[0].length).replace(/\s+/g, "");
  if (!BASE64.test(payload)) throw new BridgeError("BAD_REQUEST", "Data URI payload is not base64");
  return decodeBase64(payload, limits);
}

function decodeBase64(payload: string, limits: ImportLimits): Buffer {
  // Checked before decoding: the decoded buffer is 3/4 of the text.
  const size = Math.floor((payload.length * 3) / 4);
  if (size > limits.maxBytes) throw tooManyBytes(size, limits, "base64");
  return Buffer.from(payload, payload.includes("-") || payload.includes("_") ? "base64url" : "base64");
}

/**
 * Reads a file source: refused when file import is off, resolved against the files roots like every client path,
 * then read as a regular file (never a device or FIFO) within the byte limit and the call's deadline.
 */
async function readLocalFile(path: string, policy: ImportPolicy, signal: AbortSignal): Promise<Buffer> {
  if (!policy.allowFile) {
    throw new BridgeError("FORBIDDEN", "Importing local files is disabled on this bridge", { details: { capability: "import:file" } });
  }
  const file = await resolveClientPath(policy.files, path, { purpose: "read", maxBytes: policy.limits.maxBytes });
  return readRegularFile(file.path, { maxBytes: policy.limits.maxBytes, signal, label: path, within: policy.files.roots });
}

// --- URLs -------------------------------------------------------------------------------------------------

function privateTarget(host: string, address: string): BridgeError {
  return new BridgeError("FORBIDDEN", `Refusing to fetch ${host}: it resolves to a non-public address (${address})`, {
    details: { capability: "import:private-url", host, address },
  });
}

/** Downloads an image URL with a deadline, a byte cap counted while streaming, and bounded, re-checked redirects. */
async function fetchImage(url: string, policy: ImportPolicy, callerSignal: AbortSignal): Promise<Buffer> {
  const { limits } = policy;
  const deadline = AbortSignal.timeout(limits.urlTimeoutMs);
  const signal = AbortSignal.any([callerSignal, deadline]);
  let current = parseUrl(url);
  for (let hop = 0; ; hop++) {
    if (current.protocol !== "http:" && current.protocol !== "https:") {
      throw new BridgeError("BAD_REQUEST", `Redirect to a ${current.protocol} URL refused`, { details: { url: current.href } });
    }
    const host = current.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host) && !policy.allowPrivateUrl && isPrivateAddress(host)) throw privateTarget(host, host);
    let response: IncomingMessage;
    try {
      response = await get(current, policy.allowPrivateUrl, signal);
    } catch (error) {
      throw urlError(error, current, deadline, limits);
    }
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      if (hop >= limits.maxRedirects) {
        throw new BridgeError("BAD_REQUEST", `More than ${limits.maxRedirects} redirects`, {
          details: { url, maxRedirects: limits.maxRedirects },
        });
      }
      current = parseUrl(response.headers.location, current);
      continue;
    }
    if (status < 200 || status >= 300) {
      response.resume();
      throw new BridgeError("BAD_REQUEST", `Fetching the image failed with HTTP ${status}`, { details: { url: current.href, status } });
    }
    const declared = Number(response.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      response.destroy();
      throw tooManyBytes(declared, limits, "url");
    }
    try {
      return await readCapped(response, limits);
    } catch (error) {
      throw urlError(error, current, deadline, limits);
    }
  }
}

/** `new URL`, with a malformed address (`http://`, a bad port, a bad redirect `Location`) answered as a client error. */
function parseUrl(text: string, base?: URL): URL {
  try {
    return new URL(text, base);
  } catch {
    throw new BridgeError("BAD_REQUEST", "The image URL is not a valid URL", { details: { url: text } });
  }
}

function get(url: URL, allowPrivate: boolean, signal: AbortSignal): Promise<IncomingMessage> {
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolvePromise, reject) => {
    const req = request(url, { method: "GET", signal, lookup: guardedLookup(allowPrivate, privateTarget), headers: { accept: "image/*" } });
    req.once("response", resolvePromise);
    req.once("error", reject);
    req.end();
  });
}

/** Collects a response body, failing as soon as it passes the byte limit. */
async function readCapped(response: IncomingMessage, limits: ImportLimits): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limits.maxBytes) {
      response.destroy();
      throw tooManyBytes(size, limits, "url");
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

function urlError(error: unknown, url: URL, deadline: AbortSignal, limits: ImportLimits): BridgeError {
  if (error instanceof BridgeError) return error;
  if (deadline.aborted) {
    return new BridgeError("TIMEOUT", `Fetching the image took longer than ${limits.urlTimeoutMs} ms`, {
      details: { url: url.href, timeoutMs: limits.urlTimeoutMs },
    });
  }
  const cause = error as NodeJS.ErrnoException;
  if (cause?.name === "AbortError") return new BridgeError("TIMEOUT", "The call was aborted while fetching the image", { details: { url: url.href } });
  return new BridgeError("BAD_REQUEST", `Fetching the image failed: ${cause?.message ?? String(error)}`, {
    details: { url: url.href, errno: cause?.code },
    cause: error,
  });
}

// --- Placement ----------------------------------------------------------------------------------------------

