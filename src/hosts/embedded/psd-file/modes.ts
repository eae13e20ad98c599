/**
 * Colour modes and depths: what each holds, how it opens (as 8-bit RGB or 8-bit grayscale, the two ag-psd reads)
 * and which combinations are refused, with the reason named.
 */
import { BridgeError } from "../../../protocol/errors.js";
import type { FileHeader, ResourceBlock } from "./sections.js";

/** PSD colour mode numbers. */
export const COLOR_MODE = { bitmap: 0, grayscale: 1, indexed: 2, rgb: 3, cmyk: 4, multichannel: 7, duotone: 8, lab: 9 } as const;

interface ModeFacts {
  /** The name documents report (`HostDocument.colorMode`). */
  readonly name: string;
  /** Colour channels before any transparency or extra channel. */
  readonly colorChannels: number;
  /** What it opens as: 3 RGB or 1 grayscale. */
  readonly opensAs: 1 | 3;
  /** Depths Photoshop writes in this mode. */
  readonly depths: readonly number[];
}

const MODES: Readonly<Record<number, ModeFacts>> = {
  [COLOR_MODE.bitmap]: { name: "Bitmap", colorChannels: 1, opensAs: 1, depths: [1] },
  [COLOR_MODE.grayscale]: { name: "Grayscale", colorChannels: 1, opensAs: 1, depths: [8, 16, 32] },
  [COLOR_MODE.indexed]: { name: "Indexed", colorChannels: 1, opensAs: 3, depths: [8] },
  [COLOR_MODE.rgb]: { name: "RGB", colorChannels: 3, opensAs: 3, depths: [8, 16, 32] },
  [COLOR_MODE.cmyk]: { name: "CMYK", colorChannels: 4, opensAs: 3, depths: [8, 16] },
  [COLOR_MODE.duotone]: { name: "Duotone", colorChannels: 1, opensAs: 1, depths: [8, 16] },
  [COLOR_MODE.lab]: { name: "Lab", colorChannels: 3, opensAs: 3, depths: [8, 16] },
};

/** The name a colour mode number is reported with (`Multichannel`, `mode 5` for unknown numbers). */
export function colorModeLabel(colorMode: number): string {
  return colorMode === COLOR_MODE.multichannel ? "Multichannel" : (MODES[colorMode]?.name ?? `mode ${colorMode}`);
}

/** Everything about a file's mode that opening and saving back need. */
export interface PsdSourceMode {
  /** 1 = PSD, 2 = PSB. */
  readonly version: number;
  readonly width: number;
  readonly height: number;
  /** Bits per channel: 1, 8, 16 or 32. */
  readonly depth: number;
  /** PSD colour mode number (see {@link COLOR_MODE}). */
  readonly colorMode: number;
  /** `RGB`, `Grayscale`, `CMYK`, `Lab`, `Indexed`, `Bitmap`, `Duotone`. */
  readonly colorModeName: string;
  /** Channels in the merged image (the header's count). */
  readonly channels: number;
  readonly colorChannels: number;
  /** Whether the merged image's first channel after the colour ones is its transparency. */
  readonly transparency: boolean;
  /** Alpha and spot channels of the merged image (after colour and transparency). */
  readonly extraChannels: number;
  /** The colour mode data as stored: a palette (indexed), the inks (duotone), 32-bit settings. */
  readonly colorModeData: Uint8Array;
  /** What the editor holds: 3 (RGB) or 1 (grayscale), always 8-bit. */
  readonly opensAs: 1 | 3;
  /** Indexed colour: the palette entries in use (resource 1046) and the transparent one (resource 1047). */
  readonly paletteColors?: number | undefined;
  readonly transparentIndex?: number | undefined;
}

function refuse(reason: string, message: string, header: FileHeader, path: string | undefined): BridgeError {
  const what = path === undefined ? "This PSD" : path;
  return new BridgeError("BAD_REQUEST", `${what} cannot be opened: ${message}`, {
    details: { ...(path === undefined ? {} : { path }), reason, depth: header.depth, colorMode: colorModeLabel(header.colorMode) },
  });
}

/** Global blocks whose presence says the merged image's first extra channel is its transparency (8/16/32-bit). */
export const MERGED_TRANSPARENCY_KEYS: ReadonlySet<string> = new Set(["Mtrn", "Mt16", "Mt32"]);

/**
 * Whether the merged image's first channel after the colour ones is its transparency: the layer count is
 * negative, a merged-transparency block is there, or there are more extra channels than names (Photoshop names
 * the transparency channel too, in the user's language, so the name itself says nothing).
 */
