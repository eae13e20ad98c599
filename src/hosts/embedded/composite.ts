/**
 * Compositing of the layer tree in straight RGBA with the W3C compositing formula:
 * `co·αo = αs·((1 − αb)·Cs + αb·B(Cb, Cs)) + (1 − αs)·αb·Cb`, `αo = αs + αb·(1 − αs)`.
 * `αs` is the layer's alpha × its opacity × its mask. Separable modes apply `B` per channel; hue, saturation,
 * color, luminosity, darker/lighter color use the W3C non-separable definitions. `dissolve` draws each pixel
 * whole or not at all, with a chance of its alpha (a fixed pattern per layer pixel, so renders are repeatable;
 * Photoshop's own pattern is not reproduced); unknown names composite as `normal`. Every render takes an optional {@link RowWork} that its pixel loops report their rows to
 * (see {@link renderRows} for how many a render visits); it throws to stop a cancelled render.
 */
import type { HostBounds } from "../../protocol/index.js";
import type { DocumentContent, EmbeddedLayer, GroupLayer, LayerMask, PixelLayer } from "./document.js";
import type { Raster } from "./raster.js";
import { boundsToRect, cropRaster, emptyRaster, isEmptyBounds } from "./raster.js";
import { layerBounds } from "./tree.js";
import { copyOnto, normalOnto, overlap, separableOnto } from "./pixel-loops.js";
import { ROW_BAND, type RowWork } from "./work.js";
import { BLEND_FUNCTIONS, blendTable, NON_SEPARABLE, type Rgb } from "./blend-modes.js";
import { atopOnto } from "./clipping.js";
import { effectiveMask, productMask } from "./masks.js";
import { knockOutOnto } from "./knockout.js";
import { artboardCanvas, artboardRect, clipToArtboard } from "./artboard.js";
import { drawRecordedLayer, recordedRows } from "./content-layers.js";
import { drawLayer, hasActiveEffects, layerRows, type StyleContext, styleContext } from "./effects/index.js";
import { blendInSpace, blendSpaceOf, inSpace, lerpInSpace } from "./blend-space.js";

/** A mask placed in the destination raster's coordinates. */
interface PlacedMask {
  readonly mask: LayerMask;
  readonly dx: number;
  readonly dy: number;
}

/**
 * Composites `src` onto `dst` in place, `src`'s top-left at `(dx, dy)` in `dst`, with `opacity` (0–1), a PSD
 * blend mode and optionally a layer mask placed at `(mask.dx, mask.dy)` in `dst`.
 */
