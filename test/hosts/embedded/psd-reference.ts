/*
 * Test-only: rebuilds a real PSD's picture from its layer records with the modules under test (adjustments,
 * fills, vector masks) and the simplest compositing, and measures it against the composite Photoshop stored in
 * the file. Not the product's compositor: just enough of Photoshop's model (groups, pass-through, clipping, user
 * and vector masks with density) for the fixtures these tests read.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Layer, Psd } from "ag-psd";
import { initializeCanvas, readPsd } from "ag-psd";
import { applyAdjustment } from "../../../src/hosts/embedded/adjustments/index.js";
import { atopOnto } from "../../../src/hosts/embedded/clipping.js";
import { blendOnto } from "../../../src/hosts/embedded/blend.js";
import type { LayerMask } from "../../../src/hosts/embedded/document.js";
import { renderFill } from "../../../src/hosts/embedded/fills/index.js";
import { emptyRaster, type Raster } from "../../../src/hosts/embedded/raster.js";
import { rasterizeVectorMask } from "../../../src/hosts/embedded/vector-mask.js";

/** Where the psd-tools fixtures live (same relative paths as under psd-tools' `tests/psd_files`). */
export const PSD_TOOLS = fileURLToPath(new URL("../../fixtures/psd/psd-tools/", import.meta.url));

let canvasReady = false;

/** Reads a fixture with its layer pixels and Photoshop's composite. */
export function readFixture(relative: string): { psd: Psd; composite: Raster } {
  if (!canvasReady) {
    initializeCanvas(
      (width: number, height: number) => ({ width, height }) as never,
      (width: number, height: number) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) }) as never,
    );
    canvasReady = true;
  }
  const psd = readPsd(readFileSync(PSD_TOOLS + relative), { useImageData: true, skipThumbnail: true, skipLinkedFilesData: true });
  const image = psd.imageData;
  if (!image) throw new Error(`${relative} has no composite`);
  return { psd, composite: { width: image.width, height: image.height, data: Uint8ClampedArray.from(image.data) } };
}

/** What to take from the modules under test; everything else comes from the pixels Photoshop cached. */
export interface RenderChoice {
  /** Apply adjustment layers (else they are skipped). */
  readonly adjustments: boolean;
  /** Render fill layers with `renderFill` (else their cached pixels). */
  readonly fills: boolean;
  /** Rasterise vector masks with `rasterizeVectorMask` (else Photoshop's cached rendering of them). */
  readonly vectorMasks: boolean;
}

/** The document rebuilt from its records. */
export function renderFixture(psd: Psd, choice: RenderChoice): Raster {
  const canvas = emptyRaster(psd.width, psd.height);
  drawLayers(canvas, psd.children ?? [], psd, choice);
  return canvas;
}

function drawLayers(canvas: Raster, layers: readonly Layer[], psd: Psd, choice: RenderChoice): void {
  // ag-psd lists children bottom-most first; a clipped run composites into its base's buffer.
  for (let i = 0; i < layers.length; i++) {
    const layer = layers[i]!;
    if (layer.hidden) continue;
    let end = i + 1;
    while (end < layers.length && layers[end]!.clipping) end++;
    // A run clipped to an adjustment shows wherever the adjustment does: here, everywhere its mask allows (drawn as is).
    if (end === i + 1 || layer.children || layer.adjustment) {
      drawLayer(canvas, layer, psd, choice);
      if (layer.adjustment) for (const clipped of layers.slice(i + 1, end)) if (!clipped.hidden) drawLayer(canvas, clipped, psd, choice);
      if (layer.adjustment) i = end - 1;
    } else {
      const group = emptyRaster(canvas.width, canvas.height);
      drawLayer(group, { ...layer, opacity: 1, blendMode: "normal" }, psd, choice);
      for (const clipped of layers.slice(i + 1, end)) if (!clipped.hidden) drawLayer(group, clipped, psd, choice, true);
      blendOnto(canvas, group, { dx: 0, dy: 0, opacity: layer.opacity ?? 1, blendMode: layer.blendMode ?? "normal" });
      i = end - 1;
    }
  }
}

function drawLayer(canvas: Raster, layer: Layer, psd: Psd, given: RenderChoice, atop = false): void {
  // Strokes and layer effects are not these modules' business: such layers draw from the pixels Photoshop cached.
  const decorated = layer.vectorStroke?.strokeEnabled === true || hasEffects(layer);
  const choice = decorated ? { ...given, fills: false, vectorMasks: false } : given;
  const opacity = (layer.opacity ?? 1) * (layer.children ? 1 : (layer.fillOpacity ?? 1));
  const mode = layer.blendMode ?? "normal";
  const mask = layerMask(layer, psd, choice);
  const placed = mask ? { mask, dx: 0, dy: 0 } : undefined;
  if (layer.children) {
    drawGroup(canvas, layer.children, { opacity, mode, mask }, psd, choice);
  } else if (layer.adjustment) {
    if (choice.adjustments) drawAdjustment(canvas, applyAdjustment(layer.adjustment, canvas, { grayscale: psd.colorMode === 1 }), { opacity, mode, mask });
  } else {
    const content = layerContent(layer, psd, choice);
    if (!content) return;
    if (atop) atopOnto(canvas, content.pixels, { dx: content.left, dy: content.top, opacity, blendMode: mode, placed });
    else blendOnto(canvas, content.pixels, { dx: content.left, dy: content.top, opacity, blendMode: mode, placed });
  }
}

