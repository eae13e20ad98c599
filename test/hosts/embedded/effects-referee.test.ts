/**
 * Photoshop as the referee of layer effects made by method: in every corpus file whose composite matches
 * Photoshop's own today, each layer with effects has them cleared (`layer:setEffects {effects: {}}`) and made again
 * from the settings the bridge reads back (`HostLayer.effects`), and the document's export must still match the
 * composite Photoshop stored, within the corpus thresholds (`identical` or `close`, docs/psd-fidelity.md).
 *
 * A style the typed effects cannot say whole is reported, not remade: several effects of one kind (Photoshop
 * allows up to ten shadows, strokes and overlays; the typed form has one of each), a pattern overlay or pattern
 * stroke, a noise gradient. Which ones those are is read from the file with ag-psd. The table is printed.
 */
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { type Layer, type LayerEffectsInfo, readPsd } from "ag-psd";
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
const flatPsd = (layers: readonly Layer[]): Layer[] => layers.flatMap((l) => [l, ...flatPsd(l.children ?? [])]);

/** Corpus files matching Photoshop's composite today that hold a layer with effects. */
const FILES = await Promise.all(
  manifest.files
    .filter((entry) => entry.expected?.open === "opens" && (entry.expected.composite === "identical" || entry.expected.composite === "close"))
    .map(async (entry) => ({ entry, effects: flatRecords(readLayerTree(await readFile(corpusFile(entry)))).some((l) => l.features?.includes("effects") === true) })),
).then((files) => files.filter((f) => f.effects).map((f) => f.entry));

type On = { enabled?: boolean; present?: boolean };
const on = (e: On | undefined): boolean => e?.enabled === true && e.present !== false;

/** Why a style's effects have no whole typed form, or undefined when they do. */
function untyped(info: LayerEffectsInfo): string | undefined {
  if (on(info.patternOverlay)) return "a pattern overlay";
  const strokes = (info.stroke ?? []).filter(on);
  if (strokes.some((stroke) => stroke.fillType === "pattern")) return "a pattern stroke";
  if (strokes.some((stroke) => stroke.fillType === "gradient" && stroke.gradient?.type === "noise")) return "a noise gradient stroke";
  if ((info.gradientOverlay ?? []).filter(on).some((overlay) => overlay.gradient?.type === "noise")) return "a noise gradient overlay";
  return undefined;
}

/** The effects named in a typed style, in the table's words. */
const EFFECT_ROWS = ["dropShadow", "innerShadow", "outerGlow", "innerGlow", "bevel", "satin", "colorOverlay", "gradientOverlay", "stroke"] as const;

/**
 * Layers whose file no longer matches once their effects are remade, as measured (not yet explained), each with
 * what the remade style holds.
 */
const KNOWN: Readonly<Record<string, string>> = {};

interface Row {
  file: string;
  layer: string;
  effects: string[];
  how: "remade" | "not typed" | "refused";
  status: string;
  problem?: string;
}

