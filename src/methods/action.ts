import { BridgeError } from "../protocol/index.js";
import { defineMethod, type MethodContext, type MethodDefinition } from "./define.js";
import { requireOp } from "./_internal/support.js";
import { requireLayer } from "./_internal/targets.js";

/** The pixel layer a cutout works on: `layerId`, else the active layer; a group is refused. */
async function cutoutTarget(ctx: MethodContext, params: { documentId?: number | undefined; layerId?: number | undefined }): Promise<{ documentId: number; layerId: number }> {
  const tree = await ctx.host.getDocumentTree(ctx.call, params.documentId);
  const layer = requireLayer(tree, params.layerId !== undefined ? { by: "id", id: params.layerId } : { by: "active" });
  if (layer.kind === "group") {
    throw new BridgeError("BAD_REQUEST", "Cut out a pixel layer, not a group", { details: { layerId: layer.id, documentId: tree.document.id } });
  }
  return { documentId: tree.document.id, layerId: layer.id };
}

/** Editor actions: select the subject, remove the background. */
export const actionMethods: MethodDefinition[] = [
  defineMethod("action:autoCutout", {
    description:
      "Selects the subject of a pixel layer (the active one by default), as the editor's \"Select Subject\"; answers whether a subject was found.",
    examples: [{ layerId: 3 }],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/action/auto-cutout" },
    run: async (ctx, params) => {
      const cutout = requireOp(ctx.host, "autoCutout", "action:autoCutout");
      return cutout(ctx.call, await cutoutTarget(ctx, params));
    },
  }),
  defineMethod("action:removeBackground", {
    description:
      "Masks out the background of a pixel layer (the active one by default); answers whether it succeeded.",
    examples: [{ layerId: 3 }],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/action/remove-background" },
    run: async (ctx, params) => {
      const remove = requireOp(ctx.host, "removeBackground", "action:removeBackground");
      return { success: await remove(ctx.call, await cutoutTarget(ctx, params)) };
    },
  }),
];