export function blendOnto(
  dst: Raster,
  src: Raster,
  dx: number,
  dy: number,
  opacity: number,
  blendMode: string,
  placed?: PlacedMask,
  work?: RowWork,
): void {
  const dissolve = blendMode === "dissolve";
  if (dst.space !== undefined) {
    blendInSpace(dst.space, dst, src, dx, dy, { opacity, blendMode, placed, ...(dissolve ? { dissolve: dissolveThreshold } : {}) }, work);
    return;
  }
  if (!placed && !dissolve && !BLEND_FUNCTIONS[blendMode] && !NON_SEPARABLE[blendMode]) {
    normalOnto(dst, src, dx, dy, opacity, work);
    return;
  }
  const blend = BLEND_FUNCTIONS[blendMode];
  if (!placed && blend) {
    separableOnto(dst, src, dx, dy, opacity, blendTable(blendMode, blend), work);
    return;
  }
  const table = blend ? blendTable(blendMode, blend) : undefined;
  const nonSeparable = NON_SEPARABLE[blendMode];
  const box = overlap(dst, src, dx, dy);
  if (box === null) return;
  let { x0, y0, x1, y1 } = box;
  // Rows the mask rectangle hides are skipped, but still counted as done.
  const rowsInBox = y1 - y0;
  const mask = placed?.mask;
  const mdx = placed?.dx ?? 0;
  const mdy = placed?.dy ?? 0;
  if (mask && mask.defaultColor === 0) {
    // Everything outside the mask rectangle is hidden: only its rectangle needs visiting.
    x0 = Math.max(x0, mdx);
    y0 = Math.max(y0, mdy);
    x1 = Math.min(x1, mdx + mask.width);
    y1 = Math.min(y1, mdy + mask.height);
  }
  const d = dst.data;
  const s = src.data;
  const cb: Rgb = [0, 0, 0];
  const cs: Rgb = [0, 0, 0];
  const mixed: Rgb = [0, 0, 0];
  const plainNormal = !blend && !nonSeparable;
  let mark = y0;
  for (let y = y0; y < y1; y++) {
    if (work !== undefined && y - mark === ROW_BAND) {
      work.rows(ROW_BAND);
      mark = y;
    }
    let si = ((y - dy) * src.width + (x0 - dx)) * 4;
    let di = (y * dst.width + x0) * 4;
    const my = y - mdy;
    const maskRow = mask && my >= 0 && my < mask.height ? my * mask.width : -1;
    for (let x = x0; x < x1; x++, si += 4, di += 4) {
      const sa = s[si + 3] as number;
      if (sa === 0) continue;
      let m = 255;
      if (mask) {
        const mx = x - mdx;
        m = maskRow >= 0 && mx >= 0 && mx < mask.width ? (mask.data[maskRow + mx] as number) : mask.defaultColor;
        if (m === 0) continue;
      }
      let as = (sa / 255) * opacity * (m / 255);
      if (dissolve) {
        as = dissolveThreshold(x - dx, y - dy) < as ? 1 : 0;
        if (as === 0) continue;
      }
      const bAlpha = d[di + 3] as number;
      if (plainNormal && (as >= 1 || bAlpha === 0)) {
        // Fast paths of `normal`: an opaque source replaces, a transparent backdrop takes the source.
        d[di] = s[si] as number;
        d[di + 1] = s[si + 1] as number;
        d[di + 2] = s[si + 2] as number;
        d[di + 3] = as >= 1 ? 255 : as * 255;
        continue;
      }
      const ab = bAlpha / 255;
      const ao = as + ab * (1 - as);
      if (nonSeparable && ab > 0) {
        for (let c = 0; c < 3; c++) {
          cb[c] = (d[di + c] as number) / 255;
          cs[c] = (s[si + c] as number) / 255;
        }
        nonSeparable(cb, cs, mixed);
        for (let c = 0; c < 3; c++) {
          const m2 = (1 - ab) * (cs[c] as number) + ab * (mixed[c] as number);
          d[di + c] = ((as * m2 + (1 - as) * ab * (cb[c] as number)) / ao) * 255;
        }
      } else {
        // co = (αs·((1 − αb)·S + αb·B(Cb, Cs)·255) + (1 − αs)·αb·Cb) / αo, with the weights hoisted per pixel.
        const inv = 1 / ao;
        const kS = table ? as * (1 - ab) * inv : as * inv;
        const kT = table ? as * ab * 255 * inv : 0;
        const kB = (1 - as) * ab * inv;
        for (let c = 0; c < 3; c++) {
          const sByte = s[si + c] as number;
          const bByte = d[di + c] as number;
          const blended = table ? (table[(bByte << 8) | sByte] as number) : 0;
          d[di + c] = kS * sByte + kT * blended + kB * bByte;
        }
      }
      d[di + 3] = ao * 255;
    }
  }
  work?.rows(rowsInBox - (mark - y0));
}

/** A repeatable pseudo-random value in [0, 1) for a layer pixel: dissolve's pattern. */
function dissolveThreshold(x: number, y: number): number {
  let h = Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1);
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

/**
 * Moves `dst` toward `target` by `t` (0–1) times the mask where one is placed, interpolating premultiplied colour:
 * a pass-through group's opacity and mask.
 */
function lerpInto(dst: Raster, target: Raster, t: number, placed: PlacedMask | undefined, work?: RowWork): void {
  if (dst.space !== undefined) {
    lerpInSpace(dst.space, dst, target, t, placed && ((x, y) => maskValue(placed, x, y)));
    work?.rows(dst.height);
    return;
  }
  const d = dst.data;
  const g = target.data;
  const rowBytes = dst.width * 4;
  let mark = 0;
  const row = placed ? new Float32Array(dst.width) : undefined;
  for (let y = 0; y < dst.height; y++) {
    if (work !== undefined && y - mark === ROW_BAND) {
      work.rows(ROW_BAND);
      mark = y;
    }
    if (placed && row) {
      maskRow(placed, y, row, t);
      lerpRowMasked(d, g, y * rowBytes, row);
    } else {
      lerpRow(d, g, y * rowBytes, (y + 1) * rowBytes, t);
    }
  }
  work?.rows(dst.height - mark);
}

