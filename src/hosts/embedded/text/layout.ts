/**
 * Laying text out: paragraphs (split at `\n`) given their embedding levels by the Unicode bidirectional algorithm,
 * cut into runs of one face and one level (a character the face lacks goes to a fallback face), each run shaped by
 * HarfBuzz in its direction with its paragraph as context, lines broken at the Unicode line break opportunities
 * where a box is narrower than a paragraph (a word longer than the box is cut between letters), then each line's
 * clusters put in visual order by their levels and placed: aligned to the point or the box, baselines `leading`
 * apart, `tracking` added after each character, the glyphs moved up by the baseline shift.
 *
 * Not done: hyphenation.
 */
import { POINTS_PER_INCH } from "../../../protocol/text.js";
import type { TextSpec } from "../../edits.js";
import { bidiLevels, visualOrder } from "./bidi.js";
import { breakOpportunities } from "./breaks.js";
import type { FontCatalogue, FontFace } from "./catalogue.js";
import { isRtl, type LoadedFace, loadFace, shapeRun } from "./shaper.js";

/** Automatic leading as a share of the type size: Photoshop's (120 %). */
export const AUTO_LEADING = 1.2;

/** A glyph placed in the document: its face, id, and origin on the baseline in document pixels. */
export interface PlacedGlyph {
  readonly face: LoadedFace;
  readonly glyph: number;
  readonly x: number;
  readonly y: number;
}

/** A laid-out text: its glyphs, the pixels per font unit of each face, and what it used. */
export interface TextLayout {
  readonly glyphs: PlacedGlyph[];
  /** Type size in pixels. */
  readonly sizePixels: number;
  /** The face `font` named. */
  readonly primary: FontFace;
  /** Faces other than `primary` that drew characters, by PostScript name. */
  readonly fallbackFonts: string[];
  /** Lines laid out, and how many of them fit in the box (all, for point text). */
  readonly lines: number;
  readonly shownLines: number;
}

/**
 * How far below a box's top its first baseline sits, in font units: Adobe's "ascent" first baseline (Illustrator's
 * default, and what Photoshop's paragraph text measured in the PSD corpus shows), the height of the letter d; for a
 * font without a d, its ascender.
 */
function firstBaselineOffset(face: LoadedFace): number {
  const d = shapeRun(face, "d", { direction: "ltr" }).glyphs[0];
  const extents = d === undefined || d.glyph === 0 ? undefined : face.font.glyphExtents(d.glyph);
  return extents === undefined || extents.yBearing <= 0 ? face.ascender : extents.yBearing;
}

/** One cluster of a paragraph (one or more characters shaped together), with its glyphs in visual order. */
interface Cluster {
  readonly start: number;
  readonly face: LoadedFace;
  /** Embedding level of its run (odd: right to left). */
  readonly level: number;
  readonly glyphs: ReadonlyArray<{ glyph: number; dx: number; x: number; y: number }>;
  /** Width in pixels, tracking included. */
  readonly width: number;
  /** Whether it is white space (which may hang past a box's edge and is not counted in a line's width). */
  readonly space: boolean;
  /** Whether a line may break after it. */
  readonly breakAfter: boolean;
}

/** Characters that take the face of the character before them: marks, joiners, variation selectors. */
const STICKY = /^(?:\p{M}|\u200c|\u200d|[\ufe00-\ufe0f])$/u;
const SPACE = /^\s+$/u;

