import { z } from "zod";
import { EditedLayerSchema } from "./resources.js";

/*
 * The settings of an adjustment (`layer:adjust`, and adjustment layers) and of a filter (`filter:apply`), each
 * field defined once with its unit and range. Every field is optional: the methods (`src/methods/_internal/
 * adjustments.ts`) fill in Photoshop's defaults and send editors the resolved values (`ResolvedAdjustment`,
 * `ResolvedFilter`), so an editor never guesses one. Levels are 0–255 whatever the document's depth; percentages
 * are 0–100 unless stated; angles in degrees; lengths in document pixels.
 */

/** A colour string: `#rgb`, `#rrggbb`, `#rrggbbaa`, or a name (white, black, transparent, red, green, blue, gray). */
const color = z.string().min(1).max(64);
const level = z.number().min(0).max(255);
const signedPercent = z.number().min(-100).max(100);

/** Most points a curve may have (Photoshop's Curves dialog allows 16 per channel). */
export const MAX_CURVE_POINTS = 16;
/** Most stops of a gradient map. */
export const MAX_GRADIENT_STOPS = 32;
/** Largest blur radius (σ), in pixels. */
export const MAX_FILTER_RADIUS = 250;
/** Largest motion blur distance, in pixels (Photoshop's dialog allows 2000). */
export const MAX_MOTION_DISTANCE = 2000;
/** Largest median and box blur radius, in whole pixels. */
export const MAX_RANK_RADIUS = 100;
/** Largest pixelate cell, in pixels. */
export const MAX_CELL_SIZE = 200;

/** One channel of Levels: input black and white points, midtone gamma, output black and white points. */
const LevelsChannel = z
  .object({
    /** Input black point, level 0–253 (default 0). */
    inputBlack: z.number().int().min(0).max(253).optional(),
    /** Input white point, level 2–255 (default 255). */
    inputWhite: z.number().int().min(2).max(255).optional(),
    /** Midtone gamma 0.1–9.99 (default 1: above 1 brightens the midtones, as Photoshop's middle box). */
    gamma: z.number().min(0.1).max(9.99).optional(),
    /** Output black, level 0–255 (default 0). */
    outputBlack: z.number().int().min(0).max(255).optional(),
    /** Output white, level 0–255 (default 255). */
    outputWhite: z.number().int().min(0).max(255).optional(),
  })
  .strict()
  .refine((c) => (c.inputBlack ?? 0) + 2 <= (c.inputWhite ?? 255), { message: "inputBlack must be at least 2 levels below inputWhite", path: ["inputBlack"] });

/** A curve: points `{input, output}` (levels 0–255), 2–16 of them, inputs distinct. */
const Curve = z
  .array(z.object({ input: level, output: level }).strict())
  .min(2)
  .max(MAX_CURVE_POINTS)
  .refine((points) => new Set(points.map((p) => p.input)).size === points.length, { message: "two points of a curve share an input" });

/** A hue range's change: hue −180–180°, saturation and lightness −100–100. */
const degree = z.number().min(0).max(360);
const HueChange = z
  .object({
    hue: z.number().min(-180).max(180).optional(),
    saturation: signedPercent.optional(),
    lightness: signedPercent.optional(),
    /**
     * The hues the range covers, degrees 0–360 `[a, b, c, d]`: fading in from a to b, full from b to c, fading out
     * from c to d (wrapping round 360). Default Photoshop's for the range's name (reds `[315, 345, 15, 45]`, each next
     * one 60° on).
     */
    bounds: z.tuple([degree, degree, degree, degree]).optional(),
  })
  .strict();

/** A tonal range's shift toward red (cyan below 0), green (magenta) and blue (yellow), each −100–100. */
const BalanceShift = z.object({ cyanRed: signedPercent.optional(), magentaGreen: signedPercent.optional(), yellowBlue: signedPercent.optional() }).strict();

