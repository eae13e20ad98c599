/*
 * Bounds of the layer-effect renderer. Every effect works on float planes covering the part of the layer it
 * reaches, so its memory grows with its reach: these caps keep a hostile file (a 30 000 px shadow) from asking
 * for more than Photoshop itself would draw.
 */

/**
 * Largest size, spread/choke reach or stroke width (px) an effect is drawn with; larger values are clamped.
 * Photoshop's own dialogs stop at 250 px, so real files never go beyond.
 */
export const MAX_EFFECT_SIZE_PX = 250;

/**
 * Largest shadow or satin distance (px) drawn; larger ones are clamped. Photoshop allows 30 000 px, but a shadow
 * that far lies outside any canvas the editor opens, and the offset only moves where the planes sit.
 */
export const MAX_EFFECT_DISTANCE_PX = 30_000;

/** Entries of the lookup tables contours are sampled through: finer than 8-bit output needs. */
export const LUT_SIZE = 1024;
