/**
 * A PSD/PSB file as its five sections: header, colour mode data, image resources, layer and mask information,
 * merged image. Everything is a view into the file's bytes; writing joins the sections again. Layers of 16- and
 * 32-bit files live in an `Lr16`/`Lr32` block of the global additional information (the layer info proper is then
 * empty): they are read from there and written back there.
 */
import { ByteReader, ByteSink, psdFormatError } from "./binary.js";
import type { InfoBlock, LayerInfo } from "./layers.js";
import { readInfoBlocks, readLayerInfo, writeInfoBlocks, writeLayerInfo } from "./layers.js";

/** The fixed 26-byte header. */
export interface FileHeader {
  /** 1 = PSD, 2 = PSB. */
  readonly version: number;
  readonly channels: number;
  readonly height: number;
  readonly width: number;
  /** Bits per channel: 1, 8, 16 or 32. */
  readonly depth: number;
  /** 0 bitmap, 1 grayscale, 2 indexed, 3 RGB, 4 CMYK, 7 multichannel, 8 duotone, 9 Lab. */
  readonly colorMode: number;
}

/** One image resource block. */
export interface ResourceBlock {
  readonly id: number;
  /** The Pascal name as stored (length byte, characters, padding to even). */
  readonly name: Uint8Array;
  readonly data: Uint8Array;
}

/** The merged (composite) image: one compression for every channel, then the channels one after the other. */
export interface MergedImage {
  readonly compression: number;
  readonly data: Uint8Array;
}

/** A whole file. */
export interface PsdFile {
  readonly header: FileHeader;
  readonly colorModeData: Uint8Array;
  readonly resources: readonly ResourceBlock[];
  /** Layer records and channel data; empty for a flattened file. */
  readonly layers: LayerInfo;
  /** Where the layers were found: the layer info itself, or the `Lr16`/`Lr32` block of a 16/32-bit file. */
  readonly layersIn: "layerInfo" | "Lr16" | "Lr32";
  /**
   * What the layer info's length is padded to: 4 as Photoshop writes it, 2 or none (1) where another writer (GIMP)
   * did so, kept so that a file read and written unchanged comes out byte for byte. @default 4
   */
  readonly layerInfoAlign?: 1 | 2 | 4 | undefined;
  /** False when the section ended after the layer info, without even the global mask info's length. @default true */
  readonly globalMaskField?: boolean | undefined;
  /** The global layer mask info, as stored (may be empty). */
  readonly globalMask: Uint8Array;
  /**
   * Global additional information as read. When `layersIn` names a block, that block stands here in its place and
   * is written from `layers`, not from its data.
   */
  readonly globalBlocks: readonly InfoBlock[];
  /** Undefined when the file ends with the layer section. */
  readonly merged: MergedImage | undefined;
}

export const HEADER_LENGTH = 26;

function readHeader(bytes: Uint8Array): FileHeader {
  const reader = new ByteReader(bytes, 0, Math.min(bytes.length, HEADER_LENGTH), "header");
  const signature = reader.ascii4();
  if (signature !== "8BPS") throw psdFormatError("its first bytes are not the 8BPS signature", "header", 0);
  const version = reader.u16();
  if (version !== 1 && version !== 2) throw psdFormatError(`version ${version} is neither 1 (PSD) nor 2 (PSB)`, "header", 4);
  reader.skip(6);
  const channels = reader.u16();
  const height = reader.u32();
  const width = reader.u32();
  const depth = reader.u16();
  const colorMode = reader.u16();
  if (![1, 8, 16, 32].includes(depth)) throw psdFormatError(`${depth} bits per channel (1, 8, 16 or 32 are possible)`, "header", 22);
  return { version, channels, height, width, depth, colorMode };
}

function readResources(reader: ByteReader): ResourceBlock[] {
  const blocks: ResourceBlock[] = [];
  while (reader.left() >= 12) {
    const at = reader.at;
    const signature = reader.ascii4();
    if (signature !== "8BIM" && signature !== "MeSa" && signature !== "AgHg" && signature !== "PHUT" && signature !== "DCSR") {
      throw psdFormatError(`"${signature}" where an image resource should start`, "image resources", at);
    }
    const id = reader.u16();
    const nameLength = reader.bytes[reader.at]!;
    const name = reader.take(nameLength + 1 + ((nameLength + 1) % 2), "a resource name");
    const size = reader.u32();
    const data = reader.take(size, `resource ${id}`);
    if (size % 2 === 1 && reader.left() > 0) reader.skip(1);
    blocks.push({ id, name, data });
  }
  return blocks;
}

/**
 * Parses a whole file into views of its bytes.
 * @throws BridgeError `BAD_REQUEST` naming the reason, the section and the byte offset when the file is damaged.
 */