export function hasMergedTransparency(beyond: number, file: { mergedAlpha: boolean; globalKeys: readonly string[]; resources: readonly ResourceBlock[] }): boolean {
  if (beyond <= 0) return false;
  return file.mergedAlpha || file.globalKeys.some((key) => MERGED_TRANSPARENCY_KEYS.has(key)) || beyond > namedChannelCount(file.resources);
}

/** Names of saved alpha and spot channels (unicode names when present, else Pascal names). */
export function namedChannelCount(resources: readonly ResourceBlock[]): number {
  const unicode = resources.find((block) => block.id === 1045);
  if (unicode) {
    const view = new DataView(unicode.data.buffer, unicode.data.byteOffset, unicode.data.byteLength);
    let count = 0;
    for (let at = 0; at + 4 <= unicode.data.length; count++) at += 4 + view.getUint32(at) * 2;
    return count;
  }
  const pascal = resources.find((block) => block.id === 1006);
  if (!pascal) return 0;
  let count = 0;
  for (let at = 0; at < pascal.data.length; count++) at += 1 + pascal.data[at]!;
  return count;
}

/**
 * The file's mode, or a refusal naming the mode, the depth and why.
 * @throws BridgeError `BAD_REQUEST` with `details: { path?, reason, depth, colorMode }`: `reason` is
 * `multichannel`, `unknownColorMode`, `unsupportedDepth`, `missingChannels` or `missingPalette`.
 */
export function sourceMode(
  header: FileHeader,
  file: { colorModeData: Uint8Array; resources: readonly ResourceBlock[]; mergedAlpha: boolean; globalKeys: readonly string[] },
  path?: string,
): PsdSourceMode {
  const { depth, colorMode } = header;
  if (colorMode === COLOR_MODE.multichannel) {
    throw refuse("multichannel", "multichannel documents hold separate ink plates with no defined colour; convert it to RGB, CMYK or grayscale in an image editor first", header, path);
  }
  const facts = MODES[colorMode];
  if (facts === undefined) throw refuse("unknownColorMode", `colour mode ${colorMode} is not a PSD colour mode this editor knows`, header, path);
  if (!facts.depths.includes(depth)) {
    throw refuse("unsupportedDepth", `${facts.name} at ${depth} bits per channel is not a combination Photoshop writes (${facts.depths.join(", ")}-bit are)`, header, path);
  }
  if (header.channels < facts.colorChannels) {
    throw refuse("missingChannels", `${facts.name} needs ${facts.colorChannels} channels and the header declares ${header.channels}`, header, path);
  }
  if (colorMode === COLOR_MODE.indexed && file.colorModeData.length < 768) {
    throw refuse("missingPalette", `an indexed-colour file needs a 768-byte palette and has ${file.colorModeData.length} bytes of colour mode data`, header, path);
  }
  const beyond = header.channels - facts.colorChannels;
  const transparency = hasMergedTransparency(beyond, file);
  const u16 = (id: number): number | undefined => {
    const block = file.resources.find((candidate) => candidate.id === id && candidate.data.length >= 2);
    return block ? (block.data[0]! << 8) | block.data[1]! : undefined;
  };
  const indexed = colorMode === COLOR_MODE.indexed;
  return {
    version: header.version,
    width: header.width,
    height: header.height,
    depth,
    colorMode,
    colorModeName: facts.name,
    channels: header.channels,
    colorChannels: facts.colorChannels,
    transparency,
    extraChannels: beyond - (transparency ? 1 : 0),
    colorModeData: file.colorModeData,
    opensAs: facts.opensAs,
    ...(indexed ? { paletteColors: u16(1046), transparentIndex: u16(1047) } : {}),
  };
}

/** The conversion opening applies, in words (`16-bit → 8-bit, CMYK → RGB (profile-less)`), or undefined. */
export function conversionLabel(mode: PsdSourceMode): string | undefined {
  const steps: string[] = [];
  if (mode.depth === 16) steps.push("16-bit → 8-bit");
  if (mode.depth === 32) steps.push("32-bit linear → 8-bit sRGB");
  const target = mode.opensAs === 3 ? "RGB" : "grayscale";
  if (mode.colorMode === COLOR_MODE.cmyk) steps.push("CMYK → RGB (profile-less)");
  else if (mode.colorMode === COLOR_MODE.lab) steps.push("Lab → RGB");
  else if (mode.colorMode === COLOR_MODE.indexed) steps.push("indexed → RGB");
  else if (mode.colorMode === COLOR_MODE.bitmap) steps.push("bitmap → grayscale");
  else if (mode.colorMode === COLOR_MODE.duotone) steps.push("duotone → grayscale");
  else if (mode.colorMode !== COLOR_MODE.rgb && mode.colorMode !== COLOR_MODE.grayscale) steps.push(`${mode.colorModeName} → ${target}`);
  return steps.length > 0 ? steps.join(", ") : undefined;
}