/** One output channel of the Channel Mixer: percent of each input channel, −200–200, and a constant −200–200 (percent of white). */
const MixerRow = z
  .object({
    red: z.number().min(-200).max(200).optional(),
    green: z.number().min(-200).max(200).optional(),
    blue: z.number().min(-200).max(200).optional(),
    constant: z.number().min(-200).max(200).optional(),
  })
  .strict();

/** Ink added (or removed, below 0) to one colour class by Selective Color: percent −100–100 each. */
const Inks = z.object({ cyan: signedPercent.optional(), magenta: signedPercent.optional(), yellow: signedPercent.optional(), black: signedPercent.optional() }).strict();

/** Black & White's weight of one hue sector, percent −200–300. */
const bwWeight = z.number().min(-200).max(300).optional();

/** The hue ranges of Hue/Saturation and the colour classes of Selective Color, by name. */
export const HUE_RANGES = ["reds", "yellows", "greens", "cyans", "blues", "magentas"] as const;
export const SELECTIVE_CLASSES = [...HUE_RANGES, "whites", "neutrals", "blacks"] as const;

/** Every adjustment, by `type`. */
export const AdjustmentSchema = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("brightnessContrast"),
      /** −150–150 (−100–100 with `legacy`); default 0. */
      brightness: z.number().min(-150).max(150).optional(),
      /** −50–100 (−100–100 with `legacy`); default 0. */
      contrast: z.number().min(-100).max(100).optional(),
      /** Photoshop's "Use Legacy": a straight line instead of the curve that keeps black and white. Default false. */
      legacy: z.boolean().optional(),
    })
    .strict()
    .refine((a) => a.legacy === true || (a.contrast ?? 0) >= -50, { message: "contrast goes down to -50 unless legacy", path: ["contrast"] })
    .refine((a) => a.legacy !== true || Math.abs(a.brightness ?? 0) <= 100, { message: "brightness is -100 to 100 with legacy", path: ["brightness"] }),
  z.object({ type: z.literal("levels"), rgb: LevelsChannel.optional(), red: LevelsChannel.optional(), green: LevelsChannel.optional(), blue: LevelsChannel.optional() }).strict(),
  z.object({ type: z.literal("curves"), rgb: Curve.optional(), red: Curve.optional(), green: Curve.optional(), blue: Curve.optional() }).strict(),
  z
    .object({
      type: z.literal("exposure"),
      /** Stops, −20–20 (default 0): linear light times 2^exposure. */
      exposure: z.number().min(-20).max(20).optional(),
      /** Added to linear light, −0.5–0.5 (default 0). */
      offset: z.number().min(-0.5).max(0.5).optional(),
      /** Gamma correction 0.01–9.99 (default 1). */
      gamma: z.number().min(0.01).max(9.99).optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal("hueSaturation"),
      /** Master hue shift, degrees −180–180 (default 0). */
      hue: z.number().min(-180).max(180).optional(),
      saturation: signedPercent.optional(),
      lightness: signedPercent.optional(),
      /** Per hue range (Photoshop's default ranges, 30° fades), on top of the master. */
      ranges: z.object(Object.fromEntries(HUE_RANGES.map((r) => [r, HueChange.optional()])) as Record<(typeof HUE_RANGES)[number], z.ZodOptional<typeof HueChange>>).strict().optional(),
      /** Colorize: every colour becomes this hue (0–360°) and saturation (0–100), lightness −100–100. */
      colorize: z.object({ hue: z.number().min(0).max(360), saturation: z.number().min(0).max(100), lightness: signedPercent.optional() }).strict().optional(),
    })
    .strict()
    .refine((a) => a.colorize === undefined || (a.ranges === undefined && a.hue === undefined && a.saturation === undefined), {
      message: "colorize replaces hue, saturation and ranges: pass one or the other",
      path: ["colorize"],
    }),
  z.object({ type: z.literal("vibrance"), vibrance: signedPercent.optional(), saturation: signedPercent.optional() }).strict(),
  z
    .object({
      type: z.literal("colorBalance"),
      shadows: BalanceShift.optional(),
      midtones: BalanceShift.optional(),
      highlights: BalanceShift.optional(),
      /** Default true. */
      preserveLuminosity: z.boolean().optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal("blackAndWhite"),
      reds: bwWeight,
      yellows: bwWeight,
      greens: bwWeight,
      cyans: bwWeight,
      blues: bwWeight,
      magentas: bwWeight,
      /** A colour the grey is tinted with (none by default). */
      tint: color.optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal("photoFilter"),
      /** Default `#ec8a00` (Photoshop's Warming Filter (85)). */
      color: color.optional(),
      /** Percent 1–100 (default 25). */
      density: z.number().min(1).max(100).optional(),
      /** Default true. */
      preserveLuminosity: z.boolean().optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal("channelMixer"),
      red: MixerRow.optional(),
      green: MixerRow.optional(),
      blue: MixerRow.optional(),
      /** Monochrome: every channel gets this row (and `red`/`green`/`blue` are not passed). */
      monochrome: MixerRow.optional(),
    })
    .strict()
    .refine((a) => a.monochrome === undefined || (a.red === undefined && a.green === undefined && a.blue === undefined), {
      message: "monochrome replaces red, green and blue: pass one or the other",
      path: ["monochrome"],
    }),
  z.object({ type: z.literal("invert") }).strict(),
  /** Levels per channel, 2–255 (default 4). */
  z.object({ type: z.literal("posterize"), levels: z.number().int().min(2).max(255).optional() }).strict(),
  /** White where the grey level reaches `level` (1–255, default 128), black elsewhere. */
  z.object({ type: z.literal("threshold"), level: z.number().int().min(1).max(255).optional() }).strict(),
  z
    .object({
      type: z.literal("gradientMap"),
      /** Colour stops, `location` 0–100 % of the gradient; default black to white. */
      stops: z.array(z.object({ location: z.number().min(0).max(100), color }).strict()).min(2).max(MAX_GRADIENT_STOPS).optional(),
      reverse: z.boolean().optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal("selectiveColor"),
      /** Default `relative`. */
      mode: z.enum(["relative", "absolute"]).optional(),
      ...(Object.fromEntries(SELECTIVE_CLASSES.map((c) => [c, Inks.optional()])) as Record<(typeof SELECTIVE_CLASSES)[number], z.ZodOptional<typeof Inks>>),
    })
    .strict(),
]);
export type AdjustmentInput = z.infer<typeof AdjustmentSchema>;
export type AdjustmentType = AdjustmentInput["type"];
export const ADJUSTMENT_TYPES = AdjustmentSchema.options.map((o) => o.shape.type.value) as AdjustmentType[];

