/**
 * What a PSD's layer and document records hold beyond this editor's model, kept beside the model so a save writes
 * it back: ag-psd's records with their pixels taken out. The model owns names, visibility, opacity, blend mode,
 * clipping, fill opacity, knockout, channel restrictions, masks and pixels; everything else (text, smart objects,
 * effects, vector mask paths, adjustments, fills, artboards, blending ranges, timestamps…) passes through untouched.
 */
import type { Layer, LayerMaskData, Psd } from "ag-psd";
import type { EngineText } from "./text/record.js";

/** What a record can make a layer besides plain pixels. */
export type RecordKind = "text" | "smartObject" | "shape" | "fill" | "adjustment";

/** A layer record without its pixels or children; mask records keep their flags, not their pixels. */
export type PsdLayerRecord = Readonly<Omit<Layer, "children" | "imageData" | "canvas" | "mask" | "realMask">> & {
  readonly mask?: Readonly<Omit<LayerMaskData, "imageData" | "canvas">> | undefined;
  readonly realMask?: Readonly<Omit<LayerMaskData, "imageData" | "canvas">> | undefined;
  /** A text layer this editor drew: what it drew it with (never saved; `text` is written from it). */
  readonly engineText?: EngineText | undefined;
  /** The style was set by `layer:setEffects`: `effects` is the whole of it (never saved; the file's own blocks are stale). */
  readonly effectsSet?: boolean | undefined;
};

/** The document record without layers or pixels: image resources, patterns, linked files, global info. */
export type PsdDocumentRecord = Readonly<Omit<Psd, "children" | "imageData" | "canvas" | "width" | "height">>;

/** Record keys that make a layer something other than plain pixels; dropped when its pixels are edited. */
const CONTENT_KEYS = ["text", "engineText", "placedLayer", "vectorFill", "vectorStroke", "vectorOrigination", "adjustment", "usingAlignedRendering"] as const;

/** Keys that only describe the pixels of a layer (so are re-derived from the model when written). */
const PIXEL_KEYS = new Set(["children", "imageData", "canvas", "mask", "realMask", "rawData", "top", "left", "bottom", "right"]);

/** A layer record with its pixel data left out (ag-psd's `Layer` as read, `useImageData`). */
export function layerRecord(layer: Layer): PsdLayerRecord {
  const record: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(layer)) if (!PIXEL_KEYS.has(key)) record[key] = value;
  if (layer.mask) record.mask = withoutPixels(layer.mask);
  if (layer.realMask) record.realMask = withoutPixels(layer.realMask);
  return record as PsdLayerRecord;
}

function withoutPixels(mask: LayerMaskData): Omit<LayerMaskData, "imageData" | "canvas"> {
  const { imageData: _pixels, canvas: _canvas, ...rest } = mask;
  return rest;
}

/** The document record of a parsed file (layers and the merged image left out). */
export function documentRecord(psd: Psd): PsdDocumentRecord {
  const { children: _children, imageData: _imageData, canvas: _canvas, width: _width, height: _height, ...rest } = psd;
  return rest;
}

/**
 * The kind a record gives its layer: text, smart object, adjustment, shape (a fill drawn through a vector path,
 * what Photoshop's shape tools make) or fill (a solid colour, gradient or pattern fill layer without a path);
 * undefined for plain pixels.
 */
export function recordKind(record: PsdLayerRecord | undefined): RecordKind | undefined {
  if (record === undefined) return undefined;
  if (record.text) return "text";
  if (record.placedLayer) return "smartObject";
  if (record.adjustment) return "adjustment";
  // A fill drawn through a vector path is what every shape tool makes (live shapes add an origination record).
  if (record.vectorFill) return record.vectorMask !== undefined || record.vectorStroke !== undefined ? "shape" : "fill";
  return undefined;
}

/**
 * The record of a layer whose pixels were edited: its content (text, smart object, shape, fill, adjustment) is
 * gone, as when Photoshop rasterises a layer; what remains (effects, vector mask path, blending options…) stays.
 */
export function rasterisedRecord(record: PsdLayerRecord | undefined): PsdLayerRecord | undefined {
  if (record === undefined) return undefined;
  const out: Record<string, unknown> = { ...record };
  for (const key of CONTENT_KEYS) delete out[key];
  return out as PsdLayerRecord;
}

