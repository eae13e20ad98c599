/**
 * `layer:adjust` and `filter:apply` on GIMP 2.10: each one PDB procedure (or a named combination) on the layer,
 * inside `br-pixels`, one undo group; the PDB honours the selection itself. What GIMP has no procedure for answers
 * `NOT_SUPPORTED`: the types in {@link GIMP_UNSUPPORTED_ADJUSTMENTS} / {@link GIMP_UNSUPPORTED_FILTERS} before
 * anything is read, a setting GIMP cannot take here (naming the field). The mappings are in docs/editing.md.
 */
import type { ResolvedAdjustment, ResolvedFilter } from "../../../protocol/adjustments.js";
import { BridgeError } from "../../../protocol/index.js";
import { compileAdjustment } from "../../embedded/adjustments/apply.js";
import { adjustmentRecord } from "../../embedded/adjustments/typed.js";
import type { FilterEdit } from "../../edits.js";
import { int } from "../scheme.js";

/** Adjustments GIMP 2.10 has no procedure or exact combination for. */
export const GIMP_UNSUPPORTED_ADJUSTMENTS = ["vibrance", "blackAndWhite", "selectiveColor"] as const;
/** Filters GIMP 2.10 has no procedure or exact combination for. */
export const GIMP_UNSUPPORTED_FILTERS = ["boxBlur", "highPass"] as const;

/** `plug-in-gauss`'s radius per pixel of σ: GIMP 2.10 hands `gegl:gaussian-blur` a standard deviation of 0.32 × its radius. */
export const GIMP_GAUSS_RADIUS_PER_SIGMA = 1 / 0.32;
/** How far past the layer's edge a Gaussian reads, in σ: beyond 4 σ it weighs under 0.04 % of its peak. */
const GAUSS_REACH_PER_SIGMA = 4;
/** `plug-in-rgb-noise`'s value per unit of standard deviation (of full scale): measured, σ = value / 2. */
const RGB_NOISE_PER_SIGMA = 2;
/**
 * `plug-in-emboss` at depth 6 d makes the embedded editor's relief at depth d (whose height is R + G + B of the
 * stored values). Measured on the test picture, fitting the embedded editor's formula to GIMP's result over heights
 * and depths: within 0.16 / 1 levels at GIMP depth 3, 0.21 / 1 at 9, 0.27 / 1 at 60, every other fit further off.
 */
const GIMP_EMBOSS_DEPTH_PER_DEPTH = 6;
/** `plug-in-emboss`'s largest depth: the embedded editor's depths up to 100 / 6 fit under it. */
const GIMP_EMBOSS_MAX_DEPTH = 100;
/** `plug-in-despeckle`'s largest radius. */
const DESPECKLE_MAX_RADIUS = 20;

/** GIMP's hue ranges (`GimpHueRange`). */
const HUE_RANGE = { reds: 1, yellows: 2, greens: 3, cyans: 4, blues: 5, magentas: 6 } as const;
/** How far each hue range reaches into its neighbours in `gimp-drawable-hue-saturation` (percent): Photoshop's 30° fades of a 60° range. */
const HUE_OVERLAP = 50;

/** A number as Script-Fu reads it (fixed notation: no exponent). */
function fx(value: number): string {
  if (!Number.isFinite(value)) throw new BridgeError("BAD_REQUEST", "Expected a finite number", { details: { value } });
  return value.toFixed(6);
}

function refuse(capability: string, field: string, why: string): never {
  throw new BridgeError("NOT_SUPPORTED", `GIMP cannot ${why}`, { details: { editor: "gimp", capability, field } });
}

/** sRGB's encoding of a linear value 0–1. */
const srgbEncode = (v: number): number => (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);
/** sRGB's decoding to a linear value 0–1. */
const srgbDecode = (v: number): number => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
const curveOf = (f: (v: number) => number): string => Array.from({ length: 256 }, (_, i) => fx(f(i / 255))).join(" ");