/** Every filter, by `type`. */
export const FilterSchema = z.discriminatedUnion("type", [
  /** `radius`: the Gaussian's standard deviation σ in pixels, 0.1–250 (Photoshop's Radius; default 1). */
  z.object({ type: z.literal("gaussianBlur"), radius: z.number().min(0.1).max(MAX_FILTER_RADIUS).optional() }).strict(),
  /** A straight smear `distance` pixels long (1–2000, default 10) at `angle` degrees (−360–360, counter-clockwise from the x axis; default 0). */
  z.object({ type: z.literal("motionBlur"), angle: z.number().min(-360).max(360).optional(), distance: z.number().int().min(1).max(MAX_MOTION_DISTANCE).optional() }).strict(),
  /** The mean of the (2·radius + 1)² pixels around each pixel; `radius` whole pixels 1–100 (default 1). */
  z.object({ type: z.literal("boxBlur"), radius: z.number().int().min(1).max(MAX_RANK_RADIUS).optional() }).strict(),
  /**
   * `pixel + amount/100 · (pixel − gaussian(radius))` where the difference is at least `threshold` levels: `amount`
   * percent 1–500 (default 50), `radius` σ pixels 0.1–250 (default 1), `threshold` levels 0–255 (default 0).
   */
  z
    .object({
      type: z.literal("unsharpMask"),
      amount: z.number().min(1).max(500).optional(),
      radius: z.number().min(0.1).max(MAX_FILTER_RADIUS).optional(),
      threshold: z.number().int().min(0).max(255).optional(),
    })
    .strict(),
  /** A fixed 3×3 sharpening: the centre ×5 less its four neighbours (no settings, as Photoshop's Sharpen). */
  z.object({ type: z.literal("sharpen") }).strict(),
  /**
   * Noise added to every channel (or one value to all three, `monochromatic`): `gaussian` with a standard deviation
   * of `amount` percent of 255, or `uniform` within ±`amount` percent of 255. `amount` 0.1–400 (default 10),
   * `distribution` default `uniform`.
   */
  z
    .object({
      type: z.literal("addNoise"),
      amount: z.number().min(0.1).max(400).optional(),
      distribution: z.enum(["uniform", "gaussian"]).optional(),
      monochromatic: z.boolean().optional(),
    })
    .strict(),
  /** Each channel the median of the (2·radius + 1)² pixels around; `radius` whole pixels 1–100 (default 1). */
  z.object({ type: z.literal("median"), radius: z.number().int().min(1).max(MAX_RANK_RADIUS).optional() }).strict(),
  /** Square cells `size` pixels wide (2–200, default 10) from the layer's top-left, each the mean of its pixels. */
  z.object({ type: z.literal("pixelate"), size: z.number().int().min(2).max(MAX_CELL_SIZE).optional() }).strict(),
  /**
   * A grey relief lit from `azimuth` degrees (0–360, default 135, counter-clockwise from the x axis) at `elevation`
   * degrees (0–90, default 45) above the surface, the relief's `depth` 1–100 (default 3).
   */
  z
    .object({
      type: z.literal("emboss"),
      azimuth: z.number().min(0).max(360).optional(),
      elevation: z.number().min(0).max(90).optional(),
      depth: z.number().int().min(1).max(100).optional(),
    })
    .strict(),
  /** `pixel − gaussian(radius) + 128` per channel: `radius` σ pixels 0.1–250 (default 10). */
  z.object({ type: z.literal("highPass"), radius: z.number().min(0.1).max(MAX_FILTER_RADIUS).optional() }).strict(),
]);
export type FilterInput = z.infer<typeof FilterSchema>;
export type FilterType = FilterInput["type"];
export const FILTER_TYPES = FilterSchema.options.map((o) => o.shape.type.value) as FilterType[];

