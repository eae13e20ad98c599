import { decodeBinaryFrame, encodeBinaryHeader, isBinaryPartReference } from "../protocol/binary-frames.js";
import type { BinaryImageReference, ImageFormat, HostBounds } from "../protocol/resources.js";
import { CLIENT_ERROR_CODES } from "./errors.js";
import { BridgeImage, fromBase64, toBase64 } from "./image.js";

/*
 * The client's side of the `binary` feature (`?binary=1`): JSON answers that reference a binary message are held
 * until that message arrives and then carry a `BridgeImage`; request params that are bytes travel as binary parts
 * after the request (or as data URIs on a connection without the feature). No Node APIs: this runs in browsers.
 */

/** Bytes a caller may pass where a method takes an image (`layer:importImage`'s `image`). */
export type BinaryInput = Uint8Array | ArrayBuffer | Blob;

function isBytes(value: unknown): value is Uint8Array | ArrayBuffer {
  return value instanceof Uint8Array || value instanceof ArrayBuffer;
}

function isBlob(value: unknown): value is Blob {
  return typeof Blob === "function" && value instanceof Blob;
}

/** Whether some top-level param is a `Blob`, which must be read before the request can be encoded. */
export function hasBlobParams(params: unknown): boolean {
  return typeof params === "object" && params !== null && !Array.isArray(params) && Object.values(params).some(isBlob);
}

/** Reads `Blob` params into bytes (the only asynchronous step), so a request can be encoded when it is sent. */
export async function readBlobParams(params: unknown): Promise<unknown> {
  if (!hasBlobParams(params)) return params;
  const entries = Object.entries(params as Record<string, unknown>);
  const read = await Promise.all(entries.map(async ([key, value]) => [key, isBlob(value) ? new Uint8Array(await value.arrayBuffer()) : value] as const));
  return Object.fromEntries(read);
}

/** The media type of common image bytes, for a data URI (the bridge reads the format from the bytes themselves). */
function sniffMime(bytes: Uint8Array): string {
  const at = (i: number): number => bytes[i] ?? -1;
  if (at(0) === 0x89 && at(1) === 0x50 && at(2) === 0x4e && at(3) === 0x47) return "image/png";
  if (at(0) === 0xff && at(1) === 0xd8) return "image/jpeg";
  if (at(8) === 0x57 && at(9) === 0x45 && at(10) === 0x42 && at(11) === 0x50) return "image/webp";
  if (at(0) === 0x47 && at(1) === 0x49 && at(2) === 0x46) return "image/gif";
  return "image/tiff";
}

/**
 * Longest image string (a base64 data URI, or bare base64) a request carries inline on a connection with binary
 * messages; a longer one is decoded and sent as a binary part instead, so a big image never makes a big text frame
 * (the bridge refuses text frames over its `maxTextFrameBytes`, 4 MiB by default, and parsing one costs its thread).
 */
export const INLINE_IMAGE_MAX_CHARS = 64 * 1024;

/** The params that take an image as a string as well as a binary part, per method: only these are converted. */
const IMAGE_STRING_PARAMS: Readonly<Record<string, string>> = { "layer:importImage": "image" };

/** A base64 data URI: its payload after the comma. */
const DATA_URI = /^data:[^,;]*(?:;[^,;]*)*;base64,/i;
/** Bare base64 (standard or URL-safe, padding optional): how the bridge tells an image from a path. */
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** The bytes of a long image string (base64 data URI or bare base64), or undefined when it is neither or short. */
function imageStringBytes(value: unknown): Uint8Array | undefined {
  if (typeof value !== "string" || value.length <= INLINE_IMAGE_MAX_CHARS) return undefined;
  const header = DATA_URI.exec(value);
  const payload = header === null ? value : value.slice(header[0].length);
  if (!BASE64.test(payload)) return undefined;
  try {
    return fromBase64(payload);
  } catch {
    return undefined; // not decodable after all: sent as written, the bridge says what is wrong with it
  }
}

/** A request as written to the socket: its JSON frame and the binary messages that follow it. */
export interface EncodedRequest {
  readonly frame: string;
  readonly parts: Uint8Array[];
}

/**
 * Encodes a request. Top-level params that are bytes become `{ "binary": n }` and follow as binary part n (header
 * naming the request) when the connection negotiated `binary`; otherwise they are sent inline as data URIs. On a
 * `binary` connection, `layer:importImage`'s image given as a string (base64 data URI or bare base64) longer than
 * {@link INLINE_IMAGE_MAX_CHARS} is decoded and sent as a binary part too.
 */
export function encodeRequest(id: string, method: string, params: unknown, binary: boolean, progress = false): EncodedRequest {
  // `progress: true` asks for progress events about this request; it is a field of the request, not of its params.
  const asks = progress ? { progress: true } : {};
  if (params === undefined) return { frame: JSON.stringify({ id, method, ...asks }), parts: [] };
  if (typeof params !== "object" || params === null || Array.isArray(params)) return { frame: JSON.stringify({ id, method, params, ...asks }), parts: [] };
  // Each param once: decoding a long image string is the costly step.
  const imageKey = binary ? IMAGE_STRING_PARAMS[method] : undefined;
  const entries = Object.entries(params).map(([key, value]) => [key, value, isBytes(value) ? value : key === imageKey ? imageStringBytes(value) : undefined] as const);
  if (entries.every(([, , bytes]) => bytes === undefined)) return { frame: JSON.stringify({ id, method, params, ...asks }), parts: [] };
  const parts: Uint8Array[] = [];
  const encoded: Record<string, unknown> = {};
  for (const [key, value, given] of entries) {
    if (given === undefined) {
      encoded[key] = value;
      continue;
    }
    const bytes = given instanceof Uint8Array ? given : new Uint8Array(given);
    if (!binary) {
      encoded[key] = `data:${sniffMime(bytes)};base64,${toBase64(bytes)}`;
      continue;
    }
    const header = encodeBinaryHeader(id, parts.length);
    const message = new Uint8Array(header.byteLength + bytes.byteLength);
    message.set(header, 0);
    message.set(bytes, header.byteLength);
    encoded[key] = { binary: parts.length };
    parts.push(message);
  }
  return { frame: JSON.stringify({ id, method, params: encoded, ...asks }), parts };
}

