import { promisify } from "node:util";
import { inflate } from "node:zlib";
import { BridgeError } from "../../protocol/errors.js";
import { XCF_SLICE_MS } from "./limits.js";

/**
 * Reads the pixels of an XCF file's first layer: how GIMP hands the bridge a rendered export. GIMP writes XCF in its
 * own core (`gimp-xcf-save`), where every other format goes through a plug-in, a process GIMP starts for each save
 * (about half a second of CPU each on a two-core machine, against a few milliseconds for the XCF). The library
 * saves only scratch images of one layer this way, and only 8-bit ones that are not indexed; anything else it
 * still saves as PNG.
 *
 * The layout, all numbers big-endian: a 14-byte magic with the version (`gimp xcf v011`), the canvas, the image's
 * properties, the offsets of the layers and then of the channels (each list ended by 0; offsets are 64-bit from
 * version 11). A layer names a hierarchy (width, height, bytes per pixel, levels), whose first level lists its tiles:
 * 64×64 pixels in rows, smaller at the right and bottom edges, each stored as the image's compression says.
 */

/** The pixels of one layer, interleaved, 8 bits per channel. */
export interface XcfPixels {
  readonly width: number;
  readonly height: number;
  /** 1 gray, 2 gray and alpha, 3 RGB, 4 RGBA. */
  readonly channels: 1 | 2 | 3 | 4;
  readonly data: Buffer;
  /** The image's resolution in dots per inch, when the file has one. */
  readonly dpi: number | undefined;
}

const MAGIC = "gimp xcf ";
const inflateTile = promisify(inflate);
const HEADER_BYTES = 14;
const TILE_EDGE = 64;
/** Image properties this reader looks at; the others are skipped by their length. */
const PROP_END = 0;
const PROP_COMPRESSION = 17;
const PROP_RESOLUTION = 19;
/** `PROP_COMPRESSION` values. */
const COMPRESSION = { none: 0, rle: 1, zlib: 2 } as const;
/** Precisions of 8-bit perceptual (gamma) pixels: before version 4 there was no other; from version 7 the code 150. */
const U8_GAMMA_FROM_V7 = 150;
/** Bytes per pixel of each layer type GIMP writes: RGB, RGBA, GRAY, GRAYA (the indexed types are not read). */
const LAYER_CHANNELS: Readonly<Record<number, 1 | 2 | 3 | 4>> = { 0: 3, 1: 4, 2: 1, 3: 2 };

/** Whether `bytes` start as an XCF file does. */
export function isXcf(bytes: Buffer): boolean {
  return bytes.length >= HEADER_BYTES && bytes.toString("latin1", 0, MAGIC.length) === MAGIC;
}

/** A file this reader cannot read: the bridge's own pipeline failed, not the caller. */
function unreadable(why: string): BridgeError {
  return new BridgeError("INTERNAL", `GIMP's export could not be read: ${why}`, { details: { format: "xcf" } });
}

/** A cursor over the file that refuses to read past its end. */
class Reader {
  constructor(
    private readonly bytes: Buffer,
    public at: number,
    private readonly wideOffsets: boolean,
  ) {}

  private need(count: number): void {
    if (this.at + count > this.bytes.length) throw unreadable(`the file ends at byte ${this.bytes.length}, inside a structure at ${this.at}`);
  }

  u32(): number {
    this.need(4);
    const value = this.bytes.readUInt32BE(this.at);
    this.at += 4;
    return value;
  }

  /** A file offset: 32 bits before version 11, 64 after. */
  offset(): number {
    if (!this.wideOffsets) return this.u32();
    this.need(8);
    const value = this.bytes.readBigUInt64BE(this.at);
    this.at += 8;
    if (value > BigInt(this.bytes.length)) throw unreadable(`an offset (${value}) points past the file's end`);
    return Number(value);
  }

  skip(count: number): void {
    this.need(count);
    this.at += count;
  }

  /** Properties up to `PROP_END`, each handed to `use` with its payload's position. */
  properties(use: (type: number, at: number, length: number) => void): void {
    for (;;) {
      const type = this.u32();
      const length = this.u32();
      if (type === PROP_END) return;
      this.need(length);
      use(type, this.at, length);
      this.at += length;
    }
  }
}

/**
 * The first layer of an 8-bit XCF file, with the image's resolution. With `clearHiddenColour`, pixels of alpha 0
 * come out with colour 0 too, as GIMP's PNG export writes them: what nobody sees stays out of the encoded file.
 *
 * @throws BridgeError `INTERNAL` when the file is not XCF, is cut short, holds what this reader does not read
 * (more than 8 bits per channel, indexed colours, an unknown compression), or has a layer of another `size` than
 * the one given.
 */
