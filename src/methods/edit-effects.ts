import { BridgeError } from "../protocol/index.js";
import { defineMethod, type MethodContext } from "./define.js";
import { resolveEffects } from "./_internal/effects.js";
import { editTarget, editedLayer, sendEdit, targetLayer } from "./_internal/edits.js";
import type { MethodDefinition } from "./define.js";

/** The capability layer effects are named by where an editor has none. */
const CAPABILITY = "layer effects";

/** @throws BridgeError `NOT_SUPPORTED` `{editor, capability: "layer effects", method}`, before anything is read. */
function checkEffects(ctx: MethodContext): void {
  if (ctx.host.editCapabilities?.["layer:setEffects"] !== undefined && typeof ctx.host.edit === "function") return;
  throw new BridgeError("NOT_SUPPORTED", `The ${ctx.host.kind} editor cannot set ${CAPABILITY}`, {
    details: { editor: ctx.host.kind, capability: CAPABILITY, method: "layer:setEffects" },
  });
}

/** Layer effects (Photoshop's layer style), one history step per call. */
export const effectEditMethods: MethodDefinition[] = [
  defineMethod("layer:setEffects", {
    description:
      "Replaces a layer's effects (its layer style) with `effects` `{dropShadow?, innerShadow?, outerGlow?, innerGlow?, bevel?, satin?, colorOverlay?, gradientOverlay?, stroke?}` (drop and inner shadows, overlays and strokes also as lists of up to 10, the first on top, as Photoshop stacks them): effects left out are removed, `{}` clears them; settings left out take Photoshop's defaults. Opacities, spreads, chokes, ranges in percent; sizes and distances in pixels; angles in degrees (0 = light from the right); colours as strings. Shadows and the bevel use the document's global light unless `useGlobalLight: false` (an `angle` given with it, or `globalLight {angle, altitude?}`, sets the global light). See docs/editing.md. Answers the layer, whose `effects` reads them back.",
    examples: [
      { layerId: 3, effects: { dropShadow: { distance: 8, size: 10, opacity: 50 }, stroke: { size: 2, color: "#ffffff" } } },
      { layerId: 3, effects: {} },
      { effects: { outerGlow: { color: "#ffcc00", size: 20 } }, globalLight: { angle: 90 } },
    ],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/effects" },
    run: async (ctx, params) => {
      checkEffects(ctx);
      const { effects, globalLight } = resolveEffects(params.effects, params.globalLight);
      const tree = await editTarget(ctx, "layer:setEffects", params);
      const layer = targetLayer(tree, params);
      const outcome = await sendEdit(ctx, tree, { op: "layer:setEffects", layerId: layer.id, effects, ...(globalLight !== undefined ? { globalLight } : {}) });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
];
