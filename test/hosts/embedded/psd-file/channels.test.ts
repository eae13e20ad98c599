import { describe, expect, it } from "vitest";
import { COMPRESSION, decodeChannel, encodeChannel, packRows, unpackRows } from "../../../../src/hosts/embedded/psd-file/channels.js";
import { encodeMerged, mergedChannels } from "../../../../src/hosts/embedded/psd-file/merged.js";

/** Deterministic bytes with runs and noise, so RLE meets both packet kinds. */
function samples(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed;
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    out[i] = i % 37 < 12 ? 200 : state >>> 24;
  }
  return out;
}

describe("psd-file: channel compression", () => {
  it("unpacks the PackBits example of Apple's technical note", () => {
    const packed = Uint8Array.from([0xfe, 0xaa, 0x02, 0x80, 0x00, 0x2a, 0xfd, 0xaa, 0x03, 0x80, 0x00, 0x2a, 0x22, 0xf7, 0xaa]);
    const raw = [0xaa, 0xaa, 0xaa, 0x80, 0x00, 0x2a, 0xaa, 0xaa, 0xaa, 0xaa, 0x80, 0x00, 0x2a, 0x22, ...Array(10).fill(0xaa)];
    const withCount = new Uint8Array(2 + packed.length);
    withCount.set([0, packed.length]);
    withCount.set(packed, 2);
    expect([...unpackRows(withCount, 1, raw.length, false, "image data")]).toEqual(raw);
  });

  for (const depth of [8, 16, 32]) {
    for (const [name, compression] of Object.entries(COMPRESSION)) {
      for (const psb of [false, true]) {
        it(`${depth}-bit samples survive ${name}${psb ? " in a PSB" : ""}`, () => {
          const shape = { width: 37, height: 5, depth, psb };
          const raw = samples(37 * 5 * (depth / 8), depth + compression);
          const encoded = encodeChannel(raw, shape, compression);
          expect([...decodeChannel(compression, encoded, shape, "channel image data")]).toEqual([...raw]);
        });
      }
    }
  }

  it("RLE row counts are 2 bytes in a PSD and 4 in a PSB", () => {
    const raw = new Uint8Array(3 * 10).fill(7);
    expect(packRows(raw, 3, 10, false).length).toBe(3 * 2 + 3 * 2);
    expect(packRows(raw, 3, 10, true).length).toBe(3 * 4 + 3 * 2);
  });

  it("ZIP data that inflates past the declared size is refused, naming the section", () => {
    const shape = { width: 4, height: 4, depth: 8, psb: false };
    const tooMuch = encodeChannel(new Uint8Array(64), { ...shape, height: 16 }, COMPRESSION.zip);
    expect(() => decodeChannel(COMPRESSION.zip, tooMuch, shape, "channel image data")).toThrow(
      expect.objectContaining({ code: "BAD_REQUEST", details: expect.objectContaining({ section: "channel image data" }) }),
    );
  });

  it("short raw data and an unknown compression are refused with the reason", () => {
    const shape = { width: 4, height: 4, depth: 16, psb: false };
    expect(() => decodeChannel(COMPRESSION.raw, new Uint8Array(8), shape, "channel image data")).toThrow(/8 bytes where 32 are needed/);
    expect(() => decodeChannel(7, new Uint8Array(8), shape, "channel image data")).toThrow(/compression 7 is unknown/);
  });

  it("a merged image keeps every channel's row counts first, then the rows, and reads back channel by channel", () => {
    const shape = { width: 9, height: 4, depth: 16, psb: false };
    const planes = [samples(72, 1), samples(72, 2), samples(72, 3)];
    for (const compression of [COMPRESSION.raw, COMPRESSION.rle]) {
      const merged = encodeMerged(planes, shape, compression);
      const channel = mergedChannels(merged, shape, 3);
      expect(planes.map((_, c) => [...channel(c)])).toEqual(planes.map((p) => [...p]));
    }
  });
});