interface Blend {
  readonly opacity: number;
  readonly mode: string;
  readonly mask: LayerMask | undefined;
}

/** An isolated group, or a pass-through one drawn straight onto the backdrop (faded toward it by opacity and mask). */
function drawGroup(canvas: Raster, children: readonly Layer[], blend: Blend, psd: Psd, choice: RenderChoice): void {
  const { opacity, mode, mask } = blend;
  if (mode === "pass through" && !mask && opacity === 1) {
    drawLayers(canvas, children, psd, choice);
    return;
  }
  const group = mode === "pass through" ? { ...canvas, data: canvas.data.slice() } : emptyRaster(canvas.width, canvas.height);
  drawLayers(group, children, psd, choice);
  if (mode === "pass through") mixInto(canvas, group, opacity, mask);
  else blendOnto(canvas, group, { dx: 0, dy: 0, opacity, blendMode: mode, placed: mask ? { mask, dx: 0, dy: 0 } : undefined });
}

/** The adjusted backdrop drawn over the backdrop with the layer's blend, its alpha kept. */
function drawAdjustment(canvas: Raster, adjusted: Raster, blend: Blend): void {
  const { opacity, mode, mask } = blend;
  if (mode === "normal") {
    mixInto(canvas, adjusted, opacity, mask);
    return;
  }
  const before = canvas.data.slice();
  blendOnto(canvas, adjusted, { dx: 0, dy: 0, opacity, blendMode: mode, placed: mask ? { mask, dx: 0, dy: 0 } : undefined });
  for (let i = 3; i < before.length; i += 4) canvas.data[i] = before[i]!;
}

/** A layer's own pixels: its fill rendered over the canvas (when chosen), else what Photoshop cached. */
function layerContent(layer: Layer, psd: Psd, choice: RenderChoice): { pixels: Raster; left: number; top: number } | undefined {
  if (layer.vectorFill && choice.fills && layer.vectorFill.type !== "noise") {
    const pixels = renderFill(layer.vectorFill, { left: 0, top: 0, right: psd.width, bottom: psd.height }, {
      width: psd.width,
      height: psd.height,
      patterns: psd.patterns,
      layerBounds: fillBounds(layer, psd),
      origin: layer.referencePoint,
    });
    return { pixels, left: 0, top: 0 };
  }
  const image = layer.imageData;
  if (!image || image.width === 0) return undefined;
  return { pixels: { width: image.width, height: image.height, data: Uint8ClampedArray.from(image.data) }, left: layer.left ?? 0, top: layer.top ?? 0 };
}

function hasEffects(layer: Layer): boolean {
  const effects = layer.effects;
  if (!effects || effects.disabled) return false;
  return Object.values(effects).some((effect) => (Array.isArray(effect) ? effect : [effect]).some((e) => typeof e === "object" && e !== null && (e as { enabled?: boolean }).enabled === true));
}

/** The box a fill aligns with: its vector mask's paths, else the layer's pixels, else the canvas. */
function fillBounds(layer: Layer, psd: Psd): { left: number; top: number; right: number; bottom: number } {
  const points = (layer.vectorMask?.paths ?? []).flatMap((path) => path.knots.flatMap((knot) => [[knot.points[2]!, knot.points[3]!]]));
  if (points.length > 0) {
    const xs = points.map((p) => p[0]!);
    const ys = points.map((p) => p[1]!);
    return { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) };
  }
  return { left: 0, top: 0, right: psd.width, bottom: psd.height };
}

/** `canvas += (target − canvas) · opacity · mask` in premultiplied colour (an adjustment or a pass-through group). */
function mixInto(canvas: Raster, target: Raster, opacity: number, mask: LayerMask | undefined): void {
  const d = canvas.data;
  const t = target.data;
  for (let y = 0; y < canvas.height; y++) {
    for (let x = 0; x < canvas.width; x++) {
      const w = opacity * (maskAt(mask, x, y) / 255);
      if (w === 0) continue;
      const i = (y * canvas.width + x) * 4;
      const ab = d[i + 3]! / 255;
      const at = t[i + 3]! / 255;
      const ao = ab + (at - ab) * w;
      for (let c = 0; c < 3; c++) d[i + c] = ao > 0 ? (d[i + c]! * ab + (t[i + c]! * at - d[i + c]! * ab) * w) / ao : 0;
      d[i + 3] = ao * 255;
    }
  }
}

