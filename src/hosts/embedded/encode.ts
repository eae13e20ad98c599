import sharp from "sharp";
import { BridgeError } from "../../protocol/errors.js";
import type { FileFormat, HostBounds } from "../../protocol/index.js";
import type { EncodedImage, HostCallContext, PixelSize } from "../host.js";
import type { OverlayInput } from "../_internal/outline.js";
import { encodeImage } from "../_internal/file-format.js";
import { canvasRegion, plainStack, type RenderedDocument, renderDocument, renderRows } from "./composite.js";
import { ENCODER_MAX_PIXELS } from "./limits.js";
import type { Raster } from "./raster.js";
import { EMPTY_BOUNDS, emptyRaster, rasterBuffer } from "./raster.js";
import { stagesOf } from "./work.js";

/** How to encode: the format and the exact output size, both decided by the methods. */
export interface EncodeOptions {
  readonly format: FileFormat;
  readonly quality?: number | undefined;
  readonly size: PixelSize;
  /** The document's resolution, written into the file where its format keeps one. */
  readonly dpi?: number | undefined;
  /** Keep an alpha channel though every pixel is opaque (a document's export leaves it out otherwise). */
  readonly alpha?: boolean | undefined;
  /** Write gray pixels where the format has them (a grayscale document stays grayscale). */
  readonly grayscale?: boolean | undefined;
}

/** Whether every pixel of a raster is opaque (its alpha bytes all 255). */
function allOpaque(raster: Raster): boolean {
  const data = raster.data;
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 255) return false;
  return true;
}

/**
 * Refuses an image the encoder would not take (sharp's `limitInputPixels`), before anything is composited:
 * `what` names it in the message ("Document", "Layer Label", "Output"), `details` are added to the error's.
 * @throws BridgeError `PAYLOAD_TOO_LARGE` above {@link ENCODER_MAX_PIXELS}.
 */
export function checkEncodable(what: string, size: PixelSize, details: Record<string, unknown> = {}): void {
  const { width, height } = size;
  if (width * height <= ENCODER_MAX_PIXELS) return;
  throw new BridgeError("PAYLOAD_TOO_LARGE", `${what} of ${width}×${height} exceeds the encoder's limit of ${ENCODER_MAX_PIXELS} pixels`, {
    details: { ...details, width, height, maxPixels: ENCODER_MAX_PIXELS, limit: "encoderMaxPixels" },
  });
}

/**
 * Encodes pixels with sharp at exactly `options.size`, with optional overlays drawn on the output (in output
 * pixels). A `null` raster (an empty layer) becomes a 1×1 transparent image with zero bounds whatever the size,
 * so callers always get a decodable image.
 */
export async function encodeRaster(
  raster: Raster | null,
  bounds: HostBounds,
  options: EncodeOptions,
  overlays: readonly OverlayInput[] = [],
  opaque = false,
): Promise<EncodedImage> {
  if (!raster) {
    const empty = emptyRaster(1, 1);
    const bytes = await encodeImage(sharp(rasterBuffer(empty), { raw: { width: 1, height: 1, channels: 4 } }), options.format, options.quality, { dpi: options.dpi, grayscale: options.grayscale });
    return { bytes, format: options.format, width: 1, height: 1, bounds: EMPTY_BOUNDS };
  }
  const { width, height } = options.size;
  checkEncodable("Image", raster);
  checkEncodable("Output", options.size);
  let image = sharp(rasterBuffer(raster), { raw: { width: raster.width, height: raster.height, channels: 4 } });
  if (width !== raster.width || height !== raster.height) image = image.resize(width, height, { fit: "fill" });
  // sharp composites after resizing within one pipeline: the overlays land on the output pixels.
  if (overlays.length > 0) image = image.composite([...overlays]);
  const bytes = await encodeImage(image, options.format, options.quality, { dpi: options.dpi, opaque, grayscale: options.grayscale });
  return { bytes, format: options.format, width, height, bounds };
}

/**
 * Encodes a whole document at exactly `options.size`. A document that is a plain stack (see `plainStack`) is
 * composited by libvips inside the encoding pipeline: no full-canvas buffer in JS and libvips' threads do the
 * blending, which matters for big canvases. Anything else (blend modes, opacity, masks, isolated groups) is
 * rendered by `renderDocument` first.
 *
 * @throws BridgeError `PAYLOAD_TOO_LARGE` when the canvas or the output is above {@link ENCODER_MAX_PIXELS}.
 *
 * With `ctx`, the work stops at its checkpoints once the call is cancelled and reports progress: the rows the
 * compositor visits ("compositing"), then encoding ("encoding", as many units as output rows: sharp cannot
 * report from inside, so it counts as done when it returns).
 */
export async function encodeDocument(
  doc: RenderedDocument,
  options: EncodeOptions,
  ctx?: HostCallContext,
): Promise<EncodedImage> {
  const bounds = canvasRegion(doc);
  const { width, height } = options.size;
  // The whole canvas goes through the encoder (composited in JS or by libvips) whatever the output size.
  checkEncodable("Document", doc);
  checkEncodable("Output", options.size);
  const stack = plainStack(doc);
  const rows = stack ? 0 : renderRows(doc.layers, bounds);
  const stages = ctx ? stagesOf(ctx, rows + height) : undefined;
  if (!stack) {
    stages?.stage("compositing", rows);
    const composite = renderDocument(doc, stages?.rows());
    stages?.stage("encoding", height);
    // An opaque document is written without alpha unless asked (as image editors export a flat image).
    const opaque = options.alpha !== true && composite.width === doc.width && composite.height === doc.height && allOpaque(composite);
    const encoded = await encodeRaster(composite, bounds, options, [], opaque);
    stages?.done();
    return encoded;
  }
  stages?.stage("encoding", height);
  const [bottom] = stack;
  const fullBottom = bottom !== undefined && bottom.left === 0 && bottom.top === 0 && bottom.width === doc.width && bottom.height === doc.height;
  // A full-canvas bottom layer over transparency is itself: it becomes the pipeline's input, the rest overlays.
  let image = fullBottom
    ? sharp(rasterBuffer(bottom), { raw: { width: doc.width, height: doc.height, channels: 4 } })
    : sharp({ create: { width: doc.width, height: doc.height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } });
  const overlays = (fullBottom ? stack.slice(1) : stack).map((layer) => ({
    input: rasterBuffer(layer),
    raw: { width: layer.width, height: layer.height, channels: 4 as const },
    left: layer.left,
    top: layer.top,
  }));
  if (overlays.length > 0) image = image.composite(overlays);
  if (width !== doc.width || height !== doc.height) {
    // sharp resizes before compositing within one pipeline: composite first, then scale in a second one.
    const composed = await image.raw().toBuffer();
    image = sharp(composed, { raw: { width: doc.width, height: doc.height, channels: 4 } }).resize(width, height, { fit: "fill" });
  }
  // Normal blending over a full-canvas opaque bottom layer stays opaque everywhere.
  const opaque = options.alpha !== true && fullBottom && allOpaque(bottom);
  const bytes = await encodeImage(image, options.format, options.quality, { dpi: options.dpi, opaque, grayscale: options.grayscale });
  stages?.done();
  return { bytes, format: options.format, width, height, bounds };
}
