/**
 * Layer records and their channel data, kept as bytes: each record's fixed fields are parsed, everything from its
 * blend-mode signature to the end of its extra data (masks, blending ranges, name, additional information) is
 * carried verbatim, so a rewrite changes only the channels it means to.
 */
import { isBridgeError } from "../../../protocol/errors.js";
import { ByteReader, ByteSink, psdFormatError } from "./binary.js";

/** One additional-layer-information block (`8BIM`/`8B64`, a four-letter key, its data). */
export interface InfoBlock {
  readonly signature: string;
  readonly key: string;
  readonly data: Uint8Array;
  /** Zero bytes after the data, as read (Photoshop pads some blocks to 4 without counting it). @default to even */
  readonly padding?: number | undefined;
}

/** One channel of a layer: id (0… colour, -1 transparency, -2 user mask, -3 real mask), compression, bytes. */
export interface ChannelData {
  readonly id: number;
  /** 0 raw, 1 RLE (PackBits), 2 ZIP, 3 ZIP with prediction. */
  readonly compression: number;
  /** The compressed bytes after the compression word. */
  readonly data: Uint8Array;
}

export interface Rect {
  readonly top: number;
  readonly left: number;
  readonly bottom: number;
  readonly right: number;
}

/** A layer record with its channel data. */
export interface LayerRecord extends Rect {
  readonly channels: readonly ChannelData[];
  /** From the blend-mode signature to the end of the extra data, as read. */
  readonly tail: Uint8Array;
  readonly name: string;
  readonly blocks: readonly InfoBlock[];
  /** The user mask's rectangle (channel -2), when the record has one. */
  readonly mask?: Rect | undefined;
  /** The real user mask's rectangle (channel -3: a vector mask and a pixel mask together). */
  readonly realMask?: Rect | undefined;
  /** The id in its `lyid` block. */
  readonly id?: number | undefined;
  /** Where `blocks` sit in `tail`: from `blocksAt` up to `blocksEnd`. */
  readonly blocksAt: number;
  readonly blocksEnd: number;
}

/** The layer info: the records, and whether the merged image's first extra channel is its transparency. */
export interface LayerInfo {
  /** A negative layer count: "the first alpha channel contains the transparency data for the merged result". */
  readonly mergedAlpha: boolean;
  readonly layers: readonly LayerRecord[];
}

/** Keys whose length is 8 bytes in a PSB (the format's own list, plus `cinf` that Photoshop writes wide too). */
export const WIDE_KEYS: ReadonlySet<string> = new Set(["LMsk", "Lr16", "Lr32", "Layr", "Mt16", "Mt32", "Mtrn", "Alph", "FMsk", "lnk2", "FEid", "FXid", "PxSD", "cinf"]);

const isSignature = (text: string): boolean => text === "8BIM" || text === "8B64";

const rectWidth = (rect: Rect): number => Math.max(0, rect.right - rect.left);
const rectHeight = (rect: Rect): number => Math.max(0, rect.bottom - rect.top);
export { rectHeight, rectWidth };

/**
 * Additional-information blocks from `reader.at` to `reader.end`. The zero bytes after a block's data (padding to
 * 2 or 4 bytes, not always counted in its length) are kept with the block.
 */
export function readInfoBlocks(reader: ByteReader, psb: boolean, ended?: (at: number) => void): InfoBlock[] {
  const blocks: InfoBlock[] = [];
  while (reader.left() >= 12) {
    const at = reader.at;
    const signature = reader.ascii4();
    if (!isSignature(signature)) throw psdFormatError(`"${signature}" where an additional information block should start`, reader.section, at);
    const key = reader.ascii4();
    const length = reader.length(psb && (signature === "8B64" || WIDE_KEYS.has(key)));
    const data = reader.take(length, `the "${key}" block`);
    const padStart = reader.at;
    while (reader.left() > 0 && reader.bytes[reader.at] === 0) reader.skip(1);
    blocks.push({ signature, key, data, padding: reader.at - padStart });
  }
  ended?.(reader.at);
  reader.skip(reader.left());
  return blocks;
}