function maskAt(mask: LayerMask | undefined, x: number, y: number): number {
  if (!mask) return 255;
  const mx = x - mask.x;
  const my = y - mask.y;
  return mx >= 0 && my >= 0 && mx < mask.width && my < mask.height ? mask.data[my * mask.width + mx]! : mask.defaultColor;
}

/** The layer's user mask (with its density) times its vector mask, over the whole canvas; undefined when it has neither. */
function layerMask(layer: Layer, psd: Psd, choice: RenderChoice): LayerMask | undefined {
  const fromVector = layer.mask?.fromVectorData === true;
  const user = fromVector ? layer.realMask : layer.mask;
  const masks: Array<(x: number, y: number) => number> = [];
  if (user && !user.disabled) masks.push(withDensity(toMask(user), user.userMaskDensity ?? layer.mask?.userMaskDensity));
  const vector = layer.vectorMask;
  if (vector && !vector.disable) {
    const density = layer.mask?.vectorMaskDensity;
    if (choice.vectorMasks) {
      const mask = rasterizeVectorMask(vector, psd, density === undefined ? {} : { density: density * 255 });
      masks.push((x, y) => maskAt(mask, x, y));
    } else if (fromVector && layer.mask) {
      masks.push(withDensity(toMask(layer.mask), density));
    }
  }
  if (masks.length === 0) return undefined;
  const data = new Uint8Array(psd.width * psd.height);
  for (let y = 0; y < psd.height; y++) {
    for (let x = 0; x < psd.width; x++) data[y * psd.width + x] = masks.reduce((v, m) => (v * m(x, y)) / 255, 255);
  }
  return { x: 0, y: 0, width: psd.width, height: psd.height, data, defaultColor: 0 };
}

function toMask(mask: NonNullable<Layer["mask"]>): LayerMask {
  const image = mask.imageData;
  const defaultColor = (mask.defaultColor ?? 0) >= 128 ? 255 : 0;
  const x = mask.left ?? 0;
  const y = mask.top ?? 0;
  if (!image || image.width === 0) return { x, y, width: 0, height: 0, data: new Uint8Array(0), defaultColor };
  const data = new Uint8Array(image.width * image.height);
  for (let i = 0; i < data.length; i++) data[i] = image.data[i * 4]!;
  return { x, y, width: image.width, height: image.height, data, defaultColor };
}

/** A mask's value at a point, at `density` (0–1): `255 − density · (255 − m)`. */
function withDensity(mask: LayerMask, density: number | undefined): (x: number, y: number) => number {
  const d = density ?? 1;
  return (x, y) => 255 - d * (255 - maskAt(mask, x, y));
}

/** How far two pictures are apart, flattened over white and over black (the worse of the two counts). */
export interface Difference {
  /** Root-mean-square difference of the colour channels, 0–255. */
  readonly rmse: number;
  /** Share of pixels with a channel more than 5 levels off. */
  readonly share: number;
}

/** Compares a rendering with Photoshop's composite, over the whole canvas or the part of it `region` covers. */
export function difference(rendered: Raster, composite: Raster, region?: { left: number; top: number; right: number; bottom: number }): Difference {
  const { left, top, right, bottom } = region ?? { left: 0, top: 0, right: rendered.width, bottom: rendered.height };
  const pixels: number[] = [];
  for (let y = top; y < bottom; y++) for (let x = left; x < right; x++) pixels.push(y * rendered.width + x);
  let worst: Difference = { rmse: 0, share: 0 };
  for (const bg of [255, 0]) {
    let sum = 0;
    let off = 0;
    const n = pixels.length;
    for (const i of pixels) {
      let pixelOff = false;
      for (let c = 0; c < 3; c++) {
        const a = flat(rendered.data, i, c, bg);
        const b = flat(composite.data, i, c, bg);
        sum += (a - b) ** 2;
        if (Math.abs(a - b) > 5) pixelOff = true;
      }
      if (pixelOff) off++;
    }
    const rmse = Math.sqrt(sum / (n * 3));
    worst = { rmse: Math.max(worst.rmse, rmse), share: Math.max(worst.share, off / n) };
  }
  return worst;
}

function flat(data: Uint8ClampedArray, i: number, c: number, bg: number): number {
  const a = data[i * 4 + 3]! / 255;
  return Math.round(data[i * 4 + c]! * a + bg * (1 - a));
}

/** Whether a difference counts as "close" (what a reader would not tell apart). */
export function isClose(d: Difference): boolean {
  return d.share <= 0.01 && d.rmse <= 3;
}
