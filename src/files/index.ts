export { createFilePolicy, UNCONFINED, type FilePolicy } from "./policy.js";
export { checkRegularFile, resolveClientPath, type Filesystem, type ResolveOptions, type ResolvedPath } from "./resolve.js";
export { readRegularFile, readRegularFileInfo, READ_CHUNK_BYTES, type ReadOptions } from "./read.js";
export { BACKUP_SUFFIX, copyBackup, copyFileAtomic, replaceWithFile, temporarySibling, writeFileAtomic, type WriteOptions, type WriteOutcome } from "./write.js";
export { addFeature, lostFeatures, refuseReplacingSource, refuseSilentLoss, type FileFeatures } from "./losses.js";
export {
  exportDocumentFile,
  resolveOpenPath,
  saveDocumentFile,
  type ExportFileResult,
  type ExportingEditor,
  type FileAccess,
  type SaveResult,
  type SavingEditor,
} from "./document-files.js";
export { DEFAULT_MAX_OPEN_FILE_BYTES } from "./limits.js";
export { checkEncodable, formatForExtension, MAX_WEBP_EDGE, UNKNOWN_FILE_FORMAT } from "./formats.js";
export { readNamedScript, type NamedScript, type NamedScriptKind } from "./named-script.js";
