import type { SelectionShape } from "../hosts/host.js";
import { BridgeError, type HostRect, type SelectionPath } from "../protocol/index.js";
import { defineMethod, type MethodDefinition } from "./define.js";
import { requireOp } from "./_internal/support.js";

/**
 * Clips a rectangle to the canvas on whole pixels (fractional edges widen); `null` when nothing is left, as an
 * editor drops a selection that lies outside the canvas.
 */
export function clipToCanvas(rect: HostRect, width: number, height: number): HostRect | null {
  const left = Math.max(0, Math.floor(rect.x));
  const top = Math.max(0, Math.floor(rect.y));
  const right = Math.min(width, Math.ceil(rect.x + rect.width));
  const bottom = Math.min(height, Math.ceil(rect.y + rect.height));
  return right > left && bottom > top ? { x: left, y: top, width: right - left, height: bottom - top } : null;
}

/**
 * The outline as `SelectionPath`, a standalone SVG document on every editor: its `viewBox` is the
 * outline's box in document pixels, so it renders as is and its path can be placed back on the document.
 */
export function toSelectionPath(d: string, box: HostRect): SelectionPath {
  const { x, y, width, height } = box;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="${x} ${y} ${width} ${height}">` +
    `<path d="${d}" fill-rule="evenodd"/></svg>`;
  return { svg, x, y, width, height };
}

/** The selection: its bounding rectangle, its outline as SVG, and setting it (rectangle, ellipse or polygon). */
export const selectionMethods: MethodDefinition[] = [
  defineMethod("selection:getArea", {
    description:
      "The bounding rectangle of the selection in document pixels, or `null` when nothing is selected.",
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/selection/area" },
    peek: ({ documentId }) => ({ op: "getSelection", args: [documentId] }),
    run: (ctx, { documentId }) => ctx.host.getSelection(ctx.call, documentId),
  }),
  defineMethod("selection:getPath", {
    description:
      "The selection outline as a standalone SVG document with its box in document pixels, or `null` when nothing is selected.",
    examples: [{ expand: 2 }],
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/selection/path" },
    run: async (ctx, { documentId, expand }) => {
      const outline = await requireOp(ctx.host, "getSelectionOutline", "selection:getPath")(ctx.call, { documentId, expand: expand ?? 0 });
      return outline === null ? null : toSelectionPath(outline.d, outline.box);
    },
  }),
  defineMethod("selection:set", {
    description:
      "Sets the selection to a rectangle (clipped to the canvas), an ellipse or a polygon; `rect: null` clears it.",
    examples: [{ rect: { x: 10, y: 10, width: 100, height: 80 } }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/selection/set" },
    run: async (ctx, { documentId, rect, ellipse, polygon }) => {
      const select = requireOp(ctx.host, "setSelection", "selection:set");
      const doc = await ctx.host.getDocument(ctx.call, documentId);
      let shape: SelectionShape | null;
      if (ellipse !== undefined) shape = { kind: "ellipse", rect: ellipse };
      else if (polygon !== undefined) shape = { kind: "polygon", points: polygon };
      else if (rect === undefined || rect === null) shape = null;
      else {
        if (![rect.x, rect.y, rect.width, rect.height].every(Number.isFinite)) {
          throw new BridgeError("BAD_REQUEST", "Selection rect needs finite x, y, width and height", { details: { rect } });
        }
        const clipped = clipToCanvas(rect, doc.width, doc.height);
        shape = clipped === null ? null : { kind: "rect", rect: clipped };
      }
      return select(ctx.call, { documentId: doc.id, shape });
    },
  }),
];
