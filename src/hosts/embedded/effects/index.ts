export { drawLayer, EFFECT_WORK_BYTES_PER_PIXEL, effectsWorkBytes, hasStyle, layerRows, type DrawLayerOptions } from "./draw.js";
export { MAX_EFFECT_DISTANCE_PX, MAX_EFFECT_SIZE_PX } from "./limits.js";
export { DEFAULT_GLOBAL_ANGLE, hasActiveEffects, styleContext, type StyleContext } from "./style.js";