/** An image of an answer whose bytes come as a binary message: `{ data: { binary, mime, bytes }, format, width, height, bounds }`. */
type ImageReference = { readonly data: BinaryImageReference; readonly format: ImageFormat; readonly width: number; readonly height: number; readonly bounds: HostBounds };

function isImageReference(value: unknown): value is ImageReference {
  const data = (value as { data?: unknown } | null | undefined)?.data;
  return isBinaryPartReference(data) && typeof (data as { mime?: unknown }).mime === "string" && typeof (data as { bytes?: unknown }).bytes === "number";
}

/** The image references in a result, at any depth (the result itself, or `variants[i].image`, …). */
function imageReferences(value: unknown, into: ImageReference[] = []): ImageReference[] {
  if (typeof value !== "object" || value === null) return into;
  if (isImageReference(value)) {
    into.push(value);
    return into;
  }
  for (const item of Array.isArray(value) ? value : Object.values(value)) imageReferences(item, into);
  return into;
}

/** A copy of `value` with each image reference replaced by the image of its part. */
function withImages(value: unknown, images: readonly BridgeImage[]): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (isImageReference(value)) return images[value.data.binary];
  if (Array.isArray(value)) return value.map((item) => withImages(item, images));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withImages(item, images)]));
}

interface HeldAnswer {
  readonly frame: Record<string, unknown>;
  /** The references by part index: part n is `references[n]`. */
  readonly references: readonly ImageReference[];
  /** Images of the parts received so far, in order. */
  readonly images: BridgeImage[];
}

/** A failure answer for a request whose image was announced but never came whole. */
function lostImage(frame: Record<string, unknown>, message: string): Record<string, unknown> {
  return {
    id: frame["id"],
    ok: false,
    error: { code: CLIENT_ERROR_CODES.CONNECTION_LOST, message, retryable: true, details: { outcome: "unknown" } },
  };
}

/**
 * Pairs answers whose result references binary messages (`data: { binary: n, mime, bytes }` in place of an image's
 * data URI: the result itself, or images inside it such as `template:render`'s `variants[i].image`) with those
 * messages, which the bridge sends right after the JSON, part 0 first. Once all have come the answer carries a
 * {@link BridgeImage} over each payload (a view on the received message, not a copy) where its reference was.
 */
export class BinaryAnswers {
  private held: HeldAnswer | undefined;

  /** A JSON answer: itself when it references no binary message, otherwise undefined until all the bytes arrive. */
  hold(frame: Record<string, unknown>): Record<string, unknown> | undefined {
    if (frame["ok"] !== true) return frame;
    const found = imageReferences(frame["result"]);
    if (found.length === 0) return frame;
    const references: ImageReference[] = [];
    for (const reference of found) {
      if (references[reference.data.binary] !== undefined) return lostImage(frame, `The answer to request ${String(frame["id"])} names binary part ${reference.data.binary} twice`);
      references[reference.data.binary] = reference;
    }
    if (references.length !== found.length) return lostImage(frame, `The answer to request ${String(frame["id"])} skips a binary part number`);
    this.held = { frame, references, images: [] };
    return undefined;
  }

  /**
   * A binary message: the held answer completed with its images once this was the last of them (or failed when the
   * message does not match it); undefined while more are to come.
   */
  complete(message: ArrayBuffer | Uint8Array): Record<string, unknown> | undefined {
    const held = this.held;
    if (held === undefined) return undefined; // the bridge sends none unannounced; nothing to give it to
    const decoded = decodeBinaryFrame(message instanceof Uint8Array ? message : new Uint8Array(message));
    const { frame, references, images } = held;
    const reference = references[images.length]!;
    if (typeof decoded === "string") {
      this.held = undefined;
      return lostImage(frame, `The image of request ${String(frame["id"])} could not be read: ${decoded}`);
    }
    if (decoded.requestId !== String(frame["id"]) || decoded.index !== images.length || decoded.payload.byteLength !== reference.data.bytes) {
      this.held = undefined;
      return lostImage(frame, `The binary message after request ${String(frame["id"])} did not match its answer`);
    }
    images.push(BridgeImage.fromBytes(reference, reference.data.mime, decoded.payload));
    if (images.length < references.length) return undefined;
    this.held = undefined;
    return { ...frame, result: withImages(frame["result"], images) };
  }

  /** The socket closed between an answer and its bytes: that answer fails (the request may be retried). */
  reset(): Record<string, unknown> | undefined {
    const held = this.held;
    this.held = undefined;
    return held === undefined ? undefined : lostImage(held.frame, `The connection closed before the image${held.references.length > 1 ? "s" : ""} of request ${String(held.frame["id"])} arrived`);
  }
}
