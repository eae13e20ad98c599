export { cutoutSubject, EMBEDDED_CUTOUT_METHODS, judge, type CutoutOptions, type CutoutResult } from "./segment.js";
export { MODEL_SESSION_BYTES, modelSessionBytes } from "./model.js";
export { floodSegment, DEFAULT_FLOOD_OPTIONS, type FloodOptions, type FloodResult } from "./flood.js";
export { CUTOUT_EVENT, DEFAULT_CUTOUT_OPTIONS, type CutoutReport, type EmbeddedCutoutOptions } from "./report.js";
