import type { EncodedImage, HostAdapter, HostCallContext, OutlineStroke, PreviewEvent } from "../host.js";
import { outlineOverlay } from "../_internal/outline.js";
import { previewSize } from "../_internal/target-size.js";
import { canvasRegion, plainStack, renderLayer, renderLayerRows } from "./composite.js";
import { effectsWorkBytes } from "./effects/index.js";
import type { EmbeddedDocument, EmbeddedLayer } from "./document.js";
import { checkEncodable, encodeDocument, encodeRaster, type EncodeOptions } from "./encode.js";
import { rgbaBytes, type EditorMemory, type Reservation } from "./memory.js";
import { EMPTY_BOUNDS, boundsToRect } from "./raster.js";
import { activeEntries, layerBounds, requireLayer } from "./tree.js";
import { stagesOf } from "./work.js";

/** What the image operations need from the editor. */
export interface ImageOpsDeps {
  /** The editor's memory budget: an export is charged its composite and output before it renders. */
  readonly memory: EditorMemory;
  document(documentId: number | undefined): EmbeddedDocument;
  /** Throws the abort reason once the call is cancelled or out of time (see `work.ts`). */
  checkpoint(ctx: HostCallContext): void;
}

/**
 * A layer's own pixels (a group: its composite, see `renderLayer`) covering its bounds, encoded at exactly
 * `options.size`, with `outline` stroked over it; an empty layer is a 1×1 transparent image with zero bounds.
 * With `ctx`: checkpoints, and progress as `encodeDocument` reports it.
 * @throws BridgeError `PAYLOAD_TOO_LARGE` when the layer's bounds or the output are above the encoder's limit.
 */
async function encodeLayer(
  layer: EmbeddedLayer,
  options: EncodeOptions & { outline?: OutlineStroke | undefined },
  ctx?: HostCallContext,
): Promise<EncodedImage> {
  // What the encoder would take in (the layer's bounds) and put out, checked before anything is rendered.
  const details = { layerId: layer.id, layer: layer.name };
  checkEncodable(`Layer "${layer.name}"`, boundsToRect(layerBounds(layer)), details);
  checkEncodable(`Export of layer "${layer.name}"`, options.size, details);
  const rows = renderLayerRows(layer);
  const stages = ctx ? stagesOf(ctx, rows + options.size.height) : undefined;
  stages?.stage("compositing", rows);
  const rendered = renderLayer(layer, stages?.rows());
  stages?.stage("encoding", options.size.height);
  let encoded: EncodedImage;
  if (!rendered) encoded = await encodeRaster(null, EMPTY_BOUNDS, options);
  else {
    const overlay = options.outline ? outlineOverlay(options.outline, rendered.bounds, options.size) : null;
    encoded = await encodeRaster(rendered.raster, rendered.bounds, options, overlay ? [overlay] : []);
  }
  stages?.done();
  return encoded;
}

/**
 * The `layer:previewChange` event of a document: its first active layer (index order) as a PNG whose longest edge
 * is at most `PREVIEW_MAX_SIZE`, rendered as `exportLayerImage` renders it; `null` without a document or an
 * active layer.
 */
export async function previewEvent(doc: EmbeddedDocument | undefined): Promise<PreviewEvent | null> {
  const entry = doc ? activeEntries(doc)[0] : undefined;
  if (!doc || !entry) return null;
  const { layer, index } = entry;
  const rect = boundsToRect(layerBounds(layer));
  const image = await encodeLayer(layer, { format: "png", size: previewSize(rect.width, rect.height) });
  return { documentId: doc.id, layer: { id: layer.id, name: layer.name, index }, image };
}

/** A grayscale PSD (or duotone, bitmap) opened as grayscale exports grayscale. */
const isGrayscale = (doc: EmbeddedDocument): boolean => doc.source?.psdFile?.opened.source.opensAs === 1;

/** Runs `work` holding `held` (released however it ends). */
async function holding<T>(held: Reservation, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    held.release();
  }
}

/** The embedded editor's pixel exports of {@link HostAdapter}. */
export function imageOps(deps: ImageOpsDeps): Pick<HostAdapter, "exportDocumentImage" | "exportLayerImage"> {
  return {
    async exportDocumentImage(ctx, { documentId, format, quality, size, alpha }) {
      const doc = deps.document(documentId);
      deps.checkpoint(ctx);
      // The output at its size (scaled pixels, then the encoded file, at most as big), and a composited canvas
      // unless libvips composites a plain stack while it encodes (it needs one only to scale).
      // The encoder's own limit is the more telling refusal: checked before the budget (and again in `encodeDocument`).
      checkEncodable("Document", doc);
      checkEncodable("Output", size);
      const scaled = size.width !== doc.width || size.height !== doc.height;
      // Layer effects work on planes of their own while they are drawn (one layer at a time).
      const canvas = !scaled && plainStack(doc) ? 0 : rgbaBytes(doc.width, doc.height) + effectsWorkBytes(doc.layers, canvasRegion(doc));
      const bytes = canvas + rgbaBytes(size.width, size.height);
      const held = deps.memory.reserve(`Exporting a document of ${doc.width}×${doc.height}`, bytes, { documentId: doc.id, width: size.width, height: size.height });
      return holding(held, () => encodeDocument(doc, { format, quality, size, dpi: doc.resolution, alpha, grayscale: isGrayscale(doc) }, ctx));
    },

    async exportLayerImage(ctx, { documentId, layerId, format, quality, size, outline }) {
      const entry = requireLayer(deps.document(documentId), layerId);
      deps.checkpoint(ctx);
      const rect = boundsToRect(layerBounds(entry.layer));
      checkEncodable(`Layer "${entry.layer.name}"`, rect, { layerId, layer: entry.layer.name });
      checkEncodable(`Export of layer "${entry.layer.name}"`, size, { layerId, layer: entry.layer.name });
      const bytes = rgbaBytes(rect.width, rect.height) + rgbaBytes(size.width, size.height);
      const held = deps.memory.reserve(`Exporting layer "${entry.layer.name}"`, bytes, { layerId, width: size.width, height: size.height });
      const doc = deps.document(documentId);
      return holding(held, () => encodeLayer(entry.layer, { format, quality, size, outline, dpi: doc.resolution, grayscale: isGrayscale(doc) }, ctx));
    },
  };
}
