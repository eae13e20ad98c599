export { type AdjustmentOptions, applyAdjustment, compileAdjustment, RENDERED_ADJUSTMENTS, unrenderedAdjustmentReason } from "./apply.js";
export type { ChannelTables, ColorFunction, ColorProgram } from "./program.js";