/** Writes blocks as read (a PSB keeps the wide lengths of the keys that have them). */
export function writeInfoBlocks(out: ByteSink, blocks: readonly InfoBlock[], psb: boolean): void {
  for (const block of blocks) {
    const wide = psb && (block.signature === "8B64" || WIDE_KEYS.has(block.key));
    out.ascii4(block.signature).ascii4(block.key).length(block.data.length, wide).bytes(block.data);
    const padding = block.padding ?? block.data.length % 2;
    if (padding > 0) out.bytes(new Uint8Array(padding));
  }
}

function readRect(reader: ByteReader): Rect {
  const top = reader.i32();
  const left = reader.i32();
  const bottom = reader.i32();
  const right = reader.i32();
  return { top, left, bottom, right };
}

/** The parts of the extra data this layer needs: mask rectangles, name, blocks, id. */
function readTail(tail: Uint8Array, offset: number, psb: boolean): Pick<LayerRecord, "name" | "blocks" | "mask" | "realMask" | "id" | "blocksAt" | "blocksEnd"> {
  // Blend signature and key, opacity, clipping, flags, filler, extra data length: 16 bytes.
  const reader = new ByteReader(tail, 16, tail.length, "layer records");
  const maskLength = reader.u32();
  const maskEnd = reader.at + maskLength;
  let mask: Rect | undefined;
  let realMask: Rect | undefined;
  if (maskLength >= 18) {
    mask = readRect(reader);
    reader.skip(2); // default colour, flags
    if (maskLength >= 36) {
      reader.skip(2); // real flags, real default colour
      realMask = readRect(reader);
    }
  }
  reader.at = maskEnd;
  reader.skip(reader.u32(), "the blending ranges");
  const nameStart = reader.at;
  const nameLength = reader.u8();
  const name = Buffer.from(reader.take(nameLength, "the layer name")).toString("latin1");
  // The name is padded to a multiple of 4 (length byte included); some writers leave the padding out.
  const padded = nameStart + Math.ceil((nameLength + 1) / 4) * 4;
  const signatureAt = (at: number): boolean => at + 4 <= tail.length && isSignature(String.fromCharCode(...tail.subarray(at, at + 4)));
  if (padded <= tail.length && (padded === tail.length || signatureAt(padded))) reader.at = padded;
  else while (reader.left() > 4 && !signatureAt(reader.at)) reader.skip(1);
  reader.section = "additional layer information";
  const blocksAt = reader.at;
  let blocks: InfoBlock[];
  let blocksEnd: number;
  try {
    blocks = readInfoBlocks(reader, psb, (end) => {
      blocksEnd = end;
    });
  } catch (cause) {
    // Offsets inside the tail mean nothing to a reader of the file: the record's place in it is reported.
    const inner = isBridgeError(cause) ? String(cause.details?.["reason"]) : String(cause);
    throw psdFormatError(`layer "${name}" has a damaged additional information block (${inner})`, "additional layer information", offset);
  }
  const lyid = blocks.find((block) => block.key === "lyid" && block.data.length >= 4);
  const id = lyid ? new DataView(lyid.data.buffer, lyid.data.byteOffset, 4).getUint32(0) : undefined;
  const unicode = blocks.find((block) => block.key === "luni" && block.data.length >= 4);
  return { name: unicode ? unicodeName(unicode.data) ?? name : name, blocks, mask, realMask, id, blocksAt, blocksEnd: blocksEnd! };
}

/**
 * The channels a record's `brst` block restricts (advanced blending with channels unchecked): one 4-byte channel
 * number each, all of the block read (a reader that stops 4 bytes short loses the last, and a one-channel list
 * whole); undefined without the block.
 */
export function restrictedChannelsOf(layer: Pick<LayerRecord, "blocks">): number[] | undefined {
  const block = layer.blocks.find((candidate) => candidate.key === "brst");
  if (block === undefined) return undefined;
  const view = new DataView(block.data.buffer, block.data.byteOffset, block.data.byteLength);
  return Array.from({ length: Math.floor(block.data.length / 4) }, (_, i) => view.getInt32(i * 4));
}

