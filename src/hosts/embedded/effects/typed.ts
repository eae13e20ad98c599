/*
 * Typed layer effects (`layer:setEffects`, see `protocol/effects.ts`) as the layer style record the renderer draws
 * from and a save writes (ag-psd's `LayerEffectsInfo`), and a record read back as typed effects
 * (`HostLayer.effects`). Units: the typed effects say percent and pixels; the record keeps opacities, noise, range,
 * jitter, depth and gradient scale as fractions, spreads and chokes as percent in a pixel-labelled field, sizes
 * and distances as pixel values.
 */
import type {
  BevelStyle,
  BevelTechnique,
  BlendMode,
  Color,
  EffectContour,
  EffectSolidGradient,
  LayerEffectGradientOverlay,
  LayerEffectShadow,
  LayerEffectsInfo,
  LayerEffectStroke,
  UnitsValue,
} from "ag-psd";
import type { ResolvedEffects } from "../../../protocol/effects.js";
import { colorString, fillRecord, typedFill } from "../fills/typed.js";
import { colorToRgb } from "../color.js";
import { finite, isOn } from "./style.js";

type Rgba = readonly [number, number, number, number];
type Typed = Record<string, unknown>;

const px = (value: number): UnitsValue => ({ units: "Pixels", value });
const rgb = (c: Rgba): Color => ({ r: c[0], g: c[1], b: c[2] });
const LINEAR: EffectContour = { name: "Linear", curve: [{ x: 0, y: 0 }, { x: 255, y: 255 }] };
const contourOf = (points: readonly { x: number; y: number }[] | undefined): EffectContour =>
  points === undefined ? LINEAR : { name: "Custom", curve: points.map((p) => ({ x: p.x, y: p.y })).sort((a, b) => a.x - b.x) };
const ON = { present: true, showInDialog: true, enabled: true } as const;

const BEVEL_STYLES: Readonly<Record<NonNullable<ResolvedEffects["bevel"]>["style"], BevelStyle>> = {
  innerBevel: "inner bevel",
  outerBevel: "outer bevel",
  emboss: "emboss",
  pillowEmboss: "pillow emboss",
  strokeEmboss: "stroke emboss",
};
const BEVEL_TECHNIQUES: Readonly<Record<NonNullable<ResolvedEffects["bevel"]>["technique"], BevelTechnique>> = {
  smooth: "smooth",
  chiselHard: "chisel hard",
  chiselSoft: "chisel soft",
};
const invert = <K extends string, V extends string>(map: Readonly<Record<K, V>>): Readonly<Record<string, K>> =>
  Object.fromEntries(Object.entries(map).map(([k, v]) => [v, k])) as Record<string, K>;
const BEVEL_STYLE_NAMES = invert(BEVEL_STYLES);
const BEVEL_TECHNIQUE_NAMES = invert(BEVEL_TECHNIQUES);

type Gradient = NonNullable<ResolvedEffects["gradientOverlay"]>[number];

/** A typed gradient as a gradient record and how it lies (fill layers' gradients are written the same way). */
function gradientParts(g: Omit<Gradient, "blendMode" | "opacity">): { gradient: EffectSolidGradient; layout: Omit<LayerEffectGradientOverlay, "gradient"> } {
  const content = fillRecord({
    type: "gradient",
    style: g.style,
    stops: g.stops,
    smoothness: g.smoothness,
    interpolation: g.interpolation,
    angle: g.angle,
    scale: g.scale,
    reverse: g.reverse,
    align: g.align,
    offset: g.offset,
  });
  if (content.type !== "solid") throw new Error("a gradient fill record is a solid gradient");
  const { name, smoothness, colorStops, opacityStops, style, angle, scale, reverse, align, offset, interpolationMethod } = content;
  return {
    gradient: { name, type: "solid", ...(smoothness !== undefined ? { smoothness } : {}), colorStops, opacityStops },
    layout: {
      type: style ?? "linear",
      angle: angle ?? 90,
      scale: scale ?? 1,
      reverse: reverse === true,
      align: align !== false,
      dither: g.dither,
      offset: offset ?? { x: 0, y: 0 },
      ...(interpolationMethod !== undefined ? { interpolationMethod } : {}),
    },
  };
}

