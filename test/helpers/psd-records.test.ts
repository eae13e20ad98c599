import { readFile } from "node:fs/promises";
import { readPsd } from "ag-psd";
import type { Layer } from "ag-psd";
import { describe, expect, it } from "vitest";
import { corpusFile, loadManifest, readLayerTree } from "./psd-merged.js";
import type { RecordLayer } from "./psd-merged.js";

interface Shape {
  name: string;
  visible: boolean;
  opacity: number;
  blendMode: string;
  clipped: boolean;
  children?: Shape[];
}

/** ag-psd's tree, top-most first like the records reader's. */
function fromAgPsd(layers: readonly Layer[]): Shape[] {
  return layers
    .slice()
    .reverse()
    .map((l) => ({
      name: l.name ?? "",
      visible: !l.hidden,
      opacity: Math.round((l.opacity ?? 1) * 255),
      blendMode: l.blendMode ?? "normal",
      clipped: l.clipping === true,
      ...(l.children ? { children: fromAgPsd(l.children) } : {}),
    }));
}

function fromRecords(layers: readonly RecordLayer[]): Shape[] {
  return layers.map((l) => ({
    name: l.name,
    visible: l.visible,
    opacity: l.opacity,
    blendMode: l.blendMode,
    clipped: l.clipped,
    ...(l.children ? { children: fromRecords(l.children) } : {}),
  }));
}

describe("the layer records reader of the fidelity suite", () => {
  it("reads the same tree as ag-psd from every corpus file ag-psd can read", async () => {
    const manifest = await loadManifest();
    let compared = 0;
    for (const entry of manifest.files) {
      const bytes = await readFile(corpusFile(entry));
      let psd: ReturnType<typeof readPsd>;
      try {
        psd = readPsd(bytes, { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true, skipLinkedFilesData: true });
      } catch {
        continue; // CMYK, Lab and the like: ag-psd refuses them, the records reader is the only one here.
      }
      expect(fromRecords(readLayerTree(bytes)), entry.path).toEqual(fromAgPsd(psd.children ?? []));
      compared++;
    }
    expect(compared).toBeGreaterThan(manifest.files.length / 2);
  });

  it("tells text, smart object, adjustment, fill and shape layers apart by their records", async () => {
    const kindOf = async (path: string): Promise<string | undefined> => readLayerTree(await readFile(corpusFile({ path })))[0]?.kind;
    expect(await kindOf("psd-tools/layers/type-layer.psd")).toBe("text");
    expect(await kindOf("psd-tools/layers/smartobject-layer.psd")).toBe("smartObject");
    expect(await kindOf("psd-tools/layers/levels.psd")).toBe("adjustment");
    expect(await kindOf("psd-tools/layers/solid-color-fill.psd")).toBe("fill");
    expect(await kindOf("psd-tools/layers/pattern-fill.psd")).toBe("fill");
    expect(await kindOf("psd-tools/path-operations/combine.psd")).toBe("shape");
  });
});
