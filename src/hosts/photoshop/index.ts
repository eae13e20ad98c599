export { createPhotoshopHost } from "./host.js";
export type { PhotoshopHostOptions } from "./host.js";
export { createPhotoshopAdapter, EVENT_PREVIEW_MAX_SIZE, MAX_IMPORT_PIXELS } from "./adapter.js";
export type { PhotoshopAdapterOptions } from "./adapter.js";
export { PHOTOSHOP_LIMITS, resolvePhotoshopLimits } from "./limits.js";
export type { PhotoshopLimits } from "./limits.js";
export { RemoteLink } from "./remote-link.js";
export type { PhotoshopLink, PixmapReply, PixmapRequest } from "./link.js";
