/**
 * Drawing laid-out text: each glyph's HarfBuzz outline placed in one SVG, rasterised by sharp (librsvg: the same
 * rasteriser as the editor's other vector drawing), its coverage taken as the layer's alpha and the colour laid on
 * it. Each of Photoshop's anti-aliasing methods is a weight and a contrast (`ANTI_ALIAS_METHODS`); `none` draws with
 * crisp edges and keeps only pixels at least half covered.
 */
import sharp from "sharp";
import type { Rgba } from "../../host.js";
import type { HostRect, TEXT_ANTI_ALIAS } from "../../../protocol/index.js";
import { outline } from "./shaper.js";
import type { TextLayout } from "./layout.js";

/** The pixels of a text layer: where they sit in the document, and RGBA bytes (empty for text with no ink). */
export interface TextPixels {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
  readonly data: Uint8ClampedArray;
}

const round = (v: number): string => (Math.round(v * 1000) / 1000).toString();

/** The box the glyphs' ink covers, in document pixels (whole pixels, outward), or undefined when none has ink. */
function inkBox(layout: TextLayout): HostRect | undefined {
  let [x0, y0, x1, y1] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  for (const g of layout.glyphs) {
    const extents = g.face.font.glyphExtents(g.glyph);
    if (extents === undefined || extents.width === 0 || extents.height === 0) continue;
    const scale = layout.sizePixels / g.face.upem;
    const left = g.x + extents.xBearing * scale;
    const right = left + extents.width * scale;
    const top = g.y - extents.yBearing * scale;
    const bottom = top - extents.height * scale;
    x0 = Math.min(x0, left, right);
    x1 = Math.max(x1, left, right);
    y0 = Math.min(y0, top, bottom);
    y1 = Math.max(y1, top, bottom);
  }
  if (!Number.isFinite(x0)) return undefined;
  // A pixel of room each side for anti-aliasing.
  const [left, top] = [Math.floor(x0) - 1, Math.floor(y0) - 1];
  return { x: left, y: top, width: Math.ceil(x1) + 1 - left, height: Math.ceil(y1) + 1 - top };
}

/** Sub-pixel positions a glyph is drawn at across and down a pixel: a glyph is drawn once per position it takes. */
export const GLYPH_SUBPIXELS = 4;

type AntiAlias = (typeof TEXT_ANTI_ALIAS)[number];

/**
 * How each anti-aliasing method draws, measured against the pixels Photoshop cached in the PSD corpus
 * (docs/editing.md "Photoshop as the referee"): `widen`, pixels the outline grows by on each edge, drawn as that
 * much more coverage in every pixel an edge crosses, the ink such a band adds there (Photoshop fits glyphs to a
 * quarter-pixel grid, which rounds thin stems up: its `smooth` text at 13 px lays 21 % more ink than the outline's
 * area, its `strong` text at 12 px 31 %); `gain`, what coverage is multiplied by (saturating at full),
 * less `floor` first: `crisp` text's coverage comes in fifteenths where `smooth`'s comes in sixteenths; `rows`,
 * whether baselines sit on whole pixel rows (`crisp` text's do, `smooth` text's fall between rows). `sharp` has no
 * sample in the corpus: it is drawn as the hardest of the four, its coverage doubled around a quarter.
 */
export const ANTI_ALIAS_METHODS: Readonly<Record<AntiAlias, { widen: number; gain: number; floor: number; rows: boolean }>> = {
  none: { widen: 0, gain: 1, floor: 0, rows: true },
  smooth: { widen: 0.1, gain: 1, floor: 0, rows: false },
  strong: { widen: 0.15, gain: 1, floor: 0, rows: false },
  crisp: { widen: 0, gain: 16 / 15, floor: 0, rows: true },
  sharp: { widen: 0, gain: 2, floor: 0.25, rows: true },
};

/** One glyph at one sub-pixel position: its outline drawn once into the atlas, at `(ax, ay)`, `width × height`. */
interface Cell {
  readonly path: string;
  readonly scale: number;
  /** The glyph's origin within its cell. */
  readonly ox: number;
  readonly oy: number;
  /** The cell's top-left corner from the glyph's whole-pixel origin. */
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
  ax: number;
  ay: number;
}

const cellKey = (face: number, glyph: number, fx: number, fy: number): string => `${face}/${glyph}/${fx}/${fy}`;

