/**
 * Shaping by HarfBuzz (the `harfbuzzjs` build of it, WebAssembly shipped in the package): a run of text in one
 * face becomes glyph ids with advances and offsets, in font units (the face's units per em), with the direction,
 * script and language the caller set passed through and the rest guessed by HarfBuzz from the text, as `hb-shape`
 * does. Faces are loaded once and kept; their outlines come from HarfBuzz too (`outline`).
 */
import { readFile } from "node:fs/promises";
import type { FontFace } from "./catalogue.js";

type HarfBuzz = typeof import("harfbuzzjs");

let loading: Promise<HarfBuzz> | undefined;
/** HarfBuzz, loaded (its WebAssembly compiled) the first time text is shaped. */
const harfbuzz = (): Promise<HarfBuzz> => (loading ??= import("harfbuzzjs"));

/** Most faces kept loaded; the least recently used goes first. */
export const MAX_LOADED_FACES = 64;

/** A face loaded into HarfBuzz. */
export interface LoadedFace {
  readonly face: FontFace;
  readonly upem: number;
  /** Ascender and descender (negative below the baseline), font units. */
  readonly ascender: number;
  readonly descender: number;
  /** HarfBuzz's font object (scaled to the units per em). */
  readonly font: InstanceType<HarfBuzz["Font"]>;
  readonly hb: HarfBuzz;
  /** Each glyph's outline as SVG path data in font units (y up), drawn once. */
  readonly outlines: Map<number, string>;
}

const loaded = new Map<string, Promise<LoadedFace>>();

/** The face loaded into HarfBuzz (kept for later runs). */
export function loadFace(face: FontFace): Promise<LoadedFace> {
  const key = `${face.path}#${face.index}`;
  let entry = loaded.get(key);
  if (entry !== undefined) {
    loaded.delete(key);
    loaded.set(key, entry);
    return entry;
  }
  entry = (async () => {
    const hb = await harfbuzz();
    const bytes = await readFile(face.path);
    const hbFace = new hb.Face(new hb.Blob(bytes), face.index);
    const font = new hb.Font(hbFace);
    const extents = font.hExtents();
    return { face, upem: hbFace.upem, ascender: extents.ascender, descender: extents.descender, font, hb, outlines: new Map() };
  })();
  entry.catch(() => loaded.delete(key));
  loaded.set(key, entry);
  while (loaded.size > MAX_LOADED_FACES) loaded.delete(loaded.keys().next().value!);
  return entry;
}

/**
 * One glyph as shaped: its id in the face, its cluster (UTF-16 index of its first character, in the paragraph when
 * shaped with a context, else in the run), positions in font units.
 */
export interface ShapedGlyph {
  readonly glyph: number;
  readonly cluster: number;
  readonly xAdvance: number;
  readonly yAdvance: number;
  readonly xOffset: number;
  readonly yOffset: number;
}

/**
 * What a run is shaped with: the direction (undefined: from the run's first strong letter), the script and the
 * language (undefined: guessed by HarfBuzz from the text).
 */
export interface ShapeOptions {
  readonly direction?: "ltr" | "rtl" | undefined;
  /** ISO 15924 (`Arab`). */
  readonly script?: string | undefined;
  /** BCP 47 (`ar`). */
  readonly language?: string | undefined;
}

/** A shaped run: glyphs in visual order (right to left runs come reversed, as HarfBuzz gives them). */
export interface ShapedRun {
  readonly glyphs: ShapedGlyph[];
  readonly direction: "ltr" | "rtl";
}

/**
 * Shapes `text` with the face, kerning, ligatures and the script's own forms on (HarfBuzz's defaults). `context`:
 * the whole paragraph and where `text` starts in it, so letters at the run's ends join as they do in the paragraph.
 */
export function shapeRun(face: LoadedFace, text: string, options: ShapeOptions, context?: { paragraph: string; start: number }): ShapedRun {
  const { hb } = face;
  const buffer = new hb.Buffer();
  if (context === undefined) buffer.addText(text);
  else {
    // The paragraph as context, only `text` as the item to shape (hb_buffer_add_utf16's item offset and length).
    buffer.addText(context.paragraph, context.start, text.length);
  }
  const direction = isRtl(text, options) ? "rtl" : "ltr";
  buffer.setDirection(direction === "rtl" ? hb.Direction.RTL : hb.Direction.LTR);
  if (options.script !== undefined) buffer.setScript(options.script);
  if (options.language !== undefined) buffer.setLanguage(options.language);
  buffer.guessSegmentProperties();
  hb.shape(face.font, buffer);
  const infos = buffer.getGlyphInfos();
  const positions = buffer.getGlyphPositions();
  return {
    direction,
    glyphs: infos.map((info, i) => ({
      glyph: info.codepoint,
      cluster: info.cluster,
      xAdvance: positions[i]!.xAdvance,
      yAdvance: positions[i]!.yAdvance,
      xOffset: positions[i]!.xOffset,
      yOffset: positions[i]!.yOffset,
    })),
  };
}

/** Right to left when asked, or when the text's first strong letter is of a right-to-left script. */
export function isRtl(text: string, options: ShapeOptions): boolean {
  if (options.direction !== undefined) return options.direction === "rtl";
  if (options.script !== undefined) return RTL_SCRIPTS.has(options.script);
  const strong = /[\p{L}]/u.exec(text)?.[0];
  return strong !== undefined && RTL_LETTER.test(strong);
}

const RTL_SCRIPTS = new Set(["Arab", "Hebr", "Syrc", "Thaa", "Nkoo", "Adlm", "Rohg", "Mand", "Samr"]);
const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Adlam}\p{Script=Mandaic}\p{Script=Samaritan}]/u;

/** A glyph's outline, SVG path data in font units with y up (drawn once per face). */
export function outline(face: LoadedFace, glyph: number): string {
  let d = face.outlines.get(glyph);
  if (d === undefined) {
    d = face.font.glyphToPath(glyph);
    face.outlines.set(glyph, d);
  }
  return d;
}