/** The mask's value (0–1) at pixel `(x, y)` of the destination. */
function maskValue(placed: PlacedMask, x: number, y: number): number {
  const { mask, dx, dy } = placed;
  const mx = x - dx;
  const my = y - dy;
  return (mx >= 0 && my >= 0 && mx < mask.width && my < mask.height ? (mask.data[my * mask.width + mx] as number) : mask.defaultColor) / 255;
}

/** Multiplies a raster's alpha by a placed mask (a group's mask applied to its composite). */
function maskInPlace(raster: Raster, placed: PlacedMask): void {
  const row = new Float32Array(raster.width);
  const d = raster.data;
  for (let y = 0; y < raster.height; y++) {
    maskRow(placed, y, row, 1);
    const start = y * raster.width * 4;
    for (let x = 0; x < raster.width; x++) d[start + x * 4 + 3] = (d[start + x * 4 + 3] as number) * (row[x] as number);
  }
}

/** The mask's values along row `y` of the destination, times `t`, as fractions. */
function maskRow(placed: PlacedMask, y: number, out: Float32Array, t: number): void {
  const { mask, dx, dy } = placed;
  const my = y - dy;
  const inside = my >= 0 && my < mask.height;
  for (let x = 0; x < out.length; x++) {
    const mx = x - dx;
    const v = inside && mx >= 0 && mx < mask.width ? (mask.data[my * mask.width + mx] as number) : mask.defaultColor;
    out[x] = (v / 255) * t;
  }
}

function lerpRowMasked(d: Uint8ClampedArray, g: Uint8ClampedArray, start: number, ts: Float32Array): void {
  for (let x = 0; x < ts.length; x++) {
    const t = ts[x] as number;
    if (t === 0) continue;
    const i = start + x * 4;
    lerpRow(d, g, i, i + 4, t);
  }
}

function lerpRow(d: Uint8ClampedArray, g: Uint8ClampedArray, start: number, end: number, t: number): void {
  for (let i = start; i < end; i += 4) {
    const ab = (d[i + 3] as number) / 255;
    const ag = (g[i + 3] as number) / 255;
    const ao = ab + (ag - ab) * t;
    if (ao <= 0) {
      d[i + 3] = 0;
      continue;
    }
    for (let c = 0; c < 3; c++) {
      const pb = (d[i + c] as number) * ab;
      const pg = (g[i + c] as number) * ag;
      d[i + c] = (pb + (pg - pb) * t) / ao;
    }
    d[i + 3] = ao * 255;
  }
}

/**
 * Composites layers (top-most first) onto `out`, which covers `region` of the document. Hidden layers are
 * skipped. Groups with a blend mode are isolated: children composite into a group buffer that is then blended
 * with the group's opacity and mode. `pass through` groups composite their children straight onto the
 * backdrop (so a child's mode sees what is below the group); their opacity fades the result toward the
 * backdrop. Pixel layers are drawn with their layer effects (`./effects/`), which take the document's global light
 * and patterns from `style`. `work` hears of every row a pixel loop visits ({@link renderRows} of them in all).
 */
