import { parseColor } from "../hosts/_internal/color.js";
import type { EditOutcome } from "../hosts/edits.js";
import { BridgeError } from "../protocol/index.js";
import { defineMethod, type MethodContext, type MethodDefinition } from "./define.js";
import { editTarget, sendEdit, targetLayer } from "./_internal/edits.js";
import { findLayer } from "./_internal/targets.js";

/** What selection edits answer: the selection's bounds after the edit and the document's revision. */
async function selectionAfter(ctx: MethodContext, documentId: number, outcome: EditOutcome) {
  return { documentId, revision: outcome.revision, bounds: await ctx.host.getSelection(ctx.call, documentId) };
}

const MODIFIERS = ["expand", "contract", "feather", "smooth", "border"] as const;

/** Selections made and changed as a whole, from a layer's transparency or from colours. */
export const selectionEditMethods: MethodDefinition[] = [
  defineMethod("selection:all", {
    description: "Selects the whole canvas. Answers the selection's bounds and the document's revision.",
    examples: [{}],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/selection/all" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "selection:all", params);
      return selectionAfter(ctx, tree.document.id, await sendEdit(ctx, tree, { op: "selection:all" }));
    },
  }),
  defineMethod("selection:clear", {
    description: "Selects nothing. Answers `bounds: null` and the document's revision.",
    examples: [{}],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/selection/clear" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "selection:clear", params);
      return selectionAfter(ctx, tree.document.id, await sendEdit(ctx, tree, { op: "selection:clear" }));
    },
  }),
  defineMethod("selection:invert", {
    description: "Selects what was not selected (everything when nothing was). Answers the selection's bounds and the document's revision.",
    examples: [{}],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/selection/invert" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "selection:invert", params);
      return selectionAfter(ctx, tree.document.id, await sendEdit(ctx, tree, { op: "selection:invert" }));
    },
  }),
  defineMethod("selection:modify", {
    description:
      "Changes the selection by a number of pixels: exactly one of `expand`, `contract`, `feather` (softens its edge), `smooth` (rounds its corners) or `border` (keeps a band of that width around its edge). `BAD_REQUEST` when nothing is selected. Answers the selection's bounds and the document's revision.",
    examples: [{ expand: 4 }, { feather: 2.5 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/selection/modify" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "selection:modify", params);
      const how = MODIFIERS.find((name) => params[name] !== undefined)!;
      if ((await ctx.host.getSelection(ctx.call, tree.document.id)) === null) {
        throw new BridgeError("BAD_REQUEST", `Nothing is selected to ${how}`, { details: { documentId: tree.document.id, [how]: params[how] } });
      }
      return selectionAfter(ctx, tree.document.id, await sendEdit(ctx, tree, { op: "selection:modify", how, pixels: params[how]! }));
    },
  }),
  defineMethod("selection:fromLayer", {
    description:
      "Selects a layer's opaque pixels (its transparency as a selection, partly transparent pixels partly selected), combined with the selection by `mode`: `replace` (default), `add`, `subtract` or `intersect`. Answers the selection's bounds and the document's revision.",
    examples: [{ layerId: 3 }, { layerId: 4, mode: "add" }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/selection/from-layer" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "selection:fromLayer", params);
      const layer = targetLayer(tree, params);
      return selectionAfter(ctx, tree.document.id, await sendEdit(ctx, tree, { op: "selection:fromLayer", layerId: layer.id, mode: params.mode ?? "replace" }));
    },
  }),
  defineMethod("selection:fromColor", {
    description:
      "Selects pixels whose every channel is within `tolerance` (0–255) of a colour: the colour at `point` and the region connected to it (a magic wand; `contiguous` defaults to true with a point), or `color` everywhere in the image (a colour range; `contiguous: false`, its default with a colour). Samples the layer (a ref, else the active one) or, with `sampleMerged`, the whole image; combined by `mode` (default `replace`). Answers the selection's bounds and the document's revision.",
    examples: [{ point: { x: 5, y: 5 }, tolerance: 32 }, { color: "#ffffff", tolerance: 10, sampleMerged: true }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/selection/from-color" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "selection:fromColor", params);
      const named = params.layerId !== undefined || params.layerIndex !== undefined;
      // Sampling the whole image needs no layer; a layer named must exist all the same.
      const layer = params.sampleMerged === true && !named ? findLayer(tree, { by: "active" }) : targetLayer(tree, params);
      const contiguous = params.contiguous ?? params.point !== undefined;
      if (contiguous && params.point === undefined) {
        throw new BridgeError("BAD_REQUEST", "A contiguous selection grows from a point: pass point, or contiguous: false", { details: { contiguous } });
      }
      const point = params.point === undefined ? undefined : { x: Math.floor(params.point.x), y: Math.floor(params.point.y) };
      if (point !== undefined && (point.x < 0 || point.y < 0 || point.x >= tree.document.width || point.y >= tree.document.height)) {
        throw new BridgeError("BAD_REQUEST", `point (${point.x}, ${point.y}) is outside the ${tree.document.width}×${tree.document.height} canvas`, {
          details: { point: params.point },
        });
      }
      const color = params.color === undefined ? undefined : parseColor(params.color, "color");
      const outcome = await sendEdit(ctx, tree, {
        op: "selection:fromColor",
        point,
        color,
        tolerance: params.tolerance,
        contiguous,
        sampleMerged: params.sampleMerged ?? false,
        layerId: layer?.id,
        mode: params.mode ?? "replace",
      });
      return selectionAfter(ctx, tree.document.id, outcome);
    },
  }),
];
