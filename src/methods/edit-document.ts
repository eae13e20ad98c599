import { parseColor } from "../hosts/_internal/color.js";
import type { DocumentTree } from "../hosts/host.js";
import { BridgeError, MAX_EDIT_SIDE, type HostDocument, type HostRect } from "../protocol/index.js";
import { defineMethod, type MethodContext, type MethodDefinition } from "./define.js";
import { ANCHOR_FRACTIONS, checkDocumentPixels, editTarget, sendEdit, turnedSize } from "./_internal/edits.js";

/** What a new canvas area of a background layer is filled with unless `fillColor` says otherwise. */
export const DEFAULT_CANVAS_FILL = "white";


/** @throws BridgeError `BAD_REQUEST` naming the side when a computed size is outside 1–{@link MAX_EDIT_SIDE}. */
function checkSide(value: number, field: string): number {
  if (value >= 1 && value <= MAX_EDIT_SIDE) return value;
  throw new BridgeError("BAD_REQUEST", `The new ${field} would be ${value} px; sides are 1–${MAX_EDIT_SIDE} px`, { details: { [field]: value, max: MAX_EDIT_SIDE } });
}

/** The document after an edit, as `document:current` shows it. */
function documentAfter(ctx: MethodContext, documentId: number): Promise<HostDocument> {
  return ctx.host.getDocument(ctx.call, documentId);
}

