/**
 * Test helpers: the real files under `test/fixtures/psd/`, and the composite Photoshop stored in a file decoded
 * with the stated conversions of `color.ts` (the reference an opened document is compared with).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bitmapToGray, cmykToRgb, from16, from32, labToRgb } from "../../../../src/hosts/embedded/psd-file/color.js";
import { mergedChannels } from "../../../../src/hosts/embedded/psd-file/merged.js";
import { COLOR_MODE } from "../../../../src/hosts/embedded/psd-file/modes.js";
import { readPsdFile } from "../../../../src/hosts/embedded/psd-file/sections.js";
import { psdStructure } from "../../../../src/hosts/embedded/psd-file/structure.js";

/** The psd-tools test files (MIT), by their path in that project's `tests/psd_files`. */
export const PSD_TOOLS = join(import.meta.dirname, "..", "..", "..", "fixtures", "psd", "psd-tools");

export function psdToolsFile(path: string): string {
  return join(PSD_TOOLS, path);
}

export function psdToolsBytes(path: string): Buffer {
  return readFileSync(psdToolsFile(path));
}

/** RGBA pixels, row-major. */
export interface Rgba {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

/** The stored composite of a file as 8-bit RGBA, decoded sample by sample with the stated conversions. */
export function storedComposite(bytes: Uint8Array): Rgba {
  const file = readPsdFile(bytes);
  const { width, height, depth, colorMode, version } = file.header;
  const count = width * height;
  const channel = mergedChannels(file.merged!, { width, height, depth, psb: version === 2 }, file.header.channels);
  const sample = (c: number): ((i: number) => number) => {
    const raw = channel(c);
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    if (depth === 16) return (i) => view.getUint16(i * 2) / 65535;
    if (depth === 32) return (i) => view.getFloat32(i * 4);
    if (depth === 1) return (i) => (raw[Math.floor(i / width) * Math.ceil(width / 8) + ((i % width) >> 3)]! >> (7 - ((i % width) & 7))) & 1;
    return (i) => raw[i]! / 255;
  };
  const byte = (unit: number): number => (depth === 32 ? from32(unit) : depth === 16 ? from16(Math.round(unit * 65535)) : Math.round(unit * 255));
  const colorCount = { [COLOR_MODE.rgb]: 3, [COLOR_MODE.cmyk]: 4, [COLOR_MODE.lab]: 3 }[colorMode] ?? 1;
  const structure = psdStructure(bytes);
  const transparency = file.header.channels - colorCount - structure.extraChannels > 0;
  const s = Array.from({ length: colorCount }, (_, c) => sample(c));
  const alpha = transparency ? sample(colorCount) : undefined;
  const data = new Uint8Array(count * 4);
  const rgb = [0, 0, 0];
  for (let i = 0; i < count; i++) {
    if (colorMode === COLOR_MODE.rgb) [rgb[0], rgb[1], rgb[2]] = [byte(s[0]!(i)), byte(s[1]!(i)), byte(s[2]!(i))];
    else if (colorMode === COLOR_MODE.cmyk) cmykToRgb(s[0]!(i), s[1]!(i), s[2]!(i), s[3]!(i), rgb);
    else if (colorMode === COLOR_MODE.lab) labToRgb(s[0]!(i), s[1]!(i), s[2]!(i), rgb);
    else if (colorMode === COLOR_MODE.bitmap) rgb.fill(bitmapToGray(s[0]!(i)));
    else if (colorMode === COLOR_MODE.indexed) {
      const index = Math.round(s[0]!(i) * 255);
      [rgb[0], rgb[1], rgb[2]] = [file.colorModeData[index]!, file.colorModeData[256 + index]!, file.colorModeData[512 + index]!];
    } else rgb.fill(byte(s[0]!(i))); // grayscale, duotone
    data.set([rgb[0]!, rgb[1]!, rgb[2]!, alpha ? Math.round(Math.min(1, Math.max(0, alpha(i))) * 255) : 255], i * 4);
  }
  return { width, height, data };
}

/** The largest difference between two RGBA images over colour (weighted by alpha) and alpha, in levels. */
export function largestDifference(a: Rgba, b: Rgba): number {
  let largest = 0;
  for (let i = 0; i < a.width * a.height; i++) {
    const alphaA = a.data[i * 4 + 3]! / 255;
    const alphaB = b.data[i * 4 + 3]! / 255;
    largest = Math.max(largest, Math.abs(alphaA - alphaB) * 255);
    for (let c = 0; c < 3; c++) largest = Math.max(largest, Math.abs(a.data[i * 4 + c]! * alphaA - b.data[i * 4 + c]! * alphaB));
  }
  return largest;
}
