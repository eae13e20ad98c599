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

/** Base64 length of the default largest import (64 MiB of bytes, DESIGN §2); see {@link ImportLimits.maxBytes}. */
export const MAX_IMPORT_BASE64_LENGTH = Math.ceil((64 * 1024 * 1024 * 4) / 3);

/** Largest image an export may produce after `scale`; a large `scale` must not allocate unbounded buffers. */
export const MAX_EXPORT_PIXELS = 100_000_000;

/** WebP cannot encode an edge longer than this (format limit). */
export const MAX_WEBP_EDGE = 16_383;

/** Longest edge of the `layer:previewChange` event image (spec §6: ≤ 300 px by default). */
export const EVENT_PREVIEW_MAX_SIZE = 300;

/** Limits of `layer:importImage`; every field can be overridden through `EmbeddedHostOptions.importLimits`. */
export interface ImportLimits {
  /** Largest encoded image, in bytes, from any source (DESIGN §2: 64 MiB); bounds memory before decoding. */
  readonly maxBytes: number;
  /** Largest decoded image (width × height); a small file can declare a huge image (decompression bomb). */
  readonly maxPixels: number;
  /** Deadline of a URL download, headers to last byte; a slow server must not hold the editor. */
  readonly urlTimeoutMs: number;
  /** Redirects followed per URL import; each hop is checked again against private targets. */
  readonly maxRedirects: number;
}

/** Default {@link ImportLimits}. */
export const DEFAULT_IMPORT_LIMITS: ImportLimits = Object.freeze({
  maxBytes: 64 * 1024 * 1024,
  maxPixels: MAX_IMPORT_PIXELS,
  urlTimeoutMs: 20_000,
  maxRedirects: 5,
});

/** Most vertices of a polygon selection; the scanline fill is O(vertices × rows). */
export const MAX_SELECTION_POLYGON_POINTS = 10_000;

/** Longest edge at which the cutout segments (reference: 400–600 px); the mask is then upscaled and feathered. */
export const CUTOUT_WORK_EDGE = 512;

/** Cutouts below this confidence (0–1) change nothing and answer `false` / `{success: false}`. */
export const CUTOUT_MIN_CONFIDENCE = 0.35;
