/**
 * `layer:replaceContents`: an image put into an existing layer, which keeps everything else it has (name, place,
 * masks, style, blend mode, opacity, comps). A pixel layer takes the image sized into a box and cut to it; a text,
 * shape or fill layer becomes a pixel layer of it. A smart object stays one: the image becomes its embedded file,
 * placed in its frame through the transform its record holds (an affine map of the frame's corners), and the layer's
 * pixels are the image drawn through that map.
 */
import { randomUUID } from "node:crypto";
import sharp from "sharp";
import type { PlacedLayer } from "ag-psd";
import { BridgeError } from "../../../protocol/errors.js";
import { fitRect } from "../../_internal/fit.js";
import type { HostRect } from "../../../protocol/index.js";
import type { EditImage, ReplaceContents } from "../../edits.js";
import { decodeImage } from "../decode.js";
import type { EmbeddedDocument, EmbeddedFile, PixelLayer } from "../document.js";
import { rasterisedRecord } from "../psd-records.js";
import { cropRaster, type Raster } from "../raster.js";
import { mapPlane, type Plane, resizePlane } from "../resample.js";
import { requireLayer } from "../tree.js";
import type { EditContext, EditHandlers } from "./context.js";
import { checkUnlocked } from "./locks.js";

/** How far (document pixels) a smart object's fourth corner may sit from where an affine map puts it. */
const AFFINE_TOLERANCE = 0.5;

/** Layer kinds whose content lives in their record and which become pixel layers of the new image. */
const BECOMES_PIXELS = new Set(["text", "shape", "fill"]);

/** @throws BridgeError `NOT_SUPPORTED` naming what of a smart object the embedded editor cannot carry over. */
function unsupported(layer: PixelLayer, transform: string, why: string): BridgeError {
  return new BridgeError("NOT_SUPPORTED", `The embedded editor cannot replace the contents of smart object "${layer.name}": ${why}`, {
    details: { editor: "embedded", capability: "layer:replaceContents", layerId: layer.id, transform },
  });
}

/** Whether a warp leaves the content as it is (none, or the regular grid ag-psd and Photoshop write for "no warp"). */
function isFlatWarp(warp: PlacedLayer["warp"], width: number, height: number): boolean {
  if (warp === undefined || warp.style === undefined || warp.style === "none") return true;
  if (warp.style !== "custom") return (warp.value ?? 0) === 0;
  const mesh = warp.customEnvelopeWarp?.meshPoints;
  if (mesh === undefined) return true;
  const b = warp.bounds;
  const [left, top, right, bottom] = b === undefined ? [0, 0, width, height] : [b.left.value, b.top.value, b.right.value, b.bottom.value];
  const n = Math.round(Math.sqrt(mesh.length));
  if (n * n !== mesh.length || n < 2) return false;
  return mesh.every((p, i) => {
    const gx = left + ((right - left) * (i % n)) / (n - 1);
    const gy = top + ((bottom - top) * Math.floor(i / n)) / (n - 1);
    return Math.abs(p.x - gx) < 0.01 && Math.abs(p.y - gy) < 0.01;
  });
}

/** The affine map of a smart object's frame into the document: `doc = o + u·(x / width) + v·(y / height)`. */
interface FrameMap {
  readonly width: number;
  readonly height: number;
  readonly o: readonly [number, number];
  readonly u: readonly [number, number];
  readonly v: readonly [number, number];
}

/**
 * A smart object's frame and transform, read from its record: its corners (top-left, top-right, bottom-right,
 * bottom-left) must be a parallelogram (scale, rotation, skew), and no warp or smart filter may change the content.
 * @throws BridgeError `NOT_SUPPORTED` `{transform: "perspective" | "warp" | "smart filters" | "unknown size"}`
 */
export function frameMap(layer: PixelLayer): FrameMap {
  const placed = layer.record?.placedLayer;
  if (placed === undefined) throw unsupported(layer, "unknown size", "its record holds no placed layer");
  const { width, height, transform } = placed;
  if (width === undefined || height === undefined || !(width > 0 && height > 0) || transform.length !== 8) {
    throw unsupported(layer, "unknown size", "its record gives no size or corners for its content");
  }
  if (placed.nonAffineTransform?.some((v, i) => Math.abs(v - (transform[i] as number)) > AFFINE_TOLERANCE) === true) {
    throw unsupported(layer, "perspective", "it has a perspective transform");
  }
  const [x0, y0, x1, y1, x2, y2, x3, y3] = transform as [number, number, number, number, number, number, number, number];
  if (Math.hypot(x1 + x3 - x0 - x2, y1 + y3 - y0 - y2) > AFFINE_TOLERANCE) throw unsupported(layer, "perspective", "its corners are not a parallelogram (a perspective transform)");
  if (!isFlatWarp(placed.warp, width, height)) throw unsupported(layer, "warp", "it has a warp");
  if (placed.filter !== undefined && placed.filter.list.length > 0) throw unsupported(layer, "smart filters", "it has smart filters");
  return { width, height, o: [x0, y0], u: [x1 - x0, y1 - y0], v: [x3 - x0, y3 - y0] };
}

