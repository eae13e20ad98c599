import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { isXcf, readXcfLayer, writeXcfLayer } from "../../../src/hosts/gimp/xcf.js";

/*
 * The XCF reader against files written here by the layout GIMP uses (the GIMP suites and the conformance matrix
 * read GIMP's own files through every export). The writer below makes the variants GIMP may write: RLE, zlib or no
 * compression, 32- or 64-bit offsets, runs and literals in their short and long forms, edge tiles.
 */

type Compression = "none" | "rle" | "zlib";

interface Layout {
  width: number;
  height: number;
  /** 0 RGB, 1 RGBA, 2 GRAY, 3 GRAYA, 4 INDEXED. */
  type: number;
  pixels: Buffer;
  compression?: Compression;
  /** 11 (64-bit offsets) unless given; below 4 the header has no precision. */
  version?: number;
  precision?: number;
  dpi?: number;
}

const BPP: Record<number, number> = { 0: 3, 1: 4, 2: 1, 3: 2, 4: 1 };

function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value);
  return b;
}

/** One plane as runs: repeats of two or more as a run, the rest as literals, long forms past 127. */
function rlePlane(plane: number[]): Buffer {
  const out: number[] = [];
  let i = 0;
  while (i < plane.length) {
    let run = 1;
    while (i + run < plane.length && plane[i + run] === plane[i]) run++;
    if (run >= 2) {
      if (run <= 127) out.push(run - 1, plane[i]!);
      else out.push(127, run >> 8, run & 0xff, plane[i]!);
      i += run;
      continue;
    }
    let literal = 1;
    while (i + literal < plane.length && (i + literal + 1 >= plane.length || plane[i + literal] !== plane[i + literal + 1])) literal++;
    if (literal <= 127) out.push(256 - literal);
    else out.push(128, literal >> 8, literal & 0xff);
    out.push(...plane.slice(i, i + literal));
    i += literal;
  }
  return Buffer.from(out);
}

function tileBytes(layout: Layout, left: number, top: number, tw: number, th: number): Buffer {
  const bpp = BPP[layout.type]!;
  const interleaved = Buffer.alloc(tw * th * bpp);
  for (let y = 0; y < th; y++) layout.pixels.copy(interleaved, y * tw * bpp, ((top + y) * layout.width + left) * bpp, ((top + y) * layout.width + left + tw) * bpp);
  const compression = layout.compression ?? "rle";
  if (compression === "none") return interleaved;
  if (compression === "zlib") return deflateSync(interleaved);
  const planes: Buffer[] = [];
  for (let p = 0; p < bpp; p++) planes.push(rlePlane(Array.from({ length: tw * th }, (_, k) => interleaved[k * bpp + p]!)));
  return Buffer.concat(planes);
}

/** An XCF file of one layer, as GIMP lays one out. */
function writeXcf(layout: Layout): Buffer {
  const version = layout.version ?? 11;
  const wide = version >= 11;
  const pointer = (value: number): Buffer => {
    if (!wide) return u32(value);
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(BigInt(value));
    return b;
  };
  const pointerBytes = wide ? 8 : 4;
  const { width, height, type } = layout;
  const bpp = BPP[type]!;
  const compression = { none: 0, rle: 1, zlib: 2 }[layout.compression ?? "rle"];
  const resolution = Buffer.alloc(8);
  resolution.writeFloatBE(layout.dpi ?? 72, 0);
  resolution.writeFloatBE(layout.dpi ?? 72, 4);
  const head = Buffer.concat([
    Buffer.from(`gimp xcf ${version === 0 ? "file" : `v${String(version).padStart(3, "0")}`}\0`, "latin1"),
    u32(width),
    u32(height),
    u32(type >= 2 ? 1 : 0),
    version >= 4 ? u32(layout.precision ?? 150) : Buffer.alloc(0),
    // an unknown property first: it is skipped by its length
    u32(21),
    u32(3),
    Buffer.from([1, 2, 3]),
    u32(17),
    u32(1),
    Buffer.from([compression]),
    u32(19),
    u32(8),
    resolution,
    u32(0),
    u32(0),
  ]);
  const layerAt = head.length + 3 * pointerBytes; // the layer list (one and its end), the channel list's end
  const name = Buffer.from("Merged\0", "latin1");
  const layerBytes = 12 + 4 + name.length + 8 + 2 * pointerBytes;
  const hierarchyAt = layerAt + layerBytes;
  const levelAt = hierarchyAt + 12 + 2 * pointerBytes;
  const columns = Math.ceil(width / 64);
  const rows = Math.ceil(height / 64);
  const tiles: Buffer[] = [];
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      tiles.push(tileBytes(layout, column * 64, row * 64, Math.min(64, width - column * 64), Math.min(64, height - row * 64)));
    }
  }
  let tileAt = levelAt + 8 + (tiles.length + 1) * pointerBytes;
  const tilePointers = tiles.map((tile) => {
    const at = tileAt;
    tileAt += tile.length;
    return pointer(at);
  });
  return Buffer.concat([
    head,
    pointer(layerAt),
    pointer(0),
    pointer(0),
    u32(width),
    u32(height),
    u32(type),
    u32(name.length),
    name,
    u32(0),
    u32(0),
    pointer(hierarchyAt),
    pointer(0),
    u32(width),
    u32(height),
    u32(bpp),
    pointer(levelAt),
    pointer(0),
    u32(width),
    u32(height),
    ...tilePointers,
    pointer(0),
    ...tiles,
  ]);
}

