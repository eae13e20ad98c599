export { EMBEDDED_HOST_VERSION, createEmbeddedHost } from "./adapter.js";
export type { EmbeddedHostOptions } from "./adapter.js";
export { DEFAULT_MAX_DOCUMENT_PIXELS, MAX_EXPORT_PIXELS, MAX_IMPORT_BASE64_LENGTH, MAX_IMPORT_PIXELS } from "./limits.js";
