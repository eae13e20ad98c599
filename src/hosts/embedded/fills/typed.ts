/*
 * A typed fill (`layer:create {kind: "fill"}`, see `protocol/fills.ts`) as the fill layer record the renderer draws
 * from (ag-psd's `VectorContent`), and a record read back as typed settings (`HostLayer.fill`).
 */
import type { Color, VectorContent } from "ag-psd";
import type { ResolvedFill } from "../../../protocol/fills.js";
import { trueLocation } from "../_internal/gradient-ramp.js";
import { colorToRgb } from "../_internal/psd-color.js";

const rgb = (c: readonly number[]) => ({ r: c[0] ?? 0, g: c[1] ?? 0, b: c[2] ?? 0 });
const hex = (v: number) => Math.round(Math.min(255, Math.max(0, v))).toString(16).padStart(2, "0");

/** A colour as `#rrggbb`, or `#rrggbbaa` below full alpha (0–255). */
export function colorString(color: readonly number[], alpha = 255): string {
  const a = Math.round(alpha);
  return `#${hex(color[0] ?? 0)}${hex(color[1] ?? 0)}${hex(color[2] ?? 0)}${a < 255 ? hex(a) : ""}`;
}

/**
 * The record of a typed solid or gradient fill. A pattern fill's record names a tile of the document's patterns, so
 * it is made where the tile joins them (`edits/content-layers.ts`).
 */
export function fillRecord(fill: Exclude<ResolvedFill, { type: "pattern" }>): VectorContent {
  if (fill.type === "solid") return { type: "color", color: rgb(fill.color) };
  // ag-psd keeps stop locations divided by the smoothness (it writes them times the smoothness's 4096ths).
  const smoothness = fill.smoothness / 100;
  const at = (location: number) => location / 100 / (smoothness > 0 ? smoothness : 1);
  return {
    type: "solid",
    name: "Custom",
    smoothness,
    colorStops: fill.stops.map((stop) => ({ color: rgb(stop.color), location: at(stop.location), midpoint: stop.midpoint / 100 })),
    opacityStops: fill.stops.map((stop) => ({ opacity: stop.color[3] / 255, location: at(stop.location), midpoint: stop.midpoint / 100 })),
    ...(fill.interpolation !== "classic" ? { interpolationMethod: fill.interpolation } : {}),
    style: fill.style,
    angle: fill.angle,
    scale: fill.scale / 100,
    reverse: fill.reverse,
    align: fill.align,
    dither: false,
    offset: { x: fill.offset.x / 100, y: fill.offset.y / 100 },
  };
}

/** The alpha (0–1) of a gradient's opacity stops at `at` (0–1), straight between stops. */
function opacityAt(stops: readonly { opacity: number; location: number }[], at: number): number {
  if (stops.length === 0) return 1;
  const first = stops[0]!;
  if (at <= first.location) return first.opacity;
  for (let i = 1; i < stops.length; i++) {
    const b = stops[i]!;
    if (at > b.location) continue;
    const a = stops[i - 1]!;
    return b.location === a.location ? b.opacity : a.opacity + ((b.opacity - a.opacity) * (at - a.location)) / (b.location - a.location);
  }
  return stops[stops.length - 1]!.opacity;
}

/**
 * A fill record as typed settings, in the shape `layer:create` takes: a solid colour, a gradient (stops with the
 * opacity at each colour stop as their alpha; `offset` only when the record moves the gradient), or a pattern by
 * name (which `layer:create` cannot take back). A noise gradient reads as `{type: "noise"}`.
 */
export function typedFill(content: VectorContent): { type: string; [setting: string]: unknown } {
  const color = (c: Color) => colorToRgb(c, "descriptor");
  switch (content.type) {
    case "color":
      return { type: "solid", color: colorString(color(content.color)) };
    case "solid": {
      const smooth = content.smoothness;
      const opacity = [...(content.opacityStops ?? [])]
        .map((s) => ({ opacity: Math.min(1, Math.max(0, s.opacity)), location: trueLocation(s.location, smooth) }))
        .sort((a, b) => a.location - b.location);
      const stops = [...(content.colorStops ?? [])]
        .map((s) => ({ at: trueLocation(s.location, smooth), color: color(s.color), midpoint: s.midpoint }))
        .sort((a, b) => a.at - b.at)
        .map((s) => ({
          location: round(s.at * 100),
          color: colorString(s.color, opacityAt(opacity, s.at) * 255),
          ...(Number.isFinite(s.midpoint) && Math.abs(s.midpoint - 0.5) > 1e-6 ? { midpoint: round(s.midpoint * 100) } : {}),
        }));
      const offset = content.offset;
      return {
        type: "gradient",
        style: content.style ?? "linear",
        stops,
        angle: round(content.angle ?? 90),
        scale: round((content.scale ?? 1) * 100),
        reverse: content.reverse === true,
        align: content.align !== false,
        ...(smooth !== undefined && Number.isFinite(smooth) && smooth !== 1 ? { smoothness: round(smooth * 100) } : {}),
        ...(content.interpolationMethod !== undefined && content.interpolationMethod !== "classic" ? { interpolation: content.interpolationMethod } : {}),
        ...(offset !== undefined && (offset.x !== 0 || offset.y !== 0) ? { offset: { x: round(offset.x * 100), y: round(offset.y * 100) } } : {}),
      };
    }
    case "pattern":
      return { type: "pattern", name: content.name, id: content.id };
    default:
      return { type: "noise" };
  }
}

const round = (v: number) => Math.round(v * 1000) / 1000;