export function renderInto(out: Raster, layers: readonly EmbeddedLayer[], region: HostBounds, fresh = false, work?: RowWork, style?: StyleContext): void {
  let untouched = fresh;
  // What was under the group before any of its layers: where a knockout layer composites.
  const backdrop = layers.some((layer) => layer.knockout === true && layer.visible) ? out.data.slice() : undefined;
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i];
    if (layer === undefined) continue;
    // Clipped layers right above this one (listed before it) are its clipping group: drawn with it, or not at all.
    const top = clipRunTop(layers, i);
    if (top < i) {
      if (layer.visible && layer.opacity !== 0) {
        renderClipGroup(out, layer, layers.slice(top, i), region, work, style);
        untouched = false;
      }
      i = top;
      continue;
    }
    if (!layer.visible || layer.opacity === 0) continue;
    const placed = placedMask(layer, region);
    const plain =
      layer.kind !== "group" && layer.opacity === 255 && fillOf(layer) === 1 && layer.blendMode === "normal" && !placed && !hasActiveEffects(layer.effects);
    if (untouched && plain && layer.width > 0 && layer.height > 0) {
      // Onto a still-transparent buffer, normal at full opacity is an exact copy: copy rows in bulk.
      copyOnto(out, layer, layer.left - region.left, layer.top - region.top, work);
      untouched = false;
      continue;
    }
    untouched = false;
    if (layer.kind === "group") {
      const board = artboardRect(layer);
      if (board !== undefined) {
        // An artboard: its layers on its background, cut to its rectangle, then onto the document.
        const canvas = inSpace(artboardCanvas(layer, board, region), out.space);
        renderInto(canvas, layer.children, region, false, work, style);
        clipToArtboard(canvas, board, region);
        blendOnto(out, canvas, 0, 0, layer.opacity / 255, "normal", placed, work);
        continue;
      }
      if (isEmptyBounds(layerBounds(layer)) && !drawsFromRecords(layer)) continue;
      if (layer.blendMode === "pass through") {
        if (layer.opacity === 255 && groupFill(layer) === 1 && !placed) {
          renderInto(out, layer.children, region, false, work, style);
        } else {
          // Faded or masked: the children composite onto a copy of the backdrop, which is then mixed back in.
          const through: Raster = { data: out.data.slice(), width: out.width, height: out.height, space: out.space };
          renderInto(through, layer.children, region, false, work, style);
          lerpInto(out, through, (layer.opacity / 255) * groupFill(layer), placed, work);
        }
      } else {
        blendOnto(out, renderLayers(layer.children, region, work, style), 0, 0, (layer.opacity / 255) * groupFill(layer), layer.blendMode, placed, work);
      }
    } else if (drawRecordedLayer(out, layer, region, placed, style, { work })) {
      // An adjustment, or a fill without pixels of its own: drawn from its record.
    } else if (layer.width > 0 && layer.height > 0) {
      const opacity = (layer.opacity / 255) * fillOf(layer);
      if (backdrop !== undefined && layer.knockout === true) {
        const draw = (dst: Raster, src: Raster, dx: number, dy: number): void =>
          blendOnto(dst, src, dx, dy, opacity, layer.blendMode, placed && { ...placed, dx: placed.dx - (layer.left - region.left - dx), dy: placed.dy - (layer.top - region.top - dy) });
        knockOutOnto(out, backdrop, layer, layer.left - region.left, layer.top - region.top, placed, draw, work);
      } else {
        // Its mask, fill opacity and layer effects included (a knockout layer's effects are not drawn).
        drawLayer(out, layer, region, work, { style });
      }
    }
  }
}

/** A pixel layer's fill opacity, 0–1 (groups keep theirs for their effects, which are not rendered on groups). */
function fillOf(layer: EmbeddedLayer): number {
  return layer.kind === "group" || layer.fillOpacity === undefined ? 1 : layer.fillOpacity / 255;
}

/**
 * A group's fill opacity, 0–1: a group has no pixels of its own, so its fill fades its contents like opacity
 * (its layer effects, which groups do not draw here, would keep their strength).
 */
function groupFill(layer: GroupLayer): number {
  return layer.fillOpacity === undefined ? 1 : layer.fillOpacity / 255;
}

/** Whether a group holds layers drawn from their records (adjustments, fills without pixels): no bounds, but a picture. */
function drawsFromRecords(group: GroupLayer): boolean {
  return group.children.some((child) =>
    child.kind === "group" ? drawsFromRecords(child) : child.kind === "adjustment" || (child.record?.vectorFill !== undefined && (child.width === 0 || child.height === 0)),
  );
}

/** The index of the top-most layer clipped to `layers[base]` (`base` itself when none is). */
function clipRunTop(layers: readonly EmbeddedLayer[], base: number): number {
  let top = base;
  while (top > 0 && layers[top - 1]?.clipping === true) top--;
  return top;
}

/**
 * A base layer and the layers clipped to it (top-most first), composited as one isolated group (see
 * `./clipping.ts`) and drawn onto `out` with the base's opacity and blend mode.
 */
