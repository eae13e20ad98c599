import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { writePsdBuffer } from "ag-psd";
import { describe, expect, it } from "vitest";
import { carryOverResources, DROPPED_RESOURCES } from "../../../../src/hosts/embedded/psd-file/resources.js";
import { readPsdFile, writePsdFile } from "../../../../src/hosts/embedded/psd-file/sections.js";
import { psdStructure } from "../../../../src/hosts/embedded/psd-file/structure.js";
import { toReadablePsd } from "../../../../src/hosts/embedded/psd-file/readable.js";
import { PSD_TOOLS, psdToolsBytes } from "./reference.js";

function fixtures(dir = PSD_TOOLS): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return fixtures(path);
    return /\.ps[db]$/.test(name) ? [relative(PSD_TOOLS, path)] : [];
  });
}

/** A file as ag-psd writes it (no ICC profile, no thumbnail). */
function agPsdFile(): Buffer {
  const data = new Uint8ClampedArray(4 * 4 * 4).fill(255);
  return writePsdBuffer({ width: 4, height: 4, imageData: { width: 4, height: 4, data }, children: [{ name: "A", id: 40, imageData: { width: 4, height: 4, data } }] });
}

describe("psd-file: sections", () => {
  it.each(fixtures())("%s reads and writes back byte for byte", (path) => {
    const bytes = psdToolsBytes(path);
    expect(Buffer.from(writePsdFile(readPsdFile(bytes))).equals(bytes)).toBe(true);
  });

  it("16/32-bit layers are read from their Lr16/Lr32 block", () => {
    expect(readPsdFile(psdToolsBytes("16bit5x5.psd"))).toMatchObject({ layersIn: "Lr16", layers: { layers: { length: 3 } } });
    expect(readPsdFile(psdToolsBytes("32bit5x5.psd"))).toMatchObject({ layersIn: "Lr32", layers: { layers: { length: 3 } } });
  });

  it("a damaged file is refused naming the reason, the section and the byte offset", () => {
    const bytes = Buffer.from(psdToolsBytes("colormodes/4x4_8bit_rgb.psd"));
    const file = readPsdFile(bytes);
    const first = file.layers.layers[0]!.tail;
    // The first record's blend-mode signature, spoiled.
    bytes[first.byteOffset] = 0x58;
    expect(() => readPsdFile(bytes)).toThrow(
      expect.objectContaining({ code: "BAD_REQUEST", details: { reason: expect.stringContaining("blend mode signature"), section: "layer records", offset: first.byteOffset } }),
    );
    expect(() => readPsdFile(bytes.subarray(0, 2000))).toThrow(expect.objectContaining({ details: expect.objectContaining({ section: "image resources" }) }));
  });

  it("a damaged file opened by path names the path too", () => {
    const bytes = Buffer.from(psdToolsBytes("16bit5x5.psd"));
    expect(() => toReadablePsd(bytes.subarray(0, bytes.length - 900), { path: "/x/16bit5x5.psd" })).toThrow(
      expect.objectContaining({ code: "BAD_REQUEST", details: expect.objectContaining({ path: "/x/16bit5x5.psd", section: expect.any(String), offset: expect.any(Number) }) }),
    );
  });
});

describe("psd-file: structure and resources", () => {
  it("a file's structure lists its format, resources, extra channels and layer records from the bytes", () => {
    const structure = psdStructure(psdToolsBytes("colormodes/4x4_8bit_rgba.psd"));
    expect(structure).toMatchObject({ version: 1, depth: 8, colorMode: 3, colorModeName: "RGB", extraChannels: 1 });
    expect(structure.resources).toContain(1039);
    expect(structure.layers.every((layer) => layer.id !== undefined && layer.keys.includes("lyid"))).toBe(true);
    expect(psdStructure(psdToolsBytes("cmyk-spot.psd"))).toMatchObject({ colorModeName: "CMYK", extraChannels: 3, layers: [] });
    // Photoshop names the merged transparency too; its Mt32 block says what it is.
    expect(psdStructure(psdToolsBytes("transparentbg.psd"))).toMatchObject({ depth: 32, extraChannels: 0 });
    expect(psdStructure(psdToolsBytes("16bit5x5.psd")).globalKeys).toContain("Lr16");
  });

  it("every resource ag-psd left out comes back byte for byte, except those that describe what a save changes", () => {
    const original = psdToolsBytes("colormodes/4x4_8bit_rgb.psd");
    const written = agPsdFile();
    expect(psdStructure(written).resources).not.toContain(1039);
    const carried = readPsdFile(carryOverResources(written, original));
    const source = readPsdFile(original);
    for (const block of source.resources) {
      const found = carried.resources.find((candidate) => candidate.id === block.id);
      if (DROPPED_RESOURCES.has(block.id) && !readPsdFile(written).resources.some((own) => own.id === block.id)) expect(found).toBeUndefined();
      else expect(found).toBeDefined();
    }
    const icc = carried.resources.find((block) => block.id === 1039)!;
    expect(Buffer.from(icc.data).equals(Buffer.from(source.resources.find((block) => block.id === 1039)!.data))).toBe(true);
  });

  it("the layer id seed is carried above the largest layer id written", () => {
    const carried = readPsdFile(carryOverResources(agPsdFile(), psdToolsBytes("colormodes/4x4_8bit_rgb.psd")));
    const seed = carried.resources.find((block) => block.id === 1044)!;
    expect(new DataView(seed.data.buffer, seed.data.byteOffset).getUint32(0)).toBeGreaterThan(40);
  });
});