/** A paragraph's runs: `[start, end)` UTF-16 ranges of one face and one embedding level. */
async function itemize(paragraph: string, levels: Uint8Array, primary: FontFace, catalogue: FontCatalogue): Promise<Array<{ start: number; end: number; face: FontFace; level: number }>> {
  const runs: Array<{ start: number; end: number; face: FontFace; level: number }> = [];
  let index = 0;
  for (const char of paragraph) {
    const codePoint = char.codePointAt(0)!;
    const last = runs.at(-1);
    let face: FontFace = primary;
    if (last !== undefined && STICKY.test(char)) face = last.face;
    else if (!(await catalogue.covers(primary, codePoint)) && !SPACE.test(char)) face = (await catalogue.fallback(primary, codePoint)) ?? primary;
    // A mark stays in the run of the letter it sits on, whatever level the algorithm gave it.
    const level = last !== undefined && STICKY.test(char) ? last.level : levels[index]!;
    if (last !== undefined && last.face === face && last.level === level) last.end = index + char.length;
    else runs.push({ start: index, end: index + char.length, face, level });
    index += char.length;
  }
  return runs;
}

/** A paragraph shaped into clusters, in logical order, and the paragraph's own embedding level. */
async function shapeParagraph(paragraph: string, spec: TextSpec, primary: FontFace, catalogue: FontCatalogue, sizePixels: number, used: Set<FontFace>): Promise<{ clusters: Cluster[]; level: number }> {
  // The base direction: the one asked, else the script's when one is given, else the first letter's.
  const base = spec.direction === "rtl" || spec.direction === "ltr" ? spec.direction : spec.script !== undefined ? (isRtl("", { script: spec.script }) ? "rtl" : "ltr") : undefined;
  const bidi = bidiLevels(paragraph, base);
  const runs = await itemize(paragraph, bidi.levels, primary, catalogue);
  const breaks = breakOpportunities(paragraph, spec.language);
  const clusters: Cluster[] = [];
  const tracking = (spec.tracking / 1000) * sizePixels;
  for (const run of runs) {
    const face = await loadFace(run.face);
    if (run.face !== primary) used.add(run.face);
    const shaped = shapeRun(face, paragraph.slice(run.start, run.end), { direction: run.level % 2 === 1 ? "rtl" : "ltr", script: spec.script, language: spec.language }, { paragraph, start: run.start });
    const scale = sizePixels / face.upem;
    // Glyphs come in visual order; a cluster's glyphs stay together in it.
    const byCluster = new Map<number, Array<{ glyph: number; dx: number; x: number; y: number }>>();
    for (const g of shaped.glyphs) {
      const list = byCluster.get(g.cluster) ?? [];
      list.push({ glyph: g.glyph, dx: g.xAdvance * scale, x: g.xOffset * scale, y: g.yOffset * scale });
      byCluster.set(g.cluster, list);
    }
    const starts = [...byCluster.keys()].sort((a, b) => a - b);
    for (const [i, start] of starts.entries()) {
      const glyphs = byCluster.get(start)!;
      const end = starts[i + 1] ?? run.end;
      const text = paragraph.slice(start, end);
      const width = glyphs.reduce((sum, g) => sum + g.dx, 0) + tracking * [...text].length;
      clusters.push({ start, face, level: run.level, glyphs, width, space: SPACE.test(text), breakAfter: breaks.has(end) });
    }
  }
  return { clusters, level: bidi.level };
}

/** Cuts a paragraph's clusters into lines no wider than `width` (undefined: one line). */
function breakLines(clusters: readonly Cluster[], width: number | undefined): Cluster[][] {
  if (width === undefined || clusters.length === 0) return [clusters.slice()];
  const lines: Cluster[][] = [];
  let line: Cluster[] = [];
  let lineWidth = 0;
  let lastBreak = -1;
  for (const cluster of clusters) {
    if (line.length > 0 && !cluster.space && lineWidth + cluster.width > width) {
      const cut = lastBreak >= 0 ? lastBreak + 1 : line.length;
      lines.push(line.slice(0, cut));
      line = line.slice(cut);
      lineWidth = line.reduce((sum, c) => sum + c.width, 0);
      lastBreak = -1;
    }
    line.push(cluster);
    lineWidth += cluster.width;
    if (cluster.breakAfter) lastBreak = line.length - 1;
  }
  lines.push(line);
  return lines;
}

