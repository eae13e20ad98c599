/**
 * What a PSD save would drop, read from the bytes: the opened file's structure (header, image resources, extra
 * channels, each layer record's additional-information keys and masks, the global blocks) compared with the
 * structure of the bytes the save would write. Anything the original had that the save lacks is a loss, named by
 * the kind a client understands (`textLayers`, `iccProfile`…) or, for data without a name of its own, by its key.
 */
import { addFeature } from "../../files/index.js";
import type { DataLoss } from "../../protocol/index.js";
import { DROPPED_RESOURCES, psdStructure } from "./psd-file/index.js";
import type { LayerStructure, PsdStructure } from "./psd-file/index.js";

/** Layer keys by the kind of loss a client sees; other keys are `layerData` with the key as detail. */
const LAYER_KEY_KINDS: ReadonlyMap<string, string> = new Map([
  ...["TySh", "tySh"].map((key) => [key, "textLayers"] as const),
  ...["SoLd", "SoLE", "PlLd", "plLd"].map((key) => [key, "smartObjects"] as const),
  ...["SoCo", "GdFl", "PtFl", "vscg", "vstk", "vogk"].map((key) => [key, "fillLayers"] as const),
  ...["lfx2", "lrFX", "lmfx"].map((key) => [key, "layerEffects"] as const),
  ...["vmsk", "vsms"].map((key) => [key, "vectorMasks"] as const),
  ...["artb", "artd", "abdd"].map((key) => [key, "artboards"] as const),
  ["knko", "knockout"],
  ["iOpa", "fillOpacity"],
  ...["brit", "levl", "curv", "expA", "vibA", "hue ", "hue2", "blnc", "blwh", "phfl", "mixr", "clrL", "nvrt", "post", "thrs", "grdm", "selc", "CgEd"].map(
    (key) => [key, "adjustmentLayers"] as const,
  ),
]);

/** Resources by kind; others are `imageResources` with their ids as detail. */
function resourceKind(id: number): string {
  if (id === 1039 || id === 1041) return "iccProfile";
  if ([1028, 1058, 1059, 1060, 1061].includes(id)) return "metadata";
  if ((id >= 2000 && id <= 2999) || id === 1025) return "paths";
  if (id === 1032) return "guides";
  if (id === 1065) return "layerComps";
  if ([1006, 1045, 1053, 1077].includes(id)) return "alphaChannels";
  return "imageResources";
}

/** Global blocks a writer derives from the layers it writes: present or absent with them, never a loss. */
const DERIVED_GLOBAL_KEYS: ReadonlySet<string> = new Set(["Lr16", "Lr32", "Layr", "Mt16", "Mt32", "Mtrn"]);

/** Layer keys a writer may leave out without dropping anything (defaults; the name is also kept in the record). */
const OPTIONAL_LAYER_KEYS: ReadonlySet<string> = new Set(["luni"]);

/** Adds a loss, collecting the details of a kind that names several things (`documentData: Patt, cinf`). */
function addNamed(out: DataLoss[], kind: string, layerId: number | undefined, detail: string): void {
  const entry = out.find((loss) => loss.kind === kind);
  if (entry !== undefined && entry.detail !== undefined && !entry.detail.split(", ").includes(detail)) entry.detail = `${entry.detail}, ${detail}`;
  addFeature(out, kind, layerId, detail);
}

function layerLosses(out: DataLoss[], before: LayerStructure, after: LayerStructure, id: number): void {
  const kept = new Set(after.keys);
  const seen = new Set<string>();
  for (const key of before.keys) {
    if (kept.has(key) || OPTIONAL_LAYER_KEYS.has(key)) continue;
    const kind = LAYER_KEY_KINDS.get(key) ?? "layerData";
    if (seen.has(kind)) continue;
    seen.add(kind);
    if (kind === "layerData") addNamed(out, kind, id, key);
    else addFeature(out, kind, id);
  }
  if (before.hasUserMask && !after.hasUserMask) addFeature(out, "layerMasks", id);
  if (before.hasRealMask && !after.hasRealMask) addFeature(out, "extraMasks", id);
}

/**
 * The losses of writing `written` for a document opened from `original`; `present` are the layer ids the
 * document still has (a layer the user deleted is no loss).
 */
export function psdStructureLosses(original: PsdStructure, written: PsdStructure, present: ReadonlySet<number>): DataLoss[] {
  const out: DataLoss[] = [];
  if (original.version === 2 && written.version !== 2) addFeature(out, "psbFormat", undefined, "large document format (PSB)");
  if (original.depth !== written.depth) addFeature(out, "bitDepth", undefined, `${original.depth}-bit`);
  if (original.colorMode !== written.colorMode) addFeature(out, "colorMode", undefined, original.colorModeName);
  const resources = new Set(written.resources);
  for (const id of new Set(original.resources)) {
    if (resources.has(id) || DROPPED_RESOURCES.has(id)) continue;
    const kind = resourceKind(id);
    if (kind === "imageResources") addNamed(out, kind, undefined, `resource ${id}`);
    else addFeature(out, kind);
  }
  for (let i = written.extraChannels; i < original.extraChannels; i++) addFeature(out, "alphaChannels");
  const writtenById = new Map<number, LayerStructure>();
  for (const layer of written.layers) if (layer.id !== undefined) writtenById.set(layer.id, layer);
  for (const layer of original.layers) {
    if (layer.id === undefined || !present.has(layer.id)) continue;
    const after = writtenById.get(layer.id);
    if (after === undefined) addFeature(out, "layers", layer.id);
    else layerLosses(out, layer, after, layer.id);
  }
  const globals = new Set(written.globalKeys);
  for (const key of new Set(original.globalKeys)) {
    if (!globals.has(key) && !DERIVED_GLOBAL_KEYS.has(key)) addNamed(out, "documentData", undefined, key);
  }
  return out;
}

/** {@link psdStructureLosses} of two files' bytes. */
export function psdBytesLosses(original: Uint8Array, written: Uint8Array, present: ReadonlySet<number>): DataLoss[] {
  return psdStructureLosses(psdStructure(original), psdStructure(written), present);
}
