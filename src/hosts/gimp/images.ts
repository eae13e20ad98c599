import { readFile } from "node:fs/promises";
import sharp from "sharp";
import type { FileFormat, HostBounds } from "../../protocol/index.js";
import { encodeImage, withFormat } from "../_internal/file-format.js";
import { outlineOverlay } from "../_internal/outline.js";
import type { EncodedImage, HostAdapter, HostCallContext, OutlineStroke, PixelSize } from "../host.js";
import type { GimpSession } from "./connection.js";
import { asList, asNumber, int, lit } from "./scheme.js";
import { isXcf, readXcfLayer } from "./xcf.js";

type ImageOps = Pick<HostAdapter, "exportDocumentImage" | "exportLayerImage">;

/** What an empty layer (a group without children) exports as: one transparent pixel, nowhere in the document. */
const EMPTY_BOUNDS: HostBounds = { left: 0, top: 0, right: 0, bottom: 0 };
const TRANSPARENT = { r: 0, g: 0, b: 0, alpha: 0 };

/** Options of one layer export. */
export interface LayerExport {
  readonly documentId: number;
  readonly layerId: number;
  readonly format: FileFormat;
  readonly quality?: number | undefined;
  readonly size: PixelSize;
  readonly outline?: OutlineStroke | undefined;
}

/**
 * What GIMP wrote (`br-save-pixels`: XCF for 8-bit images, PNG otherwise) in the wanted format (JPEG flattened on
 * white, TIFF lossless), with the outline stroked over it first when there is one. `bounds` is the document region
 * the image shows. A PNG without an outline is answered as GIMP wrote it.
 */
async function encode(
  written: Buffer,
  options: { format: FileFormat; quality?: number | undefined; outline?: OutlineStroke | undefined },
  bounds: HostBounds,
  size: PixelSize,
): Promise<Uint8Array> {
  const overlay = options.outline ? outlineOverlay(options.outline, bounds, size) : null;
  if (isXcf(written)) {
    const layer = await readXcfLayer(written, { clearHiddenColour: true, size });
    const pixels = sharp(layer.data, { raw: { width: layer.width, height: layer.height, channels: layer.channels } });
    return encodeImage(overlay ? pixels.composite([overlay]) : pixels, options.format, options.quality, { dpi: layer.dpi });
  }
  const drawn = overlay ? await sharp(written).composite([overlay]).png().toBuffer() : written;
  return options.format === "png" ? drawn : withFormat(sharp(drawn), options.format, options.quality).toBuffer();
}

/**
 * One layer (a group: its composite, opacity applied) rendered by GIMP at exactly `size`; an empty group is one
 * transparent pixel with zero bounds. `ctx` is absent for event previews (only the adapter's deadline applies).
 */
export async function exportLayer(session: GimpSession, ctx: HostCallContext | undefined, options: LayerExport): Promise<EncodedImage> {
  const { documentId, layerId, size } = options;
  return session.scratch(".png", async (file) => {
    const form = `(br-export-layer ${int(documentId)} ${int(layerId)} ${int(size.width)} ${int(size.height)} ${lit(file)})`;
    const place = asList(await session.call(ctx, form), "layer export").map((v) => asNumber(v, "layer place"));
    if (place.length < 4) {
      const pixel = await sharp({ create: { width: 1, height: 1, channels: 4, background: TRANSPARENT } }).png().toBuffer();
      const bytes = await encode(pixel, { format: options.format, quality: options.quality }, EMPTY_BOUNDS, size);
      return { bytes, format: options.format, width: 1, height: 1, bounds: EMPTY_BOUNDS };
    }
    const [x, y, width, height] = place as [number, number, number, number];
    const bounds = { left: x, top: y, right: x + width, bottom: y + height };
    return { bytes: await encode(await readFile(file), options, bounds, size), format: options.format, ...size, bounds };
  });
}

/** Document and layer exports, rendered by GIMP at the size the methods chose and encoded with sharp. */
export function imageOps(session: GimpSession): ImageOps {
  return {
    async exportDocumentImage(ctx, { documentId, format, quality, size }): Promise<EncodedImage> {
      return session.scratch(".png", async (file) => {
        const form = `(br-export-doc ${session.image(documentId)} ${int(size.width)} ${int(size.height)} ${lit(file)})`;
        const reply = asList(await session.call(ctx, form), "document export");
        const [id, width, height] = reply.map((v) => asNumber(v, "document export")) as [number, number, number];
        if (documentId === undefined) session.activeImage = id;
        const bounds = { left: 0, top: 0, right: width, bottom: height };
        return { bytes: await encode(await readFile(file), { format, quality }, bounds, size), format, ...size, bounds };
      });
    },

    exportLayerImage: (ctx, options) => exportLayer(session, ctx, options),
  };
}
