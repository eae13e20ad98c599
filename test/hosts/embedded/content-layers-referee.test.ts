/**
 * Photoshop as the referee of adjustment and fill layers made by method: in every corpus file whose composite
 * matches Photoshop's own today, each adjustment and fill layer is made again from the settings the bridge reads
 * back from its record (`HostLayer.adjustment` / `fill`), and the document's export must still match the composite
 * Photoshop stored, within the corpus thresholds (`identical` or `close`, docs/psd-fidelity.md).
 *
 * A layer without a mask or clipping is made again by `layer:create` directly above it, and it is deleted,
 * with its name, visibility, opacity, fill opacity and blend mode; a masked or clipped one (the contract makes
 * neither a mask's pixels nor clipping) gets its settings rewritten in place by `layer:update`, which makes the
 * record from the typed settings the same way and keeps its mask and clipping. The table is printed.
 */
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { compareImages, compositeStatus } from "../../../scripts/psd-fidelity/compare.js";
import { decodeRgba } from "../../../scripts/psd-fidelity/measure.js";
import type { HostLayer } from "../../../src/protocol/index.js";
import { succeeding, wsTransport } from "../../conformance/_transports.js";
import { corpusFile, decodeMerged, loadManifest, readLayerTree, type RecordLayer } from "../../helpers/psd-merged.js";
import { startOnSharedEditor } from "../../helpers/shared-editor.js";

const manifest = await loadManifest();
const flatRecords = (layers: readonly RecordLayer[]): RecordLayer[] => layers.flatMap((l) => [l, ...flatRecords(l.children ?? [])]);
const flat = (layers: readonly HostLayer[]): HostLayer[] => layers.flatMap((l) => [l, ...flat(l.children ?? [])]);

/** Corpus files matching Photoshop's composite today that hold an adjustment or fill layer. */
const FILES = await Promise.all(
  manifest.files
    .filter((entry) => entry.expected?.open === "opens" && (entry.expected.composite === "identical" || entry.expected.composite === "close"))
    .map(async (entry) => ({ entry, kinds: flatRecords(readLayerTree(await readFile(corpusFile(entry)))).map((l) => l.kind) })),
).then((files) => files.filter((f) => f.kinds.includes("adjustment") || f.kinds.includes("fill")).map((f) => f.entry));

/** Typed settings the methods take (a colour lookup, a pattern or noise fill are read back but not made). */
const remakeable = (layer: HostLayer): boolean =>
  (layer.kind === "adjustment" && layer.adjustment !== undefined && layer.adjustment.type !== "colorLookup") ||
  (layer.kind === "fill" && (layer.fill?.type === "solid" || layer.fill?.type === "gradient"));

/**
 * Layers whose file no longer matches once they are remade, as measured (not yet explained): a clipped, masked
 * gradient fill Photoshop's stored pixels render differently from its record, and a gradient fill of a Lab
 * document (its record's colours are Lab; the typed settings say sRGB colours).
 */
const KNOWN: Readonly<Record<string, string>> = {
  "psd-tools/adjustments/adjustment_clipping.psd: Gradient Fill 2": "rewritten in place: drawn from its record, not Photoshop's pixels",
  "psd-tools/colormodes/4x4_8bit_lab.psd: Gradient Fill 1": "a Lab document's gradient made again from sRGB colours",
};

interface Row {
  file: string;
  layer: string;
  kind: string;
  type: string;
  how: "re-created" | "rewritten" | "refused";
  status: string;
  problem?: string;
}

describe("adjustment and fill layers re-made by method against Photoshop's composites", () => {
  it("every remade layer keeps its file within the corpus thresholds", { timeout: 600_000 }, async () => {
    const harness = await startOnSharedEditor({ files: { roots: [dirname(corpusFile(manifest.files[0]!))] } });
    const ok = succeeding(await wsTransport(harness));
    const rows: Row[] = [];
    for (const entry of FILES) {
      const path = corpusFile(entry);
      const reference = decodeMerged(await readFile(path));
      const first = (await ok("document:open", { path })) as { id: number };
      const names = [...new Set(flat((await ok("document:layers", { documentId: first.id })) as HostLayer[]).filter(remakeable).map((l) => l.name))];
      // One layer remade per opening: a file that no longer matches names its layer. The first opening, only read
      // so far, serves the first layer.
      let unused: { id: number } | undefined = first;
      for (const name of names) {
        const doc = unused ?? ((await ok("document:open", { path })) as { id: number });
        unused = undefined;
        const layer = flat((await ok("document:layers", { documentId: doc.id })) as HostLayer[]).find((l) => l.name === name && remakeable(l))!;
        const field = layer.kind === "adjustment" ? "adjustment" : "fill";
        const settings = layer[field]!;
        const row: Row = { file: entry.path, layer: name, kind: layer.kind, type: settings.type, how: "rewritten", status: "" };
        try {
          if (layer.mask === undefined && !layer.clipped) {
            row.how = "re-created";
            // Made directly above it, then it goes: the same place in the stack (a file may hold that layer alone).
            const made = (await ok("layer:create", { documentId: doc.id, kind: layer.kind, [field]: settings, name, above: layer.id })) as HostLayer;
            await ok("layer:delete", { documentId: doc.id, layerId: layer.id });
            const { visible, opacity, blendMode, fillOpacity } = layer;
            await ok("layer:update", { documentId: doc.id, layerId: made.id, visible, opacity, blendMode, ...(fillOpacity !== undefined ? { fillOpacity } : {}) });
          } else {
            await ok("layer:update", { documentId: doc.id, layerId: layer.id, [field]: settings });
          }
          const exported = (await ok("image:exportDocument", { documentId: doc.id, format: "png" })) as { data: string };
          row.status = compositeStatus(compareImages(reference, await decodeRgba(Buffer.from(exported.data.split(",")[1]!, "base64"))));
        } catch (error) {
          row.how = "refused";
          row.problem = (error as Error).message;
        }
        rows.push(row);
        await ok("document:close", { documentId: doc.id });
      }
      if (unused !== undefined) await ok("document:close", { documentId: unused.id });
    }
    const table = summarise(rows);
    console.log(`Adjustment and fill layers re-made by method (kind, files, layers, layers whose file still matches):\n${table}`);
    for (const row of rows.filter((r) => r.status !== "identical" && r.status !== "close")) console.log(`  ${row.file} ${row.layer} (${row.type}, ${row.how}): ${row.status} ${row.problem ?? ""}`);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.how === "refused")).toEqual([]);
    // Held as measured: these two and only these do not match once remade (a fix shows up here too).
    expect(rows.filter((r) => r.status !== "identical" && r.status !== "close").map((r) => `${r.file}: ${r.layer}`)).toEqual(Object.keys(KNOWN));
  });
});

/** One line per kind and type: files, layers, and layers whose file still matches once remade. */
function summarise(rows: readonly Row[]): string {
  const groups = new Map<string, Row[]>();
  for (const row of rows) groups.set(`${row.kind} ${row.type}`, [...(groups.get(`${row.kind} ${row.type}`) ?? []), row]);
  const lines = ["| kind | type | files | layers | layers matching |", "|---|---|---|---|---|"];
  for (const [key, group] of [...groups].sort()) {
    const files = new Set(group.map((r) => r.file));
    const matching = group.filter((r) => r.status === "identical" || r.status === "close").length;
    const [kind, type] = key.split(" ");
    lines.push(`| ${kind} | ${type} | ${files.size} | ${group.length} | ${matching} |`);
  }
  return lines.join("\n");
}
