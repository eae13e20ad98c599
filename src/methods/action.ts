import { BridgeError, type CutoutMethod } from "../protocol/index.js";
import type { HostAdapter } from "../hosts/host.js";
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

/** The method to pass on: `auto` is every editor's; another one only where the editor offers it. */
function cutoutMethod(host: HostAdapter, method: CutoutMethod | undefined, name: string): CutoutMethod | undefined {
  if (method === undefined || method === "auto") return method;
  if (host.cutoutMethods?.includes(method)) return method;
  throw new BridgeError("NOT_SUPPORTED", `The ${host.kind} editor has no "${method}" cutout; it offers: ${["auto", ...(host.cutoutMethods ?? [])].join(", ")}`, {
    details: { capability: `${name}:${method}`, method },
  });
}

/** Editor actions: select the subject, remove the background. */
export const actionMethods: MethodDefinition[] = [
  defineMethod("action:autoCutout", {
    description:
      "Selects the subject of a pixel layer (the active one by default), as the editor's \"Select Subject\"; answers whether a subject was found. `method` picks the way (`auto`, the default, is the editor's best).",
    examples: [{ layerId: 3 }],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/action/auto-cutout" },
    run: async (ctx, params) => {
      const cutout = requireOp(ctx.host, "autoCutout", "action:autoCutout");
      const method = cutoutMethod(ctx.host, params.method, "action:autoCutout");
      return cutout(ctx.call, { ...(await cutoutTarget(ctx, params)), ...(method !== undefined ? { method } : {}) });
    },
  }),
  defineMethod("action:removeBackground", {
    description:
      "Masks out the background of a pixel layer (the active one by default); answers whether it succeeded and, where the editor says, the way that ran (`method`: `auto` picks the editor's best) and the subject's share of the layer.",
    examples: [{ layerId: 3 }],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/action/remove-background" },
    run: async (ctx, params) => {
      const remove = requireOp(ctx.host, "removeBackground", "action:removeBackground");
      const method = cutoutMethod(ctx.host, params.method, "action:removeBackground");
      const outcome = await remove(ctx.call, { ...(await cutoutTarget(ctx, params)), ...(method !== undefined ? { method } : {}) });
      if (typeof outcome === "boolean") return { success: outcome };
      const { success, coverage, reason } = outcome;
      return { success, method: outcome.method, coverage: Math.round(coverage * 1000) / 1000, ...(!success && reason !== undefined ? { details: { reason } } : {}) };
    },
  }),
];
