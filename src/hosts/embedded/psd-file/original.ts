/**
 * Saving back in the original mode: ag-psd writes 8-bit RGB; this rewrites its header, colour mode data, layer
 * channels and merged image into the depth and colour mode the file was opened from. Unchanged layers get their
 * original channel bytes back verbatim, so only what the user edited goes through a conversion.
 */
import { COMPRESSION, decodeChannel, encodeChannel } from "./channels.js";
import type { ChannelShape } from "./channels.js";
import { alphaToSource, colorToSource } from "./to-source.js";
import type { ChannelData, InfoBlock, LayerRecord, Rect } from "./layers.js";
import { rectHeight, rectWidth } from "./layers.js";
import { layerToSource } from "./layer-pixels.js";
import { encodeMerged, mergedChannels } from "./merged.js";
import { COLOR_MODE, MERGED_TRANSPARENCY_KEYS } from "./modes.js";
import type { PsdSourceMode } from "./modes.js";
import type { OriginalLayer, ReadablePsd } from "./readable.js";
import type { MergedImage, PsdFile, ResourceBlock } from "./sections.js";
import { readPsdFile, writePsdFile } from "./sections.js";

/** What is unchanged since the file was opened. */
export interface KeepSets {
  /** Layers (by id) whose pixels and masks are the ones read: their original channel bytes are written back. */
  readonly layerIds: ReadonlySet<number>;
  /** The document is as it was opened: the original merged image (extra channels included) is written back. */
  readonly composite: boolean;
}

/** Same width and height: stored channel data is valid wherever the rectangle has moved to. */
const sameSize = (a: Rect | undefined, b: Rect | undefined): boolean =>
  a !== undefined && b !== undefined && rectWidth(a) === rectWidth(b) && rectHeight(a) === rectHeight(b);

/** Image resources that describe the merged image's saved alpha and spot channels (names, ids, display info). */
const EXTRA_CHANNEL_RESOURCES: ReadonlySet<number> = new Set([1006, 1007, 1045, 1053, 1077]);

const sameRect = (a: Rect | undefined, b: Rect | undefined): boolean =>
  a !== undefined && b !== undefined && a.top === b.top && a.left === b.left && a.bottom === b.bottom && a.right === b.right;

const ICC_PROFILE = 1039;

/** `written` without one image resource (a bitmap file's gray profile does not fit the RGB file it falls back to). */
function withoutResource(file: PsdFile, written: Uint8Array, id: number | undefined): Uint8Array {
  if (id === undefined || !file.resources.some((block) => block.id === id)) return written;
  return writePsdFile({ ...file, resources: file.resources.filter((block) => block.id !== id) });
}

/** The empty global block Photoshop writes when a 16/32-bit merged image has transparency (8-bit: the layer count's sign). */
const MERGED_TRANSPARENCY_KEY: Readonly<Record<number, string>> = { 16: "Mt16", 32: "Mt32" };

/** Global blocks with exactly the merged-transparency marker `key` (none when undefined), first like Photoshop's. */
function withTransparencyKey(blocks: readonly InfoBlock[], key: string | undefined): InfoBlock[] {
  const rest = blocks.filter((block) => !MERGED_TRANSPARENCY_KEYS.has(block.key));
  return key === undefined ? rest : [{ signature: "8BIM", key, data: new Uint8Array(0) }, ...rest];
}

/** A stored channel moved between PSD and PSB: RLE row counts change width (2 ↔ 4 bytes), nothing else does. */
function rebased(channel: ChannelData, shape: ChannelShape, fromPsb: boolean): ChannelData {
  if (channel.compression !== COMPRESSION.rle || fromPsb === shape.psb || channel.data.length === 0) return channel;
  const raw = decodeChannel(channel.compression, channel.data, { ...shape, psb: fromPsb }, "channel image data");
  return { ...channel, data: encodeChannel(raw, shape, COMPRESSION.rle) };
}

