import { METHOD_SCHEMAS } from "../protocol/index.js";
import { defineMethod, type MethodDefinition } from "./define.js";
import { exportDocumentFile, resolveOpenPath, saveDocumentFile } from "../files/index.js";
import { requireOp } from "./_internal/support.js";

/** Documents: inspect, open, create, close, save and export to a file. */
export const documentMethods: MethodDefinition[] = [
  defineMethod("document:current", METHOD_SCHEMAS["document:current"], {
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/document/current" },
    run: (ctx) => ctx.host.currentDocument(ctx.call),
  }),
  defineMethod("document:list", METHOD_SCHEMAS["document:list"], {
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/document/list" },
    run: (ctx) => ctx.host.listDocuments(ctx.call),
  }),
  defineMethod("document:layers", METHOD_SCHEMAS["document:layers"], {
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/document/layers" },
    run: (ctx, { documentId }) => ctx.host.getLayers(ctx.call, documentId),
  }),
  defineMethod("document:open", METHOD_SCHEMAS["document:open"], {
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/document/open" },
    run: async (ctx, { path }) => {
      const open = requireOp(ctx.host, "openDocument", "document:open");
      return open(ctx.call, (await resolveOpenPath(ctx.bridge.files, ctx.host, path)).path);
    },
  }),
  defineMethod("document:create", METHOD_SCHEMAS["document:create"], {
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/document/create" },
    run: (ctx, params) => requireOp(ctx.host, "createDocument", "document:create")(ctx.call, params),
  }),
  defineMethod("document:close", METHOD_SCHEMAS["document:close"], {
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/document/close" },
    run: async (ctx, { documentId }) => ({
      closed: true,
      documentId: await requireOp(ctx.host, "closeDocument", "document:close")(ctx.call, documentId),
    }),
  }),
  defineMethod("document:save", METHOD_SCHEMAS["document:save"], {
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/document/save" },
    // The no-silent-loss rule lives in saveDocumentFile, shared with the embedded editor's scripts.
    run: (ctx, params) => saveDocumentFile(ctx.host, ctx.call, ctx.bridge.files, params),
  }),
  defineMethod("document:export", METHOD_SCHEMAS["document:export"], {
    host: true,
    mutates: false,
    long: true,
    http: { verb: "POST", path: "/document/export" },
    run: (ctx, params) => exportDocumentFile(ctx.host, ctx.call, ctx.bridge.files, params),
  }),
];
