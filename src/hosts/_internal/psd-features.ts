/**
 * What a PSD/PSB file holds beyond plain layered 8-bit RGB pixels, read from its header, its image resources and
 * ag-psd's layer records. Editors compare this with what their writer keeps to report what a save would drop.
 */
import type { Layer, Psd } from "ag-psd";
import { addFeature, type FileFeatures } from "../../files/index.js";
import type { DataLoss } from "../../protocol/index.js";

/** The fixed 26-byte header every PSD/PSB starts with. */
export interface PsdHeader {
  /** 1 = PSD, 2 = PSB (large document format). */
  readonly version: number;
  readonly channels: number;
  readonly width: number;
  readonly height: number;
  /** Bits per channel: 1, 8, 16 or 32. */
  readonly depth: number;
  /** 0 bitmap, 1 grayscale, 2 indexed, 3 RGB, 4 CMYK, 7 multichannel, 8 duotone, 9 Lab. */
  readonly colorMode: number;
}

export const PSD_HEADER_LENGTH = 26;

const COLOR_MODE_NAMES: Readonly<Record<number, string>> = {
  0: "bitmap",
  1: "grayscale",
  2: "indexed",
  3: "rgb",
  4: "cmyk",
  7: "multichannel",
  8: "duotone",
  9: "lab",
};

export const colorModeName = (mode: number): string => COLOR_MODE_NAMES[mode] ?? `mode ${mode}`;

/** The header, or undefined when `bytes` do not start like a PSD/PSB. */
export function readPsdHeader(bytes: Uint8Array): PsdHeader | undefined {
  if (bytes.length < PSD_HEADER_LENGTH) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const signature = String.fromCharCode(bytes[0]!, bytes[1]!, bytes[2]!, bytes[3]!);
  const version = view.getUint16(4);
  if (signature !== "8BPS" || (version !== 1 && version !== 2)) return undefined;
  return {
    version,
    channels: view.getUint16(12),
    height: view.getUint32(14),
    width: view.getUint32(18),
    depth: view.getUint16(22),
    colorMode: view.getUint16(24),
  };
}

/** What is wrong with a PSD's outline, in words and where: the section and the byte offset it starts at. */
export interface PsdLayoutProblem {
  readonly reason: string;
  readonly section: "header" | "colour mode data" | "image resources" | "layer and mask information";
  readonly offset: number;
}

/**
 * Checks what every reader relies on before any pixel: a whole header with the signature, a known version and
 * a non-empty canvas, then each section's declared length inside the file. Undefined when all of it holds.
 */
