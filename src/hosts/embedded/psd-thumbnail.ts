/**
 * The thumbnail a PSD carries for file browsers: a JPEG of the composite, at most {@link PSD_THUMBNAIL_EDGE} px on
 * its longer edge, as Photoshop writes it. A document saved unchanged keeps the one its file had.
 */
import sharp from "sharp";
import type { EmbeddedDocument } from "./document.js";
import type { PsdThumbnail } from "./psd-save.js";
import type { Raster } from "./raster.js";
import { rasterBuffer } from "./raster.js";

/** Longer edge of a thumbnail: what Photoshop writes (160 px). */
export const PSD_THUMBNAIL_EDGE = 160;

/** The thumbnail for a save of `doc` whose merged image is `composite`. */
export async function psdThumbnail(doc: EmbeddedDocument, composite: Raster): Promise<PsdThumbnail> {
  const kept = doc.source?.record?.imageResources?.thumbnailRaw;
  if (kept !== undefined && doc.revision === 0) return kept;
  const scale = Math.min(1, PSD_THUMBNAIL_EDGE / Math.max(composite.width, composite.height));
  const width = Math.max(1, Math.round(composite.width * scale));
  const height = Math.max(1, Math.round(composite.height * scale));
  const { data, info } = await sharp(rasterBuffer(composite), { raw: { width: composite.width, height: composite.height, channels: 4 } })
    .resize(width, height, { fit: "fill" })
    .flatten({ background: "#ffffff" })
    .jpeg({ quality: 80 })
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}