/**
 * The atlas SVG: every cell's outline placed at its spot, drawn in one pass by librsvg. Drawing each glyph once (per
 * sub-pixel position) rather than once per occurrence is what keeps a paragraph fast: librsvg has no glyph cache.
 */
export function atlasSvg(cells: readonly Cell[], width: number, height: number, antiAlias: AntiAlias): string {
  const paths = cells.map((c) => `<path transform="translate(${round(c.ax + c.ox)} ${round(c.ay + c.oy)}) scale(${round(c.scale)} ${round(-c.scale)})" d="${c.path}"/>`);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" shape-rendering="${antiAlias === "none" ? "crispEdges" : "geometricPrecision"}">` +
    `<g fill="#000">${paths.join("")}</g></svg>`
  );
}

/** A pixel's coverage (0–255) as `antiAlias` draws it. */
function covered(ink: number, antiAlias: AntiAlias): number {
  if (antiAlias === "none") return ink >= 128 ? 255 : 0;
  const { widen, gain, floor } = ANTI_ALIAS_METHODS[antiAlias];
  // A pixel an edge crosses (partly covered) gains the band the widening adds along the edge.
  const widened = ink > 0 && ink < 255 ? Math.min(255, ink + Math.round(255 * widen)) : ink;
  return gain === 1 ? widened : Math.max(0, Math.min(255, Math.round((widened - floor * 255) * gain)));
}

/**
 * The layer's pixels: the text's coverage in `color`. `box`: the paragraph box (ink outside it is cut). Checks the
 * size with `reserve` (the editor's memory and pixel limits) before drawing. Each glyph is drawn once per sub-pixel
 * position into an atlas, and the atlas's cells are added into the layer where the glyphs go.
 */
