import type { BuiltinMethodName, METHOD_SCHEMAS } from "../protocol/methods.js";
import type { HostBounds, ImageFormat, ImageResult, ImageResultSchema } from "../protocol/resources.js";

/*
 * Images as the client SDK gives them: the encoded bytes (`Uint8Array`, a `Blob` where the platform has one) with
 * their size and format, whichever way they travelled (a binary message, or a data URI on a text connection).
 * No Node APIs here: this runs in browsers. Writing to a file is `saveTo` in the Node-only `node-save.ts`.
 */

/** Methods whose result is an image (`ImageResult`). */
type ImageMethodOf<M extends BuiltinMethodName> = (typeof METHOD_SCHEMAS)[M]["result"] extends typeof ImageResultSchema ? M : never;
export type ImageMethodName = { [M in BuiltinMethodName]: ImageMethodOf<M> }[BuiltinMethodName];

/** The built-in methods that answer an image; the check below keeps the list complete. */
export const IMAGE_METHODS = [
  "image:exportLayer",
  "image:exportLayerWithSelectedPath",
  "image:getPreview",
  "image:exportDocument",
] as const satisfies readonly ImageMethodName[];
export const IMAGE_METHODS_COMPLETE: [Exclude<ImageMethodName, (typeof IMAGE_METHODS)[number]>] extends [never] ? true : never = true;
const IMAGE_METHOD_SET: ReadonlySet<string> = new Set(IMAGE_METHODS);

const BRAND = Symbol.for("image-editor-bridge.BridgeImage");

/** Characters per `String.fromCharCode` call when building base64: well under engines' argument limits. */
const BASE64_CHUNK = 0x8000;

/** Base64 of bytes with the platform's `btoa` (browsers and Node alike). */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let start = 0; start < bytes.length; start += BASE64_CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(start, start + BASE64_CHUNK));
  }
  return btoa(binary);
}

/** Bytes of base64 (standard or URL-safe) with the platform's `atob`. */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(/[-_]/.test(text) ? text.replaceAll("-", "+").replaceAll("_", "/") : text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** What an image is besides its bytes. */
export interface ImageMeta {
  readonly format: ImageFormat;
  readonly width: number;
  readonly height: number;
  readonly bounds: HostBounds;
}

/**
 * An image a method returned. `bytes` is the encoded file (PNG, JPEG or WebP) as it came off the wire; `data` is the
 * same image as a data URI, built on first read only (a binary connection never needs it). `JSON.stringify` gives
 * the protocol's `ImageResult` (with the data URI), as a text connection receives it.
 *
 * @example
 * const image = await client.image.exportDocument({ format: "png" });
 * console.log(image.width, image.height, image.bytes.byteLength);
 * document.querySelector("img")!.src = URL.createObjectURL(image.blob());
 */
export class BridgeImage implements ImageMeta {
  readonly [BRAND] = true;
  readonly format: ImageFormat;
  readonly width: number;
  readonly height: number;
  readonly bounds: HostBounds;
  /** The media type of `bytes`, e.g. `image/png`. */
  readonly mime: string;
  private encoded: Uint8Array | undefined;
  private uri: string | undefined;

  private constructor(meta: ImageMeta, mime: string, bytes: Uint8Array | undefined, uri: string | undefined) {
    this.format = meta.format;
    this.width = meta.width;
    this.height = meta.height;
    this.bounds = meta.bounds;
    this.mime = mime;
    this.encoded = bytes;
    this.uri = uri;
  }

  /** An image from its bytes (a binary message's payload, kept as it is). */
  static fromBytes(meta: ImageMeta, mime: string, bytes: Uint8Array): BridgeImage {
    return new BridgeImage(meta, mime, bytes, undefined);
  }

  /** An image from a text connection's `ImageResult`; the bytes are decoded from the data URI on first read. */
  static fromResult(result: ImageResult & { data: string }): BridgeImage {
    const mime = /^data:([^;,]+)/.exec(result.data)?.[1] ?? `image/${result.format}`;
    return new BridgeImage(result, mime, undefined, result.data);
  }

  /** The encoded image. */
  get bytes(): Uint8Array {
    this.encoded ??= fromBase64((this.uri ?? "").slice((this.uri ?? "").indexOf(",") + 1));
    return this.encoded;
  }

  /** The image as a `data:` URI (built on first read when the image came as bytes). */
  get data(): string {
    this.uri ??= `data:${this.mime};base64,${toBase64(this.bytes)}`;
    return this.uri;
  }

  /** The image as a `Blob` of its media type, for `URL.createObjectURL`, `fetch` bodies, `FormData`. */
  blob(): Blob {
    if (typeof Blob !== "function") throw new TypeError("This platform has no Blob; use image.bytes");
    return new Blob([this.bytes as Uint8Array<ArrayBuffer>], { type: this.mime });
  }

  /** The protocol's `ImageResult`, with a data URI. */
  toJSON(): ImageResult {
    return { data: this.data, format: this.format, width: this.width, height: this.height, bounds: this.bounds };
  }
}

/** Whether a value is a {@link BridgeImage} (a brand check, so it works across copies of the SDK). */
export function isBridgeImage(value: unknown): value is BridgeImage {
  return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}

/**
 * The result of `method` as the SDK gives it: image methods answer a {@link BridgeImage} whichever way the bytes
 * came, and so does each image of `template:render`'s variants; other results are unchanged.
 */
export function clientResult(method: string, result: unknown): unknown {
  if (method === TEMPLATE_RENDER) return templateResult(result);
  if (!IMAGE_METHOD_SET.has(method)) return result;
  return asImage(result);
}

const TEMPLATE_RENDER = "template:render";

/** An `ImageResult` with a data URI as a {@link BridgeImage}; anything else (a `BridgeImage` already) unchanged. */
function asImage(result: unknown): unknown {
  if (isBridgeImage(result)) return result;
  const data = (result as { data?: unknown } | null)?.data;
  return typeof data === "string" && data.startsWith("data:") ? BridgeImage.fromResult(result as ImageResult & { data: string }) : result;
}

/** `template:render`'s answer with each variant's `image` a {@link BridgeImage}, as binary parts give it. */
function templateResult(result: unknown): unknown {
  const variants = (result as { variants?: unknown } | null)?.variants;
  if (!Array.isArray(variants)) return result;
  return {
    ...(result as object),
    variants: variants.map((variant: unknown) => {
      const image = (variant as { image?: unknown } | null)?.image;
      return image === undefined ? variant : { ...(variant as object), image: asImage(image) };
    }),
  };
}
