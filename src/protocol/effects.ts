import { z } from "zod";
import { layerRef, oneRef } from "./adjustments.js";
import { GRADIENT_STYLES, MAX_FILL_STOPS } from "./fills.js";
import { EditedLayerSchema } from "./resources.js";

/*
 * A layer's effects (Photoshop's layer style) as `layer:setEffects` takes them and `HostLayer.effects` reads them
 * back, each field defined once with its unit and range, as Photoshop's Layer Style dialog shows them: opacities,
 * spreads, chokes, ranges, jitter and noise in percent 0–100; sizes, distances, widths and softening in document
 * pixels; angles in degrees counter-clockwise from the x axis (0 = light from the right, 90 = from above); colours
 * as strings (`#rgb`, `#rrggbb`, a name). Every field is optional: the method fills in Photoshop's defaults
 * (`src/methods/_internal/effects.ts`) and sends editors the resolved values (`ResolvedEffects`).
 */

const color = z.string().min(1).max(64);
const percent = z.number().min(0).max(100);
/** A blend mode as layers name them (`normal`, `multiply`, `screen`, `linear dodge`…; not `pass through`). */
const blendMode = z.string().min(1).max(64);
const angle = z.number().min(-360).max(360);

/** Largest size, spread reach, stroke width or bevel size (px), as Photoshop's dialog. */
export const MAX_EFFECT_SIZE = 250;
/** Largest shadow or satin distance (px), as Photoshop's dialog. */
export const MAX_EFFECT_DISTANCE = 30_000;
/** Most points of a contour. */
export const MAX_CONTOUR_POINTS = 32;
/**
 * Most effects of one kind on a layer: Photoshop stacks up to ten drop shadows, inner shadows, colour overlays,
 * gradient overlays and strokes (the other kinds come once).
 */
export const MAX_EFFECTS_OF_A_KIND = 10;

/** An effect of a kind Photoshop stacks: one, or a list of them (the first drawn on top, as the Layer Style dialog lists them). */
const stackable = <T extends z.ZodType>(effect: T) => z.union([effect, z.array(effect).min(1).max(MAX_EFFECTS_OF_A_KIND)]);

/**
 * The curve an effect's falloff goes through, as Photoshop's contour editor: points `{x, y}` input → output, each
 * 0–255, joined in order of `x`. Left out: linear (`[{0,0}, {255,255}]`).
 */
const contour = z
  .array(z.object({ x: z.number().min(0).max(255), y: z.number().min(0).max(255) }).strict())
  .min(2)
  .max(MAX_CONTOUR_POINTS);

const size = z.number().min(0).max(MAX_EFFECT_SIZE);
const distance = z.number().min(0).max(MAX_EFFECT_DISTANCE);

/** What every effect has: its colour or colours, blend mode and opacity. */
const blending = { blendMode: blendMode.optional(), opacity: percent.optional() };

const shadow = {
  ...blending,
  color: color.optional(),
  /** Where the light comes from; left out (with `useGlobalLight` true, the default) the document's global light. */
  angle: angle.optional(),
  /** Whether the angle is the document's global light (default true): setting `angle` with it sets the global light. */
  useGlobalLight: z.boolean().optional(),
  distance: distance.optional(),
  size: size.optional(),
  contour: contour.optional(),
  antiAlias: z.boolean().optional(),
  noise: percent.optional(),
};

const DropShadowSchema = z
  .object({
    ...shadow,
    /** Spread, percent of `size` made solid before the blur (default 0). */
    spread: percent.optional(),
    /** Layer Knocks Out Drop Shadow (default true). */
    layerKnocksOut: z.boolean().optional(),
  })
  .strict();
const InnerShadowSchema = z.object({ ...shadow, /** Choke, percent of `size` (default 0). */ choke: percent.optional() }).strict();

const glow = {
  ...blending,
  color: color.optional(),
  noise: percent.optional(),
  /** `softer` (the default) or `precise`. */
  technique: z.enum(["softer", "precise"]).optional(),
  size: size.optional(),
  contour: contour.optional(),
  antiAlias: z.boolean().optional(),
  /** Range, percent 1–100 (default 50). */
  range: z.number().min(1).max(100).optional(),
  jitter: percent.optional(),
};
const OuterGlowSchema = z.object({ ...glow, /** Spread, percent (default 0). */ spread: percent.optional() }).strict();
const InnerGlowSchema = z
  .object({
    ...glow,
    /** From the layer's `edge` (the default) or its `center`. */
    source: z.enum(["edge", "center"]).optional(),
    /** Choke, percent (default 0). */
    choke: percent.optional(),
  })
  .strict();