/** A colour as red, green, blue, alpha, each 0–255. */
type Rgba = readonly [number, number, number, number];
type Levels = { readonly inputBlack: number; readonly inputWhite: number; readonly gamma: number; readonly outputBlack: number; readonly outputWhite: number };
type Point = { readonly input: number; readonly output: number };
type Hsl = { readonly hue: number; readonly saturation: number; readonly lightness: number };
type Shift = { readonly cyanRed: number; readonly magentaGreen: number; readonly yellowBlue: number };
type Row = { readonly red: number; readonly green: number; readonly blue: number; readonly constant: number };
type Ink = { readonly cyan: number; readonly magenta: number; readonly yellow: number; readonly black: number };

/**
 * An adjustment as editors receive it: every field resolved (defaults filled in, colours parsed). A channel left
 * out of levels or curves is `null` (unchanged), as is a hue range without change.
 */
export type ResolvedAdjustment =
  | { readonly type: "brightnessContrast"; readonly brightness: number; readonly contrast: number; readonly legacy: boolean }
  | { readonly type: "levels"; readonly rgb: Levels | null; readonly red: Levels | null; readonly green: Levels | null; readonly blue: Levels | null }
  | { readonly type: "curves"; readonly rgb: readonly Point[] | null; readonly red: readonly Point[] | null; readonly green: readonly Point[] | null; readonly blue: readonly Point[] | null }
  | { readonly type: "exposure"; readonly exposure: number; readonly offset: number; readonly gamma: number }
  | {
      readonly type: "hueSaturation";
      readonly hue: number;
      readonly saturation: number;
      readonly lightness: number;
      /** `bounds` null: Photoshop's default hues for the range. */
      readonly ranges: { readonly [K in (typeof HUE_RANGES)[number]]: (Hsl & { readonly bounds: readonly [number, number, number, number] | null }) | null };
      readonly colorize: Hsl | null;
    }
  | { readonly type: "vibrance"; readonly vibrance: number; readonly saturation: number }
  | { readonly type: "colorBalance"; readonly shadows: Shift; readonly midtones: Shift; readonly highlights: Shift; readonly preserveLuminosity: boolean }
  | {
      readonly type: "blackAndWhite";
      readonly reds: number;
      readonly yellows: number;
      readonly greens: number;
      readonly cyans: number;
      readonly blues: number;
      readonly magentas: number;
      readonly tint: Rgba | null;
    }
  | { readonly type: "photoFilter"; readonly color: Rgba; readonly density: number; readonly preserveLuminosity: boolean }
  | { readonly type: "channelMixer"; readonly red: Row; readonly green: Row; readonly blue: Row; readonly monochrome: boolean }
  | { readonly type: "invert" }
  | { readonly type: "posterize"; readonly levels: number }
  | { readonly type: "threshold"; readonly level: number }
  | { readonly type: "gradientMap"; readonly stops: readonly { readonly location: number; readonly color: Rgba }[]; readonly reverse: boolean }
  | ({ readonly type: "selectiveColor"; readonly mode: "relative" | "absolute" } & { readonly [K in (typeof SELECTIVE_CLASSES)[number]]: Ink });