/**
 * Many of GIMP 2.10's procedures (the channel mixer, unsharp mask, motion blur, pixelize, emboss) work in linear
 * light (a monochrome 0.3/0.59/0.11 mix of an 8-bit picture matched sRGB's linear values to 0.5 level, and missed the
 * mix of the stored values by up to 54 levels); Photoshop works on the stored (gamma-encoded) values. So `body` runs
 * on the image made 32-bit float (gamma) for the moment, its stored values first encoded once more
 * (`gimp-drawable-curves-explicit` of sRGB's encoding): the procedure's own decoding gives them back, it works on
 * them, and what it hands back is encoded once more. The image then gets its precision back (8-bit values survive
 * float exactly). In float nothing is rounded or clipped between the steps.
 */
function encodedOnceMore(l: string, body: string): string {
  const img = `(car (gimp-item-get-image ${l}))`;
  return (
    `(let ((precision (car (gimp-image-get-precision ${img})))) ` +
    `(if (not (= precision PRECISION-FLOAT-GAMMA)) (gimp-image-convert-precision ${img} PRECISION-FLOAT-GAMMA)) ` +
    `(gimp-drawable-curves-explicit ${l} HISTOGRAM-VALUE 256 (vector ${curveOf(srgbEncode)})) ${body} ` +
    `(if (not (= precision PRECISION-FLOAT-GAMMA)) (gimp-image-convert-precision ${img} precision)))`
  );
}

/** `body`, a procedure working in linear light, made to work on the stored values (see {@link encodedOnceMore}), its result decoded back to them. */
function onStoredValues(l: string, body: string): string {
  return encodedOnceMore(l, `${body} (gimp-drawable-curves-explicit ${l} HISTOGRAM-VALUE 256 (vector ${curveOf(srgbDecode)}))`);
}

/** Per-channel tables as `gimp-drawable-curves-explicit` calls (channels 1–3: red, green, blue): exact, the same tables the embedded editor applies. */
function explicitCurves(l: string, adjustment: ResolvedAdjustment): string {
  const program = compileAdjustment(adjustmentRecord(adjustment), false);
  if (program.kind !== "tables") throw new Error(`${adjustment.type} is not a per-channel adjustment`);
  return program.tables.map((table, c) => `(gimp-drawable-curves-explicit ${l} ${c + 1} 256 (vector ${Array.from(table, (v) => fx(v / 255)).join(" ")}))`).join(" ");
}