function renderClipGroup(out: Raster, base: EmbeddedLayer, clipped: readonly EmbeddedLayer[], region: HostBounds, work?: RowWork, style?: StyleContext): void {
  if (base.kind === "group" && base.blendMode === "pass through") {
    renderThroughClipGroup(out, base, clipped, region, work, style);
    return;
  }
  if (base.kind === "adjustment") {
    // Clipped to an adjustment: it has no pixels, so its clipped layers work where its mask lets it work.
    const placed = placedMask(base, region);
    drawRecordedLayer(out, base, region, placed, style, { work });
    for (let j = clipped.length - 1; j >= 0; j--) {
      const clip = clipped[j]!;
      if (!clip.visible || clip.opacity === 0 || clip.kind === "group") continue;
      const own = placedMask(clip, region);
      const mask = placed && own ? productMask([placed.mask, own.mask], region) : (own?.mask ?? placed?.mask);
      const both = mask ? { mask, dx: mask.x - region.left, dy: mask.y - region.top } : undefined;
      if (!drawRecordedLayer(out, clip, region, both, style, { work }) && clip.width > 0 && clip.height > 0) drawLayer(out, clip, region, work, { style });
    }
    return;
  }
  const group = inSpace(emptyRaster(region.right - region.left, region.bottom - region.top), out.space);
  if (base.kind === "group") {
    renderInto(group, base.children, region, true, work, style);
    const placed = placedMask(base, region);
    if (placed) maskInPlace(group, placed);
  }
  else if (base.width > 0 && base.height > 0) blendOnto(group, base, base.left - region.left, base.top - region.top, fillOf(base), "normal", placedMask(base, region), work);
  for (let j = clipped.length - 1; j >= 0; j--) {
    const clip = clipped[j]!;
    if (!clip.visible || clip.opacity === 0) continue;
    if (clip.kind === "group") {
      const mode = clip.blendMode === "pass through" ? "normal" : clip.blendMode;
      atopOnto(group, renderLayers(clip.children, region, work, style), 0, 0, clip.opacity / 255, mode, placedMask(clip, region), work);
    } else if (!drawRecordedLayer(group, clip, region, placedMask(clip, region), style, { atop: true, work }) && clip.width > 0 && clip.height > 0) {
      drawLayer(group, clip, region, work, { style, atop: true });
    }
  }
  // A pixel base's effects wrap the whole group (its overlays and stroke cover the clipped layers too).
  if (base.kind !== "group") drawLayer(out, base, region, work, { style, content: group });
  else blendOnto(out, group, 0, 0, base.opacity / 255, base.blendMode === "pass through" ? "normal" : base.blendMode, undefined, work);
}

/**
 * A pass-through group as a clipping base is not isolated: its layers blend with what is under the group, and the
 * layers clipped to it blend with that result. Its part of the picture is taken back out of the backdrop (what,
 * drawn normally over the backdrop, gives the pass-through result) with the group's own coverage as alpha; the
 * clipped layers are drawn source-atop it and the whole is drawn over the backdrop.
 */
function renderThroughClipGroup(out: Raster, base: GroupLayer, clipped: readonly EmbeddedLayer[], region: HostBounds, work?: RowWork, style?: StyleContext): void {
  const own = renderLayers(base.children, region, work, style);
  const placed = placedMask(base, region);
  if (placed) maskInPlace(own, placed);
  const through: Raster = { data: out.data.slice(), width: out.width, height: out.height, space: out.space };
  renderInto(through, [base], region, false, work, style);
  const group = inSpace(backdropRemoved(through, out, own, base.opacity / 255), out.space);
  for (let j = clipped.length - 1; j >= 0; j--) {
    const clip = clipped[j]!;
    if (!clip.visible || clip.opacity === 0) continue;
    if (clip.kind === "group") {
      const mode = clip.blendMode === "pass through" ? "normal" : clip.blendMode;
      atopOnto(group, renderLayers(clip.children, region, work, style), 0, 0, clip.opacity / 255, mode, placedMask(clip, region), work);
    } else if (!drawRecordedLayer(group, clip, region, placedMask(clip, region), style, { atop: true, work }) && clip.width > 0 && clip.height > 0) {
      drawLayer(group, clip, region, work, { style, atop: true });
    }
  }
  blendOnto(out, group, 0, 0, 1, "normal", undefined, work);
}

/**
 * The layer that, drawn normally over `backdrop`, gives `result`, with alpha `shape`'s alpha × `opacity` (W3C's
 * backdrop removal of a non-isolated group): premultiplied `result − (1 − α)·backdrop`.
 */
