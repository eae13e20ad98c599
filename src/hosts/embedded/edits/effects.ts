/**
 * `layer:setEffects`: a layer's style replaced whole by the typed effects' record (`../effects/typed.ts`), which
 * the renderer draws as it draws a file's and a save writes as Photoshop's layer style; the document's global light
 * set with it when the call names it. The record is a new object (a step of the history keeps the old one).
 */
import { BridgeError } from "../../../protocol/errors.js";
import { DEFAULT_GLOBAL_ANGLE, hasActiveEffects } from "../effects/index.js";
import { effectsRecord } from "../effects/typed.js";
import { requireLayer } from "../tree.js";
import { checkUnlocked } from "./locks.js";
import type { EditHandlers } from "./context.js";

/** Photoshop's global light altitude for a document that records none. */
const DEFAULT_GLOBAL_ALTITUDE = 30;

export const effectEdits: EditHandlers = {
  "layer:setEffects"(context, edit) {
    const { doc } = context;
    const { layer } = requireLayer(doc, edit.layerId);
    if (layer.kind === "background") {
      throw new BridgeError("BAD_REQUEST", `Layer ${layer.id} is the background, which has no effects: make it a layer first`, {
        details: { layerId: layer.id, kind: layer.kind, field: "effects" },
      });
    }
    checkUnlocked(doc, layer.id, "change its effects");
    if (edit.globalLight !== undefined) {
      doc.globalLight = { angle: edit.globalLight.angle, altitude: edit.globalLight.altitude ?? doc.globalLight?.altitude ?? DEFAULT_GLOBAL_ALTITUDE };
    }
    const light = { angle: doc.globalLight?.angle ?? DEFAULT_GLOBAL_ANGLE };
    const record = effectsRecord(edit.effects, light);
    const { effects: _old, ...rest } = layer.record ?? {};
    const empty = Object.keys(edit.effects).length === 0;
    // `effectsSet` tells a save the file's own style blocks are stale (see `psd-save.ts`).
    layer.record = { ...rest, ...(empty ? {} : { effects: record }), effectsSet: true };
    layer.effects = hasActiveEffects(record) && !empty ? record : undefined;
    context.changed(doc, { layers: true, pixels: true });
    return undefined;
  },
};
