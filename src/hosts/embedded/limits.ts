/**
 * Size limits of the embedded editor. Every layer is one RGBA buffer in this process (4 bytes per pixel), so the
 * limits bound memory, not just payloads.
 */

/**
 * Largest document (width × height) that can be opened, or created by a script; 100 MP is 400 MB per full-canvas
 * layer.
 * @default 100_000_000
 */
export const DEFAULT_MAX_DOCUMENT_PIXELS = 100_000_000;

/** Most vertices of a polygon selection; the scanline fill is O(vertices × rows). */
export const MAX_SELECTION_POLYGON_POINTS = 10_000;

/** Longest edge at which the cutout segments (reference: 400–600 px); the mask is then upscaled and feathered. */
export const CUTOUT_WORK_EDGE = 512;

/** Cutouts below this confidence (0–1) change nothing and answer `false`. */
export const CUTOUT_MIN_CONFIDENCE = 0.35;
