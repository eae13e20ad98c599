import { BridgeError } from "../../protocol/errors.js";
import type { HostAdapter, HostCallContext } from "../host.js";
import { decodeImage } from "./decode.js";
import type { EmbeddedDocument, PixelLayer } from "./document.js";
import { rgbaBytes, type EditorMemory } from "./memory.js";
import type { DocumentChanges } from "./events.js";
import type { Raster } from "./raster.js";
import { flattenLayers } from "./tree.js";
import { stagesOf } from "./work.js";

/** What the layer operations need from the editor. */
export interface LayerOpsDeps {
  /** Largest layer (width × height) an import may place: the editor's `maxDocumentPixels`. */
  readonly maxDocumentPixels: number;
  /** The editor's memory budget: an import is charged its decoded size before it is decoded. */
  readonly memory: EditorMemory;
  document(documentId: number | undefined): EmbeddedDocument;
  /** Reports an edit (events, dirty flag). */
  changed(doc: EmbeddedDocument, changes: DocumentChanges): void;
  /** Throws the abort reason once the call is cancelled or out of time (see `work.ts`). */
  checkpoint(ctx: HostCallContext): void;
}

/**
 * Inserts `layer` directly above the layer `aboveLayerId` in that layer's sibling list (inside its group), or at
 * the top of the document for `null` or a layer that is gone (the tree may change while an image decodes).
 */
function insertAbove(doc: EmbeddedDocument, layer: PixelLayer, aboveLayerId: number | null): void {
  const entry = aboveLayerId === null ? undefined : flattenLayers(doc.layers).find((e) => e.layer.id === aboveLayerId);
  if (!entry) {
    doc.layers.unshift(layer);
    return;
  }
  entry.siblings.splice(entry.siblings.indexOf(entry.layer), 0, layer);
}

/** A new visible, normal, opaque pixel layer of `raster` with its top-left at `position`, with the next id. */
function newPixelLayer(doc: EmbeddedDocument, raster: Raster, name: string, position: { x: number; y: number }): PixelLayer {
  return {
    id: doc.nextLayerId++,
    kind: "pixel",
    name,
    visible: true,
    opacity: 255,
    blendMode: "normal",
    left: Math.round(position.x),
    top: Math.round(position.y),
    width: raster.width,
    height: raster.height,
    data: raster.data,
  };
}

/** The embedded editor's layer operations of {@link HostAdapter}. */
export function layerOps(deps: LayerOpsDeps): Required<Pick<HostAdapter, "selectLayers" | "importLayer">> {
  return {
    async selectLayers(_ctx, { documentId, ids }) {
      const doc = deps.document(documentId);
      const wanted = new Set(ids);
      // Index order, each once: the order `activeLayerIds` is reported in.
      doc.activeLayerIds = flattenLayers(doc.layers)
        .filter((entry) => wanted.has(entry.layer.id))
        .map((entry) => entry.layer.id);
      deps.changed(doc, { activeLayers: true });
    },

    async importLayer(ctx, { documentId, image, size, position, name, aboveLayerId }) {
      const doc = deps.document(documentId);
      const maxPixels = deps.maxDocumentPixels;
      if (size.width * size.height > maxPixels) {
        // The bridge's import limit may be higher than this editor's: the layer would be larger than any document.
        throw new BridgeError("PAYLOAD_TOO_LARGE", `Imported layer of ${size.width}×${size.height} exceeds ${maxPixels} pixels`, {
          details: { width: size.width, height: size.height, maxPixels, limit: "maxDocumentPixels" },
        });
      }
      deps.checkpoint(ctx);
      // Held while decoding (other calls run meanwhile); once placed, the layer is the document's.
      const held = deps.memory.reserve(`Importing a layer of ${size.width}×${size.height}`, rgbaBytes(size.width, size.height), {
        width: size.width,
        height: size.height,
      });
      try {
        // sharp decodes natively and cannot report from inside: decoding and placing are two stages.
        const stages = stagesOf(ctx, 2);
        stages.stage("decoding");
        const resize = size.width !== image.width || size.height !== image.height;
        const { raster } = await decodeImage(image.bytes, {
          // The methods checked the header and `size` against the bridge's import limit: decode no more than that.
          maxPixels: Math.max(image.width * image.height, size.width * size.height),
          size: resize ? size : undefined,
          details: { format: image.format },
        });
        stages.stage("placing");
        deps.document(doc.id); // closed while decoding → DOCUMENT_NOT_FOUND
        const layer = newPixelLayer(doc, raster, name, position);
        insertAbove(doc, layer, aboveLayerId);
        doc.activeLayerIds = [layer.id];
        deps.changed(doc, { pixels: true, layers: true, activeLayers: true });
        stages.done();
        return layer.id;
      } finally {
        held.release();
      }
    },
  };
}