/**
 * The style record of typed effects. `light` is the document's global light (after the edit): effects that use it
 * record its angle, as Photoshop writes them.
 */
export function effectsRecord(effects: ResolvedEffects, light: { readonly angle: number }): LayerEffectsInfo {
  const out: LayerEffectsInfo = { scale: 1 };
  const angleOf = (e: { useGlobalLight: boolean; angle?: number | undefined }) => (e.useGlobalLight ? light.angle : (e.angle ?? light.angle));
  const blend = (e: { blendMode: string; opacity: number }) => ({ blendMode: e.blendMode as BlendMode, opacity: e.opacity / 100 });
  const { dropShadow: ds, innerShadow: is, outerGlow: og, innerGlow: ig, bevel: bv, satin: st, colorOverlay: co, gradientOverlay: go, stroke: sk } = effects;
  /** What drop and inner shadows record alike; `choke` is a drop shadow's spread or an inner shadow's choke. */
  const shadow = (e: Omit<NonNullable<ResolvedEffects["innerShadow"]>[number], "choke">, choke: number): LayerEffectShadow =>
    ({
      ...ON,
      ...blend(e),
      color: rgb(e.color),
      useGlobalLight: e.useGlobalLight,
      angle: angleOf(e),
      distance: px(e.distance),
      choke: px(choke),
      size: px(e.size),
      noise: e.noise / 100,
      antialiased: e.antiAlias,
      contour: contourOf(e.contour),
    }) as LayerEffectShadow;
  if (ds) out.dropShadow = ds.map((e) => ({ ...shadow(e, e.spread), layerConceals: e.layerKnocksOut }));
  if (is) out.innerShadow = is.map((e) => shadow(e, e.choke));
  const glow = (g: NonNullable<ResolvedEffects["outerGlow"] | ResolvedEffects["innerGlow"]>) => ({
    ...ON,
    ...blend(g),
    color: rgb(g.color),
    noise: g.noise / 100,
    technique: g.technique,
    size: px(g.size),
    antialiased: g.antiAlias,
    range: g.range / 100,
    jitter: g.jitter / 100,
    contour: contourOf(g.contour),
  });
  if (og) out.outerGlow = { ...glow(og), choke: px(og.spread) };
  if (ig) out.innerGlow = { ...glow(ig), source: ig.source, choke: px(ig.choke) };
  if (bv) {
    out.bevel = {
      ...ON,
      style: BEVEL_STYLES[bv.style],
      technique: BEVEL_TECHNIQUES[bv.technique],
      strength: bv.depth / 100,
      direction: bv.direction,
      size: px(bv.size),
      soften: px(bv.soften),
      useGlobalLight: bv.useGlobalLight,
      angle: angleOf(bv),
      altitude: bv.altitude,
      contour: contourOf(bv.contour),
      antialiasGloss: bv.antiAlias,
      highlightColor: rgb(bv.highlight.color),
      highlightBlendMode: bv.highlight.blendMode as BlendMode,
      highlightOpacity: bv.highlight.opacity / 100,
      shadowColor: rgb(bv.shadow.color),
      shadowBlendMode: bv.shadow.blendMode as BlendMode,
      shadowOpacity: bv.shadow.opacity / 100,
      useTexture: false,
      useShape: false,
    };
  }
  if (st) {
    out.satin = {
      ...ON,
      ...blend(st),
      color: rgb(st.color),
      angle: st.angle,
      distance: px(st.distance),
      size: px(st.size),
      contour: contourOf(st.contour),
      antialiased: st.antiAlias,
      invert: st.invert,
    };
  }
  if (co) out.solidFill = co.map((e) => ({ ...ON, ...blend(e), color: rgb(e.color) }));
  if (go) {
    out.gradientOverlay = go.map((e) => {
      const { gradient, layout } = gradientParts(e);
      return { ...ON, ...blend(e), gradient, ...layout };
    });
  }
  if (sk) {
    out.stroke = sk.map((e) => {
      const fill: Partial<LayerEffectStroke> =
        e.fill.type === "color"
          ? { fillType: "color", color: rgb(e.fill.color) }
          : (() => {
              const { gradient, layout } = gradientParts(e.fill);
              const { type: style, ...rest } = layout;
              return { fillType: "gradient" as const, gradient: { ...gradient, style, ...rest } };
            })();
      return { ...ON, ...blend(e), size: px(e.size), position: e.position, overprint: false, ...fill };
    });
  }
  return out;
}

