import { extname } from "node:path";
import { copyBackup, type Filesystem } from "../../files/index.js";
import { BridgeError } from "../../protocol/index.js";
import type { HostDocument } from "../../protocol/index.js";
import type { DocumentTree, HostAdapter, Rgba } from "../host.js";
import type { RunOperation } from "./operations.js";
import type { Revisions } from "./revisions.js";

/** What the document operations need from the adapter. */
export interface DocumentDeps {
  readonly run: RunOperation;
  readonly filesystem: Filesystem;
  /** The host's count of each document's changes, reported as `revision`. */
  readonly revisions: Revisions;
}

/** The document members of the adapter. */
export type DocumentOps = Required<
  Pick<HostAdapter, "listDocuments" | "getDocument" | "getDocumentTree" | "openDocument" | "createDocument" | "closeDocument" | "saveDocument">
>;

const hex = (byte: number): string => byte.toString(16).padStart(2, "0");

/**
 * The new-document fill `document.create` takes: Photoshop fills a new document either opaque (white, then any
 * colour) or transparent, so a translucent background cannot be made.
 * @throws BridgeError `BAD_REQUEST` for an alpha strictly between 0 and 255.
 */
function documentFill([r, g, b, a]: Rgba): string {
  if (a === 0) return "transparent";
  if (a !== 255) {
    throw new BridgeError("BAD_REQUEST", "Photoshop fills a new document with an opaque colour or leaves it transparent: background alpha must be 0 or 255", {
      details: { background: [r, g, b, a], editor: "photoshop" },
    });
  }
  return `#${hex(r)}${hex(g)}${hex(b)}`;
}

/** Photoshop's document operations: each one `.jsx` evaluation; Photoshop reads and writes the files itself. */
export function documentOps({ run, filesystem, revisions }: DocumentDeps): DocumentOps {
  const counted = (doc: HostDocument): HostDocument => ({ ...doc, revision: revisions.of(doc.id) });
  return {
    listDocuments: async (ctx) => (await run<HostDocument[]>(ctx.signal, "document.list")).map(counted),

    getDocument: async (ctx, documentId) => counted(await run<HostDocument>(ctx.signal, "document.get", { documentId })),

    async getDocumentTree(ctx, documentId) {
      const tree = await run<DocumentTree>(ctx.signal, "document.tree", { documentId });
      return { ...tree, document: counted(tree.document) };
    },

    openDocument: async (ctx, path) => counted(await run<HostDocument>(ctx.signal, "document.open", { path })),

    async createDocument(ctx, { width, height, name, background }) {
      return counted(await run<HostDocument>(ctx.signal, "document.create", { width, height, name, background: documentFill(background) }));
    },

    async closeDocument(ctx, documentId) {
      await run<null>(ctx.signal, "document.close", { documentId });
      if (documentId !== undefined) revisions.forget(documentId);
    },

    async saveDocument(ctx, { documentId, path, backup }) {
      const ext = extname(path).toLowerCase();
      if (ext !== ".psd" && ext !== ".psb" && ext !== "") {
        throw new BridgeError("BAD_REQUEST", "document:save writes PSD; use document:export for flattened images", { details: { path } });
      }
      const target = ext === "" ? `${path}.psd` : path;
      // Photoshop writes the file itself; on this machine the bridge first keeps a copy of what it replaces.
      const backupPath = backup && filesystem === "local" ? await copyBackup(target) : undefined;
      const saved = await run<{ path: string }>(ctx.signal, "document.save", { documentId, path: target });
      return { path: saved.path, format: "psd", ...(backupPath !== undefined ? { backupPath } : {}) };
    },
  };
}
