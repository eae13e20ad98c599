/**
 * The defaults of every layer effect setting (Photoshop's Layer Style dialog's), applied to what a caller passed,
 * and the global light the call sets: editors receive every field resolved and colours parsed (see
 * `protocol/effects.ts` for the units and ranges).
 */
import { parseColor } from "../../hosts/_internal/color.js";
import type { EffectsInput, ResolvedEffects, ResolvedGlobalLight } from "../../protocol/effects.js";
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

type GradientIn = NonNullable<EffectsInput["gradientOverlay"]>;
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
  const shadow = (e: NonNullable<EffectsInput["innerShadow"]>, d: typeof D.dropShadow | typeof D.innerShadow, name: string) => ({
    ...blend(e, d, name),
    color: color(e.color, d.color, `effects.${name}.color`),
    ...lit(e, name),
    distance: e.distance ?? d.distance,
    size: e.size ?? d.size,
    contour: e.contour,
    antiAlias: e.antiAlias ?? d.antiAlias,
    noise: e.noise ?? d.noise,
  });
  if (ds) {
    const d = D.dropShadow;
    out.dropShadow = { ...shadow(ds, d, "dropShadow"), spread: ds.spread ?? d.spread, layerKnocksOut: ds.layerKnocksOut ?? d.layerKnocksOut };
  }
  if (is) out.innerShadow = { ...shadow(is, D.innerShadow, "innerShadow"), choke: is.choke ?? D.innerShadow.choke };
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
  if (co) out.colorOverlay = { ...blend(co, D.colorOverlay, "colorOverlay"), color: color(co.color, D.colorOverlay.color, "effects.colorOverlay.color") };
  if (go) out.gradientOverlay = { ...blend(go, D.gradientOverlay, "gradientOverlay"), ...gradientOf(go, "effects.gradientOverlay") };
  if (sk) {
    const d = D.stroke;
    out.stroke = {
      ...blend(sk, d, "stroke"),
      size: sk.size ?? d.size,
      position: sk.position ?? d.position,
      fill:
        sk.gradient !== undefined
          ? { type: "gradient", ...gradientOf(sk.gradient, "effects.stroke.gradient") }
          : { type: "color", color: color(sk.color, d.color, "effects.stroke.color") },
    };
  }
  if (light === undefined) return { effects: out };
  return { effects: out, globalLight: { angle: light.angle, ...(light.altitude !== undefined ? { altitude: light.altitude } : {}) } };
}
