/**
 * Adjustment and fill layers made and changed by edits: the layer is its record (ag-psd's `adjustment` or
 * `vectorFill`, made from the typed settings by `adjustments/typed.ts` and `fills/typed.ts`) with no pixels of its
 * own, so the compositor renders it from the record as it renders one a file held (`content-layers.ts`), and a
 * save writes it as Photoshop's adjustment or fill layer. A pattern fill's tile joins the document's patterns (a new
 * list, with a new id), which a save writes with the document.
 */
import { randomUUID } from "node:crypto";
import type { PatternInfo, VectorContent } from "ag-psd";
import { BridgeError } from "../../../protocol/errors.js";
import type { ResolvedFill } from "../../../protocol/fills.js";
import type { LayerEdit } from "../../edits.js";
import { adjustmentRecord } from "../adjustments/typed.js";
import { decodeImage } from "../decode.js";
import type { EmbeddedDocument, PixelLayer } from "../document.js";
import { fillRecord } from "../fills/typed.js";
import type { EditContext } from "./context.js";
import { checkUnlocked } from "./locks.js";

type Create = Extract<LayerEdit, { op: "layer:create" }>;
type Update = Extract<LayerEdit, { op: "layer:update" }>;

/** A new adjustment or fill layer of `edit`, with the document's next id. */
export async function newContentLayer(context: EditContext, doc: EmbeddedDocument, edit: Create & { kind: "adjustment" | "fill" }): Promise<PixelLayer> {
  const record =
    edit.kind === "adjustment"
      ? { adjustment: adjustmentRecord(required(edit.adjustment, "adjustment")) }
      : { vectorFill: await fillContent(context, doc, required(edit.fill, "fill")) };
  return {
    id: doc.nextLayerId++,
    kind: edit.kind,
    name: edit.name,
    visible: true,
    opacity: 255,
    blendMode: "normal",
    left: 0,
    top: 0,
    width: 0,
    height: 0,
    data: new Uint8ClampedArray(0),
    record,
  };
}

/**
 * An update's new adjustment or fill, put into the layer's record (a new record: the one a step of the history
 * holds stays as it was). A fill layer's pixels (Photoshop's rendering of its old fill) are dropped: it renders
 * from the new fill. Answers whether anything changed.
 * @throws BridgeError `BAD_REQUEST` when the layer is not of that kind, `LOCKED` when it is locked.
 */
export async function updateContent(context: EditContext, doc: EmbeddedDocument, layer: EmbeddedDocument["layers"][number], edit: Update): Promise<boolean> {
  if (edit.adjustment === undefined && edit.fill === undefined) return false;
  if (edit.adjustment !== undefined && layer.kind !== "adjustment") throw notKind(layer.id, layer.kind, "adjustment");
  if (edit.fill !== undefined && layer.kind !== "fill" && layer.kind !== "shape") throw notKind(layer.id, layer.kind, "fill");
  checkUnlocked(doc, layer.id, "change its content");
  const pixels = layer as PixelLayer;
  if (edit.adjustment !== undefined) pixels.record = { ...pixels.record, adjustment: adjustmentRecord(edit.adjustment) };
  if (edit.fill !== undefined) {
    pixels.record = { ...pixels.record, vectorFill: await fillContent(context, doc, edit.fill) };
    Object.assign(pixels, { width: 0, height: 0, data: new Uint8ClampedArray(0) });
  }
  return true;
}

/**
 * A fill's record; a pattern's tile decoded and added to the document's patterns (a new list: a history step or a
 * copy holding the old one keeps it), the record naming it by a new id.
 */
async function fillContent(context: EditContext, doc: EmbeddedDocument, fill: ResolvedFill): Promise<VectorContent> {
  if (fill.type !== "pattern") return fillRecord(fill);
  const { raster } = await decodeImage(fill.image.bytes, { maxPixels: fill.image.width * fill.image.height, details: { field: "fill.image", format: fill.image.format } });
  context.checkpoint(context.call);
  const data = new Uint8Array(raster.data.buffer, raster.data.byteOffset, raster.data.length);
  const pattern: PatternInfo = { name: fill.name, id: randomUUID(), x: 0, y: 0, bounds: { x: 0, y: 0, w: raster.width, h: raster.height }, data };
  doc.patterns = [...(doc.patterns ?? []), pattern];
  return { type: "pattern", name: pattern.name, id: pattern.id };
}

function required<T>(value: T | undefined, field: string): T {
  if (value !== undefined) return value;
  throw new BridgeError("BAD_REQUEST", `An ${field} layer needs its ${field}`, { details: { field } });
}

function notKind(layerId: number, kind: string, field: "adjustment" | "fill"): BridgeError {
  return new BridgeError("BAD_REQUEST", `Layer ${layerId} is a ${kind} layer, not an ${field} layer`, { details: { layerId, kind, field } });
}
