/**
 * Compositing of the layer tree in straight RGBA: groups (isolated or pass-through), clipping groups, knockout,
 * artboards, masks, layer effects, adjustments and fills drawn from their records, each layer blended by
 * `./blend.ts`. Every render takes an optional {@link RowWork} that its pixel loops report their rows to (see
 * {@link renderRows} for how many a render visits); it throws to stop a cancelled render.
 */
import type { HostBounds } from "../../protocol/index.js";
import type { DocumentContent, EmbeddedLayer, GroupLayer, PixelLayer } from "./document.js";
import type { Raster } from "./raster.js";
import { boundsToRect, cropRaster, emptyRaster, isEmptyBounds } from "./raster.js";
import { layerBounds } from "./tree.js";
import { copyOnto } from "./pixel-loops.js";
import type { RowWork } from "./work.js";
import { blendOnto } from "./blend.js";
import { backdropRemoved, lerpInto, maskInPlace } from "./mix.js";
import { atopOnto } from "./clipping.js";
import { drawnFromRecord, effectiveMask, type PlacedMask, productMask } from "./masks.js";
import { knockOutOnto } from "./knockout.js";
import { artboardCanvas, artboardRect, clipToArtboard } from "./artboard.js";
import { drawRecordedLayer, recordedRows } from "./content-layers.js";
import { drawLayer, hasStyle, layerRows, type StyleContext, styleContext } from "./effects/index.js";
import { blendSpaceOf, inSpace } from "./blend-space.js";
import { keptChannels, restoreChannels } from "./channel-restrictions.js";

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
    const shown = layer.visible && layer.opacity !== 0;
    // Channels the layer leaves alone: drawn as usual, then put back as they were (see `channel-restrictions.ts`).
    const kept = shown ? keptChannels(layer.restrictedChannels, style) : [];
    const before = kept.length > 0 ? out.data.slice() : undefined;
    if (top < i) {
      if (shown) renderClipGroup(out, layer, layers.slice(top, i), region, work, style);
      i = top;
    } else if (shown) {
      const placed = placedMask(layer, region);
      const plain =
        layer.kind !== "group" && layer.opacity === 255 && fillOf(layer) === 1 && layer.blendMode === "normal" && !placed && !hasStyle(layer);
      if (untouched && plain && layer.width > 0 && layer.height > 0) {
        // Onto a still-transparent buffer, normal at full opacity is an exact copy: copy rows in bulk.
        copyOnto(out, layer, layer.left - region.left, layer.top - region.top, work);
      } else {
        drawOne(out, layer, region, placed, backdrop, work, style);
      }
    }
    if (before !== undefined) restoreChannels(out, before, kept);
    if (shown) untouched = false;
  }
}

