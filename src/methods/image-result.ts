import type { EncodedImage } from "../hosts/host.js";
import type { HostBounds, ImageFormat, ImageResult } from "../protocol/index.js";

const BRAND = Symbol.for("image-editor-bridge.WireImage");

export const IMAGE_MIME: Readonly<Record<ImageFormat, string>> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
};

/**
 * An image result that keeps its bytes: JSON encodes it as the spec's `ImageResult` (a data URI, built only
 * when serialized), while HTTP `Accept: image/*` sends the bytes as they are.
 */
export class WireImage {
  readonly [BRAND] = true;
  constructor(readonly image: EncodedImage) {}

  get mime(): string {
    return IMAGE_MIME[this.image.format];
  }

  toJSON(): ImageResult {
    const { bytes, format, width, height, bounds } = this.image;
    const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
    return { data: `data:${IMAGE_MIME[format]};base64,${base64}`, format, width, height, bounds: bounds as HostBounds };
  }
}

export function isWireImage(value: unknown): value is WireImage {
  return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}
