/**
 * A layer's channels converted whole: from the file's mode to the editor's 8-bit channels, and from the 8-bit RGB
 * channels ag-psd writes back to the file's mode. Channel order follows the record's; masks keep their own
 * rectangles.
 */
import { COMPRESSION, decodeChannel, encodeChannel } from "./channels.js";
import type { ChannelShape } from "./channels.js";
import { alphaToEditor, colorToEditor } from "./to-editor.js";
import { alphaToSource, colorToSource } from "./to-source.js";
import type { ChannelData, LayerRecord, Rect } from "./layers.js";
import { rectHeight, rectWidth } from "./layers.js";
import type { PsdSourceMode } from "./modes.js";
import { plane } from "./samples.js";
import type { Plane } from "./samples.js";

const USER_MASK = -2;
const REAL_MASK = -3;
const TRANSPARENCY = -1;

const shapeOf = (rect: Rect | undefined, depth: number, psb: boolean): ChannelShape => ({
  width: rect ? rectWidth(rect) : 0,
  height: rect ? rectHeight(rect) : 0,
  depth,
  psb,
});

function decoded(channel: ChannelData, shape: ChannelShape): Plane {
  return plane(decodeChannel(channel.compression, channel.data, shape, "channel image data"));
}

function encoded(id: number, raw: Uint8Array, shape: ChannelShape, compression: number): ChannelData {
  if (raw.length === 0) return { id, compression: COMPRESSION.raw, data: raw };
  return { id, compression, data: encodeChannel(raw, shape, compression) };
}

/** The mask rectangle a channel id uses (the layer's own for colour and transparency). */
function rectFor(layer: LayerRecord, id: number): Rect | undefined {
  if (id === USER_MASK) return layer.mask;
  if (id === REAL_MASK) return layer.realMask;
  return layer;
}

/**
 * A layer's channels in the file's mode and depth → 8-bit RLE channels in what the file opens as (RGB `0, 1, 2`
 * or grayscale `0`), transparency and masks at 8 bits. Channels the editor has no use for (none Photoshop
 * writes on layers) are left out.
 */
export function layerToEditor(layer: LayerRecord, mode: PsdSourceMode, psb: boolean): ChannelData[] {
  const shape = shapeOf(layer, mode.depth, psb);
  const target = { ...shape, depth: 8 };
  const count = shape.width * shape.height;
  const byId = new Map(layer.channels.map((channel) => [channel.id, channel]));
  const isColor = (id: number): boolean => id >= 0 && id < mode.colorChannels;
  const transparency = byId.get(TRANSPARENCY);
  const alpha = transparency && count > 0 ? alphaToEditor(decoded(transparency, shape), mode.depth, count) : undefined;
  const out: ChannelData[] = [];
  let colorDone = false;
  for (const channel of layer.channels) {
    if (isColor(channel.id)) {
      if (colorDone) continue;
      colorDone = true;
      const planes = Array.from({ length: mode.colorChannels }, (_, id) => {
        const source = byId.get(id);
        return source && count > 0 ? decoded(source, shape) : undefined;
      });
      const color = count > 0 ? colorToEditor(mode, planes, shape.width, shape.height, alpha) : [];
      for (let id = 0; id < mode.opensAs; id++) out.push(encoded(id, color[id] ?? new Uint8Array(0), target, COMPRESSION.rle));
    } else if (channel.id === TRANSPARENCY) {
      out.push(encoded(TRANSPARENCY, alpha ?? new Uint8Array(0), target, COMPRESSION.rle));
    } else if (channel.id === USER_MASK || channel.id === REAL_MASK) {
      const maskShape = shapeOf(rectFor(layer, channel.id), mode.depth, psb);
      const maskCount = maskShape.width * maskShape.height;
      const mask = maskCount > 0 ? alphaToEditor(decoded(channel, maskShape), mode.depth, maskCount) : new Uint8Array(0);
      out.push(encoded(channel.id, mask, { ...maskShape, depth: 8 }, COMPRESSION.rle));
    }
  }
  return out;
}

/**
 * A record ag-psd wrote (8-bit RGB: `-1, 0, 1, 2`, masks `-2`, `-3`, RLE) → channels in the source's mode and
 * depth: colour channels from the RGB ones by the stated conversions, transparency and masks rescaled. 8-bit
 * data is stored RLE, 16- and 32-bit data ZIP with prediction (what Photoshop writes there).
 */
export function layerToSource(written: LayerRecord, mode: PsdSourceMode, psb: boolean): ChannelData[] {
  const shape = shapeOf(written, 8, psb);
  const target = { ...shape, depth: mode.depth };
  const compression = mode.depth === 8 ? COMPRESSION.rle : COMPRESSION.zipPrediction;
  const count = shape.width * shape.height;
  const byId = new Map(written.channels.map((channel) => [channel.id, channel]));
  const rgb = [0, 1, 2].flatMap((id) => {
    const channel = byId.get(id);
    return channel && count > 0 ? [decoded(channel, shape).bytes] : [];
  });
  const color = count > 0 && rgb.length > 0 ? colorToSource(mode, rgb, shape.width, shape.height) : [];
  const out: ChannelData[] = [];
  let colorDone = false;
  for (const channel of written.channels) {
    if (channel.id >= 0 && channel.id <= 2) {
      if (colorDone) continue;
      colorDone = true;
      for (let id = 0; id < mode.colorChannels; id++) out.push(encoded(id, color[id] ?? new Uint8Array(0), target, compression));
    } else if (channel.id === TRANSPARENCY || channel.id === USER_MASK || channel.id === REAL_MASK) {
      const from = shapeOf(rectFor(written, channel.id), 8, psb);
      const raw = from.width * from.height > 0 ? alphaToSource(decoded(channel, from).bytes, mode.depth) : new Uint8Array(0);
      out.push(encoded(channel.id, raw, { ...from, depth: mode.depth }, compression));
    }
  }
  return out;
}
