/**
 * A file's structure read from its bytes alone (no ag-psd): what a save must keep. Comparing an original's with
 * a written file's lists exactly what the save dropped.
 */
import { COLOR_MODE, colorModeLabel, hasMergedTransparency } from "./modes.js";
import { readPsdFile } from "./sections.js";

/** One layer record, bottom-most first as stored (group ends are records too). */
export interface LayerStructure {
  /** From its `lyid` block. */
  readonly id?: number | undefined;
  /** The Unicode name (`luni`) when present, else the Pascal name. */
  readonly name: string;
  /** Its additional-information keys, in order (`lyid`, `luni`, `TySh`, `lfx2`, `vmsk`…). */
  readonly keys: readonly string[];
  readonly hasUserMask: boolean;
  readonly hasRealMask: boolean;
  /** Channel ids in stored order (0… colour, -1 transparency, -2 user mask, -3 real mask). */
  readonly channelIds: readonly number[];
}

export interface PsdStructure {
  /** 1 = PSD, 2 = PSB. */
  readonly version: number;
  readonly width: number;
  readonly height: number;
  readonly depth: number;
  /** PSD colour mode number. */
  readonly colorMode: number;
  /** `RGB`, `Grayscale`, `CMYK`… */
  readonly colorModeName: string;
  /** Image resource ids in stored order. */
  readonly resources: readonly number[];
  /** Saved alpha and spot channels of the merged image (beyond colour and transparency). */
  readonly extraChannels: number;
  readonly layers: readonly LayerStructure[];
  /** Global additional-information keys (`Lr16`/`Lr32` included where the layers live there). */
  readonly globalKeys: readonly string[];
}

const COLOR_CHANNELS: Readonly<Record<number, number>> = {
  [COLOR_MODE.bitmap]: 1,
  [COLOR_MODE.grayscale]: 1,
  [COLOR_MODE.indexed]: 1,
  [COLOR_MODE.rgb]: 3,
  [COLOR_MODE.cmyk]: 4,
  [COLOR_MODE.duotone]: 1,
  [COLOR_MODE.lab]: 3,
};

/**
 * The structure of a PSD/PSB.
 * @throws BridgeError `BAD_REQUEST` naming the reason, section and offset when the file is damaged.
 */
export function psdStructure(bytes: Uint8Array): PsdStructure {
  const file = readPsdFile(bytes);
  const { header } = file;
  // Multichannel has no colour channels as such: every channel counts as one.
  const colorChannels = COLOR_CHANNELS[header.colorMode] ?? header.channels;
  const beyond = Math.max(0, header.channels - colorChannels);
  const globalKeys = file.globalBlocks.map((block) => block.key);
  const transparency = hasMergedTransparency(beyond, { mergedAlpha: file.layers.mergedAlpha, globalKeys, resources: file.resources });
  return {
    version: header.version,
    width: header.width,
    height: header.height,
    depth: header.depth,
    colorMode: header.colorMode,
    colorModeName: colorModeLabel(header.colorMode),
    resources: file.resources.map((block) => block.id),
    extraChannels: beyond - (transparency ? 1 : 0),
    layers: file.layers.layers.map((layer) => ({
      ...(layer.id === undefined ? {} : { id: layer.id }),
      name: layer.name,
      keys: layer.blocks.map((block) => block.key),
      hasUserMask: layer.mask !== undefined,
      hasRealMask: layer.realMask !== undefined,
      channelIds: layer.channels.map((channel) => channel.id),
    })),
    globalKeys,
  };
}
