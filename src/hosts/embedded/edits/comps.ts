/**
 * Layer comps, kept as a PSD keeps them: the document's list (image resource 1065: id, name, comment, what each
 * captures) and, in each layer's record, its states (`comps.settings`: the comps that show it or hide it, and its
 * offset from where it is now). Applying a comp sets each layer's visibility and moves it by its offset; every
 * offset of that layer then counts from its new place, so the comp just applied is at offset 0, as Photoshop writes
 * a file after applying one. Appearance (layer styles per comp) is listed and kept, not switched.
 */
import { randomInt } from "node:crypto";
import { BridgeError } from "../../../protocol/errors.js";
import type { LayerCompCaptures, LayerCompInfo, LayerCompList } from "../../edits.js";
import type { DocumentLayerComps, EmbeddedDocument, EmbeddedLayer, LayerMask } from "../document.js";
import { compsAfterMove, type PsdLayerRecord, translatedRecord } from "../psd-records.js";
import { flattenLayers } from "../tree.js";
import type { EditHandlers } from "./context.js";
import { checkUnlocked } from "./locks.js";

/** The bits of a comp's `capturedInfo`. */
const VISIBILITY = 1;
const POSITION = 2;
const APPEARANCE = 4;

type CompSetting = NonNullable<PsdLayerRecord["comps"]>["settings"][number];

const capturesOf = (info: number): LayerCompCaptures => ({ visibility: (info & VISIBILITY) !== 0, position: (info & POSITION) !== 0, appearance: (info & APPEARANCE) !== 0 });
const infoOf = (c: LayerCompCaptures): number => (c.visibility ? VISIBILITY : 0) | (c.position ? POSITION : 0) | (c.appearance ? APPEARANCE : 0);

/** The document's comps as editors report them. */
export function listComps(doc: EmbeddedDocument): LayerCompList {
  const comps: LayerCompInfo[] = (doc.layerComps?.list ?? []).map((comp) => ({ id: comp.id, name: comp.name, comment: comp.comment ?? null, captures: capturesOf(comp.capturedInfo) }));
  return { documentId: doc.id, comps, lastApplied: doc.layerComps?.lastApplied ?? null };
}

/** @throws BridgeError `NOT_FOUND` when the document has no comp with this id. */
function requireComp(doc: EmbeddedDocument, compId: number): DocumentLayerComps["list"][number] {
  const comp = doc.layerComps?.list.find((entry) => entry.id === compId);
  if (comp === undefined) throw new BridgeError("NOT_FOUND", `Document ${doc.id} has no layer comp with id ${compId}`, { details: { documentId: doc.id, id: compId } });
  return comp;
}

/** A mask moved with its layer unless it is unlinked. */
const movedMask = (mask: LayerMask | undefined, dx: number, dy: number): LayerMask | undefined =>
  mask === undefined || mask.unlinked === true ? mask : { ...mask, x: mask.x + dx, y: mask.y + dy };

/**
 * Moves one layer by whole pixels as a comp does: its own pixels (a group's are its children's, which have their own
 * states), its linked masks, what its record places in document pixels, and its comp offsets.
 */
function moveLayer(layer: EmbeddedLayer, dx: number, dy: number): void {
  if (layer.kind !== "group") {
    layer.left += dx;
    layer.top += dy;
  }
  layer.mask = movedMask(layer.mask, dx, dy);
  layer.vectorMask = movedMask(layer.vectorMask, dx, dy);
  layer.vectorShape = movedMask(layer.vectorShape, dx, dy);
  const record = layer.kind === "group" ? layer.record : translatedRecord(layer.record, dx, dy);
  layer.record = compsAfterMove(record, dx, dy);
}

/** The layer's settings without `compId` in any of them (settings left naming no comp go). */
function withoutComp(settings: readonly CompSetting[], compId: number): CompSetting[] {
  return settings.map((setting) => ({ ...setting, compList: setting.compList.filter((id) => id !== compId) })).filter((setting) => setting.compList.length > 0);
}

