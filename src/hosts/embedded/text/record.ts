/**
 * A text layer's settings and the PSD's text record (ag-psd's `LayerTextData`), both ways. A layer this editor drew
 * keeps the settings it was drawn with (`EngineText`, in its record beside the PSD text, left out of saves) and
 * writes a text record from them, so Photoshop opens the file with a text layer of the same text, font, size and
 * colour. A text layer opened from a PSD reads its settings from the record: its first style run's font, size,
 * colour, tracking, leading and baseline shift, the paragraph's justification, the anti-aliasing method, and the
 * transform's origin (point text) or box.
 *
 * Sizes: Photoshop's text engine keeps sizes in pixels of the text's own space (points at 72 ppi), scaled by the
 * layer's transform; a size in points is that × the transform's vertical scale × 72 / the document's resolution.
 */
import type { AntiAlias, Color, Justification, LayerTextData } from "ag-psd";
import type { LayerText } from "../../../protocol/index.js";
import { POINTS_PER_INCH } from "../../../protocol/text.js";
import type { TextSpec } from "../../edits.js";
import type { Rgba } from "../../host.js";

/** What this editor drew a text layer with: the settings as resolved, and the faces it used. */
export interface EngineText {
  readonly spec: TextSpec;
  /** The face drawn, by PostScript name. */
  readonly font: string;
  readonly fallbackFonts: readonly string[];
}

const hex = (v: number): string => Math.round(v).toString(16).padStart(2, "0");

/** `#rrggbb`, `#rrggbbaa` when not opaque. */
export function colorString([r, g, b, a]: Rgba): string {
  return `#${hex(r)}${hex(g)}${hex(b)}${a === 255 ? "" : hex(a)}`;
}

const JUSTIFICATION: Record<TextSpec["alignment"], Justification> = { left: "left", center: "center", right: "right", justify: "justify-left" };

/** The PSD text record of a layer this editor drew at `resolution`. */
export function textRecord(engine: EngineText, resolution: number): LayerTextData {
  const { spec } = engine;
  const pixelsPerPoint = resolution / POINTS_PER_INCH;
  const origin = spec.box === undefined ? spec.position! : { x: spec.box.x, y: spec.box.y };
  return {
    text: spec.text.replace(/\n/g, "\r"),
    transform: [1, 0, 0, 1, origin.x, origin.y],
    antiAlias: spec.antiAlias satisfies AntiAlias,
    orientation: "horizontal",
    shapeType: spec.box === undefined ? "point" : "box",
    ...(spec.box === undefined ? {} : { boxBounds: [0, 0, spec.box.width, spec.box.height] }),
    style: {
      font: { name: engine.font },
      fontSize: spec.size * pixelsPerPoint,
      fillColor: { r: spec.color[0], g: spec.color[1], b: spec.color[2] },
      tracking: spec.tracking,
      ...(spec.baselineShift === undefined ? {} : { baselineShift: spec.baselineShift * pixelsPerPoint }),
      autoLeading: spec.leading === undefined,
      ...(spec.leading === undefined ? {} : { leading: spec.leading * pixelsPerPoint }),
    },
    paragraphStyle: { justification: JUSTIFICATION[spec.alignment] },
  };
}

/** The layer's settings as `HostLayer.text` answers them. */
export function engineLayerText(engine: EngineText): LayerText {
  const { spec } = engine;
  return {
    text: spec.text,
    font: engine.font,
    size: spec.size,
    color: colorString(spec.color),
    ...(spec.box === undefined ? { position: spec.position! } : { box: spec.box }),
    alignment: spec.alignment,
    ...(spec.leading === undefined ? {} : { leading: spec.leading }),
    tracking: spec.tracking,
    ...(spec.baselineShift === undefined || spec.baselineShift === 0 ? {} : { baselineShift: spec.baselineShift }),
    antiAlias: spec.antiAlias,
    ...(spec.direction === undefined ? {} : { direction: spec.direction }),
    ...(spec.script === undefined ? {} : { script: spec.script }),
    ...(spec.language === undefined ? {} : { language: spec.language }),
    ...(engine.fallbackFonts.length === 0 ? {} : { fallbackFonts: [...engine.fallbackFonts] }),
  };
}

function rgba(color: Color | undefined): Rgba {
  if (color !== undefined && "r" in color) return [color.r, color.g, color.b, 255];
  if (color !== undefined && "fr" in color) return [color.fr * 255, color.fg * 255, color.fb * 255, 255];
  return [0, 0, 0, 255];
}

/** Photoshop's methods by their record names; the platform's own ("Windows", "Mac") are read as `smooth`. */
const ANTI_ALIAS: Record<AntiAlias, LayerText["antiAlias"]> = { none: "none", sharp: "sharp", crisp: "crisp", strong: "strong", smooth: "smooth", platform: "smooth", platformLCD: "smooth" };

const ALIGNMENT: Partial<Record<Justification, TextSpec["alignment"]>> = { left: "left", center: "center", right: "right" };

/**
 * The settings of a text layer opened from a PSD, read from its text record at the document's `resolution`:
 * the first style run's (or the default style's) font, size and colour; undefined for a record without text.
 */
export function recordLayerText(record: LayerTextData | undefined, resolution: number): LayerText | undefined {
  if (record === undefined || typeof record.text !== "string") return undefined;
  const style = { ...record.style, ...record.styleRuns?.[0]?.style };
  const [xx = 1, xy = 0, yx = 0, yy = 1, tx = 0, ty = 0] = record.transform ?? [];
  const scale = Math.hypot(yx, yy) || Math.hypot(xx, xy) || 1;
  const pointsPerPixel = POINTS_PER_INCH / resolution;
  const size = (style.fontSize ?? 12) * scale * pointsPerPixel;
  const justification = record.paragraphStyle?.justification ?? record.paragraphStyleRuns?.[0]?.style?.justification ?? "left";
  const box = record.shapeType === "box" && record.boxBounds !== undefined && record.boxBounds.length === 4 ? record.boxBounds : undefined;
  return {
    text: record.text.replace(/\r\n?/g, "\n"),
    font: style.font?.name ?? "",
    size: Math.round(size * 1000) / 1000,
    color: colorString(rgba(style.fillColor)),
    ...(box === undefined
      ? { position: { x: tx, y: ty } }
      : { box: { x: tx + box[0]! * scale, y: ty + box[1]! * scale, width: (box[2]! - box[0]!) * scale, height: (box[3]! - box[1]!) * scale } }),
    alignment: ALIGNMENT[justification] ?? (justification.startsWith("justify") ? "justify" : "left"),
    ...(style.autoLeading === false && style.leading !== undefined ? { leading: style.leading * scale * pointsPerPixel } : {}),
    tracking: style.tracking ?? 0,
    ...(style.baselineShift ? { baselineShift: Math.round(style.baselineShift * scale * pointsPerPixel * 1000) / 1000 } : {}),
    antiAlias: ANTI_ALIAS[record.antiAlias ?? "smooth"] ?? "smooth",
    ...(record.orientation === "vertical" ? { direction: "ttb" as const } : {}),
  };
}
