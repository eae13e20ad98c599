/**
 * Size limits of the embedded editor. Every layer is one RGBA buffer in this process (4 bytes per pixel), so the
 * limits bound memory, not just payloads.
 */

/**
 * Largest document (width × height) that can be opened, or created by a script, and largest layer (a PSD's
 * layer records, an import, a layer a script fills); 100 MP is 400 MB per full-canvas layer.
 * @default 100_000_000
 */
export const DEFAULT_MAX_DOCUMENT_PIXELS = 100_000_000;

/**
 * Deepest nesting of layer groups a PSD may have to be opened (a top-level group is depth 1). The layer tree is
 * walked recursively (compositing, bounds, the wire tree), so a file nested thousands deep would overflow the
 * stack; Photoshop itself nests at most 10 deep.
 * @default 100
 */
export const DEFAULT_MAX_PSD_GROUP_DEPTH = 100;

/**
 * Most pixels (width × height) the encoder takes in or puts out in one export: sharp/libvips' own default
 * `limitInputPixels` (0x3FFF × 0x3FFF), applied here before anything is composited so such an export is refused
 * by name instead of failing inside libvips. Not configurable: it is the encoder's limit.
 * @default 268_402_689
 */
export const ENCODER_MAX_PIXELS = 0x3fff * 0x3fff;

/** Most vertices of a polygon selection; the scanline fill is O(vertices × rows). */
export const MAX_SELECTION_POLYGON_POINTS = 10_000;

/** Longest edge at which the cutout segments (reference: 400–600 px); the mask is then upscaled and feathered. */
export const CUTOUT_WORK_EDGE = 512;

/**
 * Memory a cutout's work copies take at most, whatever the layer's size: they are bounded by the work edge (the
 * model's 1024 px refinement: a dozen float planes of 1024², and onnxruntime's tensors). Charged to the editor's
 * memory budget with the full-size masks. @default 64 MiB
 */
export const CUTOUT_WORK_BYTES = 64 * 1024 * 1024;

/** Cutouts below this confidence (0–1) change nothing and answer `false`. */
export const CUTOUT_MIN_CONFIDENCE = 0.35;