/** Where a point of the frame lands in the document. */
const inDocument = (m: FrameMap, x: number, y: number): [number, number] => [
  m.o[0] + (m.u[0] * x) / m.width + (m.v[0] * y) / m.height,
  m.o[1] + (m.u[1] * x) / m.width + (m.v[1] * y) / m.height,
];

/** The four-letter file type a linked file records for an image format. */
const FILE_TYPES: Readonly<Record<string, string>> = { png: "png ", jpeg: "JPEG", jpg: "JPEG", webp: "WEBP", gif: "GIFf", tiff: "TIFF" };

async function decoded(image: EditImage, context: EditContext, size?: { width: number; height: number }): Promise<Raster> {
  const { raster } = await decodeImage(image.bytes, {
    maxPixels: Math.max(image.width * image.height, size === undefined ? 0 : size.width * size.height),
    size,
    details: { format: image.format },
  });
  context.checkpoint(context.call);
  return raster;
}

/** A pixel layer's new buffer: the image sized into the box and cut to it. */
async function replacePixels(context: EditContext & { doc: EmbeddedDocument }, layer: PixelLayer, siblings: PixelLayer[] | unknown[], edit: ReplaceContents): Promise<void> {
  const { doc } = context;
  const box: HostRect = edit.box ?? (layer.width > 0 && layer.height > 0 ? { x: layer.left, y: layer.top, width: layer.width, height: layer.height } : { x: 0, y: 0, width: doc.width, height: doc.height });
  const placed = fitRect(edit.image.width, edit.image.height, box, edit.fit, edit.alignment);
  const left = Math.round(placed.x);
  const top = Math.round(placed.y);
  const width = Math.max(1, Math.round(placed.width));
  const height = Math.max(1, Math.round(placed.height));
  // Cut to the box (in whole pixels): what `cover` and `none` let overflow.
  const cut = { left: Math.max(left, Math.round(box.x)), top: Math.max(top, Math.round(box.y)) };
  const right = Math.min(left + width, Math.round(box.x + box.width));
  const bottom = Math.min(top + height, Math.round(box.y + box.height));
  const size = { width: Math.max(0, right - cut.left), height: Math.max(0, bottom - cut.top) };
  if (width * height > context.maxDocumentPixels) {
    throw new BridgeError("PAYLOAD_TOO_LARGE", `${layer.name} would become ${width}×${height} px, more than the ${context.maxDocumentPixels} pixels of maxDocumentPixels`, {
      details: { limit: "maxDocumentPixels", maxPixels: context.maxDocumentPixels, width, height, what: layer.name },
    });
  }
  const held = context.memory.reserve(`Replacing the contents of ${layer.name}`, width * height * 4 * 2, { width, height });
  try {
    const full = await decoded(edit.image, context, edit.image.width === width && edit.image.height === height ? undefined : { width, height });
    const raster = size.width === width && size.height === height ? full : cropRaster(full, { x: cut.left - left, y: cut.top - top, ...size });
    const pixels = { left: cut.left, top: cut.top, width: raster.width, height: raster.height, data: raster.data };
    if (BECOMES_PIXELS.has(layer.kind)) {
      const replaced: PixelLayer = { ...layer, ...pixels, kind: "pixel", record: rasterisedRecord(layer.record) };
      siblings.splice(siblings.indexOf(layer), 1, replaced);
    } else {
      Object.assign(layer, pixels);
    }
  } finally {
    held.release();
  }
}