export async function readXcfLayer(
  bytes: Buffer,
  options: { readonly clearHiddenColour?: boolean; readonly sliceMs?: number; readonly size?: { readonly width: number; readonly height: number } } = {},
): Promise<XcfPixels> {
  if (!isXcf(bytes)) throw unreadable("it is not an XCF file");
  const tag = bytes.toString("latin1", MAGIC.length, HEADER_BYTES - 1);
  const version = tag === "file" ? 0 : /^v\d{3}$/.test(tag) ? Number(tag.slice(1)) : Number.NaN;
  if (Number.isNaN(version)) throw unreadable(`unknown version tag "${tag}"`);
  const reader = new Reader(bytes, HEADER_BYTES, version >= 11);
  reader.skip(12); // canvas width, height and base type: the layer has its own
  if (version >= 4) {
    const precision = reader.u32();
    if (version < 7 || precision !== U8_GAMMA_FROM_V7) throw unreadable(`precision ${precision} of version ${version} is not 8-bit`);
  }
  let compression: number = COMPRESSION.rle;
  let dpi: number | undefined;
  reader.properties((type, at) => {
    if (type === PROP_COMPRESSION) compression = bytes[at]!;
    if (type === PROP_RESOLUTION) {
      const x = bytes.readFloatBE(at);
      dpi = Number.isFinite(x) && x > 0 ? x : undefined;
    }
  });
  if (compression !== COMPRESSION.none && compression !== COMPRESSION.rle && compression !== COMPRESSION.zlib) {
    throw unreadable(`unknown compression ${compression}`);
  }
  const layer = reader.offset();
  if (layer === 0) throw unreadable("the image has no layer");

  reader.at = layer;
  reader.skip(8); // the layer's width and height: its level's are the ones read
  const type = reader.u32();
  const channels = LAYER_CHANNELS[type];
  if (channels === undefined) throw unreadable(`layer type ${type} (indexed) is not read`);
  reader.skip(reader.u32()); // the name, with its terminating NUL
  reader.properties(() => {});
  const hierarchy = reader.offset();

  reader.at = hierarchy;
  reader.skip(8);
  const bpp = reader.u32();
  if (bpp !== channels) throw unreadable(`${bpp} bytes per pixel for a layer of ${channels} channels`);
  reader.at = reader.offset(); // the first level is the full-size one
  const width = reader.u32();
  const height = reader.u32();
  // Checked before the pixels are allocated: a file of another size is not the one asked for.
  if (options.size !== undefined && (width !== options.size.width || height !== options.size.height)) {
    throw unreadable(`the layer is ${width}×${height}, not the ${options.size.width}×${options.size.height} asked for`);
  }
  const data = Buffer.alloc(width * height * bpp);
  const columns = Math.ceil(width / TILE_EDGE);
  const rows = Math.ceil(height / TILE_EDGE);
  const tiles: number[] = [];
  for (let tile = reader.offset(); tile !== 0; tile = reader.offset()) tiles.push(tile);
  if (tiles.length !== columns * rows) throw unreadable(`${tiles.length} tiles for a ${width}×${height} layer`);

  const tile = Buffer.alloc(TILE_EDGE * TILE_EDGE * bpp);
  const turn = slices(options.sliceMs);
  for (const [index, start] of tiles.entries()) {
    await turn();
    const left = (index % columns) * TILE_EDGE;
    const top = Math.floor(index / columns) * TILE_EDGE;
    const tw = Math.min(TILE_EDGE, width - left);
    const th = Math.min(TILE_EDGE, height - top);
    const size = tw * th * bpp;
    if (compression === COMPRESSION.rle) unpackRle(bytes, start, tile, tw * th, bpp);
    else if (compression === COMPRESSION.zlib) {
      // The next tile's offset ends this one; the last runs to the file's end (inflate stops at its stream's end).
      // Inflated on libuv's threads, off the thread that serves clients.
      const end = tiles[index + 1] ?? bytes.length;
      let raw: Buffer;
      try {
        raw = await inflateTile(bytes.subarray(start, end));
      } catch (error) {
        throw unreadable(`tile ${index} does not inflate (${error instanceof Error ? error.message : String(error)})`);
      }
      if (raw.length < size) throw unreadable(`tile ${index} inflates to ${raw.length} bytes, not ${size}`);
      raw.copy(tile, 0, 0, size);
    } else {
      if (start + size > bytes.length) throw unreadable(`tile ${index} runs past the file's end`);
      bytes.copy(tile, 0, start, start + size);
    }
    if (options.clearHiddenColour === true && (bpp === 2 || bpp === 4)) {
      for (let alpha = bpp - 1; alpha < tw * th * bpp; alpha += bpp) if (tile[alpha] === 0) tile.fill(0, alpha - bpp + 1, alpha);
    }
    for (let y = 0; y < th; y++) tile.copy(data, ((top + y) * width + left) * bpp, y * tw * bpp, (y + 1) * tw * bpp);
  }
  return { width, height, channels, data, dpi };
}

