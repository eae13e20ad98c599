/**
 * Text layers (`layer:create {kind: "text"}` and `layer:updateText`): the text laid out and drawn by the editor's
 * engine (`../text/`), kept as a `text` layer whose record holds what it was drawn with and the PSD text record a
 * save writes. Drawing a PSD text layer again replaces Photoshop's cached pixels with this engine's.
 */
import { BridgeError } from "../../../protocol/errors.js";
import type { LayerEdit, TextSpec } from "../../edits.js";
import type { EmbeddedDocument, PixelLayer } from "../document.js";
import { layoutText } from "../text/layout.js";
import { type EngineText, textRecord } from "../text/record.js";
import { renderText, type TextPixels } from "../text/render.js";
import { requireLayer } from "../tree.js";
import { reserveBuffer } from "./buffers.js";
import type { EditContext, EditMade } from "./context.js";
import { checkOpenGroup, checkUnlocked } from "./locks.js";
import { checkAboveBackground, slotOf } from "./stack.js";

type Context = EditContext & { readonly doc: EmbeddedDocument };

/** @throws BridgeError `NOT_SUPPORTED {editor, capability: "text", field: "direction"}` for vertical text */
function checkHorizontal(spec: TextSpec): void {
  if (spec.direction !== "ttb" && spec.direction !== "btt") return;
  throw new BridgeError("NOT_SUPPORTED", "The embedded editor lays text out horizontally only", {
    details: { editor: "embedded", capability: "text", field: "direction", direction: spec.direction },
  });
}

/** The text drawn: its pixels, and what it was drawn with. */
async function draw(context: Context, spec: TextSpec): Promise<{ pixels: TextPixels; engine: EngineText }> {
  checkHorizontal(spec);
  const layout = await layoutText(spec, context.doc.resolution, context.fonts);
  context.checkpoint(context.call);
  const pixels = await renderText(layout, spec.color, spec.antiAlias, spec.box, (width, height) => reserveBuffer(context, "A text layer", width, height, 4));
  return { pixels, engine: { spec, font: layout.primary.postScriptName, fallbackFonts: layout.fallbackFonts } };
}

/** `layer:create {kind: "text"}`: a new text layer where `place` says; it becomes the active layer. */
export async function createTextLayer(context: Context, edit: Extract<LayerEdit, { op: "layer:create"; kind: "text" }>): Promise<EditMade> {
  const { doc } = context;
  const { pixels, engine } = await draw(context, edit.text);
  // The stack is looked at after drawing: other calls may have changed it meanwhile.
  const slot = slotOf(doc, edit.place);
  checkOpenGroup(doc, slot.parent);
  checkAboveBackground(slot);
  const layer: PixelLayer = {
    id: doc.nextLayerId++,
    kind: "text",
    name: edit.name,
    visible: true,
    opacity: 255,
    blendMode: "normal",
    ...pixels,
    record: { engineText: engine, text: textRecord(engine, doc.resolution) },
  };
  slot.siblings.splice(slot.index, 0, layer);
  doc.activeLayerIds = [layer.id];
  context.changed(doc, { layers: true, pixels: true, activeLayers: true });
  return { layerId: layer.id };
}

/** `layer:updateText`: the layer drawn again with the settings given (every field, merged by the methods). */
export async function updateTextLayer(context: Context, edit: Extract<LayerEdit, { op: "layer:updateText" }>): Promise<EditMade> {
  const { doc } = context;
  const { layer } = requireLayer(doc, edit.layerId);
  if (layer.kind !== "text") {
    throw new BridgeError("BAD_REQUEST", `Layer ${layer.id} is a ${layer.kind} layer, not a text layer`, { details: { layerId: layer.id, kind: layer.kind } });
  }
  checkUnlocked(doc, layer.id, "change its text");
  const { pixels, engine } = await draw(context, edit.text);
  // The record keeps what the file had (effects, blending ranges…); its text is the one drawn now.
  const { text: _text, engineText: _engine, ...kept } = layer.record ?? {};
  Object.assign(layer, pixels, { record: { ...kept, engineText: engine, text: textRecord(engine, doc.resolution) } });
  context.changed(doc, { layers: true, pixels: true });
  return undefined;
}
