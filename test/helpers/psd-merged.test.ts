import { readFile } from "node:fs/promises";
import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { colour, corpusFile, decodeMerged } from "./psd-merged.js";

type Compression = 0 | 1 | 2 | 3;
const MODES = { bitmap: 0, grayscale: 1, indexed: 2, rgb: 3, cmyk: 4, lab: 9 } as const;

interface Synthetic {
  mode: keyof typeof MODES;
  depth: 1 | 8 | 16 | 32;
  width: number;
  height: number;
  /** One plane per channel: rows of ceil(width · depth / 8) bytes. */
  planes: Uint8Array[];
  compression?: Compression;
  psb?: boolean;
  colourModeData?: Uint8Array;
  resources?: Array<{ id: number; data: Uint8Array }>;
  /** Marks the first alpha channel as the composite's transparency (the `Mtrn` block). */
  transparent?: boolean;
}

const u16 = (v: number): Buffer => Buffer.from([v >> 8, v & 255]);
const u32 = (v: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v);
  return b;
};
const withLength = (data: Buffer, psb = false): Buffer => Buffer.concat([psb ? Buffer.concat([u32(0), u32(data.length)]) : u32(data.length), data]);

/** PackBits, as literal runs only (a valid encoding every reader must take). */
function packRow(row: Uint8Array): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < row.length; at += 128) {
    const chunk = row.subarray(at, at + 128);
    parts.push(Buffer.from([chunk.length - 1]), Buffer.from(chunk));
  }
  return Buffer.concat(parts);
}

/** Delta-encodes each row as ZIP with prediction stores it (32-bit: bytes split into planes first). */
function predict(plane: Uint8Array, width: number, depth: number): Buffer {
  const rowBytes = (width * depth) / 8;
  const out = Buffer.from(plane);
  for (let at = 0; at < out.length; at += rowBytes) {
    if (depth === 32) {
      const row = Buffer.from(out.subarray(at, at + rowBytes));
      for (let x = 0; x < width; x++) for (let k = 0; k < 4; k++) out[at + k * width + x] = row[x * 4 + k]!;
    }
    if (depth === 16) {
      for (let i = rowBytes - 2; i >= 2; i -= 2) {
        const v = (out.readUInt16BE(at + i) - out.readUInt16BE(at + i - 2)) & 0xffff;
        out.writeUInt16BE(v, at + i);
      }
    } else for (let i = rowBytes - 1; i >= 1; i--) out[at + i] = (out[at + i]! - out[at + i - 1]!) & 0xff;
  }
  return out;
}

function synthetic(s: Synthetic): Buffer {
  const compression = s.compression ?? 0;
  const header = Buffer.concat([Buffer.from("8BPS"), u16(s.psb ? 2 : 1), Buffer.alloc(6), u16(s.planes.length), u32(s.height), u32(s.width), u16(s.depth), u16(MODES[s.mode])]);
  const resources = Buffer.concat(
    (s.resources ?? []).map(({ id, data }) => Buffer.concat([Buffer.from("8BIM"), u16(id), Buffer.alloc(2), u32(data.length), Buffer.from(data), Buffer.alloc(data.length % 2)])),
  );
  const tagged = s.transparent ? Buffer.concat([Buffer.from("8BIMMtrn"), s.psb ? Buffer.concat([u32(0), u32(4)]) : u32(4), Buffer.alloc(4)]) : Buffer.alloc(0);
  const layerSection = s.transparent ? Buffer.concat([s.psb ? Buffer.alloc(8) : u32(0), u32(0), tagged]) : Buffer.alloc(0);
  const rowBytes = Math.ceil((s.width * s.depth) / 8);
  let data: Buffer;
  if (compression === 0) data = Buffer.concat(s.planes);
  else if (compression === 1) {
    const rows = s.planes.flatMap((plane) => Array.from({ length: s.height }, (_, y) => packRow(plane.subarray(y * rowBytes, (y + 1) * rowBytes))));
    data = Buffer.concat([...rows.map((row) => (s.psb ? u32(row.length) : u16(row.length))), ...rows]);
  } else data = deflateSync(Buffer.concat(s.planes.map((plane) => (compression === 3 ? predict(plane, s.width, s.depth) : Buffer.from(plane)))));
  return Buffer.concat([header, withLength(Buffer.from(s.colourModeData ?? [])), withLength(resources), withLength(layerSection, s.psb), u16(compression), data]);
}

