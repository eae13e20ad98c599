/**
 * The reference decoder of the PSD fidelity suite: the composite Photoshop stored in a PSD/PSB (its merged image
 * data) as 8-bit straight RGBA, and the stated colour conversions it uses (`colour`), which the editor is meant to
 * share. The code is plain JavaScript under `scripts/psd-fidelity/` so that `scripts/psd-fidelity.mjs`, which runs
 * against `dist/` without a TypeScript loader, uses the very same decoder; this module is its typed face for tests.
 *
 * @example
 * const merged = decodeMerged(await readFile(corpusFile({ path: "psd-tools/layers/levels.psd" })));
 * merged.rgba; // width × height × 4 bytes, straight alpha
 */
export { decodeMerged } from "../../scripts/psd-fidelity/merged.js";
export type { MergedImage } from "../../scripts/psd-fidelity/merged.js";
export * as colour from "../../scripts/psd-fidelity/colour.js";
export { readLayerTree } from "../../scripts/psd-fidelity/records.js";
export type { RecordKind, RecordLayer } from "../../scripts/psd-fidelity/records.js";
export { corpusFile, loadManifest } from "../../scripts/psd-fidelity/manifest.js";
export type { Manifest, ManifestEntry } from "../../scripts/psd-fidelity/manifest.js";
