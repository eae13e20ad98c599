import { parseColor } from "../hosts/_internal/color.js";
import { type ANCHOR_NAMES, BridgeError } from "../protocol/index.js";
import { defineMethod, type MethodDefinition } from "./define.js";
import {
  ANCHOR_FRACTIONS,
  aboveActive,
  checkBlendMode,
  checkDocumentPixels,
  editTarget,
  editedLayer,
  layersByIds,
  nextLayerName,
  resolvePlace,
  sendEdit,
  siblingsOf,
  targetLayer,
  turnedSize,
} from "./_internal/edits.js";
import { flattenTree, shownLayer } from "./_internal/targets.js";
import { checkContentUpdate, contentOfNewLayer, contentUpdate, newLayerStem } from "./_internal/content-layers.js";
import { createTextLayer, requireText } from "./text.js";
import type { HostLayer } from "../protocol/index.js";


/** A named anchor of a layer's bounds, or a point given in document pixels. */
function anchorPoint(layer: HostLayer, anchor: (typeof ANCHOR_NAMES)[number] | { x: number; y: number } | undefined): { x: number; y: number } {
  if (typeof anchor === "object") return { x: anchor.x, y: anchor.y };
  const [fx, fy] = ANCHOR_FRACTIONS[anchor ?? "center"];
  return { x: layer.rect.x + layer.rect.width * fx, y: layer.rect.y + layer.rect.height * fy };
}