const bytes16 = (values: number[]): Uint8Array => Uint8Array.from(values.flatMap((v) => [v >> 8, v & 255]));
const floats = (values: number[]): Uint8Array => {
  const b = Buffer.alloc(values.length * 4);
  for (const [i, v] of values.entries()) b.writeFloatBE(v, i * 4);
  return b;
};
const pixels = (rgba: Uint8ClampedArray): number[][] => Array.from({ length: rgba.length / 4 }, (_, i) => [...rgba.subarray(i * 4, i * 4 + 4)]);

describe("the reference decoder of stored composites", () => {
  it("decodes an 8-bit RGB composite the same from raw, RLE, ZIP and ZIP with prediction, PSD and PSB", () => {
    const planes = [Uint8Array.from([0, 10, 250, 255]), Uint8Array.from([1, 2, 3, 4]), Uint8Array.from([200, 100, 50, 25])];
    const expected = [
      [0, 1, 200, 255],
      [10, 2, 100, 255],
      [250, 3, 50, 255],
      [255, 4, 25, 255],
    ];
    for (const compression of [0, 1, 2, 3] as const) {
      for (const psb of [false, true]) {
        const merged = decodeMerged(synthetic({ mode: "rgb", depth: 8, width: 2, height: 2, planes, compression, psb }));
        expect(pixels(merged.rgba), `compression ${compression}, psb ${psb}`).toEqual(expected);
        expect(merged.version).toBe(psb ? "psb" : "psd");
      }
    }
  });

  it("turns 16-bit samples into round(v·255/65535) under every compression", () => {
    const values = [0, 128, 32768, 65535];
    for (const compression of [0, 1, 2, 3] as const) {
      const merged = decodeMerged(synthetic({ mode: "grayscale", depth: 16, width: 4, height: 1, planes: [bytes16(values)], compression }));
      expect(pixels(merged.rgba).map((p) => p[0]), `compression ${compression}`).toEqual(values.map((v) => Math.round((v * 255) / 65535)));
      expect(merged.grayscale).toBe(true);
    }
  });

  it("reads 32-bit floats as linear light through the sRGB curve, clamped, under every compression", () => {
    const values = [0, 0.2158605, 1, 2, -1, 0.5];
    for (const compression of [0, 1, 2, 3] as const) {
      const merged = decodeMerged(synthetic({ mode: "grayscale", depth: 32, width: 3, height: 2, planes: [floats(values)], compression }));
      expect(pixels(merged.rgba).map((p) => p[0]), `compression ${compression}`).toEqual([0, 128, 255, 255, 0, 188]);
    }
  });

  it("removes the white matte of a transparent composite", () => {
    // A half-covered black pixel is stored as 127 (black matted on white); a clear pixel as white.
    const planes = [Uint8Array.from([127, 255, 0]), Uint8Array.from([127, 255, 0]), Uint8Array.from([127, 255, 0]), Uint8Array.from([128, 0, 255])];
    const merged = decodeMerged(synthetic({ mode: "rgb", depth: 8, width: 3, height: 1, planes, transparent: true }));
    expect(merged.hasAlpha).toBe(true);
    expect(pixels(merged.rgba)).toEqual([
      [0, 0, 0, 128],
      [255, 255, 255, 0],
      [0, 0, 0, 255],
    ]);
  });

  it("leaves extra channels out of an opaque composite and says so", () => {
    const planes = [Uint8Array.from([9]), Uint8Array.from([8]), Uint8Array.from([7]), Uint8Array.from([0])];
    const merged = decodeMerged(synthetic({ mode: "rgb", depth: 8, width: 1, height: 1, planes }));
    expect(merged.hasAlpha).toBe(false);
    expect(pixels(merged.rgba)).toEqual([[9, 8, 7, 255]]);
    expect(merged.notes.join(" ")).toMatch(/1 alpha or spot channel/);
  });

  it("converts CMYK from its inverted samples without a profile", () => {
    // No ink; full cyan; half black; full black.
    const c = Uint8Array.from([255, 0, 255, 255]);
    const m = Uint8Array.from([255, 255, 255, 255]);
    const y = Uint8Array.from([255, 255, 255, 255]);
    const k = Uint8Array.from([255, 255, 127, 0]);
    const merged = decodeMerged(synthetic({ mode: "cmyk", depth: 8, width: 4, height: 1, planes: [c, m, y, k] }));
    expect(pixels(merged.rgba)).toEqual([
      [255, 255, 255, 255],
      [0, 255, 255, 255],
      [127, 127, 127, 255],
      [0, 0, 0, 255],
    ]);
  });

  it("converts Lab white, black and middle grey to sRGB white, black and grey", () => {
    const planes = [Uint8Array.from([255, 0, 128]), Uint8Array.from([128, 128, 128]), Uint8Array.from([128, 128, 128])];
    const merged = decodeMerged(synthetic({ mode: "lab", depth: 8, width: 3, height: 1, planes }));
    const [white, black, grey] = pixels(merged.rgba);
    expect(white).toEqual([255, 255, 255, 255]);
    expect(black).toEqual([0, 0, 0, 255]);
    // L* 50.2 is sRGB 119–120 on every channel (a neutral stays neutral through Bradford).
    for (const v of grey!.slice(0, 3)) expect(Math.abs(v - 119.5)).toBeLessThanOrEqual(1);
  });

  it("draws set bitmap bits black and maps indexed samples through the palette and its transparent index", () => {
    const bitmap = decodeMerged(synthetic({ mode: "bitmap", depth: 1, width: 10, height: 1, planes: [Uint8Array.from([0b10100000, 0b01000000])] }));
    expect(pixels(bitmap.rgba).map((p) => p[0])).toEqual([0, 255, 0, 255, 255, 255, 255, 255, 255, 0]);
    const palette = new Uint8Array(768);
    palette.set([10, 20], 0);
    palette.set([30, 40], 256);
    palette.set([50, 60], 512);
    const indexed = decodeMerged(
      synthetic({ mode: "indexed", depth: 8, width: 2, height: 1, planes: [Uint8Array.from([0, 1])], colourModeData: palette, resources: [{ id: 1047, data: Uint8Array.from([0, 1]) }] }),
    );
    expect(pixels(indexed.rgba)).toEqual([
      [10, 30, 50, 255],
      [20, 40, 60, 0],
    ]);
  });

  it("names where a file cut inside its merged image ends", () => {
    const whole = synthetic({ mode: "rgb", depth: 8, width: 4, height: 4, planes: [new Uint8Array(16), new Uint8Array(16), new Uint8Array(16)] });
    expect(() => decodeMerged(whole.subarray(0, whole.length - 5))).toThrow(/file ends at byte \d+ while reading the raw merged image/);
  });

  it("finds Photoshop's 16-bit white at 65535: a threshold result decodes to black and white only", async () => {
    const merged = decodeMerged(await readFile(corpusFile({ path: "psd-tools/adjustments/threshold_16bits_grayscale.psd" })));
    const values = pixels(merged.rgba).map((p) => p[0]!);
    const pure = values.filter((v) => v === 0 || v === 255).length;
    // Antialiased edges aside, a threshold leaves two values; white read as 32768 would decode to 128.
    expect(pure / values.length).toBeGreaterThan(0.99);
    expect(values).toContain(255);
  });

  it("states one conversion per sample kind", () => {
    expect(colour.from16(65535)).toBe(255);
    expect(colour.from16(257)).toBe(1);
    expect(colour.fromFloatColour(1)).toBe(255);
    expect(colour.cmykStoredToRgb(1, 1, 1, 1)).toEqual([255, 255, 255]);
    expect(colour.labToRgb(100, 0, 0)).toEqual([255, 255, 255]);
    expect(colour.fromBitmapBit(1)).toBe(0);
  });
});
