/** Pixels of one pixmap, converted to straight RGBA rows without padding. */
export interface Pixmap {
  readonly width: number;
  readonly height: number;
  /** `width × height × 4` bytes, RGBA. */
  readonly rgba: Buffer;
}

/** Pixmap format byte of an IMAGE message. */
export const PIXMAP_FORMAT = 2;
const PIXMAP_HEADER_BYTES = 16;

/** Why a pixmap cannot be read. */
export class PixmapError extends Error {}

/**
 * Decodes an IMAGE body into one preallocated RGBA buffer. Rows are `rowBytes` apart, which may
 * exceed `width × channels` (padding is skipped); 4 channels are A,R,G,B; 3 channels are B,G,R, opaque (generator-core's
 * `xpm.js` `getPixel3` reads them in that order).
 */
export function decodePixmap(body: Buffer, maxPixels: number): Pixmap {
  if (body.length < PIXMAP_HEADER_BYTES) throw new PixmapError(`image message of ${body.length} bytes has no header`);
  const format = body[0];
  if (format !== PIXMAP_FORMAT) throw new PixmapError(`image format ${format} is not a pixmap`);
  const width = body.readUInt32BE(1);
  const height = body.readUInt32BE(5);
  const rowBytes = body.readUInt32BE(9);
  const channels = body[14]!;
  const bits = body[15]!;
  if (bits !== 8) throw new PixmapError(`${bits} bits per channel are not supported`);
  if (channels !== 3 && channels !== 4) throw new PixmapError(`${channels} channels are not supported`);
  if (width * height > maxPixels) throw new PixmapError(`pixmap of ${width}×${height} exceeds ${maxPixels} pixels`);
  if (rowBytes < width * channels) throw new PixmapError(`rowBytes ${rowBytes} is shorter than a row of ${width} pixels`);
  if (body.length < PIXMAP_HEADER_BYTES + rowBytes * (height - 1) + width * channels && height > 0) {
    throw new PixmapError(`pixmap body is shorter than ${height} rows of ${rowBytes} bytes`);
  }
  return { width, height, rgba: toRgba(body, PIXMAP_HEADER_BYTES, width, height, rowBytes, channels) };
}

/** Converts `height` rows of `rowBytes` starting at `offset` into one new RGBA buffer without padding. */
export function toRgba(src: Buffer, offset: number, width: number, height: number, rowBytes: number, channels: 3 | 4): Buffer {
  const rgba = Buffer.allocUnsafe(width * height * 4);
  let out = 0;
  for (let y = 0; y < height; y++) {
    let p = offset + y * rowBytes;
    if (channels === 4) {
      for (let x = 0; x < width; x++, p += 4, out += 4) {
        rgba[out] = src[p + 1]!;
        rgba[out + 1] = src[p + 2]!;
        rgba[out + 2] = src[p + 3]!;
        rgba[out + 3] = src[p]!;
      }
    } else {
      for (let x = 0; x < width; x++, p += 3, out += 4) {
        rgba[out] = src[p + 2]!;
        rgba[out + 1] = src[p + 1]!;
        rgba[out + 2] = src[p]!;
        rgba[out + 3] = 255;
      }
    }
  }
  return rgba;
}
