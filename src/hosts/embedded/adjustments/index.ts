export { type AdjustmentOptions, applyAdjustment, applyAdjustmentInPlace, compileAdjustment, RENDERED_ADJUSTMENTS, unrenderedAdjustmentReason } from "./apply.js";
export type { ChannelTables, ColorFunction, ColorProgram } from "./program.js";