/** A smart object's new embedded file and pixels, through its frame's transform. */
async function replaceSmartObject(context: EditContext & { doc: EmbeddedDocument }, layer: PixelLayer, edit: ReplaceContents): Promise<void> {
  const frame = frameMap(layer);
  const placedRecord = layer.record!.placedLayer!;
  let image = edit.image;
  let rect = fitRect(image.width, image.height, { x: 0, y: 0, width: frame.width, height: frame.height }, edit.fit, edit.alignment);
  if (edit.fit === "cover") {
    // The embedded file is the part of the image the frame shows, in whole pixels of the image.
    const sx = image.width / rect.width;
    const sy = image.height / rect.height;
    const x0 = Math.max(0, Math.round(-rect.x * sx));
    const y0 = Math.max(0, Math.round(-rect.y * sy));
    const x1 = Math.min(image.width, Math.round((frame.width - rect.x) * sx));
    const y1 = Math.min(image.height, Math.round((frame.height - rect.y) * sy));
    if (x0 > 0 || y0 > 0 || x1 < image.width || y1 < image.height) {
      const bytes = await sharp(image.bytes).rotate().extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 }).png().toBuffer();
      rect = { x: rect.x + x0 / sx, y: rect.y + y0 / sy, width: (x1 - x0) / sx, height: (y1 - y0) / sy };
      image = { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), format: "png", width: x1 - x0, height: y1 - y0 };
    }
  }
  const corners = [inDocument(frame, rect.x, rect.y), inDocument(frame, rect.x + rect.width, rect.y), inDocument(frame, rect.x + rect.width, rect.y + rect.height), inDocument(frame, rect.x, rect.y + rect.height)];
  const xs = corners.map((c) => c[0]);
  const ys = corners.map((c) => c[1]);
  const EPS = 1e-6;
  const out = { left: Math.floor(Math.min(...xs) + EPS), top: Math.floor(Math.min(...ys) + EPS) };
  const size = { width: Math.max(1, Math.ceil(Math.max(...xs) - EPS) - out.left), height: Math.max(1, Math.ceil(Math.max(...ys) - EPS) - out.top) };
  if (size.width * size.height > context.maxDocumentPixels) {
    throw new BridgeError("PAYLOAD_TOO_LARGE", `${layer.name} would become ${size.width}×${size.height} px, more than the ${context.maxDocumentPixels} pixels of maxDocumentPixels`, {
      details: { limit: "maxDocumentPixels", maxPixels: context.maxDocumentPixels, ...size, what: layer.name },
    });
  }
  // One image pixel's steps across the document: the frame's edges per image pixel.
  let u: [number, number] = [(frame.u[0] * rect.width) / frame.width / image.width, (frame.u[1] * rect.width) / frame.width / image.width];
  let v: [number, number] = [(frame.v[0] * rect.height) / frame.height / image.height, (frame.v[1] * rect.height) / frame.height / image.height];
  // Shrunk first where the transform shrinks it (sampling alone would skip pixels), then mapped.
  const shrunk = { width: Math.max(1, Math.min(image.width, Math.round(image.width * Math.hypot(...u)))), height: Math.max(1, Math.min(image.height, Math.round(image.height * Math.hypot(...v)))) };
  const held = context.memory.reserve(`Replacing the contents of ${layer.name}`, (image.width * image.height + shrunk.width * shrunk.height + size.width * size.height) * 4, size);
  try {
    const raster = await decoded(image, context);
    let plane: Plane = { data: raster.data, width: raster.width, height: raster.height, channels: 4 };
    if (shrunk.width < image.width || shrunk.height < image.height) {
      plane = await resizePlane(plane, shrunk.width, shrunk.height, "bicubic");
      u = [(u[0] * image.width) / shrunk.width, (u[1] * image.width) / shrunk.width];
      v = [(v[0] * image.height) / shrunk.height, (v[1] * image.height) / shrunk.height];
    }
    context.checkpoint(context.call);
    // Output pixel (X, Y)'s centre, back through `doc = o + u·i + v·j` into the image (pixel centres at i + ½).
    const det = u[0] * v[1] - v[0] * u[1];
    const inv = [v[1] / det, -v[0] / det, -u[1] / det, u[0] / det] as const;
    const [ox, oy] = corners[0]!;
    const cx = out.left + 0.5 - ox;
    const cy = out.top + 0.5 - oy;
    const mapped = mapPlane(
      plane,
      size,
      { u0: inv[0] * cx + inv[1] * cy - 0.5, ux: inv[0], uy: inv[1], v0: inv[2] * cx + inv[3] * cy - 0.5, vx: inv[2], vy: inv[3] },
      "bilinear",
      0,
      () => context.checkpoint(context.call),
    );
    const data = mapped.data instanceof Uint8ClampedArray ? mapped.data : new Uint8ClampedArray(mapped.data.buffer, mapped.data.byteOffset, mapped.data.byteLength);
    const id = randomUUID();
    const embeddedFile: EmbeddedFile = { id, name: `${layer.name}.${image.format === "jpeg" ? "jpg" : image.format}`, type: FILE_TYPES[image.format] ?? "    ", data: image.bytes };
    const { nonAffineTransform: _perspective, warp: _warp, crop: _crop, comp: _comp, compInfo: _compInfo, ...kept } = placedRecord;
    const placedLayer: PlacedLayer = { ...kept, id, type: "raster", width: image.width, height: image.height, transform: corners.flat() };
    Object.assign(layer, { ...out, ...size, data, embeddedFile, record: { ...layer.record, placedLayer } });
  } finally {
    held.release();
  }
}

export const contentEdits: EditHandlers = {
  "layer:replaceContents": async (context, edit) => {
    const { doc } = context;
    const { layer, siblings } = requireLayer(doc, edit.layerId);
    if (layer.kind === "group" || layer.kind === "adjustment") {
      throw new BridgeError("BAD_REQUEST", `Cannot replace the contents of a ${layer.kind} layer`, { details: { layerId: layer.id, kind: layer.kind } });
    }
    checkUnlocked(doc, layer.id, "replace its contents");
    if (layer.kind === "smartObject") await replaceSmartObject(context, layer, edit);
    else await replacePixels(context, layer, siblings, edit);
    context.changed(doc, { pixels: true, layers: true });
    return undefined;
  },
};