describe("layer effects re-made by method against Photoshop's composites", () => {
  it("every remade style keeps its file within the corpus thresholds", { timeout: 600_000 }, async () => {
    const harness = await startOnSharedEditor({ files: { roots: [dirname(corpusFile(manifest.files[0]!))] } });
    const ok = succeeding(await wsTransport(harness));
    const rows: Row[] = [];
    for (const entry of FILES) {
      const path = corpusFile(entry);
      const bytes = await readFile(path);
      const reference = decodeMerged(bytes);
      const psd = readPsd(bytes, { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
      const records = flatPsd(psd.children ?? []);
      const first = (await ok("document:open", { path })) as { id: number };
      // Layers read back with effects, and those whose record has an effect on that reads back as none (by id:
      // the editor keeps a file's layer ids, and names repeat).
      const tree = flat((await ok("document:layers", { documentId: first.id })) as HostLayer[]);
      const active = new Set(records.filter((l) => l.effects !== undefined && l.effects.disabled !== true && Object.values(l.effects).some((e) => [e].flat().some((x) => on(x as On)))).map((l) => l.id));
      const ids = tree.filter((l) => l.effects !== undefined || active.has(l.id)).map((l) => l.id);
      // One layer remade per opening: a file that no longer matches names its layer. The first opening, only read
      // so far, serves the first layer remade; a layer that is not remade is read from it.
      let unused: { id: number } | undefined = first;
      for (const id of ids) {
        const record = records.find((l) => l.id === id);
        const read = tree.find((l) => l.id === id)!;
        const why = record?.effects === undefined ? "no style record" : (untyped(record.effects) ?? (read.effects === undefined ? "nothing typed read back" : undefined));
        const row: Row = { file: entry.path, layer: `${read.name} (#${id})`, effects: Object.keys(read.effects ?? {}), how: "remade", status: "" };
        if (why !== undefined) {
          row.how = "not typed";
          row.problem = why;
          rows.push(row);
          continue;
        }
        const doc = unused ?? ((await ok("document:open", { path })) as { id: number });
        unused = undefined;
        const layer = flat((await ok("document:layers", { documentId: doc.id })) as HostLayer[]).find((l) => l.id === id)!;
        const effects = layer.effects;
        if (effects !== undefined) {
          try {
            const cleared = (await ok("layer:setEffects", { documentId: doc.id, layerId: layer.id, effects: {} })) as HostLayer;
            expect(cleared.effects).toBeUndefined();
            const remade = (await ok("layer:setEffects", { documentId: doc.id, layerId: layer.id, effects })) as HostLayer;
            expect(remade.effects).toEqual(effects);
            const exported = (await ok("image:exportDocument", { documentId: doc.id, format: "png" })) as { data: string };
            row.status = compositeStatus(compareImages(reference, await decodeRgba(Buffer.from(exported.data.split(",")[1]!, "base64"))));
          } catch (error) {
            row.how = "refused";
            row.problem = (error as Error).message;
          }
        }
        rows.push(row);
        await ok("document:close", { documentId: doc.id });
      }
      if (unused !== undefined) await ok("document:close", { documentId: unused.id });
    }
    console.log(`Layer effects re-made by method (effect, files, layers, layers whose file still matches):\n${summarise(rows)}`);
    for (const row of rows.filter((r) => r.how !== "remade" || (r.status !== "identical" && r.status !== "close"))) {
      console.log(`  ${row.file} ${row.layer} (${row.effects.join(", ")}, ${row.how}): ${row.status} ${row.problem ?? ""}`);
    }
    expect(rows.filter((r) => r.how === "remade").length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.how === "refused")).toEqual([]);
    // Held as measured: only these do not match once remade (a fix shows up here too).
    expect(rows.filter((r) => r.how === "remade" && r.status !== "identical" && r.status !== "close").map((r) => `${r.file}: ${r.layer}`)).toEqual(Object.keys(KNOWN));
  });
});

/** One line per effect: files and layers whose remade style holds it, and those whose file still matches. */
function summarise(rows: readonly Row[]): string {
  const lines = ["| effect | files | layers remade | layers matching | layers not typed |", "|---|---|---|---|---|"];
  for (const effect of EFFECT_ROWS) {
    const group = rows.filter((r) => r.effects.includes(effect));
    if (group.length === 0) continue;
    const remade = group.filter((r) => r.how === "remade");
    const matching = remade.filter((r) => r.status === "identical" || r.status === "close").length;
    lines.push(`| ${effect} | ${new Set(group.map((r) => r.file)).size} | ${remade.length} | ${matching} | ${group.length - remade.length} |`);
  }
  const remade = rows.filter((r) => r.how === "remade");
  const matching = remade.filter((r) => r.status === "identical" || r.status === "close").length;
  lines.push(`| (layers) | ${new Set(rows.map((r) => r.file)).size} | ${remade.length} | ${matching} | ${rows.length - remade.length} |`);
  return lines.join("\n");
}
