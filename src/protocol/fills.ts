import { z } from "zod";

/*
 * The settings of a fill layer (`layer:create {kind: "fill"}`, `layer:update {fill}`), defined once: a solid
 * colour, a gradient or a pattern. Colours are strings as elsewhere (`#rgb`, `#rrggbb`, `#rrggbbaa`, a name); a
 * gradient's stop alpha becomes its opacity there. Angles in degrees counter-clockwise from the x axis, as
 * Photoshop's dialog; `scale` in percent of the layer's box.
 */

const color = z.string().min(1).max(64);

/** Most colour stops of a gradient fill. */
export const MAX_FILL_STOPS = 32;

/** Gradient styles. Photoshop's dialog also has `reflected` and `diamond`, which the embedded editor renders too. */
export const GRADIENT_STYLES = ["linear", "radial", "angle", "reflected", "diamond"] as const;

export const FillSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("solid"), color }).strict(),
  z
    .object({
      type: z.literal("gradient"),
      /** Default `linear`. */
      style: z.enum(GRADIENT_STYLES).optional(),
      /**
       * Colour stops, `location` 0–100 % along the gradient, 2–32 of them; `midpoint` 5–95 % of the way to the next
       * stop where the two colours mix half and half (default 50).
       */
      stops: z.array(z.object({ location: z.number().min(0).max(100), color, midpoint: z.number().min(5).max(95).optional() }).strict()).min(2).max(MAX_FILL_STOPS),
      /** Photoshop's Smoothness, percent 0–100 (default 100). */
      smoothness: z.number().min(0).max(100).optional(),
      /** How colours mix between stops: `classic` (the default), `perceptual`, `linear` (in linear light) or `smooth`. */
      interpolation: z.enum(["classic", "perceptual", "linear", "smooth"]).optional(),
      /** Degrees −360–360, counter-clockwise from the x axis (default 90: bottom to top). */
      angle: z.number().min(-360).max(360).optional(),
      /** Percent 10–150 of the layer's box, as Photoshop's dialog (default 100). */
      scale: z.number().min(10).max(150).optional(),
      /** Default false. */
      reverse: z.boolean().optional(),
      /** Laid over the layer's box (true, the default) or the canvas; a fill layer without a shape spans the canvas either way. */
      align: z.boolean().optional(),
      /** The gradient's centre moved from the box's centre, percent of the box's width and height (default 0, 0). */
      offset: z.object({ x: z.number().min(-1000).max(1000), y: z.number().min(-1000).max(1000) }).strict().optional(),
    })
    .strict(),
  /**
   * A pattern tiled from the canvas's top-left at its own size: `image` a data URI, base64, a `file:` URI or path, or an
   * http(s) URL, as `layer:importImage` takes it. It becomes one of the document's patterns, saved with it.
   */
  z
    .object({
      type: z.literal("pattern"),
      image: z.string().min(1),
      /**
       * The pattern's name in the document (Photoshop's Patterns panel). Photoshop itself names the pattern after the
       * preset the bridge makes it from (`bridge pattern <id>`), which is what it reads back. @default "Pattern"
       */
      name: z.string().min(1).max(255).optional(),
    })
    .strict(),
]);
export type FillInput = z.infer<typeof FillSchema>;
export type FillType = FillInput["type"];

type Rgba = readonly [number, number, number, number];

/** A fill as editors receive it: defaults filled in, colours parsed. */
export type ResolvedFill =
  | { readonly type: "solid"; readonly color: Rgba }
  | {
      readonly type: "gradient";
      readonly style: (typeof GRADIENT_STYLES)[number];
      readonly stops: readonly { readonly location: number; readonly color: Rgba; readonly midpoint: number }[];
      /** Percent. */
      readonly smoothness: number;
      readonly interpolation: "classic" | "perceptual" | "linear" | "smooth";
      readonly angle: number;
      readonly scale: number;
      readonly reverse: boolean;
      readonly align: boolean;
      /** Percent of the box. */
      readonly offset: { readonly x: number; readonly y: number };
    }
  | {
      readonly type: "pattern";
      readonly name: string;
      /** The tile, read and checked (format and size from its header), not decoded. */
      readonly image: { readonly bytes: Uint8Array; readonly format: string; readonly width: number; readonly height: number };
    };
