import { describe, expect, it } from "vitest";
import { cmykToRgb, from16, from32, labToRgb, rgbToCmyk, rgbToGray, rgbToLab, to16, to32 } from "../../../../src/hosts/embedded/psd-file/color.js";
import { productByte, sixteenToByte } from "../../../../src/hosts/embedded/psd-file/to-editor.js";
import { inkByte } from "../../../../src/hosts/embedded/psd-file/to-source.js";
import { mergedChannels } from "../../../../src/hosts/embedded/psd-file/merged.js";
import { readPsdFile } from "../../../../src/hosts/embedded/psd-file/sections.js";
import { psdToolsBytes } from "./reference.js";

const BYTES = Array.from({ length: 256 }, (_, v) => v);

/** The merged samples of a fixture, channel by channel, as numbers. */
function mergedSamples(path: string): number[][] {
  const file = readPsdFile(psdToolsBytes(path));
  const { width, height, depth, channels } = file.header;
  const channel = mergedChannels(file.merged!, { width, height, depth, psb: false }, channels);
  return Array.from({ length: channels }, (_, c) => {
    const raw = channel(c);
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    return Array.from({ length: width * height }, (_, i) => (depth === 16 ? view.getUint16(i * 2) : raw[i]!));
  });
}

describe("psd-file: the stated conversions", () => {
  it("Photoshop's 16-bit files use the whole 0–65535 range: the 16-bit picture converts to its 8-bit twin", () => {
    const sixteen = mergedSamples("colormodes/4x4_16bit_rgb.psd");
    const eight = mergedSamples("colormodes/4x4_8bit_rgb.psd");
    expect(Math.max(...sixteen.flat())).toBeGreaterThan(32768);
    for (let c = 0; c < 3; c++) {
      for (let i = 0; i < 16; i++) expect(Math.abs(from16(sixteen[c]![i]!) - eight[c]![i]!)).toBeLessThanOrEqual(2);
    }
  });

  it("8-bit values survive 16-bit and 32-bit float exactly", () => {
    expect(BYTES.map((v) => from16(to16(v)))).toEqual(BYTES);
    expect(BYTES.map((v) => from32(to32(v)))).toEqual(BYTES);
  });

  it("32-bit samples are linear light: 0.5 is sRGB 188, values past 1 clamp to white", () => {
    expect(from32(0.5)).toBe(188);
    expect(from32(4)).toBe(255);
    expect(from32(-1)).toBe(0);
  });

  it("CMYK is stored inverted: no ink is white, full black is black, and RGB survives the way back", () => {
    const rgb = [0, 0, 0];
    cmykToRgb(1, 1, 1, 1, rgb);
    expect(rgb).toEqual([255, 255, 255]);
    cmykToRgb(1, 1, 1, 0, rgb);
    expect(rgb).toEqual([0, 0, 0]);
    cmykToRgb(0, 0.5, 1, 1, rgb);
    expect(rgb).toEqual([0, 128, 255]);
    const cmyk = [0, 0, 0, 0];
    for (const colour of [[12, 200, 99], [0, 0, 0], [255, 255, 255], [255, 0, 77]]) {
      rgbToCmyk(colour[0]!, colour[1]!, colour[2]!, cmyk);
      cmykToRgb(cmyk[0]!, cmyk[1]!, cmyk[2]!, cmyk[3]!, rgb);
      expect(rgb).toEqual(colour);
    }
  });

  it("sRGB primaries land on their published D50 (Bradford) Lab values, and come back", () => {
    const lab = [0, 0, 0];
    const published: Array<[number[], number[]]> = [
      [[255, 0, 0], [54.2917, 80.8125, 69.8851]],
      [[0, 255, 0], [87.8181, -79.2873, 80.9902]],
      [[0, 0, 255], [29.5676, 68.2986, -112.0294]],
      [[255, 255, 255], [100, 0, 0]],
    ];
    const rgb = [0, 0, 0];
    for (const [colour, expected] of published) {
      rgbToLab(colour[0]!, colour[1]!, colour[2]!, lab);
      const [l, a, b] = [lab[0]! * 100, lab[1]! * 255 - 128, lab[2]! * 255 - 128];
      expect(Math.max(...[l, a, b].map((v, i) => Math.abs(v - expected[i]!)))).toBeLessThan(0.01);
      labToRgb(lab[0]!, lab[1]!, lab[2]!, rgb);
      expect(rgb).toEqual(colour);
    }
  });

  it("RGB colours come back from Lab within one level", () => {
    const lab = [0, 0, 0];
    const rgb = [0, 0, 0];
    for (let r = 0; r < 256; r += 51) {
      for (let g = 0; g < 256; g += 51) {
        for (let b = 0; b < 256; b += 51) {
          rgbToLab(r, g, b, lab);
          labToRgb(lab[0]!, lab[1]!, lab[2]!, rgb);
          expect(Math.max(Math.abs(rgb[0]! - r), Math.abs(rgb[1]! - g), Math.abs(rgb[2]! - b))).toBeLessThanOrEqual(1);
        }
      }
    }
  });

  it("gray pixels are their own gray; colours weigh green most", () => {
    expect(BYTES.map((v) => rgbToGray(v, v, v))).toEqual(BYTES);
    expect(rgbToGray(0, 255, 0)).toBeGreaterThan(rgbToGray(255, 0, 0));
    expect(rgbToGray(255, 0, 0)).toBeGreaterThan(rgbToGray(0, 0, 255));
  });
});

describe("psd-file: the integer forms the pixel loops use", () => {
  it("16-bit → 8-bit in integers equals from16 on every value", () => {
    const bytes = new Uint8Array(65536 * 2);
    for (let v = 0; v < 65536; v++) [bytes[v * 2], bytes[v * 2 + 1]] = [v >> 8, v & 0xff];
    const differing = Array.from({ length: 65536 }, (_, v) => v).filter((v) => sixteenToByte(bytes, v) !== from16(v));
    expect(differing).toEqual([]);
  });

  it("8-bit CMYK → RGB in integers equals cmykToRgb on every pair of samples", () => {
    const rgb = [0, 0, 0];
    const differing: number[][] = [];
    for (let c = 0; c < 256; c++) {
      for (let k = 0; k < 256; k++) {
        cmykToRgb(c / 255, c / 255, c / 255, k / 255, rgb);
        if (productByte(c, k) !== rgb[0]) differing.push([c, k]);
      }
    }
    expect(differing).toEqual([]);
  });
});

describe("psd-file: the integer form of saving CMYK", () => {
  it("8-bit ink is rgbToCmyk's value rounded (halves up), and every RGB colour comes back exactly", () => {
    const units = [0, 0, 0, 0];
    const differing: number[][] = [];
    for (let black = 1; black < 256; black++) {
      for (let value = 0; value <= black; value++) {
        rgbToCmyk(value, black, 0, units);
        const exact = (value * 255) / black;
        const ink = inkByte(value, black);
        const rounded = Math.abs(ink - exact) < 0.5 || ink - exact === 0.5;
        if (!rounded || Math.abs(ink - units[0]! * 255) > 0.5 + 1e-9 || productByte(ink, black) !== value) differing.push([value, black]);
      }
    }
    expect(differing).toEqual([]);
    expect(inkByte(0, 0)).toBe(255);
  });
});