function adjustBody(l: string, a: ResolvedAdjustment): string {
  switch (a.type) {
    case "brightnessContrast":
    case "levels":
    case "curves":
    case "exposure":
    case "posterize":
      return explicitCurves(l, a);
    case "photoFilter":
      if (a.preserveLuminosity) refuse("layer:adjust", "adjustment.preserveLuminosity", "keep the luminosity through a photo filter");
      return explicitCurves(l, a);
    case "invert":
      return `(gimp-drawable-invert ${l} FALSE)`;
    case "threshold":
      // Photoshop's grey (0.3 R + 0.59 G + 0.11 B of the stored values), then white from the level up: the grey is
      // left encoded once more by encodedOnceMore, and gimp-drawable-threshold compares stored values, so the level
      // is encoded too. A grey that rounds to the level is white (the embedded editor rounds the grey).
      return encodedOnceMore(
        l,
        `(plug-in-colors-channel-mixer RUN-NONINTERACTIVE (car (gimp-item-get-image ${l})) ${l} TRUE 0.3 0.59 0.11 0 0 0 0 0 0) ` +
          `(gimp-drawable-threshold ${l} HISTOGRAM-VALUE ${fx(srgbEncode((a.level - 0.5) / 255))} 1.0)`,
      );
    case "hueSaturation": {
      if (a.colorize !== null) return `(gimp-drawable-colorize-hsl ${l} ${fx(a.colorize.hue)} ${fx(a.colorize.saturation)} ${fx(a.colorize.lightness)})`;
      const calls = [`(gimp-drawable-hue-saturation ${l} 0 ${fx(a.hue)} ${fx(a.lightness)} ${fx(a.saturation)} 0)`];
      for (const [name, range] of Object.entries(a.ranges)) {
        if (range === null) continue;
        if (range.bounds !== null) refuse("layer:adjust", `adjustment.ranges.${name}.bounds`, "move a hue range's hues (its ranges are fixed)");
        calls.push(`(gimp-drawable-hue-saturation ${l} ${HUE_RANGE[name as keyof typeof HUE_RANGE]} ${fx(range.hue)} ${fx(range.lightness)} ${fx(range.saturation)} ${HUE_OVERLAP})`);
      }
      return calls.join(" ");
    }
    case "colorBalance": {
      const keep = a.preserveLuminosity ? "TRUE" : "FALSE";
      return ([a.shadows, a.midtones, a.highlights] as const)
        .map((s, range) => `(gimp-drawable-color-balance ${l} ${range} ${keep} ${fx(s.cyanRed)} ${fx(s.magentaGreen)} ${fx(s.yellowBlue)})`)
        .join(" ");
    }
    case "channelMixer": {
      for (const [name, row] of [["red", a.red], ["green", a.green], ["blue", a.blue]] as const) {
        if (row.constant !== 0) refuse("layer:adjust", `adjustment.${a.monochrome ? "monochrome" : name}.constant`, "add a constant in its channel mixer");
      }
      const rows = [a.red, a.green, a.blue].flatMap((row) => [row.red, row.green, row.blue]).map((v) => fx(v / 100));
      // Mixed as Photoshop mixes: the stored values.
      return onStoredValues(l, `(plug-in-colors-channel-mixer RUN-NONINTERACTIVE (car (gimp-item-get-image ${l})) ${l} ${a.monochrome ? "TRUE" : "FALSE"} ${rows.join(" ")})`);
    }
    case "gradientMap": {
      const stops = (a.reverse ? [...a.stops].reverse().map((s) => ({ ...s, location: 100 - s.location })) : a.stops).map(
        (s) => `(list ${fx(s.location / 100)} (list ${int(s.color[0])} ${int(s.color[1])} ${int(s.color[2])}))`,
      );
      return `(br-gradient-map ${l} (list ${stops.join(" ")}))`;
    }
    case "vibrance":
    case "blackAndWhite":
    case "selectiveColor":
      return refuse("layer:adjust", "adjustment.type", `make a ${a.type} adjustment`);
  }
}

/**
 * `body` (of the drawable `d`) run on a copy of layer `l` grown by `m` pixels that repeat its edge, as the embedded
 * editor's filters read past an edge (GEGL's filters read transparency there), the result pasted back onto `l`
 * within the selection (`br-padded`).
 */
function padded(l: string, m: number, body: (d: string) => string): string {
  return `(br-padded ${l} ${int(m)} (lambda (d) ${body("d")} d))`;
}