const shiftPair = (points: readonly number[], dx: number, dy: number): number[] => points.map((v, i) => v + (i % 2 === 0 ? dx : dy));

/**
 * The record of a layer moved by `dx, dy`: what holds positions in document pixels moves with it (the text's
 * transform, a smart object's corners, vector mask knots), so Photoshop sees the content where its pixels are.
 */
export function translatedRecord(record: PsdLayerRecord | undefined, dx: number, dy: number): PsdLayerRecord | undefined {
  if (record === undefined || (dx === 0 && dy === 0)) return record;
  const out: Record<string, unknown> = { ...record };
  const { text, placedLayer, vectorMask, engineText } = record;
  if (text?.transform && text.transform.length === 6) {
    const [xx, xy, yx, yy, tx, ty] = text.transform as [number, number, number, number, number, number];
    out.text = { ...text, transform: [xx, xy, yx, yy, tx + dx, ty + dy] };
  }
  if (engineText) {
    const { position, box } = engineText.spec;
    const spec = {
      ...engineText.spec,
      ...(position === undefined ? {} : { position: { x: position.x + dx, y: position.y + dy } }),
      ...(box === undefined ? {} : { box: { ...box, x: box.x + dx, y: box.y + dy } }),
    };
    out.engineText = { ...engineText, spec };
  }
  if (placedLayer) {
    out.placedLayer = {
      ...placedLayer,
      transform: shiftPair(placedLayer.transform, dx, dy),
      ...(placedLayer.nonAffineTransform ? { nonAffineTransform: shiftPair(placedLayer.nonAffineTransform, dx, dy) } : {}),
    };
  }
  if (vectorMask) {
    out.vectorMask = {
      ...vectorMask,
      paths: vectorMask.paths.map((path) => ({ ...path, knots: path.knots.map((knot) => ({ ...knot, points: shiftPair(knot.points, dx, dy) })) })),
    };
  }
  return out as PsdLayerRecord;
}

/** Where an edit puts a point of the document (document pixels in, document pixels out). */
export type PointMap = (x: number, y: number) => readonly [number, number];

const mapPairs = (points: readonly number[], map: PointMap): number[] =>
  points.flatMap((v, i) => (i % 2 === 0 ? [...map(v, points[i + 1]!)] : []));

/**
 * The record of a layer scaled, turned or mirrored by `map` (an affine map of the document): the vector mask path
 * and a smart object's corners go where the pixels went. Every knot's anchor and both handles are mapped, and an
 * affine map keeps a Bézier path the same curve, so the path still outlines the mask the pixels were cut by. Text
 * is not mapped: a layer transformed this way is rasterised first.
 */
export function mappedRecord(record: PsdLayerRecord | undefined, map: PointMap): PsdLayerRecord | undefined {
  if (record === undefined) return undefined;
  const { placedLayer, vectorMask } = record;
  if (!placedLayer && !vectorMask) return record;
  const out: Record<string, unknown> = { ...record };
  if (placedLayer) {
    out.placedLayer = {
      ...placedLayer,
      transform: mapPairs(placedLayer.transform, map),
      ...(placedLayer.nonAffineTransform ? { nonAffineTransform: mapPairs(placedLayer.nonAffineTransform, map) } : {}),
    };
  }
  if (vectorMask) {
    out.vectorMask = {
      ...vectorMask,
      paths: vectorMask.paths.map((path) => ({ ...path, knots: path.knots.map((knot) => ({ ...knot, points: mapPairs(knot.points, map) })) })),
    };
  }
  return out as PsdLayerRecord;
}

/**
 * The record of a layer the user moved by `dx, dy`: its layer comp states hold offsets from where the layer is, so
 * each comp still puts it where the comp recorded it. (A move of the whole document, a crop, moves the comps'
 * places too, and leaves the offsets alone.)
 */
export function compsAfterMove(record: PsdLayerRecord | undefined, dx: number, dy: number): PsdLayerRecord | undefined {
  const comps = record?.comps;
  if (comps === undefined || (dx === 0 && dy === 0)) return record;
  const settings = comps.settings.map((setting) => ({ ...setting, offset: { x: (setting.offset?.x ?? 0) - dx, y: (setting.offset?.y ?? 0) - dy } }));
  return { ...record, comps: { ...comps, settings } };
}