/** Records every layer as it is now under `compId`: shown or hidden, at offset 0. */
function capture(doc: EmbeddedDocument, compId: number): void {
  for (const { layer } of flattenLayers(doc.layers)) {
    const comps = layer.record?.comps;
    const settings = withoutComp(comps?.settings ?? [], compId);
    settings.push({ compList: [compId], enabled: layer.visible, offset: { x: 0, y: 0 } });
    layer.record = { ...layer.record, comps: { ...comps, settings } };
  }
}

/** A comp id the document does not use: Photoshop's are 32-bit. */
function newCompId(doc: EmbeddedDocument): number {
  const used = new Set((doc.layerComps?.list ?? []).map((comp) => comp.id));
  let id = randomInt(1, 2 ** 31 - 1);
  while (used.has(id)) id = randomInt(1, 2 ** 31 - 1);
  return id;
}

export const compEdits: EditHandlers = {
  "layerComp:apply": (context, edit) => {
    const { doc } = context;
    const comp = requireComp(doc, edit.compId);
    const captures = capturesOf(comp.capturedInfo);
    const entries = flattenLayers(doc.layers);
    const stateOf = (layer: EmbeddedLayer) => layer.record?.comps?.settings.find((setting) => setting.compList.includes(comp.id));
    // Refused before anything changes: a locked layer the comp would move.
    if (captures.position) {
      for (const { layer } of entries) {
        const offset = stateOf(layer)?.offset;
        if (offset !== undefined && (Math.round(offset.x) !== 0 || Math.round(offset.y) !== 0)) checkUnlocked(doc, layer.id, `apply layer comp "${comp.name}" (it moves the layer)`);
      }
    }
    for (const { layer } of entries) {
      const state = stateOf(layer);
      if (state === undefined) continue;
      if (captures.visibility && state.enabled !== undefined) layer.visible = state.enabled;
      const dx = Math.round(state.offset?.x ?? 0);
      const dy = Math.round(state.offset?.y ?? 0);
      if (captures.position && (dx !== 0 || dy !== 0)) moveLayer(layer, dx, dy);
    }
    doc.layerComps = { ...doc.layerComps!, lastApplied: comp.id };
    context.changed(doc, { pixels: true, layers: true });
    return undefined;
  },
  "layerComp:create": (context, edit) => {
    const { doc } = context;
    const id = newCompId(doc);
    capture(doc, id);
    const entry = { id, name: edit.name, ...(edit.comment === null ? {} : { comment: edit.comment }), capturedInfo: infoOf(edit.captures) };
    doc.layerComps = { list: [...(doc.layerComps?.list ?? []), entry], lastApplied: id };
    context.changed(doc, { layers: true });
    return { compId: id };
  },
  "layerComp:update": (context, edit) => {
    const { doc } = context;
    requireComp(doc, edit.compId);
    if (edit.recapture) capture(doc, edit.compId);
    const list = doc.layerComps!.list.map((comp) =>
      comp.id === edit.compId ? { id: comp.id, name: edit.name, ...(edit.comment === null ? {} : { comment: edit.comment }), capturedInfo: infoOf(edit.captures) } : comp,
    );
    doc.layerComps = { ...doc.layerComps, list, ...(edit.recapture ? { lastApplied: edit.compId } : {}) };
    context.changed(doc, { layers: true });
    return undefined;
  },
  "layerComp:delete": (context, edit) => {
    const { doc } = context;
    requireComp(doc, edit.compId);
    for (const { layer } of flattenLayers(doc.layers)) {
      const comps = layer.record?.comps;
      if (comps === undefined) continue;
      layer.record = { ...layer.record, comps: { ...comps, settings: withoutComp(comps.settings, edit.compId) } };
    }
    const { lastApplied, list } = doc.layerComps!;
    doc.layerComps = { list: list.filter((comp) => comp.id !== edit.compId), ...(lastApplied === undefined || lastApplied === edit.compId ? {} : { lastApplied }) };
    context.changed(doc, { layers: true });
    return undefined;
  },
};
