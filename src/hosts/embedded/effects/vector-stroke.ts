/*
 * A shape layer's own stroke (the shape tools' stroke, ag-psd's `vectorStroke`), drawn anew in its place in the
 * layer's style. The file's pixels hold the fill with the stroke already on it, but Photoshop draws the stroke
 * above what covers the fill: the layers clipped to the shape, its colour and gradient overlays (the stored
 * composites show the stroke over both); only the stroke effect goes over it. So the stroke is drawn again after
 * those, from the shape's pixels: whatever its alignment, a closed path's stroke is the band its width wide along
 * the edge of the stroked shape (fill and stroke together), which an exact distance transform of the pixels finds,
 * sharp inner corners included. A fill that fades to nothing does not show the shape: its path is stroked then.
 * Dashed strokes and noise or missing-pattern contents are left as the file's pixels hold them.
 */
import type { UnitsValue } from "ag-psd";
import type { HostBounds } from "../../../protocol/index.js";
import type { PixelLayer } from "../document.js";
import { renderFill } from "../fills/index.js";
import { effectiveMask } from "../masks.js";
import { layerBounds } from "../tree.js";
import type { RowWork } from "../work.js";
import { growPlane } from "./distance.js";
import { type Element, isEmpty, layerBox, shifted } from "./element.js";
import { MAX_EFFECT_SIZE_PX } from "./limits.js";
import { fillSeeThrough, outlineBox, pathMask } from "./outline.js";
import { emptyPlane, expand, intersect, invert, type Plane, type ShapedLayer } from "./planes.js";
import { finite, type StyleContext } from "./style.js";

type VectorStroke = NonNullable<NonNullable<PixelLayer["record"]>["vectorStroke"]>;

/** A layer's own stroke when it is one this draws: on, solid (no dashes), of some width, with a content. */
export function vectorStrokeOf(layer: PixelLayer): VectorStroke | undefined {
  const stroke = layer.record?.vectorStroke;
  if (stroke === undefined || stroke.strokeEnabled === false || stroke.content === undefined) return undefined;
  if ((stroke.lineDashSet?.length ?? 0) > 0) return undefined;
  return strokeWidth(stroke) > 0 ? stroke : undefined;
}

/** The stroke's width in pixels (points count at the resolution the stroke records), clamped like effect sizes. */
function strokeWidth(stroke: VectorStroke): number {
  const width: UnitsValue | undefined = stroke.lineWidth;
  const value = finite(width?.value, 0);
  const px = width?.units === "Points" ? (value * finite(stroke.resolution, 72)) / 72 : value;
  return Math.min(MAX_EFFECT_SIZE_PX, Math.max(0, px));
}

/** How much of the width lies outside the path: all of it, half (centred) or none (inside). */
function outwardOf(stroke: VectorStroke, width: number): number {
  return stroke.lineAlignment === "outside" ? width : stroke.lineAlignment === "center" ? width / 2 : 0;
}

/** How far past the layer's box a shape layer's own stroke reaches, in pixels. */
export function vectorStrokeReach(layer: PixelLayer): number {
  const stroke = vectorStrokeOf(layer);
  return stroke === undefined ? 0 : Math.ceil(outwardOf(stroke, strokeWidth(stroke))) + 1;
}

/** A shape layer's stroke: the part over the shape (drawn in its interior) and the part around it. */
export interface VectorStrokeParts {
  readonly inner?: Element | undefined;
  /** Only when the effects follow the path and the stroke reaches past it (see `outline.ts`). */
  readonly outer?: Element | undefined;
}

/** The layer's own stroke over the part of `region` it covers, in two parts (see {@link VectorStrokeParts}). */
export function vectorStroke(layer: ShapedLayer, region: HostBounds, style: StyleContext, work?: RowWork): VectorStrokeParts {
  const stroke = vectorStrokeOf(layer);
  if (stroke === undefined) return {};
  const width = strokeWidth(stroke);
  const alongPath = fillSeeThrough(layer);
  const box = intersect(region, expand(layerBox(layer), alongPath ? Math.ceil(outwardOf(stroke, width)) + 1 : 0));
  if (isEmpty(box)) return {};
  const source = expand(box, Math.ceil(width) + 2);
  const band = alongPath ? pathBand(layer, stroke, width, source, style, work) : pixelBand(layer, width, source, work);
  if (band === undefined) return {};
  // The user mask (and a vector mask not drawn into the pixels) cuts the stroke, as it cuts the fill.
  const element = paint(layer, stroke, shifted(band, box, 0, 0, 0), effectiveMask(layer, box), style);
  // Along the path, the part beyond it is drawn under the pixels as a stroke effect's outer part is (see
  // `fills.ts`): the interior, mixed in by the path, covers the rest.
  return { inner: element, outer: alongPath && outwardOf(stroke, width) > 0 ? element : undefined };
}