function backdropRemoved(result: Raster, backdrop: Raster, shape: Raster, opacity: number): Raster {
  const out = emptyRaster(result.width, result.height);
  const r = result.data;
  const b = backdrop.data;
  const d = out.data;
  for (let i = 0; i < d.length; i += 4) {
    const a = ((shape.data[i + 3] as number) / 255) * opacity;
    if (a <= 0) continue;
    const ar = (r[i + 3] as number) / 255;
    const ab = (b[i + 3] as number) / 255;
    for (let c = 0; c < 3; c++) {
      const premultiplied = (r[i + c] as number) * ar - (1 - a) * (b[i + c] as number) * ab;
      d[i + c] = Math.min(255, Math.max(0, premultiplied / a));
    }
    d[i + 3] = a * 255;
  }
  return out;
}

/**
 * The mask a layer renders with (user and vector masks, see `./masks.ts`), placed in `region`'s coordinates. A
 * pixel layer's is computed over its pixels, a group's over the region being rendered.
 */
function placedMask(layer: EmbeddedLayer, region: HostBounds): PlacedMask | undefined {
  if (layer.mask === undefined && layer.vectorMask === undefined && layer.vectorShape === undefined) return undefined;
  // A group's mask, and that of a layer without pixels (an adjustment, a fill drawn from its record), covers the region.
  const own = layer.kind !== "group" && layer.width > 0 && layer.height > 0;
  const area = own ? { left: layer.left, top: layer.top, right: layer.left + layer.width, bottom: layer.top + layer.height } : region;
  const mask = effectiveMask(layer, area);
  return mask ? { mask, dx: mask.x - region.left, dy: mask.y - region.top } : undefined;
}

/** Rows of `region` a pixel layer covers. */
function pixelRows(layer: PixelLayer, region: HostBounds): number {
  if (layer.width === 0 || layer.height === 0) return 0;
  const xs = Math.min(region.right, layer.left + layer.width) - Math.max(region.left, layer.left);
  const ys = Math.min(region.bottom, layer.top + layer.height) - Math.max(region.top, layer.top);
  return xs > 0 && ys > 0 ? ys : 0;
}

/**
 * How many rows {@link renderInto} visits for these layers over `region` (what it reports to its `work`): the
 * rows each pixel layer covers, plus the whole region for every isolated group, faded pass-through group and
 * clipping group (and for each group clipped inside one).
 */
export function renderRows(layers: readonly EmbeddedLayer[], region: HostBounds): number {
  const height = region.bottom - region.top;
  let rows = 0;
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i]!;
    const top = clipRunTop(layers, i);
    if (top < i) {
      if (layer.visible && layer.opacity !== 0) {
        // A pixel base with effects draws the group through its effects (see `drawLayer`), else blends it once.
        const own = layer.kind !== "group" && hasActiveEffects(layer.effects) ? layerRows(layer, region) : height;
        rows += (layer.kind === "group" ? renderRows(layer.children, region) : pixelRows(layer, region)) + own;
        for (const clip of layers.slice(top, i)) {
          if (!clip.visible || clip.opacity === 0) continue;
          rows += clip.kind === "group" ? renderRows(clip.children, region) + height : layerRows(clip, region);
        }
      }
      i = top;
      continue;
    }
    if (!layer.visible || layer.opacity === 0) continue;
    if (layer.kind === "group") {
      if (isEmptyBounds(layerBounds(layer)) && !drawsFromRecords(layer)) continue;
      const own = layer.blendMode !== "pass through" || layer.opacity !== 255 ? height : 0;
      rows += renderRows(layer.children, region) + own;
    } else {
      rows += recordedRows(layer, region) ?? layerRows(layer, region);
    }
  }
  return rows;
}

/**
 * The pixel layers, bottom-most first, when the document is a plain stack: every visible layer is `normal` at
 * full opacity without a mask and lies inside the canvas, and every visible group is `pass through` or `normal`
 * at full opacity. Source-over is associative, so such a stack composites the same in any engine (libvips in
 * `encodeDocument`); `null` otherwise, and for a document that mixes its colours in another space than sRGB.
 */