/**
 * The levels a line's clusters are ordered by: their runs' levels, except that the white space a line ends with
 * takes the paragraph's level (rule L1), so it stays at the line's end in either direction.
 */
function lineLevels(line: readonly Cluster[], paragraph: number): number[] {
  const levels = line.map((c) => c.level);
  for (let i = line.length - 1; i >= 0 && line[i]!.space; i--) levels[i] = paragraph;
  return levels;
}

/** The width a line shows: without the spaces it ends with. */
function shownWidth(line: readonly Cluster[]): number {
  let end = line.length;
  while (end > 0 && line[end - 1]!.space) end--;
  return line.slice(0, end).reduce((sum, c) => sum + c.width, 0);
}

/**
 * Lays out a text layer's text at `resolution` (pixels per inch): what `render.ts` draws.
 * @throws BridgeError `FONT_NOT_FOUND` for a font the editor does not have
 */
export async function layoutText(spec: TextSpec, resolution: number, catalogue: FontCatalogue): Promise<TextLayout> {
  const pixelsPerPoint = resolution / POINTS_PER_INCH;
  const sizePixels = spec.size * pixelsPerPoint;
  const leading = (spec.leading ?? spec.size * AUTO_LEADING) * pixelsPerPoint;
  const primary = await catalogue.find(spec.font);
  const primaryFace = await loadFace(primary);
  const used = new Set<FontFace>();
  const box = spec.box;
  const lines: Array<{ clusters: Cluster[]; level: number; last: boolean }> = [];
  for (const paragraph of spec.text.replace(/\r\n?/g, "\n").split("\n")) {
    const { clusters, level } = await shapeParagraph(paragraph, spec, primary, catalogue, sizePixels, used);
    const broken = breakLines(clusters, box?.width);
    for (const [i, line] of broken.entries()) lines.push({ clusters: line, level, last: i === broken.length - 1 });
  }
  const shift = (spec.baselineShift ?? 0) * pixelsPerPoint;
  const firstBaseline = (box === undefined ? spec.position!.y : box.y + (firstBaselineOffset(primaryFace) * sizePixels) / primaryFace.upem) - shift;
  const descent = (-primaryFace.descender * sizePixels) / primaryFace.upem;
  const glyphs: PlacedGlyph[] = [];
  let shownLines = 0;
  for (const [index, line] of lines.entries()) {
    const baseline = firstBaseline + index * leading;
    // A box shows the lines that fit in it, as Photoshop's paragraph text does (the shift does not count).
    if (box !== undefined && baseline + shift + descent > box.y + box.height + 0.5 && index > 0) break;
    shownLines++;
    const width = shownWidth(line.clusters);
    const spaces = line.clusters.filter((c, i) => c.space && i < line.clusters.length - 1).length;
    const justify = spec.alignment === "justify" && box !== undefined && !line.last && spaces > 0 ? (box.width - width) / spaces : 0;
    const anchor = box === undefined ? spec.position!.x : box.x;
    const room = box === undefined ? 0 : box.width;
    const align = spec.alignment === "justify" ? "left" : spec.alignment;
    let x = align === "left" ? anchor : align === "center" ? anchor + (room - width) / 2 : anchor + room - width;
    if (box === undefined && align === "center") x = anchor - width / 2;
    if (box === undefined && align === "right") x = anchor - width;
    for (const index of visualOrder(lineLevels(line.clusters, line.level))) {
      const cluster = line.clusters[index]!;
      let pen = x;
      for (const g of cluster.glyphs) {
        glyphs.push({ face: cluster.face, glyph: g.glyph, x: pen + g.x, y: baseline - g.y });
        pen += g.dx;
      }
      x += cluster.width + (cluster.space ? justify : 0);
    }
  }
  return {
    glyphs,
    sizePixels,
    primary,
    fallbackFonts: [...used].map((f) => f.postScriptName),
    lines: lines.length,
    shownLines,
  };
}