/** A filter as editors receive it: every field resolved. */
export type ResolvedFilter =
  | { readonly type: "gaussianBlur"; readonly radius: number }
  | { readonly type: "motionBlur"; readonly angle: number; readonly distance: number }
  | { readonly type: "boxBlur"; readonly radius: number }
  | { readonly type: "unsharpMask"; readonly amount: number; readonly radius: number; readonly threshold: number }
  | { readonly type: "sharpen" }
  | { readonly type: "addNoise"; readonly amount: number; readonly distribution: "uniform" | "gaussian"; readonly monochromatic: boolean }
  | { readonly type: "median"; readonly radius: number }
  | { readonly type: "pixelate"; readonly size: number }
  | { readonly type: "emboss"; readonly azimuth: number; readonly elevation: number; readonly depth: number }
  | { readonly type: "highPass"; readonly radius: number };

/** A layer reference of an edit of one layer, with the revision the caller last saw. */
export const layerRef = {
  documentId: z.number().int().optional(),
  /** The revision the caller last saw; the edit is refused with `CONFLICT` when the document has another. */
  ifRevision: z.number().int().nonnegative().optional(),
  layerId: z.number().int().optional(),
  layerIndex: z.number().int().nonnegative().optional(),
};
/** At most one of `layerId` and `layerIndex`. */
export const oneRef = (p: { layerId?: number | undefined; layerIndex?: number | undefined }): boolean => p.layerId === undefined || p.layerIndex === undefined;

/** The destructive operations' schemas (`layer:adjust`, `filter:apply`), merged into the method table. */
export const FILTER_METHOD_SCHEMAS = {
  "layer:adjust": {
    params: z.object({ ...layerRef, adjustment: AdjustmentSchema }).strict().refine(oneRef, { message: "pass at most one of layerId and layerIndex", path: ["layerId"] }),
    result: EditedLayerSchema,
  },
  "filter:apply": {
    params: z.object({ ...layerRef, filter: FilterSchema }).strict().refine(oneRef, { message: "pass at most one of layerId and layerIndex", path: ["layerId"] }),
    result: EditedLayerSchema,
  },
} as const;
