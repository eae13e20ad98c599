/**
 * The defaults of every layer effect setting (Photoshop's Layer Style dialog's), applied to what a caller passed,
 * and the global light the call sets: editors receive every field resolved and colours parsed (see
 * `protocol/effects.ts` for the units and ranges).
 */
import { parseColor } from "../../hosts/_internal/color.js";
import type { EffectsInput, OneEffect, ResolvedEffects, ResolvedGlobalLight } from "../../protocol/effects.js";
import { BridgeError } from "../../protocol/index.js";
import { EDIT_BLEND_MODES } from "./edits.js";

/** Photoshop's defaults for each effect (its Layer Style dialog's, colours as strings, percent and pixels). */
export const EFFECT_DEFAULTS = {
  dropShadow: { blendMode: "multiply", color: "#000000", opacity: 35, distance: 5, spread: 0, size: 5, noise: 0, antiAlias: false, layerKnocksOut: true },
  innerShadow: { blendMode: "multiply", color: "#000000", opacity: 35, distance: 5, choke: 0, size: 5, noise: 0, antiAlias: false },
  outerGlow: { blendMode: "screen", color: "#ffffbe", opacity: 35, noise: 0, technique: "softer", spread: 0, size: 5, range: 50, jitter: 0, antiAlias: false },
  innerGlow: { blendMode: "screen", color: "#ffffbe", opacity: 35, noise: 0, technique: "softer", source: "edge", choke: 0, size: 5, range: 50, jitter: 0, antiAlias: false },
  bevel: {
    style: "innerBevel",
    technique: "smooth",
    depth: 100,
    direction: "up",
    size: 5,
    soften: 0,
    altitude: 30,
    antiAlias: false,
    highlight: { color: "#ffffff", blendMode: "screen", opacity: 75 },
    shadow: { color: "#000000", blendMode: "multiply", opacity: 75 },
  },
  satin: { blendMode: "multiply", color: "#000000", opacity: 50, angle: 19, distance: 11, size: 14, antiAlias: false, invert: true },
  colorOverlay: { blendMode: "normal", color: "#ff0000", opacity: 100 },
  gradientOverlay: { blendMode: "normal", opacity: 100, stops: [{ location: 0, color: "#000000" }, { location: 100, color: "#ffffff" }] },
  gradient: { style: "linear", angle: 90, scale: 100, reverse: false, align: true, smoothness: 100, interpolation: "classic", dither: false },
  stroke: { blendMode: "normal", opacity: 100, size: 3, position: "outside", color: "#000000" },
} as const;

/** Photoshop's global light for a document that records none. */
export const DEFAULT_GLOBAL_LIGHT = { angle: 120, altitude: 30 } as const;

const PAINT_MODES = new Set(EDIT_BLEND_MODES.filter((mode) => mode !== "pass through"));

function blendModeOf(value: string | undefined, fallback: string, field: string): string {
  if (value === undefined) return fallback;
  if (PAINT_MODES.has(value)) return value;
  throw new BridgeError("BAD_REQUEST", `Unknown blend mode "${value}" at ${field}; use one of ${[...PAINT_MODES].join(", ")}`, {
    details: { field, [field]: value },
  });
}

type GradientIn = OneEffect<"gradientOverlay">;

/**
 * The effects of a kind Photoshop stacks, each with the name its fields are reported under: `dropShadow` when the
 * call passed one, `dropShadow.2` for the third of a list.
 */
function eachOf<T>(value: T | readonly T[] | undefined, kind: string): Array<[T, string]> {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return [[value as T, kind]];
  return (value as readonly T[]).map((effect, i) => [effect, `${kind}.${i}`]);
}

/** The resolved list, or nothing for a kind the call left out. */
function listOf<T>(items: T[]): T[] | undefined {
  return items.length > 0 ? items : undefined;
}
type Light = { angle?: number | undefined; useGlobalLight?: boolean | undefined };