const round = (v: number) => Math.round(v * 1000) / 1000;
const pct = (fraction: number | undefined, fallback: number) => round(finite(fraction, fallback / 100) * 100);
const pxOf = (value: UnitsValue | undefined, fallback = 0) => round(finite(value?.value, fallback));
const colorOf = (color: Color | undefined, fallback: string) => (color === undefined ? fallback : colorString(colorToRgb(color)));
/** A contour's points, or nothing for the linear one. */
function pointsOf(contour: EffectContour | undefined): { contour?: { x: number; y: number }[] } {
  const curve = contour?.curve ?? [];
  if (curve.length < 2 || curve.every((p) => Math.abs(p.x - p.y) < 0.5)) return {};
  return { contour: curve.map((p) => ({ x: round(finite(p.x, 0)), y: round(finite(p.y, 0)) })) };
}
const blendOf = (e: { blendMode?: string | undefined; opacity?: number | undefined }, mode: string) => ({
  blendMode: e.blendMode ?? mode,
  opacity: pct(e.opacity, 100),
});

/** A gradient record as typed gradient settings (fill layers' gradients are read the same way); undefined for noise. */
function typedGradient(gradient: LayerEffectGradientOverlay["gradient"], layout: Omit<LayerEffectGradientOverlay, "gradient">): Typed | undefined {
  if (gradient?.type !== "solid") return undefined;
  const { type: _type, ...typed } = typedFill({ ...gradient, style: layout.type ?? "linear", angle: layout.angle, scale: layout.scale, reverse: layout.reverse, align: layout.align, offset: layout.offset, interpolationMethod: layout.interpolationMethod });
  return { ...typed, ...(layout.dither === true ? { dither: true } : {}) };
}

/**
 * The effects of a style record that are on, as `layer:setEffects` takes them; undefined when none is. Of the kinds
 * Photoshop stacks (up to ten shadows, strokes and overlays) one that is on reads as an object and several as a
 * list, top-most first; a pattern overlay, a pattern stroke and noise gradients have no typed form and are left
 * out. An effect using the global light reads back the light's angle (`globalAngle`), the angle it is drawn with.
 */