/** The band along the edge of the pixels' own coverage (fill and stroke as Photoshop drew them). */
function pixelBand(layer: PixelLayer, width: number, source: HostBounds, work?: RowWork): Plane | undefined {
  const alpha = alphaPlane(layer, source);
  const band = growPlane(invert(alphaPlane(layer, source)), width, work);
  for (let i = 0; i < band.data.length; i++) band.data[i] = (band.data[i] as number) * (alpha.data[i] as number);
  return band;
}

/** The band the stroke covers around the path: `outward` out from it and the rest of the width in. */
function pathBand(layer: PixelLayer, stroke: VectorStroke, width: number, source: HostBounds, style: StyleContext, work?: RowWork): Plane | undefined {
  const mask = pathMask(layer, style);
  if (mask === undefined) return undefined;
  const outward = outwardOf(stroke, width);
  const path = outlinePlane(mask, source);
  const grown = growPlane(outlinePlane(mask, source), outward, work);
  const within = width - outward > 0 ? growPlane(invert(outlinePlane(mask, source)), width - outward, work) : undefined;
  for (let i = 0; i < grown.data.length; i++) {
    const p = path.data[i] as number;
    grown.data[i] = Math.max(0, (grown.data[i] as number) - p) + p * (within === undefined ? 0 : Math.min(1, within.data[i] as number));
  }
  return grown;
}

/** The pixels' alpha over `box`, masks left out (a mask cuts the stroke; it does not make an edge of its own). */
function alphaPlane(layer: PixelLayer, box: HostBounds): Plane {
  const plane = emptyPlane(box);
  const x0 = Math.max(box.left, layer.left);
  const x1 = Math.min(box.right, layer.left + layer.width);
  const y0 = Math.max(box.top, layer.top);
  const y1 = Math.min(box.bottom, layer.top + layer.height);
  for (let y = y0; y < y1; y++) {
    let si = ((y - layer.top) * layer.width + (x0 - layer.left)) * 4 + 3;
    let di = (y - box.top) * plane.width + (x0 - box.left);
    for (let x = x0; x < x1; x++, si += 4, di++) plane.data[di] = (layer.data[si] as number) / 255;
  }
  return plane;
}

/** A one-byte mask as a plane over `box` (its outside taking its default). */
function outlinePlane(mask: { x: number; y: number; width: number; height: number; data: Uint8Array; defaultColor: number }, box: HostBounds): Plane {
  const plane = emptyPlane(box);
  for (let y = 0; y < plane.height; y++) {
    const my = box.top + y - mask.y;
    const inRow = my >= 0 && my < mask.height;
    for (let x = 0; x < plane.width; x++) {
      const mx = box.left + x - mask.x;
      plane.data[y * plane.width + x] = (inRow && mx >= 0 && mx < mask.width ? (mask.data[my * mask.width + mx] as number) : mask.defaultColor) / 255;
    }
  }
  return plane;
}

/**
 * The stroke's content over `cover`'s box with alpha `cover` × `mask`; undefined when the content cannot be drawn
 * (noise, a pattern the file lacks).
 */
function paint(layer: PixelLayer, stroke: VectorStroke, cover: Plane, mask: ReturnType<typeof effectiveMask>, style: StyleContext): Element | undefined {
  const { box } = cover;
  let raster: ReturnType<typeof renderFill>;
  try {
    const reference = layer.record?.referencePoint;
    raster = renderFill(stroke.content!, box, {
      width: style.width,
      height: style.height,
      patterns: style.patternList,
      layerBounds: outlineBox(layer) ?? layerBounds(layer),
      ...(reference ? { origin: { x: reference.x, y: reference.y } } : {}),
    });
  } catch {
    // Noise gradients and missing patterns: the file's pixels keep the stroke as Photoshop drew it.
    return undefined;
  }
  const d = raster.data;
  for (let y = 0; y < cover.height; y++) {
    const my = mask ? box.top + y - mask.y : 0;
    for (let x = 0; x < cover.width; x++) {
      const i = y * cover.width + x;
      let a = cover.data[i] as number;
      if (mask) {
        const mx = box.left + x - mask.x;
        a *= (my >= 0 && my < mask.height && mx >= 0 && mx < mask.width ? (mask.data[my * mask.width + mx] as number) : mask.defaultColor) / 255;
      }
      d[i * 4 + 3] = (d[i * 4 + 3] as number) * a + 0.5;
    }
  }
  return { raster, box, opacity: Math.min(1, Math.max(0, finite(stroke.opacity, 1))), blendMode: stroke.blendMode ?? "normal" };
}
