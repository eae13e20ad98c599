import { setImmediate as nextTurn } from "node:timers/promises";
import type { EncodedImage } from "../hosts/host.js";
import { encodeBinaryHeader, type BinaryImageReference, type HostBounds, type ImageFormat, type ImageResult, type RequestId } from "../protocol/index.js";
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

/**
 * The answer to a request whose result is an image, for a connection that negotiated `binary`: the JSON response
 * with `{ binary: 0, mime, bytes }` in place of the data URI, then one binary message (header naming the request,
 * then the encoded bytes as the editor produced them: no base64, no copy).
 */
export class BinaryImageResponse {
  /** The JSON response frame. */
  readonly json: string;
  /** The binary message's header (see `encodeBinaryHeader`). */
  readonly header: Uint8Array;
  /** The encoded image, the binary message's payload. */
  readonly payload: Uint8Array;

  constructor(
    readonly id: RequestId,
    private readonly image: WireImage,
  ) {
    const { bytes, format, width, height, bounds } = image.image;
    const data: BinaryImageReference = { binary: 0, mime: IMAGE_MIME[format], bytes: bytes.byteLength };
    this.json = JSON.stringify({ id, ok: true, result: { data, format, width, height, bounds } });
    this.header = encodeBinaryHeader(id, 0);
    this.payload = bytes;
  }

  /** Bytes both messages take on the wire, framing aside. */
  get byteLength(): number {
    return Buffer.byteLength(this.json) + this.header.byteLength + this.payload.byteLength;
  }

  /** The same answer with a data URI, for a socket that did not negotiate binary (a resume without `?binary=1`). */
  textForm(): string {
    return JSON.stringify({ id: this.id, ok: true, result: this.image });
  }
}