/** The channels of one written record in the source's mode: verbatim where unchanged, converted otherwise. */
function layerChannels(written: LayerRecord, original: OriginalLayer | undefined, keep: boolean, mode: PsdSourceMode, psb: boolean): readonly ChannelData[] {
  // An 8-bit RGB file needs no conversion: what ag-psd wrote is already in its mode.
  const plainRgb = mode.depth === 8 && mode.colorMode === COLOR_MODE.rgb;
  const convert = (): ChannelData[] => (plainRgb ? [...written.channels] : layerToSource(written, mode, psb));
  if (!keep || original === undefined || !sameSize(written, original.rect)) return convert();
  const fromPsb = mode.version === 2;
  const shape = (rect: Rect): ChannelShape => ({ width: rectWidth(rect), height: rectHeight(rect), depth: mode.depth, psb });
  let converted: ChannelData[] | undefined;
  const convertedMask = (id: number): ChannelData | undefined => {
    converted ??= convert();
    return converted.find((channel) => channel.id === id);
  };
  const out = original.channels.filter((channel) => channel.id >= -1).map((channel) => rebased(channel, shape(written), fromPsb));
  for (const [id, rect, before] of [[-2, written.mask, original.mask], [-3, written.realMask, original.realMask]] as const) {
    if (rect === undefined) continue;
    const stored = original.channels.find((channel) => channel.id === id);
    const same = stored !== undefined && sameSize(rect, before);
    const channel = same ? rebased(stored, shape(rect), fromPsb) : convertedMask(id);
    if (channel) out.push(channel);
  }
  return out;
}

/** A stored merged image moved between PSD and PSB (RLE row counts change width), else as it is. */
function rebasedMerged(merged: MergedImage, shape: ChannelShape, channels: number, fromPsb: boolean): MergedImage {
  if (merged.compression !== COMPRESSION.rle || fromPsb === shape.psb) return merged;
  const stored = mergedChannels(merged, { ...shape, psb: fromPsb }, channels);
  return encodeMerged(Array.from({ length: channels }, (_, c) => stored(c)), shape, COMPRESSION.rle);
}

/** The merged image at the source's depth and mode, from the 8-bit composite ag-psd wrote. */
function mergedFromWritten(file: PsdFile, readable: Pick<ReadablePsd, "source" | "original">, carryExtras: boolean): { merged: MergedImage | undefined; channels: number; alpha: boolean } {
  const { source, original } = readable;
  const { width, height } = file.header;
  const psb = file.header.version === 2;
  const flatModes = source.colorMode === COLOR_MODE.indexed || source.colorMode === COLOR_MODE.bitmap;
  if (!file.merged) return { merged: undefined, channels: source.colorChannels, alpha: false };
  const channel = mergedChannels(file.merged, { width, height, depth: 8, psb }, file.header.channels);
  const alpha = file.header.channels > 3 ? channel(3) : undefined;
  const planes = colorToSource(source, [channel(0), channel(1), channel(2)], width, height, alpha);
  const withAlpha = alpha !== undefined && !flatModes;
  if (withAlpha) planes.push(alphaToSource(alpha, source.depth));
  if (carryExtras && original.merged) {
    const stored = mergedChannels(original.merged, { width, height, depth: source.depth, psb: source.version === 2 }, source.channels);
    const first = source.colorChannels + (source.transparency ? 1 : 0);
    for (let e = 0; e < source.extraChannels; e++) planes.push(stored(first + e));
  }
  // Photoshop writes 16- and 32-bit merged images raw and the others RLE; the original's choice is kept.
  const compression = original.merged?.compression === COMPRESSION.raw ? COMPRESSION.raw : COMPRESSION.rle;
  return { merged: encodeMerged(planes, { width, height, depth: source.depth, psb }, compression), channels: planes.length, alpha: withAlpha };
}