/**
 * One RLE tile into `out`, interleaved: the tile stores each byte of the pixel as a plane of its own (all the red
 * bytes, then all the green, …), each plane as runs. A run's first byte `n` says: below 127, the next byte repeated
 * n + 1 times; 127, the same with the count in the next two bytes; above 128, 256 − n bytes copied as they are; 128,
 * the same with the count in the next two bytes.
 */
function unpackRle(bytes: Buffer, start: number, out: Buffer, pixels: number, bpp: number): void {
  let at = start;
  const byte = (): number => {
    if (at >= bytes.length) throw unreadable("an RLE tile runs past the file's end");
    return bytes[at++]!;
  };
  for (let plane = 0; plane < bpp; plane++) {
    for (let done = 0; done < pixels; ) {
      const head = byte();
      const literal = head >= 128;
      let count = literal ? 256 - head : head + 1;
      if (count === 128) count = (byte() << 8) | byte();
      if (count === 0 || done + count > pixels) throw unreadable(`an RLE run of ${count} overflows its tile`);
      if (literal) {
        for (let i = 0; i < count; i++) out[(done + i) * bpp + plane] = byte();
      } else {
        const value = byte();
        for (let i = 0; i < count; i++) out[(done + i) * bpp + plane] = value;
      }
      done += count;
    }
  }
}

/** Layer properties the writer sets: opacity, visibility and offsets (XCF's property numbers). */
const PROP_OPACITY = 6;
const PROP_VISIBLE = 8;
const PROP_OFFSETS = 15;
/** The layer type of 8-bit RGBA pixels. */
const RGBA_LAYER = 1;

/**
 * An XCF file of one RGBA layer: how the bridge hands GIMP an image to place (imports, replaced
 * contents), which GIMP's core then loads without starting a plug-in. The oldest layout (version 0: 32-bit offsets,
 * 8-bit pixels, no precision field), uncompressed tiles: every GIMP reads it, and writing it is a copy.
 */
export async function writeXcfLayer(
  pixels: { readonly width: number; readonly height: number; readonly data: Buffer },
  options: { readonly name?: string; readonly sliceMs?: number } = {},
): Promise<Buffer> {
  const { width, height, data } = pixels;
  const bpp = 4;
  if (data.length !== width * height * bpp) throw new BridgeError("INTERNAL", `${data.length} bytes are not a ${width}×${height} RGBA image`);
  const columns = Math.ceil(width / TILE_EDGE);
  const rows = Math.ceil(height / TILE_EDGE);
  const label = Buffer.from(`${options.name ?? "Image"}\0`, "utf8");
  const property = (type: number, ...values: number[]): number[] => [type, values.length * 4, ...values];
  // The magic, the canvas (width, height, RGB), PROP_COMPRESSION with its one byte (none), PROP_END.
  const headerBytes = 14 + 4 * 3 + 8 + 1 + 8;
  const layerAt = headerBytes + 3 * 4; // one layer pointer, its list's end, the channel list's end
  const layerProps = [...property(PROP_OPACITY, 255), ...property(PROP_VISIBLE, 1), ...property(PROP_OFFSETS, 0, 0), 0, 0];
  const hierarchyAt = layerAt + 12 + 4 + label.length + layerProps.length * 4 + 8;
  const levelAt = hierarchyAt + 12 + 8;
  const firstTileAt = levelAt + 8 + (columns * rows + 1) * 4;
  const out = Buffer.alloc(firstTileAt + data.length);
  let at = out.write("gimp xcf file\0", 0, "latin1");
  const word = (value: number): void => {
    out.writeUInt32BE(value >>> 0, at);
    at += 4;
  };
  word(width);
  word(height);
  word(0);
  word(PROP_COMPRESSION);
  word(1);
  out[at++] = COMPRESSION.none;
  word(PROP_END);
  word(0);
  word(layerAt);
  word(0);
  word(0);
  word(width);
  word(height);
  word(RGBA_LAYER);
  word(label.length);
  at += label.copy(out, at);
  for (const value of layerProps) word(value);
  word(hierarchyAt);
  word(0); // no mask
  word(width);
  word(height);
  word(bpp);
  word(levelAt);
  word(0);
  word(width);
  word(height);
  let tileAt = firstTileAt;
  const turn = slices(options.sliceMs);
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      await turn();
      word(tileAt);
      const tw = Math.min(TILE_EDGE, width - column * TILE_EDGE);
      const th = Math.min(TILE_EDGE, height - row * TILE_EDGE);
      for (let y = 0; y < th; y++) {
        const from = ((row * TILE_EDGE + y) * width + column * TILE_EDGE) * bpp;
        tileAt += data.copy(out, tileAt, from, from + tw * bpp);
      }
    }
  }
  word(0);
  return out;
}

/**
 * A turn for the event loop once `sliceMs` of work ran since the last: awaited between tiles, so reading or writing
 * a large file never holds the bridge's thread (every client's calls) for longer than a slice.
 */
function slices(sliceMs: number = XCF_SLICE_MS): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}
