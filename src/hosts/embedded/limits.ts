/**
 * Size limits of the embedded editor. Every layer is one RGBA buffer in this process (4 bytes per pixel), so the
 * limits bound memory, not just payloads.
 */

/**
 * Largest document (width × height) that can be created or opened; 100 MP is 400 MB per full-canvas layer.
 * @default 100_000_000
 */
export const DEFAULT_MAX_DOCUMENT_PIXELS = 100_000_000;

/** Largest decoded image accepted by `importImage`; guards against decompression bombs (tiny file, huge image). */
export const MAX_IMPORT_PIXELS = 100_000_000;

/** Largest encoded image accepted by `importImage`: 96 MiB of bytes, i.e. this many base64 characters. */
export const MAX_IMPORT_BASE64_LENGTH = Math.ceil((96 * 1024 * 1024 * 4) / 3);

/** Largest image an export may produce after `scale`; a large `scale` must not allocate unbounded buffers. */
export const MAX_EXPORT_PIXELS = 100_000_000;

/** WebP cannot encode an edge longer than this (format limit). */
export const MAX_WEBP_EDGE = 16_383;

/** Longest edge of the `layer:previewChange` event image (spec §6: ≤ 300 px by default). */
export const EVENT_PREVIEW_MAX_SIZE = 300;
