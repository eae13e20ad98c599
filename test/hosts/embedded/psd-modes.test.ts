import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeChannel } from "../../../src/hosts/embedded/psd-file/channels.js";
import { mergedChannels } from "../../../src/hosts/embedded/psd-file/merged.js";
import { DROPPED_RESOURCES } from "../../../src/hosts/embedded/psd-file/resources.js";
import { readPsdFile } from "../../../src/hosts/embedded/psd-file/sections.js";
import type { LayerRecord } from "../../../src/hosts/embedded/psd-file/layers.js";
import { psdStructure } from "../../../src/hosts/embedded/psd-file/structure.js";
import type { HostAdapter } from "../../../src/hosts/host.js";
import { connectedHost, ctx, exportDocument, failureOf, layersOf, rawPixels, runJs } from "./helpers.js";
import { largestDifference, psdToolsFile, storedComposite } from "./psd-file/reference.js";

/** Every colour mode and depth of the psd-tools `colormodes` set, with the conversion the editor names. */
const COLORMODES: ReadonlyArray<{ file: string; colorMode: string; conversion: string | undefined }> = [
  { file: "4x4_8bit_rgb.psd", colorMode: "RGB", conversion: undefined },
  { file: "4x4_8bit_rgba.psd", colorMode: "RGB", conversion: undefined },
  { file: "4x4_16bit_rgb.psd", colorMode: "RGB", conversion: "16-bit → 8-bit" },
  { file: "4x4_32bit_rgb.psd", colorMode: "RGB", conversion: "32-bit linear → 8-bit sRGB" },
  { file: "4x4_8bit_grayscale.psd", colorMode: "Grayscale", conversion: undefined },
  { file: "4x4_16bit_grayscale.psd", colorMode: "Grayscale", conversion: "16-bit → 8-bit" },
  { file: "4x4_32bit_grayscale.psd", colorMode: "Grayscale", conversion: "32-bit linear → 8-bit sRGB" },
  { file: "4x4_8bit_cmyk.psd", colorMode: "CMYK", conversion: "CMYK → RGB (profile-less)" },
  { file: "4x4_16bit_cmyk.psd", colorMode: "CMYK", conversion: "16-bit → 8-bit, CMYK → RGB (profile-less)" },
  { file: "4x4_8bit_lab.psd", colorMode: "Lab", conversion: "Lab → RGB" },
  { file: "4x4_16bit_lab.psd", colorMode: "Lab", conversion: "16-bit → 8-bit, Lab → RGB" },
  { file: "4x4_8bit_duotone.psd", colorMode: "Duotone", conversion: "duotone → grayscale" },
  { file: "4x4_8bit_index_color.psd", colorMode: "Indexed", conversion: "indexed → RGB" },
  { file: "4x4_1bit_bitmap.psd", colorMode: "Bitmap", conversion: "bitmap → grayscale" },
];

/**
 * Files whose layers hold the picture as pixels, so the editor's composite can be held to the one Photoshop
 * stored. (The 16/32-bit `colormodes` files draw theirs with a gradient fill layer whose pixels Photoshop does not
 * cache at those depths: their composite waits on fill layers being rendered.)
 */
const PIXEL_FILES = [
  "colormodes/4x4_8bit_rgb.psd",
  "colormodes/4x4_8bit_rgba.psd",
  "colormodes/4x4_8bit_grayscale.psd",
  "colormodes/4x4_8bit_cmyk.psd",
  "colormodes/4x4_8bit_lab.psd",
  "colormodes/4x4_8bit_duotone.psd",
  "colormodes/4x4_8bit_index_color.psd",
  "colormodes/4x4_1bit_bitmap.psd",
  "16bit5x5.psd",
  "16bit5x5.psb",
  "32bit5x5.psd",
  "cmyk-spot.psd",
];

/** What a save must keep, beside the layers: depth, mode, format, extra channels, every resource not meant to go. */
const ROUND_TRIP_FILES = [...COLORMODES.map((entry) => `colormodes/${entry.file}`), "16bit5x5.psd", "16bit5x5.psb", "32bit5x5.psd", "cmyk-spot.psd", "transparentbg.psd"];

const channelsOf = (layer: LayerRecord, keep: (id: number) => boolean): string[] =>
  layer.channels.filter((channel) => keep(channel.id)).map((channel) => `${channel.id}:${channel.compression}:${Buffer.from(channel.data).toString("base64")}`);