export function psdLayoutProblem(bytes: Uint8Array): PsdLayoutProblem | undefined {
  if (bytes.length < PSD_HEADER_LENGTH) {
    return { reason: `the file has ${bytes.length} bytes, fewer than the ${PSD_HEADER_LENGTH}-byte header`, section: "header", offset: 0 };
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (String.fromCharCode(bytes[0]!, bytes[1]!, bytes[2]!, bytes[3]!) !== "8BPS") return { reason: "its first bytes are not the 8BPS signature", section: "header", offset: 0 };
  const version = view.getUint16(4);
  if (version !== 1 && version !== 2) return { reason: `version ${version} is neither 1 (PSD) nor 2 (PSB)`, section: "header", offset: 4 };
  const height = view.getUint32(14);
  const width = view.getUint32(18);
  if (width === 0 || height === 0) return { reason: `the header says ${width}×${height}: a document needs both sides`, section: "header", offset: 14 };
  const channels = view.getUint16(12);
  if (channels < 1 || channels > 56) return { reason: `the header says ${channels} channels (1 to 56 are possible)`, section: "header", offset: 12 };
  let at = PSD_HEADER_LENGTH;
  const sections = ["colour mode data", "image resources", "layer and mask information"] as const;
  for (const section of sections) {
    const lengthBytes = section === "layer and mask information" && version === 2 ? 8 : 4;
    if (at + lengthBytes > bytes.length) return { reason: `the file ends (${bytes.length} bytes) before the section's length`, section, offset: at };
    const length = lengthBytes === 8 ? Number(view.getBigUint64(at)) : view.getUint32(at);
    if (at + lengthBytes + length > bytes.length) {
      return { reason: `the section declares ${length} bytes but the file ends ${bytes.length - at - lengthBytes} bytes after its start`, section, offset: at };
    }
    at += lengthBytes + length;
  }
  return undefined;
}

/** Where a file's sections sit: the layer and mask section's length, and the merged image's offset. */
export function psdSections(bytes: Uint8Array): { layerSectionLength: number; imageDataOffset: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const psb = readPsdHeader(bytes)?.version === 2;
  let at = PSD_HEADER_LENGTH;
  for (let section = 0; section < 2; section++) {
    if (at + 4 > bytes.length) return undefined;
    at += 4 + view.getUint32(at); // colour mode data, image resources
  }
  // PSB widens the layer section's length to 8 bytes.
  const width = psb ? 8 : 4;
  if (at + width > bytes.length) return undefined;
  const layerSectionLength = psb ? Number(view.getBigUint64(at)) : view.getUint32(at);
  return { layerSectionLength, imageDataOffset: at + width + layerSectionLength };
}

/**
 * Ids of the image resources a file carries (ICC profile, XMP, paths…). ag-psd drops several of them on read
 * (the ICC profile among them), so they are found here from the resource blocks themselves.
 */
export function imageResourceIds(bytes: Uint8Array): Set<number> {
  const ids = new Set<number>();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = PSD_HEADER_LENGTH;
  if (at + 4 > bytes.length) return ids;
  at += 4 + view.getUint32(at); // colour mode data
  if (at + 4 > bytes.length) return ids;
  const end = Math.min(bytes.length, at + 4 + view.getUint32(at));
  at += 4;
  while (at + 12 <= end && bytes[at] === 0x38 && bytes[at + 1] === 0x42 && bytes[at + 2] === 0x49 && bytes[at + 3] === 0x4d) {
    ids.add(view.getUint16(at + 4));
    const nameLength = bytes[at + 6]!;
    let next = at + 6 + nameLength + 1;
    if (next % 2 === 1) next++; // Pascal name padded to an even length
    if (next + 4 > end) break;
    const size = view.getUint32(next);
    next += 4 + size + (size % 2);
    at = next;
  }
  return ids;
}

const METADATA_RESOURCES = [1028, 1058, 1059, 1060]; // IPTC, EXIF 1, EXIF 3, XMP
const ICC_PROFILE_RESOURCE = 1039;
const GUIDES_RESOURCE = 1032;
const isPathResource = (id: number): boolean => id >= 2000 && id <= 2997;

/** An effects block counts when it has any effect at all (enabled or not: a disabled effect is still data). */
const hasEffects = (layer: Layer): boolean =>
  layer.effects !== undefined && Object.keys(layer.effects).some((key) => key !== "scale" && key !== "disabled");

/** Layer features, keyed by the layer id the editor uses (`idOf`). */
function layerFeatures(features: DataLoss[], layers: readonly Layer[], idOf: (layer: Layer) => number | undefined): void {
  for (const layer of layers) {
    const id = idOf(layer);
    if (layer.text) addFeature(features, "textLayers", id);
    if (layer.placedLayer) addFeature(features, "smartObjects", id);
    if (layer.vectorFill || layer.vectorStroke) addFeature(features, "fillLayers", id);
    if (layer.adjustment) addFeature(features, "adjustmentLayers", id);
    if (hasEffects(layer)) addFeature(features, "layerEffects", id);
    if (layer.vectorMask) addFeature(features, "vectorMasks", id);
    if (layer.realMask) addFeature(features, "extraMasks", id);
    if (layer.mask?.disabled) addFeature(features, "disabledMasks", id);
    if (layer.children && layer.mask) addFeature(features, "groupMasks", id);
    if (layer.clipping) addFeature(features, "clipping", id);
    if (layer.knockout) addFeature(features, "knockout", id);
    if (layer.artboard) addFeature(features, "artboards", id);
    if (layer.fillOpacity !== undefined && layer.fillOpacity < 1) addFeature(features, "fillOpacity", id);
    if (layer.children) layerFeatures(features, layer.children, idOf);
  }
}

/**
 * Everything in a PSD beyond what a plain 8-bit RGB layered writer produces: document features from the header
 * and resources, layer features from ag-psd's records (`psd` may be read without pixel data).
 */
export function psdFeatures(
  psd: Psd,
  header: PsdHeader,
  resources: ReadonlySet<number>,
  idOf: (layer: Layer) => number | undefined = (layer) => layer.id,
): FileFeatures {
  const features: DataLoss[] = [];
  if (header.version === 2) addFeature(features, "psbFormat", undefined, "large document format (PSB)");
  if (header.colorMode !== 3) addFeature(features, "colorMode", undefined, colorModeName(header.colorMode));
  if (header.depth !== 8) addFeature(features, "bitDepth", undefined, `${header.depth}-bit`);
  if (resources.has(ICC_PROFILE_RESOURCE)) addFeature(features, "iccProfile");
  if (METADATA_RESOURCES.some((id) => resources.has(id))) addFeature(features, "metadata", undefined, "XMP, EXIF or IPTC");
  const paths = [...resources].filter(isPathResource).length;
  for (let i = 0; i < paths; i++) addFeature(features, "paths");
  for (const _ of psd.imageResources?.alphaChannelNames ?? []) addFeature(features, "alphaChannels");
  if (resources.has(GUIDES_RESOURCE)) for (const _ of psd.imageResources?.gridAndGuidesInformation?.guides ?? []) addFeature(features, "guides");
  for (const _ of psd.imageResources?.layerComps?.list ?? []) addFeature(features, "layerComps");
  layerFeatures(features, psd.children ?? [], idOf);
  return features;
}