export function readPsdFile(bytes: Uint8Array): PsdFile {
  const header = readHeader(bytes);
  const psb = header.version === 2;
  const reader = new ByteReader(bytes, HEADER_LENGTH, bytes.length, "colour mode data");
  const colorModeData = reader.take(reader.u32(), "the colour mode data");
  reader.section = "image resources";
  const resourcesLength = reader.u32();
  const resources = readResources(new ByteReader(bytes, reader.at, reader.at + resourcesLength, "image resources"));
  reader.skip(resourcesLength, "the image resources");
  reader.section = "layer and mask information";
  const sectionLength = reader.length(psb);
  const section = new ByteReader(bytes, reader.at, reader.at + sectionLength, "layer and mask information");
  reader.skip(sectionLength, "the layer and mask information");
  let layers: LayerInfo = { mergedAlpha: false, layers: [] };
  let layersIn: PsdFile["layersIn"] = "layerInfo";
  let globalMask: Uint8Array = new Uint8Array(0);
  let globalBlocks: InfoBlock[] = [];
  let layerInfoAlign: 1 | 2 | 4 = 4;
  let globalMaskField = true;
  if (section.left() >= (psb ? 8 : 4)) {
    const infoLength = section.length(psb);
    layerInfoAlign = infoLength % 2 !== 0 ? 1 : infoLength % 4 !== 0 ? 2 : 4;
    layers = readLayerInfo(new ByteReader(bytes, section.at, section.at + infoLength, "layer records"), psb);
    section.skip(infoLength, "the layer info");
    // Some writers end the section here (no global mask info).
    if (section.left() >= 4) globalMask = section.take(section.u32(), "the global layer mask info");
    else globalMaskField = false;
    globalBlocks = readInfoBlocks(section, psb);
    const deep = globalBlocks.find((block) => block.key === "Lr16" || block.key === "Lr32");
    if (deep !== undefined && layers.layers.length === 0) {
      layers = readLayerInfo(new ByteReader(deep.data, 0, deep.data.length, "layer records"), psb);
      layersIn = deep.key as "Lr16" | "Lr32";
    }
  }
  let merged: MergedImage | undefined;
  if (reader.left() >= 2) {
    reader.section = "image data";
    merged = { compression: reader.u16(), data: reader.take(reader.left()) };
  }
  return { header, colorModeData, resources, layers, layersIn, layerInfoAlign, globalMaskField, globalMask, globalBlocks, merged };
}

/** Joins a file's sections. Layers go where `layersIn` says (`Lr16`/`Lr32` first among the global blocks). */
export function writePsdFile(file: PsdFile): Uint8Array {
  const { header } = file;
  const psb = header.version === 2;
  const out = new ByteSink();
  out.ascii4("8BPS").u16(header.version).bytes(new Uint8Array(6)).u16(header.channels);
  out.u32(header.height).u32(header.width).u16(header.depth).u16(header.colorMode);
  out.u32(file.colorModeData.length).bytes(file.colorModeData);
  const resources = new ByteSink();
  for (const block of file.resources) {
    resources.ascii4("8BIM").u16(block.id).bytes(block.name).u32(block.data.length).bytes(block.data);
    if (block.data.length % 2 === 1) resources.u8(0);
  }
  out.u32(resources.size).sink(resources);
  const section = new ByteSink();
  const layerInfo = writeLayerInfo(file.layers, psb);
  const deepKey = file.layersIn === "layerInfo" ? undefined : file.layersIn;
  const blocks = [...file.globalBlocks];
  // Photoshop pads the layer info to 4 bytes; the Lr16/Lr32 block keeps its place among the global blocks.
  if (deepKey === undefined) {
    const align = file.layerInfoAlign ?? 4;
    const padding = (align - (layerInfo.size % align)) % align;
    section.length(layerInfo.size + padding, psb).sink(layerInfo).bytes(new Uint8Array(padding));
  } else {
    section.length(0, psb);
    const index = file.globalBlocks.findIndex((block) => block.key === deepKey);
    const signature = file.globalBlocks[index]?.signature ?? (psb ? "8B64" : "8BIM");
    const block = { signature, key: deepKey, data: layerInfo.toBytes(), padding: (4 - (layerInfo.size % 4)) % 4 };
    if (index < 0) blocks.unshift(block);
    else blocks[index] = block;
  }
  if (file.globalMaskField !== false || file.globalMask.length > 0 || blocks.length > 0) section.u32(file.globalMask.length).bytes(file.globalMask);
  writeInfoBlocks(section, blocks, psb);
  // A file with nothing in the section (no layers, no global information) keeps it empty.
  const empty = file.layers.layers.length === 0 && file.globalMask.length === 0 && blocks.length === 0;
  if (empty) out.length(0, psb);
  else out.length(section.size, psb).sink(section);
  if (file.merged) out.u16(file.merged.compression).bytes(file.merged.data);
  return out.toBytes();
}
