import type { EncodedImage } from "../hosts/host.js";
import type { HostBounds, ImageFormat, ImageResult } from "../protocol/index.js";
import { dataUri } from "./_internal/images.js";

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