/** Draws one visible layer that clips nothing onto `out` (see {@link renderInto}); `backdrop` is its group's. */
function drawOne(out: Raster, layer: EmbeddedLayer, region: HostBounds, placed: PlacedMask | undefined, backdrop: Uint8ClampedArray | undefined, work?: RowWork, style?: StyleContext): void {
  if (layer.kind === "group") {
    const board = artboardRect(layer);
    if (board !== undefined) {
      // An artboard: its layers on its background, cut to its rectangle, then onto the document.
      const canvas = inSpace(artboardCanvas(layer, board, region), out.space);
      renderInto(canvas, layer.children, region, false, work, style);
      clipToArtboard(canvas, board, region);
      blendOnto(out, canvas, { dx: 0, dy: 0, opacity: layer.opacity / 255, blendMode: "normal", placed, work });
      return;
    }
    if (isEmptyBounds(layerBounds(layer)) && !drawsFromRecords(layer)) return;
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
      blendOnto(out, renderLayers(layer.children, region, work, style), { dx: 0, dy: 0, opacity: (layer.opacity / 255) * groupFill(layer), blendMode: layer.blendMode, placed, work });
    }
  } else if (drawRecordedLayer(out, layer, region, placed, style, { work })) {
    // An adjustment, or a fill without pixels of its own: drawn from its record.
  } else if (layer.width > 0 && layer.height > 0) {
    const opacity = (layer.opacity / 255) * fillOf(layer);
    if (backdrop !== undefined && layer.knockout === true) {
      // The mask is part of the layer's coverage, which mixes the result in (see `knockout.ts`).
      const draw = (dst: Raster, src: Raster, dx: number, dy: number): void => blendOnto(dst, src, { dx, dy, opacity, blendMode: layer.blendMode });
      knockOutOnto(out, backdrop, layer, layer.left - region.left, layer.top - region.top, placed, draw, work);
    } else {
      // Its mask, fill opacity and layer effects included (a knockout layer's effects are not drawn).
      drawLayer(out, layer, region, work, { style });
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
  else if (base.width > 0 && base.height > 0) blendOnto(group, base, { dx: base.left - region.left, dy: base.top - region.top, opacity: fillOf(base), blendMode: "normal", placed: placedMask(base, region), work });
  drawClipped(group, clipped, region, work, style);
  // A pixel base's effects wrap the whole group (its overlays and stroke cover the clipped layers too).
  if (base.kind !== "group") drawLayer(out, base, region, work, { style, content: group });
  else blendOnto(out, group, { dx: 0, dy: 0, opacity: base.opacity / 255, blendMode: base.blendMode === "pass through" ? "normal" : base.blendMode, work });
}

/** Draws the layers clipped to a base (top-most first) source-atop the clipping group so far. */
function drawClipped(group: Raster, clipped: readonly EmbeddedLayer[], region: HostBounds, work?: RowWork, style?: StyleContext): void {
  for (let j = clipped.length - 1; j >= 0; j--) {
    const clip = clipped[j]!;
    if (!clip.visible || clip.opacity === 0) continue;
    if (clip.kind === "group") {
      const mode = clip.blendMode === "pass through" ? "normal" : clip.blendMode;
      atopOnto(group, renderLayers(clip.children, region, work, style), { dx: 0, dy: 0, opacity: clip.opacity / 255, blendMode: mode, placed: placedMask(clip, region), work });
    } else if (!drawRecordedLayer(group, clip, region, placedMask(clip, region), style, { atop: true, work }) && clip.width > 0 && clip.height > 0) {
      drawLayer(group, clip, region, work, { style, atop: true });
    }
  }
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
  drawClipped(group, clipped, region, work, style);
  blendOnto(out, group, { dx: 0, dy: 0, opacity: 1, blendMode: "normal", work });
}

/**
 * The mask a layer renders with (user and vector masks, see `./masks.ts`), placed in `region`'s coordinates. A
 * pixel layer's is computed over its pixels, a group's over the region being rendered.
 */
function placedMask(layer: EmbeddedLayer, region: HostBounds): PlacedMask | undefined {
  if (layer.mask === undefined && layer.vectorMask === undefined && layer.vectorShape === undefined) return undefined;
  // A group's mask, and that of a layer without pixels (an adjustment, a fill drawn from its record), covers the region.
  const own = layer.kind !== "group" && layer.width > 0 && layer.height > 0 && !drawnFromRecord(layer);
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
        const own = layer.kind !== "group" && hasStyle(layer) ? layerRows(layer, region) : height;
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
 * full opacity without a mask or channel restriction and lies inside the canvas, and every visible group is
 * `pass through` or `normal` at full opacity. Source-over is associative, so such a stack composites the same in any engine (libvips in
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
      if ((layer.restrictedChannels?.length ?? 0) > 0) return false;
      if (layer.kind === "group") {
        if (layer.blendMode !== "pass through" && layer.blendMode !== "normal") return false;
        if (layer.mask || layer.vectorMask || layer.vectorShape || artboardRect(layer) !== undefined) return false;
        if (!walk(layer.children)) return false;
        continue;
      }
      if (layer.blendMode !== "normal" || layer.mask || layer.vectorMask || layer.vectorShape || layer.kind === "adjustment" || hasStyle(layer)) return false;
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
    blendOnto(raster, layer, { dx: layer.left - bounds.left, dy: layer.top - bounds.top, opacity: 1, blendMode: "normal", placed, work });
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

