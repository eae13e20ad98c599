import { probeImage } from "../imports/index.js";
import { BridgeError } from "../protocol/index.js";
import { defineMethod, type MethodDefinition } from "./define.js";
import { fitRect } from "../hosts/_internal/fit.js";
import { ANCHOR_FRACTIONS, checkDocumentPixels, editTarget, editedLayer, sendEdit, targetLayer } from "./_internal/edits.js";
import { importSource } from "./layer.js";

/** Layer kinds whose content an image can replace: pixels, and what becomes pixels (text, shapes, fills), and smart objects. */
const REPLACEABLE = new Set(["pixel", "background", "text", "shape", "fill", "smartObject"]);

/**
 * How an image is sized into its box when the caller says nothing: whole, undistorted and uncut (`contain`), so no
 * part of the caller's picture is lost or stretched without asking; `cover` is one word away for a photo placeholder.
 */
export const DEFAULT_FIT = "contain";

/** Replacing the image inside a layer, the template's placeholder. */
export const contentEditMethods: MethodDefinition[] = [
  defineMethod("layer:replaceContents", {
    description:
      "Puts an image (`image`: a data URI, base64, a `file:` URI or path, an http(s) URL, or a binary part, as `layer:importImage` takes) into an existing layer, which keeps its name, place in the stack, masks, style, blend mode and opacity. `fit` `contain` (the default: the whole image, undistorted), `cover` (fills the box, the overflow cut), `fill` (stretched to the box) or `none` (its own size), placed by `alignment` (`center` by default, or `topLeft`, `top`, … `bottomRight`) in `box` (document pixels; default the layer's bounds, the canvas for an empty layer). A text, shape or fill layer becomes a pixel layer. A smart object stays one: the image goes into its frame through its transform (scale, rotation, skew; `box` is refused, a perspective or warp answers `NOT_SUPPORTED`) and becomes its embedded file. One history step. Answers the layer.",
    examples: [
      { layerId: 4, image: "file:///srv/photos/sku-1042.jpg", fit: "cover" },
      { layerId: 7, image: { binary: 0 }, fit: "contain", alignment: "bottom", box: { x: 40, y: 40, width: 400, height: 300 } },
    ],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/layer/replace-contents", body: "import" },
    run: async (ctx, params) => {
      // The target is checked before any byte is fetched or read.
      const tree = await editTarget(ctx, "layer:replaceContents", params);
      const layer = targetLayer(tree, params);
      if (!REPLACEABLE.has(layer.kind)) {
        throw new BridgeError("BAD_REQUEST", `Cannot replace the contents of a ${layer.kind} layer: only pixel, text, shape, fill and smart object layers have an image to replace`, {
          details: { layerId: layer.id, kind: layer.kind },
        });
      }
      if (layer.kind === "smartObject" && params.box !== undefined) {
        throw new BridgeError("BAD_REQUEST", "A smart object's contents fill its own frame, placed by its transform: box is for pixel layers", {
          details: { layerId: layer.id, kind: layer.kind, param: "box" },
        });
      }
      const source = await importSource(ctx, params.image);
      const image = await probeImage(source, ctx.bridge.imports.limits.maxPixels, undefined);
      const fit = params.fit ?? DEFAULT_FIT;
      const alignment = ANCHOR_FRACTIONS[params.alignment ?? "center"];
      // A box of the caller's can be any size: the image sized into it must fit maxDocumentPixels on every editor.
      if (params.box !== undefined) {
        const sized = fitRect(image.width, image.height, params.box, fit, alignment);
        checkDocumentPixels(ctx, layer.name, Math.max(1, Math.round(sized.width)), Math.max(1, Math.round(sized.height)));
      }
      const outcome = await sendEdit(ctx, tree, {
        op: "layer:replaceContents",
        layerId: layer.id,
        image: { bytes: image.bytes, format: image.format, width: image.width, height: image.height },
        fit,
        alignment,
        box: params.box ?? null,
      });
      return editedLayer(ctx, tree.document.id, layer.id, outcome);
    },
  }),
];
