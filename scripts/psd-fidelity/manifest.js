// The corpus manifest (test/fixtures/psd/manifest.json): where each file comes from, its licence and checksum,
// what it exercises, and the outcome recorded for it, which the fidelity suite holds the editor to.
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { readLayerTree } from "./records.js";
import { layerCount, readOutline, readResources } from "./sections.js";

/** The corpus folder: `<source>/<path inside the source's fixture folder>`. */
export const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "test", "fixtures", "psd");
export const MANIFEST_PATH = join(CORPUS_DIR, "manifest.json");
const ICC_PROFILE_RESOURCE = 1039;

export async function loadManifest(path = MANIFEST_PATH) {
  return JSON.parse(await readFile(path, "utf8"));
}

export async function saveManifest(manifest, path = MANIFEST_PATH) {
  await writeFile(path, `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The absolute path of a manifest entry's file. */
export function corpusFile(entry) {
  return join(CORPUS_DIR, ...entry.path.split("/"));
}

/** Every PSD/PSB under the corpus folder, as manifest paths (`psd-tools/layers/levels.psd`). */
export async function corpusPaths() {
  const found = [];
  const walk = async (dir) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (/\.ps[db]$/i.test(entry.name)) found.push(relative(CORPUS_DIR, path).split(sep).join("/"));
    }
  };
  await walk(CORPUS_DIR);
  return found.sort();
}

export function sha256(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * What a file is and exercises, read from its own bytes: header facts, then tags for the format (`psb`, depth,
 * colour mode, `flattened`, `transparent composite`, `icc profile`) and for its layers (kinds, masks, effects,
 * clipping, blend modes beyond normal…).
 */
export function describeFile(bytes) {
  const o = readOutline(bytes);
  const tags = new Set();
  if (o.psb) tags.add("psb");
  if (o.depth !== 8) tags.add(`${o.depth}-bit`);
  if (o.colourMode !== "rgb") tags.add(o.colourMode);
  if (readResources(bytes, o).has(ICC_PROFILE_RESOURCE)) tags.add("icc profile");
  if (layerCount(bytes, o) < 0 || ["Mtrn", "Mt16", "Mt32"].some((key) => o.globalKeys.has(key))) tags.add("transparent composite");
  const tree = readLayerTree(bytes);
  if (tree.length === 0) tags.add("flattened");
  const walk = (layers, inGroup) => {
    for (const layer of layers) {
      if (layer.kind !== "pixel") tags.add(layer.kind === "group" ? (inGroup ? "nested groups" : "group") : KIND_TAGS[layer.kind] ?? `${layer.kind} layer`);
      if (layer.clipped) tags.add("clipping");
      if (!layer.visible) tags.add("hidden layer");
      if (layer.opacity < 255) tags.add("opacity");
      if (layer.blendMode !== "normal" && layer.blendMode !== "pass through") tags.add(`blend: ${layer.blendMode}`);
      for (const feature of layer.features) tags.add(layer.kind === "group" && /mask/i.test(feature) ? `group ${feature === "vectorMask" ? "vector mask" : "mask"}` : featureTag(feature));
      if (layer.children) walk(layer.children, true);
    }
  };
  walk(tree, false);
  return {
    size: bytes.length,
    sha256: sha256(bytes),
    version: o.psb ? "PSB" : "PSD",
    width: o.width,
    height: o.height,
    depth: o.depth,
    colourMode: o.colourMode,
    channels: o.channels,
    exercises: [...tags].sort(),
  };
}

const KIND_TAGS = { smartObject: "smart object layer" };
const FEATURE_TAGS = { mask: "layer mask", vectorMask: "vector mask", fillOpacity: "fill opacity", effects: "layer effects" };

function featureTag(feature) {
  return FEATURE_TAGS[feature] ?? feature.replace(":", ": ");
}
