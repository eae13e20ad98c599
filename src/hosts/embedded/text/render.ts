/**
 * Drawing laid-out text: each glyph's HarfBuzz outline placed in one SVG, rasterised by sharp (librsvg: the same
 * rasteriser as the editor's other vector drawing), its coverage taken as the layer's alpha and the colour laid on
 * it. Anti-aliasing off draws with crisp edges and keeps only fully covered pixels.
 */
import sharp from "sharp";
import type { Rgba } from "../../host.js";
import type { HostRect } from "../../../protocol/index.js";
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

/**
 * The SVG of the layout within `area` (document pixels): one path per glyph of each face, placed with `<use>`.
 * `clip`: a paragraph box the ink is cut at.
 */
export function textSvg(layout: TextLayout, area: HostRect, antiAlias: boolean, clip?: HostRect): string {
  const defs = new Map<string, string>();
  const faces = new Map<object, number>();
  const uses: string[] = [];
  for (const g of layout.glyphs) {
    let f = faces.get(g.face);
    if (f === undefined) {
      f = faces.size;
      faces.set(g.face, f);
    }
    const id = `f${f}g${g.glyph}`;
    if (!defs.has(id)) {
      const d = outline(g.face, g.glyph);
      if (d === "") continue;
      defs.set(id, `<path id="${id}" d="${d}"/>`);
    }
    const scale = layout.sizePixels / g.face.upem;
    uses.push(`<use href="#${id}" transform="translate(${round(g.x - area.x)} ${round(g.y - area.y)}) scale(${round(scale)} ${round(-scale)})"/>`);
  }
  const clipPath =
    clip === undefined ? "" : `<clipPath id="box"><rect x="${round(clip.x - area.x)}" y="${round(clip.y - area.y)}" width="${round(clip.width)}" height="${round(clip.height)}"/></clipPath>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${area.width}" height="${area.height}" viewBox="0 0 ${area.width} ${area.height}" shape-rendering="${antiAlias ? "geometricPrecision" : "crispEdges"}">` +
    `<defs>${[...defs.values()].join("")}${clipPath}</defs><g fill="#000"${clip === undefined ? "" : ' clip-path="url(#box)"'}>${uses.join("")}</g></svg>`
  );
}

/**
 * The layer's pixels: the text's coverage in `color`. `box`: the paragraph box (ink outside it is cut). Checks the
 * size with `reserve` (the editor's memory and pixel limits) before drawing.
 */
export async function renderText(layout: TextLayout, color: Rgba, antiAlias: boolean, box: HostRect | undefined, reserve: (width: number, height: number) => { release(): void }): Promise<TextPixels> {
  let area = inkBox(layout);
  if (area !== undefined && box !== undefined) {
    const [x0, y0] = [Math.max(area.x, Math.floor(box.x)), Math.max(area.y, Math.floor(box.y))];
    const [x1, y1] = [Math.min(area.x + area.width, Math.ceil(box.x + box.width)), Math.min(area.y + area.height, Math.ceil(box.y + box.height))];
    area = x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : undefined;
  }
  if (area === undefined) return { left: 0, top: 0, width: 0, height: 0, data: new Uint8ClampedArray(0) };
  const held = reserve(area.width, area.height);
  try {
    const svg = textSvg(layout, area, antiAlias, box);
    const alpha = await sharp(Buffer.from(svg), { density: 72, unlimited: true, limitInputPixels: false }).ensureAlpha().extractChannel(3).raw().toBuffer();
    const data = new Uint8ClampedArray(area.width * area.height * 4);
    const [r, g, b, a] = color;
    for (let i = 0, o = 0; i < alpha.length; i++, o += 4) {
      const coverage = antiAlias ? alpha[i]! : alpha[i]! >= 128 ? 255 : 0;
      if (coverage === 0) continue;
      data[o] = r;
      data[o + 1] = g;
      data[o + 2] = b;
      data[o + 3] = Math.round((coverage * a) / 255);
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