/** A rectangle rounded to whole pixels and clipped to the canvas. @throws BridgeError `BAD_REQUEST` when nothing is left. */
function cropRect(tree: DocumentTree, rect: HostRect, field: string): HostRect {
  const left = Math.max(0, Math.round(rect.x));
  const top = Math.max(0, Math.round(rect.y));
  const right = Math.min(tree.document.width, Math.round(rect.x + rect.width));
  const bottom = Math.min(tree.document.height, Math.round(rect.y + rect.height));
  if (right <= left || bottom <= top) {
    throw new BridgeError("BAD_REQUEST", `The ${field} does not overlap the ${tree.document.width}×${tree.document.height} canvas`, { details: { [field]: rect } });
  }
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** The whole document: its size, canvas, orientation, copies and layers as one. */
export const documentEditMethods: MethodDefinition[] = [
  defineMethod("document:resize", {
    description:
      "Resamples the whole document: `width` and/or `height` (one alone keeps the aspect ratio) or `percent`, with `resample` (`bicubic` by default); `resolution` (ppi) alone changes only the resolution, with no resampling. Answers the document.",
    examples: [{ percent: 50 }, { width: 1200 }, { resolution: 300 }],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/document/resize" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "document:resize", params);
      const { width: w, height: h, resolution } = tree.document;
      let width = w;
      let height = h;
      if (params.percent !== undefined) {
        width = Math.max(1, Math.round((w * params.percent) / 100));
        height = Math.max(1, Math.round((h * params.percent) / 100));
      } else if (params.width !== undefined && params.height !== undefined) {
        width = params.width;
        height = params.height;
      } else if (params.width !== undefined) {
        width = params.width;
        height = Math.max(1, Math.round((h * params.width) / w));
      } else if (params.height !== undefined) {
        height = params.height;
        width = Math.max(1, Math.round((w * params.height) / h));
      }
      checkSide(width, "width");
      checkSide(height, "height");
      checkDocumentPixels(ctx, "The canvas", width, height);
      await sendEdit(ctx, tree, { op: "document:resize", width, height, resolution: params.resolution ?? resolution, resample: params.resample ?? "bicubic" });
      return documentAfter(ctx, tree.document.id);
    },
  }),
  defineMethod("document:resizeCanvas", {
    description:
      "Changes the canvas to `width` × `height` without resampling: the image stays at `anchor` (default `center`); a background layer's new area is filled with `fillColor` (default white), other layers' is transparent. Answers the document.",
    examples: [{ width: 1200, height: 1200 }, { width: 800, height: 600, anchor: "topLeft", fillColor: "transparent" }],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/document/resize-canvas" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "document:resizeCanvas", params);
      const [fx, fy] = ANCHOR_FRACTIONS[params.anchor ?? "center"];
      const offsetX = Math.round((params.width - tree.document.width) * fx);
      const offsetY = Math.round((params.height - tree.document.height) * fy);
      const fillColor = parseColor(params.fillColor ?? DEFAULT_CANVAS_FILL, "fillColor");
      checkDocumentPixels(ctx, "The canvas", params.width, params.height);
      await sendEdit(ctx, tree, { op: "document:resizeCanvas", width: params.width, height: params.height, offsetX, offsetY, fillColor });
      return documentAfter(ctx, tree.document.id);
    },
  }),
  defineMethod("document:crop", {
    description:
      "Crops the document to `rect` (document pixels, clipped to the canvas), or to the selection's bounds when `rect` is left out (`BAD_REQUEST` when nothing is selected). Answers the document.",
    examples: [{ rect: { x: 10, y: 10, width: 400, height: 300 } }, {}],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/document/crop" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "document:crop", params);
      let rect = params.rect;
      if (rect === undefined) {
        const selection = await ctx.host.getSelection(ctx.call, tree.document.id);
        if (selection === null) throw new BridgeError("BAD_REQUEST", "Nothing is selected: pass rect, or select first", { details: { documentId: tree.document.id } });
        rect = selection;
      }
      await sendEdit(ctx, tree, { op: "document:crop", rect: cropRect(tree, rect, params.rect === undefined ? "selection" : "rect") });
      return documentAfter(ctx, tree.document.id);
    },
  }),
  defineMethod("document:rotate", {
    description:
      "Rotates the whole document by `angle` degrees clockwise: 90, 180 and 270 turn it exactly; any other angle grows the canvas to hold the whole image (new area transparent, or white on a background layer). Answers the document.",
    examples: [{ angle: 90 }, { angle: -15 }],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/document/rotate" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "document:rotate", params);
      const angle = ((params.angle % 360) + 360) % 360;
      const turned = turnedSize(tree.document.width, tree.document.height, angle);
      checkSide(turned.width, "width");
      checkSide(turned.height, "height");
      checkDocumentPixels(ctx, "The canvas", turned.width, turned.height);
      await sendEdit(ctx, tree, { op: "document:rotate", angle });
      return documentAfter(ctx, tree.document.id);
    },
  }),
  defineMethod("document:flip", {
    description: "Mirrors the whole document `horizontal`ly, `vertical`ly or `both`. Answers the document.",
    examples: [{ direction: "horizontal" }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/document/flip" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "document:flip", params);
      await sendEdit(ctx, tree, { op: "document:flip", direction: params.direction });
      return documentAfter(ctx, tree.document.id);
    },
  }),
  defineMethod("document:duplicate", {
    description:
      "Copies a document, layers and all, as a new unsaved document named `<name> copy` unless `name` is given; the copy becomes the active document. Answers the copy.",
    examples: [{}, { name: "Variant B" }],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/document/duplicate" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "document:duplicate", params);
      const outcome = await sendEdit(ctx, tree, { op: "document:duplicate", name: params.name ?? `${tree.document.name} copy` });
      return documentAfter(ctx, outcome.documentId!);
    },
  }),
  defineMethod("document:flatten", {
    description: "Merges every layer of the document into one background layer (hidden layers are dropped). Answers the document.",
    examples: [{}],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/document/flatten" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "document:flatten", params);
      await sendEdit(ctx, tree, { op: "document:flatten" });
      return documentAfter(ctx, tree.document.id);
    },
  }),
  defineMethod("document:trim", {
    description: "Crops away the document's fully transparent edges; nothing changes when it has none (or is transparent all over). Answers the document.",
    examples: [{}],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/document/trim" },
    run: async (ctx, params) => {
      const tree = await editTarget(ctx, "document:trim", params);
      await sendEdit(ctx, tree, { op: "document:trim" });
      return documentAfter(ctx, tree.document.id);
    },
  }),
];