/** Layers of the editing vocabulary: make, change, arrange, combine, fill and transform them, and their masks. */
export const layerEditMethods: MethodDefinition[] = [
  defineMethod("layer:create", {
    description:
      "Makes a new pixel layer (`kind` `pixel`, the default; transparent, or filled with `fillColor`), an empty group, a text layer (`kind` `text`: `text`, `font`, `size` in points, and optionally `color`, `position` (where the first baseline starts) or `box` (a paragraph box the lines wrap in), `alignment`, `leading`, `tracking`, `baselineShift`, `antiAlias`, `direction`, `script`, `language`; see `layer:updateText`), an adjustment layer (`kind` `adjustment` with `adjustment` `{type, …settings}` as `layer:adjust` takes) or a fill layer (`kind` `fill` with `fill` `{type: solid, color}` or `{type: gradient, style, stops, angle?, scale?}`), named `Layer <n>` / `Group <n>` / after its text unless `name` is given, above the active layer unless placed with `above`, `below`, `parent` or `to`; it becomes the active layer. Answers the new layer with its bounds.",
    examples: [
      { name: "Highlights", fillColor: "#ffffff80", above: 3 },
      { kind: "group", name: "Icons", to: "top" },
      { kind: "text", text: "Summer sale", font: "DejaVu Sans Bold", size: 48, color: "#ffffff", position: { x: 40, y: 120 } },
      { kind: "adjustment", adjustment: { type: "hueSaturation", saturation: -40 }, above: 3 },
      { kind: "fill", fill: { type: "gradient", stops: [{ location: 0, color: "#002060" }, { location: 100, color: "#ffd080" }] } },
    ],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/create" },
    run: async (ctx, params) => {
      if (params.kind === "text") requireText(ctx);
      const content = await contentOfNewLayer(ctx, params);
      const tree = await editTarget(ctx, "layer:create", params);
      const kind = params.kind ?? "pixel";
      if (kind === "text") {
        if (params.fillColor !== undefined) {
          throw new BridgeError("BAD_REQUEST", "A text layer takes color, not fillColor", { details: { kind, fillColor: params.fillColor } });
        }
        return createTextLayer(ctx, tree, params, resolvePlace(tree, params, aboveActive(tree)));
      }
      if (kind === "group" && params.fillColor !== undefined) {
        throw new BridgeError("BAD_REQUEST", "A group has no pixels to fill: leave out fillColor", { details: { kind, fillColor: params.fillColor } });
      }
      const fillColor = params.fillColor === undefined ? undefined : parseColor(params.fillColor, "fillColor");
      const place = resolvePlace(tree, params, aboveActive(tree));
      const name = params.name ?? nextLayerName(tree, newLayerStem(params));
      const outcome = await sendEdit(ctx, tree, { op: "layer:create", kind, name, fillColor, place, ...content });
      return editedLayer(ctx, tree.document.id, outcome.layerId!, outcome);
    },
  }),
  defineMethod("layer:update", {
    description:
      "Changes a layer's `name`, `visible`, `opacity` (0–100), `blendMode` (the names layer objects show: `normal`, `multiply`, `linear burn`…), `locked`, `fillOpacity` (0–100), an adjustment layer's `adjustment` or a fill layer's `fill` (replaced whole, as `layer:create` takes them); fields left out stay as they are. Answers the layer.",
    examples: [{ layerId: 3, visible: false }, { layerId: 3, name: "Shadow", opacity: 40, blendMode: "multiply" }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/update" },
    run: async (ctx, params) => {
      checkContentUpdate(ctx, params);
      const tree = await editTarget(ctx, "layer:update", params);
      const layer = targetLayer(tree, params);
      checkBlendMode(params.blendMode);
      if (params.blendMode === "pass through" && layer.kind !== "group") {
        throw new BridgeError("BAD_REQUEST", "Only a group can pass through", { details: { layerId: layer.id, blendMode: params.blendMode } });
      }
      const { name, visible, opacity, blendMode, locked, fillOpacity } = params;
      const content = await contentUpdate(ctx, layer, params);
      const outcome = await sendEdit(ctx, tree, { op: "layer:update", layerId: layer.id, name, visible, opacity, blendMode, locked, fillOpacity, ...content });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
  defineMethod("layer:delete", {
    description:
      "Deletes a layer (a group with everything in it). Its id is never given to another layer of the document: other clients get `LAYER_NOT_FOUND` for it.",
    examples: [{ layerId: 3 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/delete" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "layer:delete", params);
      const layer = targetLayer(tree, params);
      const outcome = await sendEdit(ctx, tree, { op: "layer:delete", layerId: layer.id });
      return { documentId: tree.document.id, layerId: layer.id, deleted: true as const, revision: outcome.revision };
    },
  }),
  defineMethod("layer:duplicate", {
    description:
      "Copies a layer (a group with everything in it) as `<name> copy` unless `name` is given, directly above the layer copied unless placed with `above`, `below`, `parent` or `to`; the copy becomes the active layer. Answers the copy.",
    examples: [{ layerId: 3 }, { layerId: 3, name: "Backup", to: "bottom" }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/duplicate" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "layer:duplicate", params);
      const layer = targetLayer(tree, params);
      const place = resolvePlace(tree, params, { above: layer.id });
      const outcome = await sendEdit(ctx, tree, { op: "layer:duplicate", layerId: layer.id, name: params.name ?? `${layer.name} copy`, place });
      return editedLayer(ctx, tree.document.id, outcome.layerId!, outcome);
    },
  }),
  defineMethod("layer:move", {
    description:
      "Moves a layer (a group with everything in it) in the stack: `above` or `below` a layer, to the top of a group's children (`parent`), or to the `top` or `bottom` of the document (`to`); exactly one. A group cannot go inside itself (`BAD_REQUEST`). Answers the layer.",
    examples: [{ layerId: 3, to: "top" }, { layerId: 3, parent: 7 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/move" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "layer:move", params);
      const layer = targetLayer(tree, params);
      // The default place, above the active layer, is where the (default) active layer already is: a move says where.
      if ([params.above, params.below, params.parent, params.to].every((v) => v === undefined)) {
        throw new BridgeError("BAD_REQUEST", "Say where the layer goes: above, below, parent or to", { details: { layerId: layer.id } });
      }
      const place = resolvePlace(tree, params, { to: "top" }, layer);
      const outcome = await sendEdit(ctx, tree, { op: "layer:move", layerId: layer.id, place });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
  defineMethod("layer:group", {
    description:
      "Puts layers (`ids`, of one document; not a group together with its own layers) into a new group, named `Group <n>` unless `name` is given, where the top-most of them was; they keep their order. Answers the group with its children.",
    examples: [{ ids: [3, 4], name: "Title" }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/group" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "layer:group", params);
      const layers = layersByIds(tree, params.ids);
      const name = params.name ?? nextLayerName(tree, "Group");
      const outcome = await sendEdit(ctx, tree, { op: "layer:group", layerIds: layers.map((l) => l.id), name });
      return editedLayer(ctx, tree.document.id, outcome.layerId!, outcome);
    },
  }),
  defineMethod("layer:ungroup", {
    description: "Takes a group's layers out of it, in order, where the group was, and deletes the group. Answers the layers it held.",
    examples: [{ layerId: 7 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/ungroup" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "layer:ungroup", params);
      const group = targetLayer(tree, params);
      if (group.kind !== "group") {
        throw new BridgeError("BAD_REQUEST", `Layer ${group.id} is not a group`, { details: { layerId: group.id, kind: group.kind } });
      }
      const outcome = await sendEdit(ctx, tree, { op: "layer:ungroup", layerId: group.id });
      const after = await ctx.host.getDocumentTree(ctx.call, tree.document.id);
      const ids = new Set((group.children ?? []).map((child) => child.id));
      const layers = siblingsOf(after, group.children?.[0]?.id ?? -1).filter((layer) => ids.has(layer.id));
      return { documentId: tree.document.id, revision: outcome.revision, layers: layers.map((layer) => shownLayer(layer, true)) };
    },
  }),
  defineMethod("layer:merge", {
    description:
      "Merges layers into one pixel layer: `ids` (two or more, of one document), named after the top-most, where it was; or one layer (a ref, else the active one) merged down into the layer below it, keeping that layer's name. Answers the merged layer; the ids merged away are gone.",
    examples: [{ ids: [3, 4, 5] }, { layerId: 4 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/merge" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "layer:merge", params);
      if (params.ids !== undefined) {
        const layers = layersByIds(tree, params.ids);
        const outcome = await sendEdit(ctx, tree, { op: "layer:merge", layerIds: layers.map((l) => l.id), name: layers[0]!.name });
        return editedLayer(ctx, tree.document.id, outcome.layerId!, outcome);
      }
      const layer = targetLayer(tree, params);
      const siblings = siblingsOf(tree, layer.id);
      const below = siblings[siblings.findIndex((s) => s.id === layer.id) + 1];
      if (below === undefined) {
        throw new BridgeError("BAD_REQUEST", `Nothing is below layer ${layer.id} to merge it into`, { details: { layerId: layer.id } });
      }
      const outcome = await sendEdit(ctx, tree, { op: "layer:merge", layerIds: [layer.id, below.id], name: below.name });
      return editedLayer(ctx, tree.document.id, outcome.layerId!, outcome);
    },
  }),
  defineMethod("layer:rasterize", {
    description: "Turns a text, shape, fill or smart-object layer into a pixel layer that looks the same. Answers the layer.",
    examples: [{ layerId: 5 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/rasterize" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "layer:rasterize", params);
      const layer = targetLayer(tree, params);
      // Decided here so every editor refuses alike (Photoshop's own rasterize of a pixel layer changes nothing).
      if (layer.kind === "group" || layer.kind === "pixel" || layer.kind === "background" || layer.kind === "adjustment") {
        const why = layer.kind === "adjustment" ? "has no pixels of its own" : layer.kind === "group" ? "is a group: merge its layers instead" : "is already a pixel layer";
        throw new BridgeError("BAD_REQUEST", `Layer ${layer.id} ${why}`, { details: { layerId: layer.id, kind: layer.kind } });
      }
      const outcome = await sendEdit(ctx, tree, { op: "layer:rasterize", layerId: layer.id });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
  defineMethod("layer:fill", {
    description:
      "Fills the selection on a pixel layer (the whole layer when nothing is selected) with `color`, at `opacity` (0–100, default 100) in `blendMode` (default `normal`). Answers the layer.",
    examples: [{ layerId: 3, color: "#ff8800" }, { color: "black", opacity: 50, blendMode: "multiply" }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/fill" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "layer:fill", params);
      const layer = pixelLayer(targetLayer(tree, params), "fill");
      checkBlendMode(params.blendMode);
      const color = parseColor(params.color, "color");
      const outcome = await sendEdit(ctx, tree, { op: "layer:fill", layerId: layer.id, color, opacity: params.opacity ?? 100, blendMode: params.blendMode ?? "normal" });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
  defineMethod("layer:clear", {
    description: "Makes the selected pixels of a pixel layer transparent (all of them when nothing is selected). Answers the layer.",
    examples: [{ layerId: 3 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/clear" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "layer:clear", params);
      const layer = pixelLayer(targetLayer(tree, params), "clear");
      const outcome = await sendEdit(ctx, tree, { op: "layer:clear", layerId: layer.id });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
  defineMethod("layer:transform", {
    description:
      "Scales (`scaleX`, `scaleY`, percent), rotates (`angle`, degrees clockwise) and flips a layer about `anchor` (a named point of the layer's bounds, default `center`, or `{x, y}` in document pixels), then moves it by `dx`, `dy`; in that order. `resample`: `nearest`, `bilinear` or `bicubic` (default). Answers the layer.",
    examples: [{ layerId: 3, dx: 20, dy: -10 }, { layerId: 3, scaleX: 50, scaleY: 50, angle: 30, anchor: "topLeft" }],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/layer/transform" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "layer:transform", params);
      const layer = targetLayer(tree, params);
      if (layer.kind === "background") {
        throw new BridgeError("BAD_REQUEST", "The background layer cannot be transformed: duplicate it first", { details: { layerId: layer.id } });
      }
      // Each layer it moves (a group's every layer) must still fit maxDocumentPixels once scaled and turned.
      for (const moved of [layer, ...flattenTree(layer.children ?? [])].filter((l) => l.kind !== "group")) {
        const scaled = turnedSize(Math.abs((moved.rect.width * (params.scaleX ?? 100)) / 100), Math.abs((moved.rect.height * (params.scaleY ?? 100)) / 100), params.angle ?? 0);
        checkDocumentPixels(ctx, `Layer ${moved.name}`, scaled.width, scaled.height);
      }
      const outcome = await sendEdit(ctx, tree, {
        op: "layer:transform",
        layerId: layer.id,
        dx: params.dx ?? 0,
        dy: params.dy ?? 0,
        scaleX: params.scaleX ?? 100,
        scaleY: params.scaleY ?? 100,
        angle: params.angle ?? 0,
        flip: params.flip ?? "none",
        anchor: anchorPoint(layer, params.anchor),
        resample: params.resample ?? "bicubic",
      });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
  defineMethod("layer:addMask", {
    description:
      "Gives a layer a mask: from the selection (the default when something is selected), `revealAll` (the default otherwise) or `hideAll`. `BAD_REQUEST` when it has one. Answers the layer.",
    examples: [{ layerId: 3 }, { layerId: 3, from: "hideAll" }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/add-mask" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "layer:addMask", params);
      const layer = targetLayer(tree, params);
      let from = params.from;
      if (from === undefined) from = (await ctx.host.getSelection(ctx.call, tree.document.id)) === null ? "revealAll" : "selection";
      else if (from === "selection" && (await ctx.host.getSelection(ctx.call, tree.document.id)) === null) {
        throw new BridgeError("BAD_REQUEST", "Nothing is selected to make the mask from", { details: { from } });
      }
      const outcome = await sendEdit(ctx, tree, { op: "layer:addMask", layerId: layer.id, from });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
  defineMethod("layer:deleteMask", {
    description: "Throws a layer's mask away (its pixels are left as they were). Answers the layer.",
    examples: [{ layerId: 3 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/delete-mask" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "layer:deleteMask", params);
      const layer = targetLayer(tree, params);
      const outcome = await sendEdit(ctx, tree, { op: "layer:deleteMask", layerId: layer.id });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
  defineMethod("layer:applyMask", {
    description: "Applies a layer's mask to its pixels (what the mask hid becomes transparent) and removes the mask. Answers the layer.",
    examples: [{ layerId: 3 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/apply-mask" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "layer:applyMask", params);
      const layer = pixelLayer(targetLayer(tree, params), "apply a mask to");
      const outcome = await sendEdit(ctx, tree, { op: "layer:applyMask", layerId: layer.id });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
  defineMethod("layer:updateMask", {
    description:
      "Changes a layer's mask: `enabled`, `linked` (moves with the layer), `density` (0–100) or `feather` (pixels); fields left out stay as they are. Answers the layer.",
    examples: [{ layerId: 3, enabled: false }, { layerId: 3, density: 60, feather: 4 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/layer/update-mask" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "layer:updateMask", params);
      const layer = targetLayer(tree, params);
      const { enabled, linked, density, feather } = params;
      const outcome = await sendEdit(ctx, tree, { op: "layer:updateMask", layerId: layer.id, enabled, linked, density, feather });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
];

/** A layer whose pixels an edit changes. @throws BridgeError `BAD_REQUEST` for a group or a layer without pixels. */
function pixelLayer(layer: HostLayer, what: string): HostLayer {
  if (layer.kind === "pixel" || layer.kind === "background") return layer;
  throw new BridgeError("BAD_REQUEST", `Cannot ${what} a ${layer.kind} layer: only pixel layers (rasterize it first)`, {
    details: { layerId: layer.id, kind: layer.kind },
  });
}