/** A bevel's lit or shaded side: its colour, blend mode and opacity. */
const BevelSideSchema = z.object({ color: color.optional(), ...blending }).strict();
const BevelSchema = z
  .object({
    /** `innerBevel` (the default), `outerBevel`, `emboss`, `pillowEmboss` or `strokeEmboss`. */
    style: z.enum(["innerBevel", "outerBevel", "emboss", "pillowEmboss", "strokeEmboss"]).optional(),
    /** `smooth` (the default), `chiselHard` or `chiselSoft`. */
    technique: z.enum(["smooth", "chiselHard", "chiselSoft"]).optional(),
    /** Depth, percent 1–1000 (default 100). */
    depth: z.number().min(1).max(1000).optional(),
    /** `up` (the default) or `down`. */
    direction: z.enum(["up", "down"]).optional(),
    size: size.optional(),
    /** Soften, pixels 0–16 (default 0). */
    soften: z.number().min(0).max(16).optional(),
    angle: angle.optional(),
    /** Altitude of the light, degrees 0–90 (default 30). */
    altitude: z.number().min(0).max(90).optional(),
    useGlobalLight: z.boolean().optional(),
    /** Gloss contour. */
    contour: contour.optional(),
    antiAlias: z.boolean().optional(),
    /** Highlight: default `#ffffff`, `screen`, 75 %. */
    highlight: BevelSideSchema.optional(),
    /** Shadow: default `#000000`, `multiply`, 75 %. */
    shadow: BevelSideSchema.optional(),
  })
  .strict();

const SatinSchema = z
  .object({
    ...blending,
    color: color.optional(),
    angle: angle.optional(),
    distance: distance.optional(),
    size: size.optional(),
    contour: contour.optional(),
    antiAlias: z.boolean().optional(),
    /** Default true. */
    invert: z.boolean().optional(),
  })
  .strict();

/** A gradient's stops as fill layers take them (`location` 0–100 %, `color`, `midpoint` 5–95 %). */
const stops = z
  .array(z.object({ location: z.number().min(0).max(100), color, midpoint: z.number().min(5).max(95).optional() }).strict())
  .min(2)
  .max(MAX_FILL_STOPS);

/** A gradient as gradient overlays and gradient strokes take it, with the fields fill layers' gradients have. */
const gradient = {
  stops,
  /** Default `linear`. */
  style: z.enum(GRADIENT_STYLES).optional(),
  /** Degrees (default 90: bottom to top). */
  angle: angle.optional(),
  /** Percent 10–150 (default 100). */
  scale: z.number().min(10).max(150).optional(),
  reverse: z.boolean().optional(),
  /** Aligned with the layer (true, the default) or the canvas. */
  align: z.boolean().optional(),
  /** Percent of the box (default 0, 0). */
  offset: z.object({ x: z.number().min(-1000).max(1000), y: z.number().min(-1000).max(1000) }).strict().optional(),
  /** Percent 0–100 (default 100). */
  smoothness: percent.optional(),
  /** `classic` (the default), `perceptual`, `linear` or `smooth`. */
  interpolation: z.enum(["classic", "perceptual", "linear", "smooth"]).optional(),
  dither: z.boolean().optional(),
};
const GradientSchema = z.object(gradient).strict();
const GradientOverlaySchema = z.object({ ...blending, ...gradient }).strict();
const ColorOverlaySchema = z.object({ ...blending, color: color.optional() }).strict();

const StrokeSchema = z
  .object({
    ...blending,
    /** Width, pixels 1–250 (default 3). */
    size: z.number().min(1).max(MAX_EFFECT_SIZE).optional(),
    /** `outside` (the default), `inside` or `center`. */
    position: z.enum(["outside", "inside", "center"]).optional(),
    /** A solid colour (default `#000000`) or, instead, a gradient. */
    color: color.optional(),
    gradient: GradientSchema.optional(),
  })
  .strict()
  .refine((s) => s.color === undefined || s.gradient === undefined, { message: "pass color or gradient, not both", path: ["gradient"] });

/**
 * A layer's effects, each left out when the layer has none of it. Drop shadows, inner shadows, colour and gradient
 * overlays and strokes may also be lists of up to {@link MAX_EFFECTS_OF_A_KIND}, the first drawn on top.
 */
export const EffectsSchema = z
  .object({
    dropShadow: stackable(DropShadowSchema).optional(),
    innerShadow: stackable(InnerShadowSchema).optional(),
    outerGlow: OuterGlowSchema.optional(),
    innerGlow: InnerGlowSchema.optional(),
    bevel: BevelSchema.optional(),
    satin: SatinSchema.optional(),
    colorOverlay: stackable(ColorOverlaySchema).optional(),
    gradientOverlay: stackable(GradientOverlaySchema).optional(),
    stroke: stackable(StrokeSchema).optional(),
  })
  .strict();
