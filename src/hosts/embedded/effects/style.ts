/*
 * Reading a layer style as Photoshop records it (ag-psd's `LayerEffectsInfo`): which effects are on, their sizes
 * in pixels (bounded), the light direction, and what the document lends them (global light, patterns, canvas).
 */
import type { LayerEffectsInfo, PatternInfo, UnitsValue } from "ag-psd";
import { MAX_EFFECT_DISTANCE_PX, MAX_EFFECT_SIZE_PX } from "./limits.js";
import type { SourceColor } from "../document.js";

/**
 * `value` when it is a finite number, else `fallback`: a damaged or hostile record (NaN, Infinity, a string)
 * draws with the default instead of poisoning every pixel.
 */
export function finite(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

/** What layer effects take from their document. */
export interface StyleContext {
  /** The canvas: gradients not aligned with their layer span it. */
  readonly width: number;
  readonly height: number;
  /** Angle (degrees) of the global light, for effects that use it. */
  readonly globalAngle: number;
  /** The file's patterns by id. */
  readonly patterns: ReadonlyMap<string, PatternInfo>;
  /** The same patterns as the file lists them (fill layers look them up themselves). */
  readonly patternList?: readonly PatternInfo[] | undefined;
  /** A grayscale document: adjustment layers work on its grey level. */
  readonly grayscale?: boolean | undefined;
  /** The mode and depth of the file the document came from, when not 8-bit RGB (its records' colours are in them). */
  readonly sourceColor?: SourceColor | undefined;
}

/** Photoshop's global light for a new document (and for files that do not record one). */
export const DEFAULT_GLOBAL_ANGLE = 120;

const patternMaps = new WeakMap<readonly PatternInfo[], ReadonlyMap<string, PatternInfo>>();

/** The style context of a document (its size, global light and patterns). */
export function styleContext(doc: {
  readonly width: number;
  readonly height: number;
  readonly globalLight?: { readonly angle: number } | undefined;
  readonly patterns?: readonly PatternInfo[] | undefined;
  readonly grayscale?: boolean | undefined;
  readonly sourceColor?: SourceColor | undefined;
}): StyleContext {
  let patterns: ReadonlyMap<string, PatternInfo> = new Map();
  if (doc.patterns) {
    const known = patternMaps.get(doc.patterns);
    patterns = known ?? new Map(doc.patterns.map((pattern) => [pattern.id, pattern]));
    if (!known) patternMaps.set(doc.patterns, patterns);
  }
  return {
    width: doc.width,
    height: doc.height,
    globalAngle: finite(doc.globalLight?.angle, DEFAULT_GLOBAL_ANGLE),
    patterns,
    ...(doc.patterns ? { patternList: doc.patterns } : {}),
    ...(doc.grayscale === true ? { grayscale: true } : {}),
    ...(doc.sourceColor ? { sourceColor: doc.sourceColor } : {}),
  };
}

/** Whether one effect record is switched on (a record marked not present is a leftover of a removed effect). */
export function isOn(effect: { readonly enabled?: boolean; readonly present?: boolean } | undefined): boolean {
  return effect?.enabled === true && effect.present !== false;
}

/** Whether a layer style draws anything: the style itself is on and at least one of its effects is. */
export function hasActiveEffects(info: LayerEffectsInfo | undefined): info is LayerEffectsInfo {
  if (!info || info.disabled === true) return false;
  const lists = [info.dropShadow, info.innerShadow, info.solidFill, info.stroke, info.gradientOverlay];
  if (lists.some((list) => list?.some(isOn) === true)) return true;
  return [info.outerGlow, info.innerGlow, info.satin, info.patternOverlay, info.bevel].some(isOn);
}

/** A size in pixels, clamped to 0…`MAX_EFFECT_SIZE_PX` (points and other units are taken as pixels). */
export function sizePx(value: UnitsValue | undefined): number {
  return Math.min(MAX_EFFECT_SIZE_PX, Math.max(0, finite(value?.value, 0)));
}

/** A spread or choke: Photoshop stores the percentage (0–100) in a field labelled pixels. */
export function spreadFraction(value: UnitsValue | undefined): number {
  return Math.min(1, Math.max(0, finite(value?.value, 0) / 100));
}

/**
 * The whole-pixel offset of a shadow cast by light from `angle` degrees (0 = from the right, 90 = from the top)
 * at `distance`: the shadow falls away from the light.
 */
export function shadowOffset(angle: number, distance: UnitsValue | undefined): { dx: number; dy: number } {
  const d = Math.min(MAX_EFFECT_DISTANCE_PX, Math.max(0, finite(distance?.value, 0)));
  const rad = (finite(angle, DEFAULT_GLOBAL_ANGLE) * Math.PI) / 180;
  return { dx: Math.round(-d * Math.cos(rad)), dy: Math.round(d * Math.sin(rad)) };
}

/** An effect's opacity, 0–1 (a missing one is fully opaque, as Photoshop writes every one it uses). */
export function opacityOf(effect: { readonly opacity?: number }): number {
  return Math.min(1, Math.max(0, finite(effect.opacity, 1)));
}
