/**
 * Opening any mode: a copy of the file that ag-psd reads (8-bit RGB, or 8-bit grayscale kept grayscale) with the
 * same records and additional information, plus what saving back in the original mode needs.
 */
import { BridgeError, isBridgeError } from "../../../protocol/errors.js";
import { COMPRESSION } from "./channels.js";
import { alphaToEditor, colorToEditor } from "./to-editor.js";
import type { ChannelData, LayerRecord, Rect } from "./layers.js";
import { rectHeight, rectWidth, restrictedChannelsOf } from "./layers.js";
import { layerToEditor } from "./layer-pixels.js";
import { encodeMerged, mergedChannels } from "./merged.js";
import { COLOR_MODE, conversionLabel, sourceMode } from "./modes.js";
import type { PsdSourceMode } from "./modes.js";
import { plane } from "./samples.js";
import type { MergedImage, PsdFile } from "./sections.js";
import { readPsdFile, writePsdFile } from "./sections.js";

/** A layer as the file held it: its rectangles and its channels (views of the file's bytes). */
export interface OriginalLayer {
  readonly rect: Rect;
  readonly mask?: Rect | undefined;
  readonly realMask?: Rect | undefined;
  readonly channels: readonly ChannelData[];
  /** The channels its blending leaves alone (its `brst` block, read in full: ag-psd drops the last). */
  readonly restrictedChannels?: readonly number[] | undefined;
}

/** What saving back in the original mode takes from the original file. */
export interface OriginalContent {
  /** The original file. */
  readonly bytes: Uint8Array;
  /** The parsed original (views of its bytes). */
  readonly file: PsdFile;
  /** Per layer id (from its `lyid` block; records without a unique one were given one in the readable copy). */
  readonly layers: ReadonlyMap<number, OriginalLayer>;
  /** The merged image section as stored, extra channels included. */
  readonly merged: MergedImage | undefined;
}

/** A file opened in any mode (see {@link toReadablePsd}). */
export interface ReadablePsd {
  /** A PSD ag-psd reads: 8-bit RGB, or 8-bit grayscale; the original bytes when they already are (and need no ids). */
  readonly bytes: Uint8Array;
  readonly source: PsdSourceMode;
  /** The conversion opening applied, in words ("16-bit → 8-bit", "CMYK → RGB (profile-less)"); undefined when none. */
  readonly conversion?: string | undefined;
  readonly original: OriginalContent;
}

/** A record's tail with its `lyid` set to `id` (replaced in place, or a block appended to the extra data). */
function withLayerId(layer: LayerRecord, id: number): LayerRecord {
  const existing = layer.blocks.find((block) => block.key === "lyid" && block.data.length >= 4);
  let tail: Uint8Array;
  if (existing) {
    tail = new Uint8Array(layer.tail); // a copy: the tail is a view of the file
    new DataView(tail.buffer).setUint32(existing.data.byteOffset - layer.tail.byteOffset, id);
  } else {
    tail = new Uint8Array(layer.tail.length + 16);
    tail.set(layer.tail);
    const view = new DataView(tail.buffer);
    view.setUint32(12, view.getUint32(12) + 16); // the extra data's length
    tail.set([0x38, 0x42, 0x49, 0x4d, 0x6c, 0x79, 0x69, 0x64], layer.tail.length); // 8BIM lyid
    view.setUint32(layer.tail.length + 8, 4);
    view.setUint32(layer.tail.length + 12, id);
  }
  return { ...layer, tail, id };
}

/**
 * Gives every record a unique positive id, so the editor's layer ids find their original channels on save. Section
 * dividers (the hidden records that close a group) get one too, and the editor's ids are counted above all of them:
 * an id is never given to two records of one file. Deterministic, so the save finds the same ids again in the
 * original bytes.
 */
export function uniqueIds(layers: readonly LayerRecord[]): LayerRecord[] {
  const used = new Set<number>();
  const keep = layers.map((layer) => {
    const ok = layer.id !== undefined && layer.id > 0 && !used.has(layer.id);
    if (ok) used.add(layer.id!);
    return ok;
  });
  let next = Math.max(0, ...used) + 1;
  return layers.map((layer, i) => (keep[i] ? layer : withLayerId(layer, next++)));
}

/** The parsed file; a damaged one is refused naming the path, the reason, the section and the offset. */
function parsed(bytes: Uint8Array, path: string | undefined): PsdFile {
  try {
    return readPsdFile(bytes);
  } catch (error) {
    if (!isBridgeError(error) || path === undefined) throw error;
    const { reason, section, offset } = error.details ?? {};
    throw new BridgeError("BAD_REQUEST", `${path} cannot be opened: ${String(reason)} (${String(section)}, byte ${String(offset)})`, {
      details: { path, ...error.details },
      cause: error,
    });
  }
}

/**
 * A record whose layer or mask is above `maxPixels` is not decoded: its channels are left out of the copy, whose
 * record the caller refuses by its size before reading any pixel (a small file can declare a huge layer).
 */
function oversized(layer: LayerRecord, maxPixels: number): boolean {
  return [layer, layer.mask, layer.realMask].some((rect) => rect !== undefined && rectWidth(rect) * rectHeight(rect) > maxPixels);
}