/** The UTF-16 name of a `luni` block (a 4-byte count, then the characters). */
function unicodeName(data: Uint8Array): string | undefined {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const count = view.getUint32(0);
  if (4 + count * 2 > data.length) return undefined;
  let out = "";
  for (let i = 0; i < count; i++) out += String.fromCharCode(view.getUint16(4 + i * 2));
  return out.replace(/\0+$/, "");
}

/** Reads the layer info's content (count, records, channel data) from `reader.at` to `reader.end`. */
export function readLayerInfo(reader: ByteReader, psb: boolean): LayerInfo {
  if (reader.left() < 2) return { mergedAlpha: false, layers: [] };
  reader.section = "layer records";
  const signedCount = reader.i16();
  const count = Math.abs(signedCount);
  const heads: Array<Rect & { channels: Array<{ id: number; length: number }>; tail: Uint8Array; tailOffset: number }> = [];
  for (let i = 0; i < count; i++) {
    const rect = readRect(reader);
    const channelCount = reader.u16();
    if (channelCount > 56) throw psdFormatError(`layer ${i} declares ${channelCount} channels`, "layer records", reader.at - 2);
    const channels: Array<{ id: number; length: number }> = [];
    for (let c = 0; c < channelCount; c++) channels.push({ id: reader.i16(), length: reader.length(psb) });
    const tailOffset = reader.at;
    const signature = reader.ascii4();
    if (signature !== "8BIM") throw psdFormatError(`layer ${i} has "${signature}" where its blend mode signature should be`, "layer records", tailOffset);
    reader.skip(8); // blend key, opacity, clipping, flags, filler
    const extra = reader.u32();
    reader.skip(extra, "the layer's extra data");
    heads.push({ ...rect, channels, tail: reader.bytes.subarray(tailOffset, reader.at), tailOffset });
  }
  reader.section = "channel image data";
  const layers: LayerRecord[] = heads.map((head) => {
    const channels = head.channels.map(({ id, length }): ChannelData => {
      if (length < 2) return { id, compression: 0, data: new Uint8Array(0) };
      const compression = reader.u16();
      if (compression > 3) throw psdFormatError(`compression ${compression} is unknown`, "channel image data", reader.at - 2);
      return { id, compression, data: reader.take(length - 2, "a channel") };
    });
    return { top: head.top, left: head.left, bottom: head.bottom, right: head.right, channels, tail: head.tail, ...readTail(head.tail, head.tailOffset, psb) };
  });
  reader.skip(reader.left());
  return { mergedAlpha: signedCount < 0, layers };
}

/**
 * `layer` with `blocks` in place of its additional information: the tail is rebuilt around them and its extra data
 * length follows.
 */
export function withBlocks(layer: LayerRecord, blocks: readonly InfoBlock[], psb: boolean): LayerRecord {
  const out = new ByteSink();
  writeInfoBlocks(out, blocks, psb);
  const written = out.toBytes();
  const tail = new Uint8Array(layer.blocksAt + written.length + (layer.tail.length - layer.blocksEnd));
  tail.set(layer.tail.subarray(0, layer.blocksAt));
  tail.set(written, layer.blocksAt);
  tail.set(layer.tail.subarray(layer.blocksEnd), layer.blocksAt + written.length);
  // The extra data length sits after the blend signature, key, opacity, clipping, flags and filler (12 bytes).
  new DataView(tail.buffer).setUint32(12, tail.length - 16);
  return { ...layer, tail, blocks, blocksEnd: layer.blocksAt + written.length };
}

/** The layer info's content (count, records, channel data), unpadded. */
export function writeLayerInfo(info: LayerInfo, psb: boolean): ByteSink {
  const out = new ByteSink();
  if (info.layers.length === 0) return out;
  out.i16(info.mergedAlpha ? -info.layers.length : info.layers.length);
  for (const layer of info.layers) {
    out.i32(layer.top).i32(layer.left).i32(layer.bottom).i32(layer.right).u16(layer.channels.length);
    for (const channel of layer.channels) out.i16(channel.id).length(channel.data.length + 2, psb);
    out.bytes(layer.tail);
  }
  for (const layer of info.layers) for (const channel of layer.channels) out.u16(channel.compression).bytes(channel.data);
  return out;
}
