import { BridgeError } from "../../protocol/index.js";
import type { LayerImportImageParams } from "../../protocol/index.js";
import type { EmbeddedDocument, PixelLayer } from "./document.js";
import { MAX_IMPORT_BASE64_LENGTH } from "./limits.js";
import type { Raster } from "./raster.js";
import { flattenLayers, requireLayerRef, resolveLayerRef } from "./tree.js";

/** Default name of an imported layer. */
export const IMPORTED_LAYER_NAME = "Imported Layer";

/** Longest data URI header (`data:image/…;base64,`) allowed on top of the base64 payload. */
const MAX_DATA_URI_HEADER = 256;

const DATA_URI = /^data:([^;,]*)((?:;[^;,]*)*),/i;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const PATH_LIKE = /[./\\~]/;

/**
 * Turns `LayerImportImageParams.image` into encoded bytes. This version takes `data:` URIs (base64) and bare
 * base64; files and URLs answer `NOT_SUPPORTED`.
 *
 * @throws BridgeError `PAYLOAD_TOO_LARGE` beyond {@link MAX_IMPORT_BASE64_LENGTH}, `BAD_REQUEST` for malformed data.
 */
export function decodeImportSource(image: string): Buffer {
  if (image.length > MAX_IMPORT_BASE64_LENGTH + MAX_DATA_URI_HEADER) throw tooLarge(image.length);
  let payload: string;
  const header = DATA_URI.exec(image.slice(0, MAX_DATA_URI_HEADER));
  if (header) {
    const mime = (header[1] ?? "").toLowerCase();
    if (!mime.startsWith("image/")) {
      throw new BridgeError("BAD_REQUEST", `Data URI must hold an image, not "${mime || "text/plain"}"`, { details: { mediaType: mime } });
    }
    if (!/;base64$/i.test(header[2] ?? "")) throw new BridgeError("BAD_REQUEST", "Only base64 data URIs are accepted");
    payload = image.slice(header[0].length);
  } else if (/^data:/i.test(image)) {
    throw new BridgeError("BAD_REQUEST", "Malformed data URI");
  } else if (/^file:/i.test(image)) {
    throw notYet("import:file", "files");
  } else if (/^https?:/i.test(image)) {
    throw notYet("import:url", "URLs");
  } else {
    payload = image;
  }
  payload = payload.replace(/\s+/g, "");
  if (payload.length > MAX_IMPORT_BASE64_LENGTH) throw tooLarge(payload.length);
  if (!BASE64.test(payload)) {
    // Not base64: a local path (which has '.', '/', '\' or '~') or plain garbage.
    if (!header && PATH_LIKE.test(image)) throw notYet("import:file", "files");
    throw new BridgeError("BAD_REQUEST", "Image is neither a data URI nor base64");
  }
  const bytes = Buffer.from(payload, payload.includes("-") || payload.includes("_") ? "base64url" : "base64");
  if (bytes.length === 0) throw new BridgeError("BAD_REQUEST", "Image data is empty");
  return bytes;
}

function tooLarge(length: number): BridgeError {
  return new BridgeError("PAYLOAD_TOO_LARGE", `Image of ${length} base64 characters exceeds ${MAX_IMPORT_BASE64_LENGTH}`, {
    details: { length, maxLength: MAX_IMPORT_BASE64_LENGTH },
  });
}

function notYet(capability: string, what: string): BridgeError {
  return new BridgeError("NOT_SUPPORTED", `The embedded editor takes data URIs and base64; importing from ${what} arrives in a later version`, {
    details: { capability },
  });
}

/**
 * Checks where an import goes before any decoding: above `layerId`/`layerIndex`, else above the first active
 * layer, else at the top. Returns a function that performs the insertion.
 * @throws BridgeError `LAYER_NOT_FOUND` for an unknown target.
 */
export function planInsertion(doc: EmbeddedDocument, params: Pick<LayerImportImageParams, "layerId" | "layerIndex">): (layer: PixelLayer) => void {
  const target =
    params.layerId !== undefined
      ? requireLayerRef(doc, { by: "id", id: params.layerId })
      : params.layerIndex !== undefined
        ? requireLayerRef(doc, { by: "index", index: params.layerIndex })
        : resolveLayerRef(doc, { by: "active" });
  return (layer) => {
    // The tree may have changed while the image decoded: insert at the target's current position (top if gone).
    const entry = target ? flattenLayers(doc.layers).find((e) => e.layer === target.layer) : undefined;
    if (!entry) {
      doc.layers.unshift(layer);
      return;
    }
    entry.siblings.splice(entry.siblings.indexOf(entry.layer), 0, layer);
  };
}

/** A new pixel layer for imported pixels, centred on the canvas unless `position` (top-left) is given. */
export function importedLayer(doc: EmbeddedDocument, raster: Raster, params: Pick<LayerImportImageParams, "name" | "position">): PixelLayer {
  const left = params.position ? Math.round(params.position.x) : Math.round((doc.width - raster.width) / 2);
  const top = params.position ? Math.round(params.position.y) : Math.round((doc.height - raster.height) / 2);
  return {
    id: doc.nextLayerId++,
    kind: "pixel",
    name: params.name ?? IMPORTED_LAYER_NAME,
    visible: true,
    opacity: 255,
    blendMode: "normal",
    left,
    top,
    width: raster.width,
    height: raster.height,
    data: raster.data,
  };
}