/** The merged image in what the file opens as, at 8 bits, with its transparency (or an indexed file's). */
function mergedToEditor(file: PsdFile, mode: PsdSourceMode): { merged: MergedImage | undefined; channels: number } {
  const { width, height } = mode;
  const count = width * height;
  const indexedAlpha = mode.colorMode === COLOR_MODE.indexed && mode.transparentIndex !== undefined;
  const channels = mode.opensAs + (mode.transparency || indexedAlpha ? 1 : 0);
  if (!file.merged) return { merged: undefined, channels };
  const psb = mode.version === 2;
  const channel = mergedChannels(file.merged, { width, height, depth: mode.depth, psb }, mode.channels);
  const alpha = mode.transparency ? new Uint8Array(alphaToEditor(plane(channel(mode.colorChannels)), mode.depth, count)) : indexedAlpha ? new Uint8Array(count).fill(255) : undefined;
  const color = colorToEditor(mode, Array.from({ length: mode.colorChannels }, (_, c) => plane(channel(c))), width, height, alpha);
  const planes = alpha ? [...color, alpha] : color;
  return { merged: encodeMerged(planes, { width, height, depth: 8, psb }, COMPRESSION.rle), channels };
}

/**
 * The merged image converted, or none when it is damaged: a layered file opens from its layers (the editor never
 * reads its merged image), and a flattened one is then refused for having no image.
 */
function mergedOrNone(file: PsdFile, mode: PsdSourceMode): { merged: MergedImage | undefined; channels: number } {
  try {
    return mergedToEditor(file, mode);
  } catch (error) {
    if (!isBridgeError(error)) throw error;
    return { merged: undefined, channels: mode.opensAs };
  }
}

/**
 * Reads a PSD/PSB of any depth and colour mode into a copy ag-psd reads: 16-bit and 32-bit samples, CMYK, Lab,
 * indexed, bitmap and duotone are converted by the stated conversions of `color.ts`; layer records, additional
 * information and image resources are kept byte for byte (16/32-bit layers move from their `Lr16`/`Lr32` block to
 * the layer info, as an 8-bit file has them). Saved alpha and spot channels of the merged image are left out of
 * the copy and kept in `original`.
 *
 * Memory: the copy is built one layer at a time; the largest transient is one layer's (or the merged image's)
 * decoded channels at the source depth plus their 8-bit form. Layers above `maxPixels` are not decoded (their
 * records stay, for the caller to refuse).
 *
 * @throws BridgeError `BAD_REQUEST` for a damaged file (`details: { reason, section, offset }`) or a mode it
 * refuses (`details: { path?, reason, depth, colorMode }`, see `sourceMode`).
 */
export function toReadablePsd(bytes: Uint8Array, options: { path?: string | undefined; maxPixels?: number | undefined } = {}): ReadablePsd {
  const file = parsed(bytes, options.path);
  const facts = { colorModeData: file.colorModeData, resources: file.resources, mergedAlpha: file.layers.mergedAlpha, globalKeys: file.globalBlocks.map((block) => block.key) };
  const source = sourceMode(file.header, facts, options.path);
  const layers = uniqueIds(file.layers.layers);
  const original: OriginalContent = {
    bytes,
    file,
    layers: new Map(
      layers.map((layer, i) => {
        const restrictedChannels = restrictedChannelsOf(layer);
        const kept: OriginalLayer = { rect: layer, mask: layer.mask, realMask: layer.realMask, channels: file.layers.layers[i]!.channels, ...(restrictedChannels ? { restrictedChannels } : {}) };
        return [layer.id!, kept];
      }),
    ),
    merged: file.merged,
  };
  const conversion = conversionLabel(source);
  const plain = source.depth === 8 && (source.colorMode === COLOR_MODE.rgb || source.colorMode === COLOR_MODE.grayscale);
  const idsChanged = layers.some((layer, i) => layer !== file.layers.layers[i]);
  if (plain && source.extraChannels === 0 && !idsChanged && file.layersIn === "layerInfo") return { bytes, source, conversion, original };
  const psb = source.version === 2;
  const maxPixels = options.maxPixels ?? Number.POSITIVE_INFINITY;
  const readableLayers = plain ? layers : layers.map((layer) => ({ ...layer, channels: oversized(layer, maxPixels) ? [] : layerToEditor(layer, source, psb) }));
  // An 8-bit RGB or grey file with no extra channels needs its merged image as it is: a layered one is rewritten
  // only for its layers (ids made unique), and decoding and re-encoding a poster-sized composite cost a third of
  // the open. A flattened file's image is the document, so it still goes through the checked conversion.
  const keepMerged = plain && source.extraChannels === 0 && layers.length > 0 && file.merged !== undefined;
  const { merged, channels } = keepMerged ? { merged: file.merged, channels: file.header.channels } : mergedOrNone(file, source);
  const readable: PsdFile = {
    header: { ...file.header, channels, depth: 8, colorMode: source.opensAs === 3 ? COLOR_MODE.rgb : COLOR_MODE.grayscale },
    colorModeData: new Uint8Array(0),
    resources: file.resources,
    // The sign of the layer count tells readers the merged image has a transparency channel: true of the copy's.
    layers: { mergedAlpha: channels > source.opensAs, layers: readableLayers },
    layersIn: "layerInfo",
    globalMask: file.globalMask,
    globalBlocks: file.globalBlocks.filter((block) => block.key !== "Lr16" && block.key !== "Lr32"),
    merged,
  };
  return { bytes: writePsdFile(readable), source, conversion, original };
}
