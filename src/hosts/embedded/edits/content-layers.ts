/**
 * Adjustment and fill layers made and changed by edits: the layer is its record (ag-psd's `adjustment` or
 * `vectorFill`, made from the typed settings by `adjustments/typed.ts` and `fills/typed.ts`) with no pixels of its
 * own, so the compositor renders it from the record as it renders one a file held (`content-layers.ts`), and a
 * save writes it as Photoshop's adjustment or fill layer.
 */
import { BridgeError } from "../../../protocol/errors.js";
import type { LayerEdit } from "../../edits.js";
import { adjustmentRecord } from "../adjustments/typed.js";
import type { EmbeddedDocument, PixelLayer } from "../document.js";
import { fillRecord } from "../fills/typed.js";
import { checkUnlocked } from "./locks.js";

type Create = Extract<LayerEdit, { op: "layer:create" }>;
type Update = Extract<LayerEdit, { op: "layer:update" }>;

/** A new adjustment or fill layer of `edit`, with the document's next id. */
export function newContentLayer(doc: EmbeddedDocument, edit: Create & { kind: "adjustment" | "fill" }): PixelLayer {
  const record =
    edit.kind === "adjustment"
      ? { adjustment: adjustmentRecord(required(edit.adjustment, "adjustment")) }
      : { vectorFill: fillRecord(required(edit.fill, "fill")) };
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
export function updateContent(doc: EmbeddedDocument, layer: EmbeddedDocument["layers"][number], edit: Update): boolean {
  if (edit.adjustment === undefined && edit.fill === undefined) return false;
  if (edit.adjustment !== undefined && layer.kind !== "adjustment") throw notKind(layer.id, layer.kind, "adjustment");
  if (edit.fill !== undefined && layer.kind !== "fill" && layer.kind !== "shape") throw notKind(layer.id, layer.kind, "fill");
  checkUnlocked(doc, layer.id, "change its content");
  const pixels = layer as PixelLayer;
  if (edit.adjustment !== undefined) pixels.record = { ...pixels.record, adjustment: adjustmentRecord(edit.adjustment) };
  if (edit.fill !== undefined) {
    pixels.record = { ...pixels.record, vectorFill: fillRecord(edit.fill) };
    Object.assign(pixels, { width: 0, height: 0, data: new Uint8ClampedArray(0) });
  }
  return true;
}

function required<T>(value: T | undefined, field: string): T {
  if (value !== undefined) return value;
  throw new BridgeError("BAD_REQUEST", `An ${field} layer needs its ${field}`, { details: { field } });
}

function notKind(layerId: number, kind: string, field: "adjustment" | "fill"): BridgeError {
  return new BridgeError("BAD_REQUEST", `Layer ${layerId} is a ${kind} layer, not an ${field} layer`, { details: { layerId, kind, field } });
}
