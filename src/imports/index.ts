export type { ImportLimits } from "./limits.js";
export { importSourcePath, sniffImageFormat, type ImportFormat } from "./sniff.js";
export { guardedLookup, isPrivateAddress } from "./address.js";
export { importedPart, readImportSource, type ImportedBytes, type ImportPolicy } from "./source.js";
export { probeImage, type ProbedImage } from "./probe.js";
