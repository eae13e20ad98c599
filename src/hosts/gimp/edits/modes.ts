/**
 * The layer records' blend mode names as GIMP 2.10 layer modes (`GimpLayerMode`, the non-legacy ones), the reverse
 * of what `../tree.ts` reads. Every name the edits take has one; `pass through` is for groups only and cannot paint.
 */
export const GIMP_LAYER_MODES: Readonly<Record<string, number>> = {
  "pass through": 61, // LAYER-MODE-PASS-THROUGH
  normal: 28, // LAYER-MODE-NORMAL
  dissolve: 1, // LAYER-MODE-DISSOLVE
  darken: 35, // LAYER-MODE-DARKEN-ONLY
  multiply: 30, // LAYER-MODE-MULTIPLY
  "color burn": 43, // LAYER-MODE-BURN
  "linear burn": 53, // LAYER-MODE-LINEAR-BURN
  "darker color": 54, // LAYER-MODE-LUMA-DARKEN-ONLY
  lighten: 36, // LAYER-MODE-LIGHTEN-ONLY
  screen: 31, // LAYER-MODE-SCREEN
  "color dodge": 42, // LAYER-MODE-DODGE
  "linear dodge": 33, // LAYER-MODE-ADDITION
  "lighter color": 55, // LAYER-MODE-LUMA-LIGHTEN-ONLY
  overlay: 23, // LAYER-MODE-OVERLAY
  "soft light": 45, // LAYER-MODE-SOFTLIGHT
  "hard light": 44, // LAYER-MODE-HARDLIGHT
  "vivid light": 48, // LAYER-MODE-VIVID-LIGHT
  "linear light": 50, // LAYER-MODE-LINEAR-LIGHT
  "pin light": 49, // LAYER-MODE-PIN-LIGHT
  "hard mix": 51, // LAYER-MODE-HARD-MIX
  difference: 32, // LAYER-MODE-DIFFERENCE
  exclusion: 52, // LAYER-MODE-EXCLUSION
  subtract: 34, // LAYER-MODE-SUBTRACT
  divide: 41, // LAYER-MODE-DIVIDE
  hue: 37, // LAYER-MODE-HSV-HUE
  saturation: 38, // LAYER-MODE-HSV-SATURATION
  color: 39, // LAYER-MODE-HSL-COLOR
  luminosity: 40, // LAYER-MODE-HSV-VALUE
};

/** Modes a layer can have but a fill cannot paint with. */
export const NOT_PAINT_MODES: ReadonlySet<string> = new Set(["pass through"]);
