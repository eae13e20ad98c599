import { setImmediate as nextTurn } from "node:timers/promises";
import type { EncodedImage } from "../hosts/host.js";
import { encodeBinaryHeader, MAX_BINARY_PARTS, type BinaryImageReference, type HostBounds, type ImageFormat, type ImageResult, type RequestId } from "../protocol/index.js";
import { dataUri, IMAGE_MIME } from "./_internal/images.js";

/**
 * Images larger than this are serialized to JSON in slices, yielding to the event loop between them: encoding a
 * 40 MB export as one base64 string and stringifying it would hold the thread that serves every client for over
 * 100 ms.
 */
export const LARGE_IMAGE_BYTES = 1024 * 1024;

/** Bytes encoded per slice (a multiple of 3, so the base64 of consecutive slices concatenates exactly). */
const SLICE_BYTES = 3 * 256 * 1024;

const BRAND = Symbol.for("image-editor-bridge.WireImage");

/**
 * An image result that keeps its bytes: JSON encodes it as the spec's `ImageResult` (a data URI, built only
 * when serialized), while HTTP `Accept: image/*` sends the bytes as they are.
 */
export class WireImage {
  readonly [BRAND] = true;
  constructor(readonly image: EncodedImage) {}

  toJSON(): ImageResult {
    const { format, width, height, bounds } = this.image;
    return { data: dataUri(this.image), format: format as ImageFormat, width, height, bounds: bounds as HostBounds };
  }
}

export function isWireImage(value: unknown): value is WireImage {
  return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}

/**
 * `prefix` + the image result's JSON + `suffix` as UTF-8 bytes, written into one buffer slice by slice with a turn
 * of the event loop between slices, so a large image never stalls other clients. Equal to
 * `prefix + JSON.stringify(image) + suffix`.
 */
export async function imageResultJson(image: WireImage, prefix: string, suffix: string): Promise<Buffer> {
  const { bytes, format, width, height, bounds } = image.image;
  const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const head = `${prefix}{"data":"data:${IMAGE_MIME[format]};base64,`;
  const tail = `","format":${JSON.stringify(format)},"width":${width},"height":${height},"bounds":${JSON.stringify(bounds)}}${suffix}`;
  const base64Length = Math.ceil(source.length / 3) * 4;
  const out = Buffer.allocUnsafe(Buffer.byteLength(head) + base64Length + Buffer.byteLength(tail));
  let at = out.write(head, 0, "utf8");
  for (let start = 0; start < source.length; start += SLICE_BYTES) {
    if (start > 0) await nextTurn();
    at += out.write(source.toString("base64", start, Math.min(start + SLICE_BYTES, source.length)), at, "latin1");
  }
  out.write(tail, at, "utf8");
  return out;
}

/** Results that hold {@link WireImage}s below their top level (see {@link withImages}). */
const HOLDERS = new WeakSet<object>();

/**
 * Marks a result that holds `WireImage`s inside it (`template:render`'s `variants[i].image`), so a connection that
 * negotiated `binary` gets those images as binary parts. Only marked results are searched: most results hold no
 * image, and walking every answer (a layer tree of thousands) to find none would cost each binary client.
 */
export function withImages<T extends object>(value: T): T {
  HOLDERS.add(value);
  return value;
}

/** Whether a result was marked by {@link withImages}. */
export function holdsImages(value: unknown): value is object {
  return typeof value === "object" && value !== null && HOLDERS.has(value);
}

function isPlain(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * A copy of `value` with each `WireImage` in it (in plain objects and arrays, at any depth) replaced by
 * `replace(image)`, met in the order `JSON.stringify` writes them; parts without an image are the originals.
 */
function replaceImages(value: unknown, replace: (image: WireImage) => unknown): unknown {
  if (isWireImage(value)) return replace(value);
  if (typeof value !== "object" || value === null || !isPlain(value)) return value;
  if (Array.isArray(value)) return value.map((item) => replaceImages(item, replace));
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = replaceImages((value as Record<string, unknown>)[key], replace);
  return copy;
}

/**
 * The result as every JSON reader sees it (HTTP, plugins, MCP, the result schema): each `WireImage`, at the top or
 * inside a result marked by {@link withImages}, as its `ImageResult` with a data URI.
 */
export function withDataUris(result: unknown): unknown {
  if (isWireImage(result)) return result.toJSON();
  return holdsImages(result) ? replaceImages(result, (image) => image.toJSON()) : result;
}

/** One binary message of an answer: its header (request id, part index) and the image's bytes as the editor made them. */
export interface BinaryPart {
  readonly header: Uint8Array;
  readonly payload: Uint8Array;
}

/**
 * The answer to a request whose result is an image, or holds images ({@link withImages}), for a connection that
 * negotiated `binary`: the JSON response with `{ binary: n, mime, bytes }` in place of each image's data URI (n = 0,
 * 1, … in the order the JSON names them), then one binary message per image (header naming the request and n, then
 * the encoded bytes as the editor produced them: no base64, no copy). It is one frame for the client's outbound
 * queue and replay buffer, so a resumed client gets every part or none.
 */
export class BinaryImageResponse {
  /** The JSON response frame. */
  readonly json: string;
  /** The binary messages, part 0 first. */
  readonly parts: readonly BinaryPart[];

  private constructor(
    readonly id: RequestId,
    private readonly result: unknown,
    json: string,
    parts: readonly BinaryPart[],
  ) {
    this.json = json;
    this.parts = parts;
  }

  /**
   * The binary answer to `result`: undefined when it holds no image, or more than binary parts can number
   * ({@link MAX_BINARY_PARTS}; then the answer carries data URIs).
   */
  static of(id: RequestId, result: unknown): BinaryImageResponse | undefined {
    if (!isWireImage(result) && !holdsImages(result)) return undefined;
    const images: WireImage[] = [];
    const body = replaceImages(result, (image) => {
      const { bytes, format, width, height, bounds } = image.image;
      const data: BinaryImageReference = { binary: images.length, mime: IMAGE_MIME[format], bytes: bytes.byteLength };
      images.push(image);
      return { data, format, width, height, bounds };
    });
    if (images.length === 0 || images.length > MAX_BINARY_PARTS) return undefined;
    const parts = images.map((image, n) => ({ header: encodeBinaryHeader(id, n), payload: image.image.bytes }));
    return new BinaryImageResponse(id, result, JSON.stringify({ id, ok: true, result: body }), parts);
  }

  /** Bytes all its messages take on the wire, framing aside. */
  get byteLength(): number {
    return this.parts.reduce((sum, part) => sum + part.header.byteLength + part.payload.byteLength, Buffer.byteLength(this.json));
  }

  /** The same answer with data URIs, for a socket that did not negotiate binary (a resume without `?binary=1`). */
  textForm(): string {
    return JSON.stringify({ id: this.id, ok: true, result: this.result });
  }
}