describe("embedded host: PSD depths and colour modes", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "psd-modes-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A copy of a fixture in the test folder (saves write beside it). */
  async function copyOf(path: string): Promise<string> {
    const target = join(dir, path.replaceAll("/", "_"));
    await copyFile(psdToolsFile(path), target);
    return target;
  }

  async function opened(path: string): Promise<{ host: HostAdapter; id: number; file: string }> {
    const host = await connectedHost({ sample: false });
    const file = await copyOf(path);
    const doc = await host.openDocument!(ctx(), file);
    return { host, id: doc.id, file };
  }

  it.each(COLORMODES)("$file opens, naming its mode ($colorMode) and the conversion", async ({ file, colorMode, conversion }) => {
    const { host, id } = await opened(`colormodes/${file}`);
    const doc = await host.getDocument(ctx(), id);
    expect(doc.colorMode).toBe(colorMode);
    expect(doc.conversion).toBe(conversion);
  });

  it("a multichannel file is refused, naming the mode, the depth and why", async () => {
    const host = await connectedHost({ sample: false });
    const file = await copyOf("colormodes/4x4_16bit_multichannel.psd");
    const failure = await failureOf(host.openDocument!(ctx(), file));
    expect(failure).toMatchObject({ code: "BAD_REQUEST", details: { path: file, reason: "multichannel", depth: 16, colorMode: "Multichannel" } });
    expect(failure.message).toContain("multichannel");
  });

  it.each(PIXEL_FILES)("%s composites like the image Photoshop stored, by the stated conversions", async (path) => {
    const { host } = await opened(path);
    const exported = await rawPixels((await exportDocument(host)).bytes);
    const reference = storedComposite(await readFile(psdToolsFile(path)));
    expect([exported.width, exported.height]).toEqual([reference.width, reference.height]);
    expect(largestDifference(exported, reference)).toBeLessThanOrEqual(2);
  });

  it.each(ROUND_TRIP_FILES)("%s saved unchanged keeps depth, mode, format, resources, extra channels and every layer's channel bytes", async (path) => {
    const { host, id, file } = await opened(path);
    const target = join(dir, `saved-${basename(file)}`);
    await host.saveDocument!(ctx(), { documentId: id, path: target, backup: false });
    const before = await readFile(psdToolsFile(path));
    const after = await readFile(target);
    const [was, now] = [psdStructure(before), psdStructure(after)];
    expect({ version: now.version, depth: now.depth, colorMode: now.colorMode, extraChannels: now.extraChannels }).toEqual({
      version: was.version,
      depth: was.depth,
      colorMode: was.colorMode,
      extraChannels: was.extraChannels,
    });
    expect(now.layers.map((layer) => layer.id)).toEqual(was.layers.map((layer) => layer.id));
    const kept = was.resources.filter((resource) => !DROPPED_RESOURCES.has(resource));
    expect(now.resources).toEqual(expect.arrayContaining(kept));
    if (was.resources.includes(1039)) expect(now.resources).toContain(1039);
    // Colour and transparency channels byte for byte; masks too where the editor kept the mask.
    const [original, saved] = [readPsdFile(before), readPsdFile(after)];
    for (const layer of original.layers.layers) {
      const match = saved.layers.layers.find((candidate) => candidate.id === layer.id);
      if (layer.id === undefined || match === undefined) continue;
      expect(channelsOf(match, (channel) => channel >= -1)).toEqual(channelsOf(layer, (channel) => channel >= -1));
      const masks = new Set(match.channels.filter((channel) => channel.id < -1).map((channel) => channel.id));
      expect(channelsOf(match, (channel) => masks.has(channel))).toEqual(channelsOf(layer, (channel) => masks.has(channel)));
    }
    // Nothing changed: the merged image Photoshop stored is written back as it was, extra channels included.
    expect(Buffer.from(saved.merged!.data).equals(Buffer.from(original.merged!.data))).toBe(true);
    const again = await connectedHost({ sample: false });
    const reopened = await again.openDocument!(ctx(), target);
    expect(reopened.colorMode).toBe((await host.getDocument(ctx(), id)).colorMode);
    expect((await rawPixels((await exportDocument(again)).bytes)).data.equals((await rawPixels((await exportDocument(host)).bytes)).data)).toBe(true);
  });

  it("a 16-bit file with one layer filled by a script saves 16-bit: that layer converted, the others verbatim", async () => {
    const { host, id, file } = await opened("16bit5x5.psd");
    const filled = (await layersOf(host, id)).find((layer) => layer.name === "Background copy")!;
    await runJs(host, `app.activeDocument.layerById(${filled.id}).fill("#336699")`);
    const target = join(dir, "filled-16bit5x5.psd");
    await host.saveDocument!(ctx(), { documentId: id, path: target, backup: false });
    const original = readPsdFile(await readFile(file));
    const saved = readPsdFile(await readFile(target));
    expect(saved.header).toMatchObject({ depth: 16, colorMode: 3, version: 1 });
    expect(saved.layersIn).toBe("Lr16");
    for (const layer of original.layers.layers) {
      const match = saved.layers.layers.find((candidate) => candidate.id === layer.id)!;
      if (layer.id === filled.id) {
        expect(channelsOf(match, () => true)).not.toEqual(channelsOf(layer, () => true));
        const shape = { width: match.right - match.left, height: match.bottom - match.top, depth: 16, psb: false };
        const first = (channel: number): number => {
          const stored = match.channels.find((candidate) => candidate.id === channel)!;
          const raw = decodeChannel(stored.compression, stored.data, shape, "channel image data");
          return new DataView(raw.buffer, raw.byteOffset).getUint16(0);
        };
        // 0x33, 0x66, 0x99 and opaque, at 16 bits (v · 257).
        expect([first(0), first(1), first(2), first(-1)]).toEqual([0x3333, 0x6666, 0x9999, 0xffff]);
      } else {
        expect(channelsOf(match, () => true)).toEqual(channelsOf(layer, () => true));
      }
    }
    // The composite changed, so it is written fresh at 16 bits: the fill shows where no layer covers it.
    const merged = mergedChannels(saved.merged!, { width: 5, height: 5, depth: 16, psb: false }, saved.header.channels);
    expect([0, 1, 2].map((c) => new DataView(merged(c).buffer, merged(c).byteOffset).getUint16(0))).toEqual([0x3333, 0x6666, 0x9999]);
  });

  it("a flattened CMYK file edited by a script stays flattened CMYK, with its spot channels", async () => {
    const { host, id, file } = await opened("cmyk-spot.psd");
    await runJs(host, `app.activeDocument.layers[0].fill("#ff8000")`);
    const target = join(dir, "filled-cmyk-spot.psd");
    await host.saveDocument!(ctx(), { documentId: id, path: target, backup: false });
    const [was, now] = [psdStructure(await readFile(file)), psdStructure(await readFile(target))];
    expect(now).toMatchObject({ colorMode: 4, depth: 8, layers: [], extraChannels: was.extraChannels });
    const saved = readPsdFile(await readFile(target));
    const merged = mergedChannels(saved.merged!, { width: saved.header.width, height: saved.header.height, depth: 8, psb: false }, saved.header.channels);
    // #ff8000 stored inverted: K from the brightest channel (255: no black), C none, M half, Y full.
    expect([0, 1, 2, 3].map((c) => merged(c)[0])).toEqual([255, 128, 0, 255]);
    // The spot channels are the file's own, untouched.
    const original = readPsdFile(await readFile(file));
    const before = mergedChannels(original.merged!, { width: saved.header.width, height: saved.header.height, depth: 8, psb: false }, original.header.channels);
    for (let c = 4; c < original.header.channels; c++) expect(Buffer.from(merged(c)).equals(Buffer.from(before(c)))).toBe(true);
  });

  it("an indexed document given a second layer saves as 8-bit RGB: indexed colour holds no layers", async () => {
    const { host, id } = await opened("colormodes/4x4_8bit_index_color.psd");
    await runJs(host, `const layer = app.activeDocument.artLayers.add("Dot"); layer.fill("#00ff00")`);
    const target = join(dir, "layered-index.psd");
    await host.saveDocument!(ctx(), { documentId: id, path: target, backup: false });
    expect(psdStructure(await readFile(target))).toMatchObject({ colorMode: 3, depth: 8, layers: { length: 2 } });
  });

  it("a grayscale document exports grayscale PNG, TIFF and JPEG; an RGB one does not", async () => {
    const { host } = await opened("colormodes/4x4_8bit_grayscale.psd");
    for (const format of ["png", "tiff", "jpeg"] as const) {
      const meta = await sharp((await exportDocument(host, { format })).bytes).metadata();
      expect([format, meta.space]).toEqual([format, "b-w"]);
    }
    const rgb = await opened("colormodes/4x4_8bit_rgb.psd");
    expect((await sharp((await exportDocument(rgb.host, { format: "png" })).bytes).metadata()).space).toBe("srgb");
  });
});
