import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writePsdBuffer } from "ag-psd";
import type { Layer } from "ag-psd";
import { describe, expect, it } from "vitest";
import { carryOverBlocks } from "../../../../src/hosts/embedded/psd-file/carry-over.js";
import type { InfoBlock, LayerRecord } from "../../../../src/hosts/embedded/psd-file/layers.js";
import { withBlocks } from "../../../../src/hosts/embedded/psd-file/layers.js";
import { readPsdFile, writePsdFile } from "../../../../src/hosts/embedded/psd-file/sections.js";
import { psdReadBackProblem } from "../../../../src/hosts/embedded/psd-file/verify.js";
import { solid } from "../../../helpers/psd-fixtures.js";

const CORPUS = join(import.meta.dirname, "../../../fixtures/psd/psd-tools");

/** Top to bottom: Top, group G holding Inner, Bottom; ids 1–4, G's closing record written by ag-psd. */
function groupedPsd(): Uint8Array {
  const children: Layer[] = [
    { name: "Bottom", id: 1, imageData: solid(4, 4, [255, 255, 255, 255]) },
    { name: "G", id: 2, opened: true, children: [{ name: "Inner", id: 3, imageData: solid(4, 4, [255, 0, 0, 255]) }] },
    { name: "Top", id: 4, imageData: solid(4, 4, [0, 0, 255, 255]) },
  ];
  return writePsdBuffer({ width: 4, height: 4, imageData: solid(4, 4, [255, 255, 255, 255]), children });
}

const dividerOf = (layer: LayerRecord): number | undefined => {
  const block = layer.blocks.find((b) => b.key === "lsct");
  return block === undefined ? undefined : new DataView(block.data.buffer, block.data.byteOffset, 4).getUint32(0);
};

/** `bytes` with one record's blocks replaced. */
function withRecordBlocks(bytes: Uint8Array, index: number, blocks: (layer: LayerRecord) => InfoBlock[]): Uint8Array {
  const file = readPsdFile(bytes);
  const psb = file.header.version === 2;
  const layers = file.layers.layers.map((layer, i) => (i === index ? withBlocks(layer, blocks(layer), psb) : layer));
  return writePsdFile({ ...file, layers: { ...file.layers, layers } });
}

describe("psd-file: reading a written file back", () => {
  it("a well-formed file with groups reads back, corpus files included", async () => {
    expect(psdReadBackProblem(groupedPsd())).toBeUndefined();
    for (const name of ["hidden-groups.psd", "group.psb", "clipping-mask.psd", "effects/stroke-effects.psd", "empty-layer.psd"]) {
      expect(psdReadBackProblem(await readFile(join(CORPUS, name))), name).toBeUndefined();
    }
  });

  it("a group closed by a plain layer that holds a divider block is named: groups never closed", () => {
    const bytes = groupedPsd();
    const records = readPsdFile(bytes).layers.layers;
    const end = records.findIndex((layer) => dividerOf(layer) === 3);
    const top = records.findIndex((layer) => layer.name === "Top");
    const endBlock = records[end]!.blocks.find((b) => b.key === "lsct")!;
    // The shape of the defect: a plain layer given a closing record's divider.
    const broken = withRecordBlocks(bytes, top, (layer) => [...layer.blocks, endBlock]);
    expect(psdReadBackProblem(broken)).toMatch(/1 group is never closed/);
  });

  it("a group record with no closing record before it is named", () => {
    const bytes = groupedPsd();
    const end = readPsdFile(bytes).layers.layers.findIndex((layer) => dividerOf(layer) === 3);
    const broken = withRecordBlocks(bytes, end, (layer) => layer.blocks.filter((b) => b.key !== "lsct"));
    expect(psdReadBackProblem(broken)).toMatch(/closes a group that was never opened/);
  });

  it("a truncated file, a damaged merged image and a bad header are each named", () => {
    const bytes = groupedPsd();
    expect(psdReadBackProblem(bytes.subarray(0, Math.floor(bytes.length / 2)))).toBeDefined();
    const noMerged = bytes.subarray(0, bytes.length - 1 - readPsdFile(bytes).merged!.data.length);
    expect(psdReadBackProblem(noMerged)).toMatch(/merged image/);
    const shortRows = bytes.subarray(0, bytes.length - 3);
    expect(psdReadBackProblem(shortRows)).toMatch(/rows add up to/);
    const zeroWidth = Uint8Array.from(bytes);
    new DataView(zeroWidth.buffer).setUint32(18, 0);
    expect(psdReadBackProblem(zeroWidth)).toMatch(/header declares 0×4/);
  });
});

describe("psd-file: carrying the original's blocks over", () => {
  it("a plain layer that shares an id with the original's closing record gets none of its blocks", () => {
    const original = groupedPsd();
    const records = readPsdFile(original).layers.layers;
    const end = records.find((layer) => dividerOf(layer) === 3)!;
    // Give the closing record an id of its own, as Photoshop does, and a layer written later that same id.
    const endIndex = records.indexOf(end);
    const lyid = (id: number): InfoBlock => {
      const data = new Uint8Array(4);
      new DataView(data.buffer).setUint32(0, id);
      return { signature: "8BIM", key: "lyid", data };
    };
    const withEndId = withRecordBlocks(original, endIndex, (layer) => [...layer.blocks.filter((b) => b.key !== "lyid"), lyid(9)]);
    const written = writePsdBuffer({
      width: 4,
      height: 4,
      imageData: solid(4, 4, [255, 255, 255, 255]),
      children: [
        { name: "Bottom", id: 1, imageData: solid(4, 4, [255, 255, 255, 255]) },
        { name: "G", id: 2, opened: true, children: [{ name: "Inner", id: 3, imageData: solid(4, 4, [255, 0, 0, 255]) }] },
        { name: "Top", id: 4, imageData: solid(4, 4, [0, 0, 255, 255]) },
        { name: "New", id: 9, imageData: solid(4, 4, [0, 255, 0, 255]) },
      ],
    });
    const saved = carryOverBlocks(written, withEndId, () => false);
    expect(psdReadBackProblem(saved)).toBeUndefined();
    const fresh = readPsdFile(saved).layers.layers.find((layer) => layer.id === 9)!;
    expect(fresh.name).toBe("New");
    expect(dividerOf(fresh)).toBeUndefined();
  });
});