function filterBody(l: string, f: ResolvedFilter): string {
  const img = `(car (gimp-item-get-image ${l}))`;
  switch (f.type) {
    case "gaussianBlur": {
      const radius = fx(f.radius * GIMP_GAUSS_RADIUS_PER_SIGMA);
      return `(plug-in-gauss RUN-NONINTERACTIVE ${img} ${l} ${radius} ${radius} 1)`;
    }
    case "motionBlur":
      // gegl:motion-blur-linear: the mean of ceil(distance) + 1 bilinear samples along the segment centred on the
      // pixel, as the embedded editor's; its angle turns clockwise on screen (y down), Photoshop's counter-clockwise.
      return padded(l, Math.ceil(f.distance / 2) + 1, (d) =>
        onStoredValues(d, `(plug-in-mblur RUN-NONINTERACTIVE (car (gimp-item-get-image ${d})) ${d} 0 ${fx(f.distance)} ${fx((((-f.angle) % 360) + 360) % 360)} 0 0)`),
      );
    case "unsharpMask":
      // gegl:unsharp-mask: v + amount · (v − the Gaussian of σ = radius), in linear light.
      return padded(l, Math.ceil(f.radius * GAUSS_REACH_PER_SIGMA), (d) =>
        onStoredValues(d, `(plug-in-unsharp-mask RUN-NONINTERACTIVE (car (gimp-item-get-image ${d})) ${d} ${fx(f.radius)} ${fx(f.amount / 100)} ${int(f.threshold)})`),
      );
    case "sharpen":
      // The same 3×3 kernel as the embedded editor, in the middle of convmatrix's 5×5, edges extended. The channel
      // mask is grey, red, green, blue, alpha: all but alpha.
      return `(plug-in-convmatrix RUN-NONINTERACTIVE ${img} ${l} 25 (vector 0 0 0 0 0 0 0 -1 0 0 0 -1 5 -1 0 0 0 -1 0 0 0 0 0 0 0) 0 1 0 5 (vector 1 1 1 1 0) 0)`;
    case "addNoise": {
      if (f.distribution !== "gaussian") refuse("filter:apply", "filter.distribution", "add uniform noise (its RGB noise is Gaussian)");
      const value = (f.amount / 100) * RGB_NOISE_PER_SIGMA;
      if (value > 1) refuse("filter:apply", "filter.amount", `add noise above ${100 / RGB_NOISE_PER_SIGMA} % (its RGB noise stops at 1)`);
      return `(plug-in-rgb-noise RUN-NONINTERACTIVE ${img} ${l} ${f.monochromatic ? 0 : 1} 0 ${fx(value)} ${fx(value)} ${fx(value)} 0)`;
    }
    case "median":
      if (f.radius > DESPECKLE_MAX_RADIUS) refuse("filter:apply", "filter.radius", `take a median over more than ${DESPECKLE_MAX_RADIUS} pixels around`);
      // Despeckle alone takes the pixel of median luminance, not each channel's median: br-median runs it per channel.
      return `(br-padded ${l} ${int(f.radius)} (lambda (d) (br-median d ${int(f.radius)})))`;
    case "pixelate":
      // gegl:pixelize: cells from the layer's top-left, each its mean in linear light.
      return onStoredValues(l, `(plug-in-pixelize RUN-NONINTERACTIVE ${img} ${l} ${int(f.size)})`);
    case "emboss": {
      // A depth past GIMP's largest would need the heights raised instead, past the 0–1 its curves can give, so it
      // is refused. Edge pixels see repeated ones past the edge (GEGL reads transparency there, and left the corners
      // transparent).
      const depth = f.depth * GIMP_EMBOSS_DEPTH_PER_DEPTH;
      if (depth > GIMP_EMBOSS_MAX_DEPTH) refuse("filter:apply", "filter.depth", `emboss deeper than ${Math.floor(GIMP_EMBOSS_MAX_DEPTH / GIMP_EMBOSS_DEPTH_PER_DEPTH)}`);
      return padded(l, 1, (d) => `(plug-in-emboss RUN-NONINTERACTIVE (car (gimp-item-get-image ${d})) ${d} ${fx(f.azimuth)} ${fx(f.elevation)} ${int(depth)} TRUE)`);
    }
    case "boxBlur":
    case "highPass":
      return refuse("filter:apply", "filter.type", `make a ${f.type} filter`);
  }
}

/** The `br-pixels` call making one destructive operation of image `img`. */
export function filterForm(img: string, edit: FilterEdit): string {
  const l = int(edit.layerId);
  const body = edit.op === "layer:adjust" ? adjustBody(l, edit.adjustment) : filterBody(l, edit.filter);
  return `(br-pixels ${img} ${l} (lambda () ${body}))`;
}