export function plainStack(doc: Pick<DocumentContent, "width" | "height" | "sourceColor"> & { readonly layers: readonly EmbeddedLayer[] }): PixelLayer[] | null {
  if (blendSpaceOf(doc.sourceColor) !== undefined) return null;
  const out: PixelLayer[] = [];
  const walk = (layers: readonly EmbeddedLayer[]): boolean => {
    for (let i = layers.length - 1; i >= 0; i--) {
      const layer = layers[i];
      if (layer === undefined || !layer.visible || layer.opacity === 0) continue;
      if (layer.opacity !== 255 || layer.clipping === true || layer.knockout === true || (layer.kind !== "group" && fillOf(layer) !== 1)) return false;
      if (layer.kind === "group") {
        if (layer.blendMode !== "pass through" && layer.blendMode !== "normal") return false;
        if (layer.mask || layer.vectorMask || layer.vectorShape || artboardRect(layer) !== undefined) return false;
        if (!walk(layer.children)) return false;
        continue;
      }
      if (layer.blendMode !== "normal" || layer.mask || layer.vectorMask || layer.vectorShape || layer.kind === "adjustment" || hasActiveEffects(layer.effects)) return false;
      // A fill the file stored no pixels for is drawn from its record: not a plain stack.
      if (layer.width === 0 || layer.height === 0) {
        if (layer.record?.vectorFill !== undefined) return false;
        continue;
      }
      if (layer.left < 0 || layer.top < 0 || layer.left + layer.width > doc.width || layer.top + layer.height > doc.height) return false;
      out.push(layer);
    }
    return true;
  };
  return walk(doc.layers) ? out : null;
}

/** Renders layers (top-most first) into a new transparent raster covering `region` (see {@link renderInto}). */
export function renderLayers(layers: readonly EmbeddedLayer[], region: HostBounds, work?: RowWork, style?: StyleContext): Raster {
  // A document made in 32 bits or in Lab mixes its colours there (see `./blend-space.ts`).
  const out = inSpace(emptyRaster(region.right - region.left, region.bottom - region.top), blendSpaceOf(style?.sourceColor));
  renderInto(out, layers, region, true, work, style);
  return out;
}

/** The whole canvas as a render region. */
export function canvasRegion(doc: { width: number; height: number }): HostBounds {
  return { left: 0, top: 0, right: doc.width, bottom: doc.height };
}

/** What a whole-canvas render reads of a document: its size, layers, and what their effects take from it. */
export type RenderedDocument = Pick<DocumentContent, "width" | "height" | "globalLight" | "patterns" | "grayscale" | "sourceColor"> & { readonly layers: readonly EmbeddedLayer[] };

/** The composite of the whole canvas ({@link renderRows} of `canvasRegion(doc)` rows reported to `work`). */
export function renderDocument(doc: RenderedDocument, work?: RowWork): Raster {
  return renderLayers(doc.layers, canvasRegion(doc), work, styleContext(doc));
}

/**
 * A layer's own pixels cropped to its bounds (a group: the composite of its children), ignoring the layer's own
 * visibility, opacity and blend mode but applying its mask; `null` when the layer has no non-transparent pixel.
 * `work` hears of the rows it visits ({@link renderLayerRows} of them).
 */
export function renderLayer(layer: EmbeddedLayer, work?: RowWork): { raster: Raster; bounds: HostBounds } | null {
  const bounds = layerBounds(layer);
  if (isEmptyBounds(bounds)) return null;
  if (layer.kind === "group") {
    const raster = renderLayers(layer.children, bounds, work);
    const placed = placedMask(layer, bounds);
    if (placed) maskInPlace(raster, placed);
    return { raster, bounds };
  }
  const placed = placedMask(layer, bounds);
  if (placed) {
    const raster = emptyRaster(bounds.right - bounds.left, bounds.bottom - bounds.top);
    blendOnto(raster, layer, layer.left - bounds.left, layer.top - bounds.top, 1, "normal", placed, work);
    return { raster, bounds };
  }
  const rect = boundsToRect(bounds);
  return { raster: cropRaster(layer, { ...rect, x: rect.x - layer.left, y: rect.y - layer.top }), bounds };
}

/** How many rows {@link renderLayer} reports to its `work` for this layer (a plain crop reports none). */
export function renderLayerRows(layer: EmbeddedLayer): number {
  const bounds = layerBounds(layer);
  if (isEmptyBounds(bounds)) return 0;
  if (layer.kind === "group") return renderRows(layer.children, bounds);
  return layer.mask || layer.vectorMask || layer.vectorShape ? bounds.bottom - bounds.top : 0;
}