export type EffectsInput = z.infer<typeof EffectsSchema>;
/** One effect of a field of {@link EffectsInput}, whether the field holds one or a list. */
export type OneEffect<K extends keyof EffectsInput> = NonNullable<EffectsInput[K]> extends infer T ? (T extends readonly (infer E)[] ? E : T) : never;
export type EffectName = keyof EffectsInput;
export const EFFECT_NAMES = ["dropShadow", "innerShadow", "outerGlow", "innerGlow", "bevel", "satin", "colorOverlay", "gradientOverlay", "stroke"] as const;

/** The document's global light, which effects using it take their angle (and a bevel its altitude) from. */
export const GlobalLightSchema = z.object({ angle, altitude: z.number().min(0).max(90).optional() }).strict();

type Rgba = readonly [number, number, number, number];
type Point = { readonly x: number; readonly y: number };
/** A contour: points 0–255 sorted by `x`; undefined is linear. */
type Contour = readonly Point[] | undefined;
interface Blending {
  readonly blendMode: string;
  /** Percent. */
  readonly opacity: number;
}
interface ResolvedGradient {
  readonly stops: readonly { readonly location: number; readonly color: Rgba; readonly midpoint: number }[];
  readonly style: (typeof GRADIENT_STYLES)[number];
  readonly angle: number;
  readonly scale: number;
  readonly reverse: boolean;
  readonly align: boolean;
  readonly offset: Point;
  readonly smoothness: number;
  readonly interpolation: "classic" | "perceptual" | "linear" | "smooth";
  readonly dither: boolean;
}
interface ResolvedShadow extends Blending {
  readonly color: Rgba;
  /** Undefined with `useGlobalLight`: the document's global light. */
  readonly angle?: number | undefined;
  readonly useGlobalLight: boolean;
  readonly distance: number;
  readonly size: number;
  readonly contour: Contour;
  readonly antiAlias: boolean;
  readonly noise: number;
}
interface ResolvedGlow extends Blending {
  readonly color: Rgba;
  readonly noise: number;
  readonly technique: "softer" | "precise";
  readonly size: number;
  readonly contour: Contour;
  readonly antiAlias: boolean;
  readonly range: number;
  readonly jitter: number;
}

/**
 * Effects as editors receive them: defaults filled in, colours parsed, angles of global-light effects resolved. The
 * kinds Photoshop stacks are lists (one or more, the first on top).
 */
export interface ResolvedEffects {
  readonly dropShadow?: readonly (ResolvedShadow & { readonly spread: number; readonly layerKnocksOut: boolean })[];
  readonly innerShadow?: readonly (ResolvedShadow & { readonly choke: number })[];
  readonly outerGlow?: ResolvedGlow & { readonly spread: number };
  readonly innerGlow?: ResolvedGlow & { readonly source: "edge" | "center"; readonly choke: number };
  readonly bevel?: {
    readonly style: "innerBevel" | "outerBevel" | "emboss" | "pillowEmboss" | "strokeEmboss";
    readonly technique: "smooth" | "chiselHard" | "chiselSoft";
    readonly depth: number;
    readonly direction: "up" | "down";
    readonly size: number;
    readonly soften: number;
    readonly angle?: number | undefined;
    readonly altitude: number;
    readonly useGlobalLight: boolean;
    readonly contour: Contour;
    readonly antiAlias: boolean;
    readonly highlight: Blending & { readonly color: Rgba };
    readonly shadow: Blending & { readonly color: Rgba };
  };
  readonly satin?: Blending & {
    readonly color: Rgba;
    readonly angle: number;
    readonly distance: number;
    readonly size: number;
    readonly contour: Contour;
    readonly antiAlias: boolean;
    readonly invert: boolean;
  };
  readonly colorOverlay?: readonly (Blending & { readonly color: Rgba })[];
  readonly gradientOverlay?: readonly (Blending & ResolvedGradient)[];
  readonly stroke?: readonly (Blending & {
    readonly size: number;
    readonly position: "outside" | "inside" | "center";
    readonly fill: { readonly type: "color"; readonly color: Rgba } | ({ readonly type: "gradient" } & ResolvedGradient);
  })[];
}

/** The global light a call sets: its angle, and its altitude when given (else the document keeps its own). */
export interface ResolvedGlobalLight {
  readonly angle: number;
  readonly altitude?: number | undefined;
}

/** `layer:setEffects`'s schema, merged into the method table. */
export const EFFECT_METHOD_SCHEMAS = {
  "layer:setEffects": {
    params: z
      .object({
        ...layerRef,
        /** The layer's whole style: effects left out are removed (`{}` clears them all). */
        effects: EffectsSchema,
        /** Sets the document's global light as part of the same step. */
        globalLight: GlobalLightSchema.optional(),
      })
      .strict()
      .refine(oneRef, { message: "pass at most one of layerId and layerIndex", path: ["layerId"] }),
    result: EditedLayerSchema,
  },
} as const;