/** Pixels with flat areas (long runs) and noise (literals), so both forms of both ops occur. */
function pixels(width: number, height: number, bpp: number): Buffer {
  const out = Buffer.alloc(width * height * bpp);
  let seed = 7;
  for (let i = 0; i < width * height; i++) {
    const x = i % width;
    for (let c = 0; c < bpp; c++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      out[i * bpp + c] = x < width / 2 ? (c * 60 + 10) & 0xff : seed >> 16;
    }
  }
  return out;
}

describe("the XCF reader", () => {
  it.each([
    ["RGBA, RLE", { type: 1, compression: "rle" as const }],
    ["RGB, RLE", { type: 0, compression: "rle" as const }],
    ["gray, RLE", { type: 2, compression: "rle" as const }],
    ["gray with alpha, zlib", { type: 3, compression: "zlib" as const }],
    ["RGBA, zlib", { type: 1, compression: "zlib" as const }],
    ["RGBA, uncompressed", { type: 1, compression: "none" as const }],
    ["RGBA, 32-bit offsets (version 3, no precision field)", { type: 1, compression: "rle" as const, version: 3 }],
  ])("reads %s pixel for pixel, edge tiles included", async (_, variant) => {
    // 300 wide: flat halves 150 long (long runs); 130 high: a bottom row of 2-pixel-high tiles.
    const width = 300;
    const height = 130;
    const source = pixels(width, height, BPP[variant.type]!);
    const read = await readXcfLayer(writeXcf({ width, height, pixels: source, dpi: 240, ...variant }));
    expect({ width: read.width, height: read.height, channels: read.channels, dpi: read.dpi }).toEqual({
      width,
      height,
      channels: BPP[variant.type],
      dpi: 240,
    });
    expect(read.data.equals(source)).toBe(true);
  });

  it("reads a one-pixel layer and a layer of one flat colour (runs longer than a tile row)", async () => {
    expect((await readXcfLayer(writeXcf({ width: 1, height: 1, type: 1, pixels: Buffer.from([1, 2, 3, 4]) }))).data).toEqual(Buffer.from([1, 2, 3, 4]));
    const flat = Buffer.alloc(200 * 90 * 4, 9);
    expect((await readXcfLayer(writeXcf({ width: 200, height: 90, type: 1, pixels: flat }))).data.equals(flat)).toBe(true);
  });

  it("clears the colour of fully transparent pixels when asked, and only theirs", async () => {
    const source = Buffer.from([10, 20, 30, 0, 40, 50, 60, 1, 70, 80, 90, 255]);
    const file = writeXcf({ width: 3, height: 1, type: 1, pixels: source });
    expect((await readXcfLayer(file)).data).toEqual(source);
    expect((await readXcfLayer(file, { clearHiddenColour: true })).data).toEqual(Buffer.from([0, 0, 0, 0, 40, 50, 60, 1, 70, 80, 90, 255]));
  });

  it("reads and writes in slices, letting other work run between them (slices of 0 ms: a turn after every tile)", async () => {
    const width = 640;
    const height = 256;
    const data = pixels(width, height, 4);
    // Counts turns of the event loop: another task that runs once per turn.
    let turns = 0;
    let ticker = setImmediate(function tick() {
      turns++;
      ticker = setImmediate(tick);
    });
    try {
      const file = await writeXcfLayer({ width, height, data }, { sliceMs: 0 });
      const written = turns;
      expect((await readXcfLayer(file, { sliceMs: 0 })).data.equals(data)).toBe(true);
      // The other task ran while each was under way: neither held the thread for the whole file.
      expect(written).toBeGreaterThan(0);
      expect(turns).toBeGreaterThan(written);
    } finally {
      clearImmediate(ticker);
    }
  });

  it("tells XCF from other files", () => {
    expect(isXcf(writeXcf({ width: 1, height: 1, type: 0, pixels: Buffer.alloc(3) }))).toBe(true);
    expect(isXcf(Buffer.from("\x89PNG\r\n\x1a\n", "latin1"))).toBe(false);
    expect(isXcf(Buffer.from("gimp"))).toBe(false);
  });

  it("refuses what it does not read with INTERNAL naming why: other files, indexed layers, more than 8 bits", async () => {
    const refusal = (bytes: Buffer): Promise<unknown> =>
      readXcfLayer(bytes).then(
        () => {
          throw new Error("read without complaint");
        },
        (error: unknown) => error,
      );
    expect(await refusal(Buffer.from("\x89PNG\r\n\x1a\n\0\0\0\0\0\0", "latin1"))).toMatchObject({ code: "INTERNAL", message: expect.stringMatching(/not an XCF file/) });
    expect(await refusal(writeXcf({ width: 2, height: 2, type: 4, pixels: Buffer.alloc(4) }))).toMatchObject({ code: "INTERNAL", message: expect.stringMatching(/indexed/) });
    expect(await refusal(writeXcf({ width: 2, height: 2, type: 1, pixels: Buffer.alloc(16), precision: 250 }))).toMatchObject({
      code: "INTERNAL",
      message: expect.stringMatching(/precision 250 .* not 8-bit/),
    });
  });

  it("refuses a layer of another size than the one asked for, before allocating its pixels", async () => {
    const file = writeXcf({ width: 3, height: 2, type: 1, pixels: pixels(3, 2, 4) });
    expect((await readXcfLayer(file, { size: { width: 3, height: 2 } })).width).toBe(3);
    await expect(readXcfLayer(file, { size: { width: 2, height: 3 } })).rejects.toMatchObject({
      code: "INTERNAL",
      message: expect.stringMatching(/the layer is 3×2, not the 2×3 asked for/),
    });
  });

  it("refuses a file cut anywhere with INTERNAL, never reading past its end", async () => {
    const whole = writeXcf({ width: 70, height: 66, type: 1, pixels: pixels(70, 66, 4) });
    for (let length = 0; length < whole.length; length += 7) {
      await expect(readXcfLayer(whole.subarray(0, length)), `cut at ${length} of ${whole.length}`).rejects.toMatchObject({ code: "INTERNAL" });
    }
  });

  it("refuses an RLE run that overflows its tile", async () => {
    const good = writeXcf({ width: 2, height: 1, type: 0, pixels: Buffer.from([5, 5, 5, 5, 5, 5]) });
    // The first plane's run says 2 pixels (byte 1, then the value); make it 100.
    const tileAt = good.length - 6;
    expect(good.subarray(tileAt)).toEqual(Buffer.from([1, 5, 1, 5, 1, 5]));
    const bad = Buffer.from(good);
    bad[tileAt] = 99;
    await expect(readXcfLayer(bad)).rejects.toMatchObject({ code: "INTERNAL", message: expect.stringMatching(/overflows its tile/) });
  });

  it("writes one RGBA layer as GIMP reads it (the version 0 layout, uncompressed) and reads it back the same", async () => {
    for (const [width, height] of [[1, 1], [64, 64], [130, 70], [300, 129]] as const) {
      const data = pixels(width, height, 4);
      const file = await writeXcfLayer({ width, height, data }, { name: "Imported Layer" });
      expect(file.toString("latin1", 0, 14)).toBe("gimp xcf file\0");
      const read = await readXcfLayer(file);
      expect([read.width, read.height, read.channels], `${width}×${height}`).toEqual([width, height, 4]);
      expect(read.data.equals(data), `${width}×${height}`).toBe(true);
    }
    await expect(writeXcfLayer({ width: 2, height: 2, data: Buffer.alloc(15) })).rejects.toMatchObject({ code: "INTERNAL" });
  });
});
