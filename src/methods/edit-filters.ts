import { BridgeError, type HostLayer } from "../protocol/index.js";
import type { EditName } from "../hosts/edits.js";
import { defineMethod, type MethodContext, type MethodDefinition } from "./define.js";
import { resolveAdjustment, resolveFilter } from "./_internal/adjustments.js";
import { editTarget, editedLayer, sendEdit, targetLayer } from "./_internal/edits.js";

/**
 * @throws BridgeError `NOT_SUPPORTED` `{editor, capability, type}` when the editor cannot make this adjustment or
 * filter type (checked before anything is read, as `editTarget` checks the method).
 */
function checkType(ctx: MethodContext, method: EditName, type: string): void {
  const capability = ctx.host.editCapabilities?.[method];
  if (capability?.unsupportedTypes?.includes(type) !== true) return;
  throw new BridgeError("NOT_SUPPORTED", `The ${ctx.host.kind} editor cannot do ${method} with ${type}`, {
    details: { editor: ctx.host.kind, capability: method, type },
  });
}

/** A layer whose pixels an edit changes. @throws BridgeError `BAD_REQUEST` for a group or a layer without pixels. */
function pixelLayer(layer: HostLayer, what: string): HostLayer {
  if (layer.kind === "pixel" || layer.kind === "background") return layer;
  throw new BridgeError("BAD_REQUEST", `Cannot ${what} a ${layer.kind} layer: only pixel layers (rasterize it first)`, {
    details: { layerId: layer.id, kind: layer.kind },
  });
}

/** The destructive operations: an adjustment or a filter applied to a pixel layer's pixels, one history step each. */
export const filterEditMethods: MethodDefinition[] = [
  defineMethod("layer:adjust", {
    description:
      "Applies an adjustment to a pixel layer's pixels, inside the selection when there is one (soft edges partly): `adjustment` `{type, …settings}` with `type` one of brightnessContrast, levels, curves, exposure, hueSaturation, vibrance, colorBalance, blackAndWhite, photoFilter, channelMixer, invert, posterize, threshold, gradientMap, selectiveColor; settings left out take Photoshop's defaults (see docs/editing.md for each one's units and ranges). Answers the layer.",
    examples: [
      { layerId: 3, adjustment: { type: "hueSaturation", hue: 30, saturation: -20 } },
      { adjustment: { type: "levels", rgb: { inputBlack: 20, inputWhite: 235, gamma: 1.2 } } },
    ],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/layer/adjust" },
    run: async (ctx, params) => {
      checkType(ctx, "layer:adjust", params.adjustment.type);
      const adjustment = resolveAdjustment(params.adjustment);
      const tree = await editTarget(ctx, "layer:adjust", params);
      const layer = pixelLayer(targetLayer(tree, params), "adjust");
      const outcome = await sendEdit(ctx, tree, { op: "layer:adjust", layerId: layer.id, adjustment });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
  defineMethod("filter:apply", {
    description:
      "Applies a filter to a pixel layer's pixels, inside the selection when there is one (soft edges partly): `filter` `{type, …settings}` with `type` one of gaussianBlur (`radius` σ px), motionBlur (`angle`°, `distance` px), boxBlur (`radius` px), unsharpMask (`amount` %, `radius` σ px, `threshold` levels), sharpen, addNoise (`amount` %, `distribution` uniform|gaussian, `monochromatic`), median (`radius` px), pixelate (`size` px), emboss (`azimuth`°, `elevation`°, `depth`), highPass (`radius` σ px); see docs/editing.md. Answers the layer.",
    examples: [{ layerId: 3, filter: { type: "gaussianBlur", radius: 4 } }, { filter: { type: "addNoise", amount: 8, distribution: "gaussian", monochromatic: true } }],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/filter/apply" },
    run: async (ctx, params) => {
      checkType(ctx, "filter:apply", params.filter.type);
      const filter = resolveFilter(params.filter);
      const tree = await editTarget(ctx, "filter:apply", params);
      const layer = pixelLayer(targetLayer(tree, params), "filter");
      const outcome = await sendEdit(ctx, tree, { op: "filter:apply", layerId: layer.id, filter });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
];
