import { exportDocumentFile, resolveOpenPath, saveDocumentFile } from "../files/index.js";
import { parseColor } from "../hosts/_internal/color.js";
import { BridgeError } from "../protocol/index.js";
import { defineMethod, type MethodDefinition } from "./define.js";
import { requireOp } from "./_internal/support.js";

/** Background of a new document when the caller names none, as an editor's "New document" fills it. */
export const DEFAULT_BACKGROUND = "white";

/** `Untitled-N` with the smallest N no open document is named, as editors name new documents. */
export function untitledName(taken: Iterable<string>): string {
  const names = new Set(taken);
  let n = 1;
  while (names.has(`Untitled-${n}`)) n++;
  return `Untitled-${n}`;
}

/** Documents: inspect, open, create, close, save and export to a file. */
export const documentMethods: MethodDefinition[] = [
  defineMethod("document:current", {
    description:
      "The active document: id, name, size, resolution, mode and the file it came from.",
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/document/current" },
    run: (ctx) => ctx.host.getDocument(ctx.call, undefined),
  }),
  defineMethod("document:list", {
    description:
      "Every open document, on every editor of the bridge.",
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/document/list" },
    route: "all",
    run: (ctx) => ctx.host.listDocuments(ctx.call),
  }),
  defineMethod("document:layers", {
    description:
      "The layer tree of a document (the active one by default), top-most layer first, groups with their children.",
    examples: [{ documentId: 1 }],
    host: true,
    mutates: false,
    http: { verb: "GET", path: "/document/layers" },
    run: async (ctx, { documentId }) => (await ctx.host.getDocumentTree(ctx.call, documentId)).layers,
  }),
  defineMethod("document:open", {
    description:
      "Opens a file (PSD/PSB, XCF on GIMP, PNG, JPEG or WebP) inside the files roots and answers the new document.",
    examples: [{ path: "/work/images/poster.psd" }],
    host: true,
    mutates: true,
    long: true,
    route: "place",
    http: { verb: "POST", path: "/document/open" },
    run: async (ctx, { path }) => {
      const open = requireOp(ctx.host, "openDocument", "document:open");
      return open(ctx.call, (await resolveOpenPath(ctx.bridge.files, ctx.host, path)).path);
    },
  }),
  defineMethod("document:create", {
    description:
      "Creates a document of the given size (and name and background colour) and answers it.",
    examples: [{ width: 800, height: 600, name: "Banner", background: "white" }],
    host: true,
    route: "place",
    mutates: true,
    http: { verb: "POST", path: "/document/create" },
    run: async (ctx, { width, height, name, background }) => {
      const create = requireOp(ctx.host, "createDocument", "document:create");
      const maxPixels = ctx.bridge.limits.maxDocumentPixels;
      if (width * height > maxPixels) {
        throw new BridgeError("PAYLOAD_TOO_LARGE", `Document of ${width}×${height} exceeds ${maxPixels} pixels`, {
          details: { width, height, maxPixels },
        });
      }
      const fill = parseColor(background ?? DEFAULT_BACKGROUND, "background");
      const title = name ?? untitledName((await ctx.host.listDocuments(ctx.call)).map((doc) => doc.name));
      return create(ctx.call, { width, height, name: title, background: fill });
    },
  }),
  defineMethod("document:close", {
    description:
      "Closes a document (the active one by default) without saving and answers its id.",
    examples: [{ documentId: 1 }],
    host: true,
    mutates: true,
    http: { verb: "POST", path: "/document/close" },
    run: async (ctx, { documentId }) => {
      const close = requireOp(ctx.host, "closeDocument", "document:close");
      const doc = await ctx.host.getDocument(ctx.call, documentId);
      await close(ctx.call, doc.id);
      return { closed: true, documentId: doc.id };
    },
  }),
  defineMethod("document:save", {
    description:
      "Saves a document as layered PSD, atomically, keeping a `.bak` of the file it replaces; refuses with `WOULD_LOSE_DATA` a save that would drop data unless `allowLossy`.",
    examples: [{ documentId: 1, savePath: "/work/images/poster.psd" }],
    host: true,
    mutates: true,
    long: true,
    http: { verb: "POST", path: "/document/save" },
    // The no-silent-loss rule lives in saveDocumentFile, shared with the embedded editor's scripts.
    run: (ctx, params) => saveDocumentFile(ctx.host, ctx.call, ctx.bridge.files, params),
  }),
  defineMethod("document:export", {
    description:
      "Writes a flattened PNG, JPEG, WebP or TIFF file of a document, atomically, and answers its path, format, size and byte count.",
    examples: [{ path: "/work/out/poster.png", format: "png" }],
    host: true,
    mutates: false,
    // It changes no document, but it writes a file: not for a read token.
    readable: false,
    long: true,
    http: { verb: "POST", path: "/document/export" },
    run: (ctx, params) => exportDocumentFile(ctx.host, ctx.call, ctx.bridge.files, params),
  }),
];
