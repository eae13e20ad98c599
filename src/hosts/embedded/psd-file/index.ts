/**
 * The PSD byte layer: opening files of any depth and colour mode as a copy ag-psd reads, saving back in the
 * original mode, keeping the image resources ag-psd drops, and a file's structure for loss checks.
 */
export { toReadablePsd } from "./readable.js";
export type { OriginalContent, OriginalLayer, ReadablePsd } from "./readable.js";
export { toOriginalMode } from "./original.js";
export type { KeepSets } from "./original.js";
export { carryOverResources, DROPPED_RESOURCES } from "./resources.js";
export { psdStructure } from "./structure.js";
export type { LayerStructure, PsdStructure } from "./structure.js";
export { COLOR_MODE, colorModeLabel, conversionLabel } from "./modes.js";
export type { PsdSourceMode } from "./modes.js";
export { keepSets, rememberRead } from "./keep.js";
export type { PsdFileSource } from "./keep.js";
export { CONTENT_KEYS, carryOverBlocks, VERBATIM_KEYS } from "./carry-over.js";
export type { SkipBlock } from "./carry-over.js";
export { psdFileReadBackProblem, psdReadBackProblem } from "./verify.js";
