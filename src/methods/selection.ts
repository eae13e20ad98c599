import { METHOD_SCHEMAS } from "../protocol/index.js";
import { defineMethod, type MethodDefinition } from "./define.js";
import { requireOp } from "./_internal/support.js";

/** The selection: its bounding rectangle, its outline as SVG, and setting it (rectangle, ellipse or polygon). */
export const selectionMethods: MethodDefinition[] = [
  defineMethod("selection:getArea", METHOD_SCHEMAS["selection:getArea"], {
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/selection/area" },
    run: (ctx, { documentId }) => ctx.host.getSelection(ctx.call, documentId),
  }),
  defineMethod("selection:getPath", METHOD_SCHEMAS["selection:getPath"], {
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/selection/path" },
    run: (ctx, { documentId, expand }) =>
      requireOp(ctx.host, "getSelectionPath", "selection:getPath")(ctx.call, { documentId, expand: expand ?? 0 }),
  }),
  defineMethod("selection:set", METHOD_SCHEMAS["selection:set"], {
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/selection/set" },
    run: (ctx, { documentId, rect, ellipse, polygon }) => {
      if (ellipse) return requireOp(ctx.host, "setSelectionShape", "selection:set/ellipse")(ctx.call, { documentId, shape: { kind: "ellipse", rect: ellipse } });
      if (polygon) return requireOp(ctx.host, "setSelectionShape", "selection:set/polygon")(ctx.call, { documentId, shape: { kind: "polygon", points: polygon } });
      return requireOp(ctx.host, "setSelection", "selection:set")(ctx.call, { documentId, rect: rect ?? null });
    },
  }),
];