/**
 * Rewrites ag-psd's 8-bit RGB output into the mode and depth of the file `readable` was opened from: header,
 * colour mode data, every layer's channels and the merged image. Layers in `keep.layerIds` whose size is
 * unchanged get their original channel bytes verbatim (moved or not); the others are converted from the 8-bit RGBA ag-psd wrote
 * (by the inverse conversions of `color.ts`). The merged image is the original section when `keep.composite` and
 * the canvas is the same size, else converted from the fresh composite with the original's saved alpha and spot
 * channels carried over (dropped, with their image resources, when the canvas size changed). 16- and 32-bit layers
 * go into an `Lr16`/`Lr32` block as Photoshop writes them. PSB stays PSB (the written file decides).
 *
 * Indexed and bitmap files cannot hold layers: they are written back in their mode only while the document is a
 * single canvas-sized layer (flattened, as they were); otherwise the 8-bit file is returned as it is (RGB, for
 * the caller's loss check to report). A flattened file of another mode stays flattened on the same condition, as
 * long as the picture is opaque.
 */
export function toOriginalMode(written: Uint8Array, readable: Pick<ReadablePsd, "source" | "original">, keep: KeepSets): Uint8Array {
  const { source, original } = readable;
  const file = readPsdFile(written);
  const psb = file.header.version === 2;
  const sameCanvas = file.header.width === source.width && file.header.height === source.height;
  const layerless = source.colorMode === COLOR_MODE.indexed || source.colorMode === COLOR_MODE.bitmap;
  const canvas = { top: 0, left: 0, bottom: source.height, right: source.width };
  const oneCanvasLayer = file.layers.layers.length <= 1 && file.layers.layers.every((layer) => sameRect(layer, canvas));
  if (layerless && !oneCanvasLayer) return withoutResource(file, written, source.colorMode === COLOR_MODE.bitmap ? ICC_PROFILE : undefined);
  // A flattened file (or a mode without layers) stays flattened while the document is its one canvas-sized layer
  // (and, in modes with layers, an opaque one: a flattened file has no transparency).
  const opaque = file.header.channels === 3;
  const flatOnly = oneCanvasLayer && (layerless || (opaque && original.file.layers.layers.length === 0));
  const storedComposite = keep.composite && sameCanvas && original.merged !== undefined;
  const carryExtras = sameCanvas && source.extraChannels > 0 && original.merged !== undefined;
  const layers = flatOnly
    ? []
    : file.layers.layers.map((layer) => {
        const stored = layer.id === undefined ? undefined : original.layers.get(layer.id);
        return { ...layer, channels: layerChannels(layer, stored, layer.id !== undefined && keep.layerIds.has(layer.id), source, psb) };
      });
  let merged: MergedImage | undefined;
  let channels: number;
  let transparency: boolean;
  if (storedComposite) {
    const shape = { width: source.width, height: source.height, depth: source.depth, psb };
    merged = rebasedMerged(original.merged!, shape, source.channels, source.version === 2);
    channels = source.channels;
    transparency = source.transparency;
  } else {
    ({ merged, channels, alpha: transparency } = mergedFromWritten(file, readable, carryExtras));
  }
  // Channel names and ids go with the channels they describe: dropped only with saved channels that were dropped
  // (with none, they name the merged transparency, which is still there).
  const extrasKept = storedComposite || carryExtras || source.extraChannels === 0;
  const resources: readonly ResourceBlock[] = extrasKept ? file.resources : file.resources.filter((block) => !EXTRA_CHANNEL_RESOURCES.has(block.id));
  const deep = layers.length > 0 && (source.depth === 16 || source.depth === 32);
  const out: PsdFile = {
    header: { ...file.header, channels, depth: source.depth, colorMode: source.colorMode },
    colorModeData: source.colorModeData,
    resources,
    layers: { mergedAlpha: transparency && layers.length > 0, layers },
    layersIn: deep ? (source.depth === 16 ? "Lr16" : "Lr32") : "layerInfo",
    globalMask: file.globalMask,
    globalBlocks: withTransparencyKey(file.globalBlocks, transparency ? MERGED_TRANSPARENCY_KEY[source.depth] : undefined),
    merged,
  };
  return writePsdFile(out);
}