export async function renderText(layout: TextLayout, color: Rgba, antiAlias: AntiAlias, box: HostRect | undefined, reserve: (width: number, height: number) => { release(): void }): Promise<TextPixels> {
  let area = inkBox(layout);
  if (area !== undefined && box !== undefined) {
    const [x0, y0] = [Math.max(area.x, Math.floor(box.x)), Math.max(area.y, Math.floor(box.y))];
    const [x1, y1] = [Math.min(area.x + area.width, Math.ceil(box.x + box.width)), Math.min(area.y + area.height, Math.ceil(box.y + box.height))];
    area = x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : undefined;
  }
  if (area === undefined) return { left: 0, top: 0, width: 0, height: 0, data: new Uint8ClampedArray(0) };
  const held = reserve(area.width, area.height);
  try {
    // The cells, and where each glyph goes (the whole pixel its cell's corner lands on).
    const faces = new Map<object, number>();
    const cells = new Map<string, Cell>();
    const placed: Array<{ cell: Cell; x: number; y: number }> = [];
    for (const g of layout.glyphs) {
      const extents = g.face.font.glyphExtents(g.glyph);
      if (extents === undefined || extents.width === 0 || extents.height === 0) continue;
      let f = faces.get(g.face);
      if (f === undefined) {
        f = faces.size;
        faces.set(g.face, f);
      }
      // The position rounded to the nearest sub-pixel step (a whole pixel and a step within it), across and, unless
      // the method keeps baselines on whole pixel rows, down.
      const qx = Math.round(g.x * GLYPH_SUBPIXELS);
      const qy = ANTI_ALIAS_METHODS[antiAlias].rows ? Math.round(g.y) * GLYPH_SUBPIXELS : Math.round(g.y * GLYPH_SUBPIXELS);
      const [px, py] = [Math.floor(qx / GLYPH_SUBPIXELS), Math.floor(qy / GLYPH_SUBPIXELS)];
      const [fx, fy] = [qx - px * GLYPH_SUBPIXELS, qy - py * GLYPH_SUBPIXELS];
      const key = cellKey(f, g.glyph, fx, fy);
      let cell = cells.get(key);
      if (cell === undefined) {
        const scale = layout.sizePixels / g.face.upem;
        // The ink's box relative to the glyph's whole-pixel origin, a pixel of room each side.
        const left = Math.floor(fx / GLYPH_SUBPIXELS + extents.xBearing * scale) - 1;
        const top = Math.floor(fy / GLYPH_SUBPIXELS - extents.yBearing * scale) - 1;
        const right = Math.ceil(fx / GLYPH_SUBPIXELS + (extents.xBearing + extents.width) * scale) + 1;
        const bottom = Math.ceil(fy / GLYPH_SUBPIXELS - (extents.yBearing + extents.height) * scale) + 1;
        cell = { path: outline(g.face, g.glyph), scale, ox: fx / GLYPH_SUBPIXELS - left, oy: fy / GLYPH_SUBPIXELS - top, left, top, width: right - left, height: bottom - top, ax: 0, ay: 0 };
        cells.set(key, cell);
      }
      placed.push({ cell, x: px + cell.left, y: py + cell.top });
    }
    // Cells in rows of the atlas, no wider than 2048 px.
    const list = [...cells.values()];
    let [x, y, rowHeight, atlasWidth] = [0, 0, 0, 1];
    for (const cell of list) {
      if (x > 0 && x + cell.width > 2048) {
        [x, y, rowHeight] = [0, y + rowHeight, 0];
      }
      [cell.ax, cell.ay] = [x, y];
      x += cell.width;
      rowHeight = Math.max(rowHeight, cell.height);
      atlasWidth = Math.max(atlasWidth, x);
    }
    const atlasHeight = Math.max(1, y + rowHeight);
    const atlas = await sharp(Buffer.from(atlasSvg(list, atlasWidth, atlasHeight, antiAlias)), { density: 72, unlimited: true, limitInputPixels: false })
      .ensureAlpha()
      .extractChannel(3)
      .raw()
      .toBuffer();
    // Each glyph's cell added into the layer's coverage (saturating: overlapping ink stays covered).
    const coverage = new Uint8ClampedArray(area.width * area.height);
    for (const { cell, x: gx, y: gy } of placed) {
      for (let row = 0; row < cell.height; row++) {
        const ty = gy + row - area.y;
        if (ty < 0 || ty >= area.height) continue;
        for (let col = 0; col < cell.width; col++) {
          const tx = gx + col - area.x;
          if (tx < 0 || tx >= area.width) continue;
          const ink = atlas[(cell.ay + row) * atlasWidth + cell.ax + col]!;
          const at = ty * area.width + tx;
          if (ink !== 0) coverage[at] = coverage[at]! + ink;
        }
      }
    }
    const clip = box === undefined ? undefined : { x0: box.x - area.x, y0: box.y - area.y, x1: box.x + box.width - area.x, y1: box.y + box.height - area.y };
    const data = new Uint8ClampedArray(area.width * area.height * 4);
    const [r, g, b, a] = color;
    for (let i = 0, o = 0; i < coverage.length; i++, o += 4) {
      const alpha = covered(coverage[i]!, antiAlias);
      if (alpha === 0) continue;
      if (clip !== undefined) {
        const [px, py] = [i % area.width, Math.floor(i / area.width)];
        // A pixel is in the box when its centre is.
        if (px + 0.5 < clip.x0 || px + 0.5 >= clip.x1 || py + 0.5 < clip.y0 || py + 0.5 >= clip.y1) continue;
      }
      data[o] = r;
      data[o + 1] = g;
      data[o + 2] = b;
      data[o + 3] = Math.round((alpha * a) / 255);
    }
    return trimmed({ left: area.x, top: area.y, width: area.width, height: area.height, data });
  } finally {
    held.release();
  }
}

/** The pixels cut to the box their ink covers (the drawing area keeps a margin for anti-aliasing). */
function trimmed(pixels: TextPixels): TextPixels {
  const { width, height, data } = pixels;
  let [x0, y0, x1, y1] = [width, height, -1, -1];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (data[(y * width + x) * 4 + 3] === 0) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      y1 = y;
    }
  }
  if (x1 < 0) return { left: 0, top: 0, width: 0, height: 0, data: new Uint8ClampedArray(0) };
  if (x0 === 0 && y0 === 0 && x1 === width - 1 && y1 === height - 1) return pixels;
  const [w, h] = [x1 - x0 + 1, y1 - y0 + 1];
  const out = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) out.set(data.subarray(((y + y0) * width + x0) * 4, ((y + y0) * width + x0 + w) * 4), y * w * 4);
  return { left: pixels.left + x0, top: pixels.top + y0, width: w, height: h, data: out };
}