export function typedEffects(info: LayerEffectsInfo | undefined, globalAngle: number): Typed | undefined {
  if (info === undefined || info.disabled === true) return undefined;
  const out: Typed = {};
  const on = <T extends { enabled?: boolean; present?: boolean }>(list: readonly T[] | undefined): T[] => list?.filter(isOn) ?? [];
  /** One typed effect as an object, several as a list; nothing when none has a typed form. */
  const stacked = (typed: readonly Typed[]): Typed | Typed[] | undefined => (typed.length === 0 ? undefined : typed.length === 1 ? typed[0] : [...typed]);
  const light = (e: { useGlobalLight?: boolean | undefined; angle?: number | undefined }) => {
    const useGlobalLight = e.useGlobalLight !== false;
    return { angle: round(useGlobalLight ? globalAngle : finite(e.angle, globalAngle)), useGlobalLight };
  };
  const shadow = (e: LayerEffectShadow) => ({
    ...blendOf(e, "multiply"),
    color: colorOf(e.color, "#000000"),
    ...light(e),
    distance: pxOf(e.distance),
    size: pxOf(e.size),
    noise: pct((e as { noise?: number }).noise, 0),
    antiAlias: e.antialiased === true,
    ...pointsOf(e.contour),
  });
  const ds = stacked(on(info.dropShadow).map((e) => ({ ...shadow(e), spread: pxOf(e.choke), layerKnocksOut: e.layerConceals !== false })));
  if (ds) out.dropShadow = ds;
  const is = stacked(on(info.innerShadow).map((e) => ({ ...shadow(e), choke: pxOf(e.choke) })));
  if (is) out.innerShadow = is;
  const glow = (g: NonNullable<LayerEffectsInfo["outerGlow"] | LayerEffectsInfo["innerGlow"]>) => ({
    ...blendOf(g, "screen"),
    color: colorOf(g.color, "#ffffbe"),
    noise: pct(g.noise, 0),
    technique: (g as { technique?: string }).technique === "precise" ? "precise" : "softer",
    size: pxOf(g.size),
    antiAlias: g.antialiased === true,
    range: Math.max(1, pct(g.range, 50)),
    jitter: pct(g.jitter, 0),
    ...pointsOf(g.contour),
  });
  if (isOn(info.outerGlow) && info.outerGlow) out.outerGlow = { ...glow(info.outerGlow), spread: pxOf(info.outerGlow.choke) };
  if (isOn(info.innerGlow) && info.innerGlow) {
    out.innerGlow = { ...glow(info.innerGlow), source: info.innerGlow.source === "center" ? "center" : "edge", choke: pxOf(info.innerGlow.choke) };
  }
  const bv = info.bevel;
  if (isOn(bv) && bv) {
    out.bevel = {
      style: BEVEL_STYLE_NAMES[bv.style ?? "inner bevel"] ?? "innerBevel",
      technique: BEVEL_TECHNIQUE_NAMES[bv.technique ?? "smooth"] ?? "smooth",
      depth: Math.max(1, pct(bv.strength, 100)),
      direction: bv.direction === "down" ? "down" : "up",
      size: pxOf(bv.size),
      soften: pxOf(bv.soften),
      ...light(bv),
      altitude: round(finite(bv.altitude, 30)),
      antiAlias: bv.antialiasGloss === true,
      highlight: { color: colorOf(bv.highlightColor, "#ffffff"), ...blendOf({ blendMode: bv.highlightBlendMode, opacity: bv.highlightOpacity }, "screen") },
      shadow: { color: colorOf(bv.shadowColor, "#000000"), ...blendOf({ blendMode: bv.shadowBlendMode, opacity: bv.shadowOpacity }, "multiply") },
      ...pointsOf(bv.contour),
    };
  }
  const st = info.satin;
  if (isOn(st) && st) {
    out.satin = {
      ...blendOf(st, "multiply"),
      color: colorOf(st.color, "#000000"),
      angle: round(finite(st.angle, 19)),
      distance: pxOf(st.distance),
      size: pxOf(st.size),
      antiAlias: st.antialiased === true,
      invert: st.invert === true,
      ...pointsOf(st.contour),
    };
  }
  const co = stacked(on(info.solidFill).map((e) => ({ ...blendOf(e, "normal"), color: colorOf(e.color, "#000000") })));
  if (co) out.colorOverlay = co;
  const go = stacked(
    on(info.gradientOverlay).flatMap((e) => {
      const { gradient, ...layout } = e;
      const typed = typedGradient(gradient, layout);
      return typed === undefined ? [] : [{ ...blendOf(e, "normal"), ...typed }];
    }),
  );
  if (go) out.gradientOverlay = go;
  const sk = stacked(
    on(info.stroke).flatMap((e): Typed[] => {
      if (e.fillType === "pattern") return [];
      const common = { ...blendOf(e, "normal"), size: pxOf(e.size, 3), position: e.position ?? "outside" };
      if (e.fillType !== "gradient") return [{ ...common, color: colorOf(e.color, "#000000") }];
      const { style, angle, scale, reverse, align, offset, dither, interpolationMethod, ...gradient } = e.gradient ?? ({} as NonNullable<LayerEffectStroke["gradient"]>);
      const typed = typedGradient(gradient as LayerEffectGradientOverlay["gradient"], { type: style, angle, scale, reverse, align, offset, dither, interpolationMethod });
      return typed === undefined ? [] : [{ ...common, gradient: typed }];
    }),
  );
  if (sk) out.stroke = sk;
  return Object.keys(out).length > 0 ? out : undefined;
}