function gradientOf(g: Omit<GradientIn, "blendMode" | "opacity">, field: string) {
  const d = EFFECT_DEFAULTS.gradient;
  return {
    stops: g.stops
      .map((stop, i) => ({ location: stop.location, color: parseColor(stop.color, `${field}.stops.${i}.color`), midpoint: stop.midpoint ?? 50 }))
      .sort((a, b) => a.location - b.location),
    style: g.style ?? d.style,
    angle: g.angle ?? d.angle,
    scale: g.scale ?? d.scale,
    reverse: g.reverse ?? d.reverse,
    align: g.align ?? d.align,
    offset: g.offset ?? { x: 0, y: 0 },
    smoothness: g.smoothness ?? d.smoothness,
    interpolation: g.interpolation ?? d.interpolation,
    dither: g.dither ?? d.dither,
  };
}

/**
 * Effects with their defaults, and the global light the call sets: `globalLight`, or the angle an effect using the
 * global light names (as Photoshop's dialog moves the global light with it). An effect that names an `angle` and
 * leaves out `useGlobalLight` has its own light.
 * @throws BridgeError `BAD_REQUEST` naming the field: a colour or blend mode it cannot read, or global-light
 * angles that disagree.
 */
export function resolveEffects(
  input: EffectsInput,
  globalLight: { angle: number; altitude?: number | undefined } | undefined,
): { effects: ResolvedEffects; globalLight?: ResolvedGlobalLight } {
  let light: { angle: number; altitude?: number | undefined; field: string } | undefined = globalLight && { ...globalLight, field: "globalLight.angle" };
  /** Whether the effect uses the global light; an angle it names for it becomes the global light's. */
  const lit = (e: Light, name: string): { useGlobalLight: boolean; angle?: number } => {
    const useGlobalLight = e.useGlobalLight ?? e.angle === undefined;
    if (!useGlobalLight) return { useGlobalLight, angle: e.angle ?? DEFAULT_GLOBAL_LIGHT.angle };
    if (e.angle !== undefined) {
      const field = `effects.${name}.angle`;
      if (light !== undefined && light.angle !== e.angle) {
        throw new BridgeError("BAD_REQUEST", `${field} (${e.angle}°) uses the global light, which ${light.field} sets to ${light.angle}°: pass one angle, or useGlobalLight: false`, {
          details: { field, [field]: e.angle, [light.field]: light.angle },
        });
      }
      light = { angle: e.angle, altitude: light?.altitude, field };
    }
    return { useGlobalLight };
  };
  const color = (value: string | undefined, fallback: string, field: string) => parseColor(value ?? fallback, field);
  const blend = (e: { blendMode?: string | undefined; opacity?: number | undefined }, d: { blendMode: string; opacity: number }, name: string) => ({
    blendMode: blendModeOf(e.blendMode, d.blendMode, `effects.${name}.blendMode`),
    opacity: e.opacity ?? d.opacity,
  });
  const D = EFFECT_DEFAULTS;
  const out: { -readonly [K in keyof ResolvedEffects]: ResolvedEffects[K] } = {};
  const { dropShadow: ds, innerShadow: is, outerGlow: og, innerGlow: ig, bevel: bv, satin: st, colorOverlay: co, gradientOverlay: go, stroke: sk } = input;
  const shadow = (e: OneEffect<"innerShadow">, d: typeof D.dropShadow | typeof D.innerShadow, name: string) => ({
    ...blend(e, d, name),
    color: color(e.color, d.color, `effects.${name}.color`),
    ...lit(e, name),
    distance: e.distance ?? d.distance,
    size: e.size ?? d.size,
    contour: e.contour,
    antiAlias: e.antiAlias ?? d.antiAlias,
    noise: e.noise ?? d.noise,
  });
  const d0 = D.dropShadow;
  out.dropShadow = listOf(eachOf(ds, "dropShadow").map(([e, name]) => ({ ...shadow(e, d0, name), spread: e.spread ?? d0.spread, layerKnocksOut: e.layerKnocksOut ?? d0.layerKnocksOut })));
  out.innerShadow = listOf(eachOf(is, "innerShadow").map(([e, name]) => ({ ...shadow(e, D.innerShadow, name), choke: e.choke ?? D.innerShadow.choke })));
  const glow = (g: NonNullable<EffectsInput["outerGlow"]>, d: typeof D.outerGlow | typeof D.innerGlow, name: string) => ({
    ...blend(g, d, name),
    color: color(g.color, d.color, `effects.${name}.color`),
    noise: g.noise ?? d.noise,
    technique: g.technique ?? d.technique,
    size: g.size ?? d.size,
    contour: g.contour,
    antiAlias: g.antiAlias ?? d.antiAlias,
    range: g.range ?? d.range,
    jitter: g.jitter ?? d.jitter,
  });
  if (og) out.outerGlow = { ...glow(og, D.outerGlow, "outerGlow"), spread: og.spread ?? D.outerGlow.spread };
  if (ig) out.innerGlow = { ...glow(ig, D.innerGlow, "innerGlow"), source: ig.source ?? D.innerGlow.source, choke: ig.choke ?? D.innerGlow.choke };
  if (bv) {
    const d = D.bevel;
    const side = (s: typeof bv.highlight, fallback: typeof d.highlight | typeof d.shadow, name: string) => ({
      color: color(s?.color, fallback.color, `effects.bevel.${name}.color`),
      ...blend(s ?? {}, fallback, `bevel.${name}`),
    });
    out.bevel = {
      style: bv.style ?? d.style,
      technique: bv.technique ?? d.technique,
      depth: bv.depth ?? d.depth,
      direction: bv.direction ?? d.direction,
      size: bv.size ?? d.size,
      soften: bv.soften ?? d.soften,
      ...lit(bv, "bevel"),
      altitude: bv.altitude ?? d.altitude,
      contour: bv.contour,
      antiAlias: bv.antiAlias ?? d.antiAlias,
      highlight: side(bv.highlight, d.highlight, "highlight"),
      shadow: side(bv.shadow, d.shadow, "shadow"),
    };
  }
  if (st) {
    const d = D.satin;
    out.satin = {
      ...blend(st, d, "satin"),
      color: color(st.color, d.color, "effects.satin.color"),
      angle: st.angle ?? d.angle,
      distance: st.distance ?? d.distance,
      size: st.size ?? d.size,
      contour: st.contour,
      antiAlias: st.antiAlias ?? d.antiAlias,
      invert: st.invert ?? d.invert,
    };
  }
  out.colorOverlay = listOf(eachOf(co, "colorOverlay").map(([e, name]) => ({ ...blend(e, D.colorOverlay, name), color: color(e.color, D.colorOverlay.color, `effects.${name}.color`) })));
  out.gradientOverlay = listOf(eachOf(go, "gradientOverlay").map(([e, name]) => ({ ...blend(e, D.gradientOverlay, name), ...gradientOf(e, `effects.${name}`) })));
  const d1 = D.stroke;
  out.stroke = listOf(
    eachOf(sk, "stroke").map(([e, name]) => ({
      ...blend(e, d1, name),
      size: e.size ?? d1.size,
      position: e.position ?? d1.position,
      fill:
        e.gradient !== undefined
          ? { type: "gradient" as const, ...gradientOf(e.gradient, `effects.${name}.gradient`) }
          : { type: "color" as const, color: color(e.color, d1.color, `effects.${name}.color`) },
    })),
  );
  // A kind left out is not a key of the answer at all.
  for (const key of Object.keys(out) as (keyof typeof out)[]) if (out[key] === undefined) delete out[key];
  if (light === undefined) return { effects: out };
  return { effects: out, globalLight: { angle: light.angle, ...(light.altitude !== undefined ? { altitude: light.altitude } : {}) } };
}
