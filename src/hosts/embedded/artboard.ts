/*
 * Artboards: a top-level group Photoshop draws as a canvas of its own. Its layers composite onto the artboard's
 * background (white, black, transparent or a colour of the file's choosing) and nothing of them shows outside its
 * rectangle.
 */
import type { Color } from "ag-psd";
import type { HostBounds } from "../../protocol/index.js";
import { colorToRgb } from "./color.js";
import type { GroupLayer } from "./document.js";
import type { Raster } from "./raster.js";
import { emptyRaster } from "./raster.js";

/** Photoshop's artboard background types. */
const BACKGROUND = { white: 1, black: 2, transparent: 3, other: 4 } as const;

/** The artboard rectangle of a group, when it is one. */
export function artboardRect(group: GroupLayer): HostBounds | undefined {
  const rect = group.record?.artboard?.rect;
  if (rect === undefined || rect.right <= rect.left || rect.bottom <= rect.top) return undefined;
  return { left: rect.left, top: rect.top, right: rect.right, bottom: rect.bottom };
}

function backgroundOf(group: GroupLayer): [number, number, number] | undefined {
  const artboard = group.record?.artboard;
  switch (artboard?.backgroundType ?? BACKGROUND.white) {
    case BACKGROUND.transparent:
      return undefined;
    case BACKGROUND.black:
      return [0, 0, 0];
    case BACKGROUND.other:
      return artboard?.color ? colorToRgb(artboard.color as Color) : [255, 255, 255];
    default:
      return [255, 255, 255];
  }
}

/**
 * A raster over `region` holding the artboard's background inside its rectangle; `render` then draws the
 * artboard's layers onto it, and {@link clipToArtboard} cuts away what fell outside.
 */
export function artboardCanvas(group: GroupLayer, rect: HostBounds, region: HostBounds): Raster {
  const width = region.right - region.left;
  const height = region.bottom - region.top;
  const out = emptyRaster(width, height);
  const color = backgroundOf(group);
  if (color === undefined) return out;
  const x0 = Math.max(0, rect.left - region.left);
  const x1 = Math.min(width, rect.right - region.left);
  const y0 = Math.max(0, rect.top - region.top);
  const y1 = Math.min(height, rect.bottom - region.top);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * width + x) * 4;
      out.data[i] = color[0];
      out.data[i + 1] = color[1];
      out.data[i + 2] = color[2];
      out.data[i + 3] = 255;
    }
  }
  return out;
}

/** Clears every pixel of `canvas` (covering `region`) outside the artboard rectangle. */
export function clipToArtboard(canvas: Raster, rect: HostBounds, region: HostBounds): void {
  const { width, height, data } = canvas;
  for (let y = 0; y < height; y++) {
    const docY = region.top + y;
    const rowInside = docY >= rect.top && docY < rect.bottom;
    for (let x = 0; x < width; x++) {
      const docX = region.left + x;
      if (rowInside && docX >= rect.left && docX < rect.right) continue;
      data[(y * width + x) * 4 + 3] = 0;
    }
  }
}
