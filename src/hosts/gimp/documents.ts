import { rm } from "node:fs/promises";
import { extname } from "node:path";
import { DEFAULT_MAX_OPEN_FILE_BYTES, readRegularFileInfo, replaceWithFile, temporarySibling } from "../../files/index.js";
import { psdFileReadBackProblem } from "../embedded/psd-file/verify.js";
import { BridgeError, type DataLoss, type HostDocument, type HostLayer } from "../../protocol/index.js";
import type { DocumentTree, HostAdapter } from "../host.js";
import type { GimpSession } from "./connection.js";
import { gimpSaveLosses, sourceFeatures } from "./files.js";
import { identityOf, parseTattoos } from "./origins.js";
import { asList, int, lit } from "./scheme.js";
import { parseDocument, parseDocumentTree, parseTree } from "./tree.js";

type DocumentOps = Required<
  Pick<
    HostAdapter,
    "listDocuments" | "getDocument" | "getDocumentTree" | "openDocument" | "createDocument" | "closeDocument" | "saveLosses" | "saveDocument"
  >
>;

/** The layered format of a save path: GIMP saves `.psd` and `.xcf`; flat images go through `document:export`. */
function layeredFormat(path: string): "psd" | "xcf" {
  const ext = extname(path).toLowerCase();
  if (ext !== ".psd" && ext !== ".xcf") {
    throw new BridgeError("BAD_REQUEST", "GIMP saves layered documents as .psd or .xcf; use document:export for flat images", { details: { path } });
  }
  return ext === ".psd" ? "psd" : "xcf";
}

/** Every layer of a tree, groups before their children. */
function flattenTree(layers: readonly HostLayer[]): HostLayer[] {
  return layers.flatMap((layer) => [layer, ...flattenTree(layer.children ?? [])]);
}

/**
 * Documents: listing, reading (a document with its tree in one Script-Fu call), opening, creating, closing and
 * saving. Saves write a temporary sibling and rename it over the target (atomic, with an optional `.bak`).
 */
export function documentOps(session: GimpSession, options: { maxSourceBytes?: number | undefined }): DocumentOps {
  const { call } = session;

  /** Records the image a call without a document id resolved to, so later calls keep targeting it. */
  const resolved = (documentId: number | undefined, id: number): void => {
    if (documentId === undefined) session.activeImage = id;
  };

  return {
    async listDocuments(ctx): Promise<HostDocument[]> {
      // GIMP lists the newest first; the bridge lists in opening order.
      return asList(await call(ctx, "(br-docs)"), "documents").map(parseDocument).reverse();
    },

    async getDocument(ctx, documentId): Promise<HostDocument> {
      const document = parseDocument(await call(ctx, `(br-doc ${session.image(documentId)})`));
      resolved(documentId, document.id);
      return document;
    },

    async getDocumentTree(ctx, documentId): Promise<DocumentTree> {
      const { document, tree } = parseDocumentTree(await call(ctx, `(br-doc-tree ${session.image(documentId)})`));
      resolved(documentId, document.id);
      return { document, layers: tree.roots };
    },

    async openDocument(ctx, path): Promise<HostDocument> {
      const maxBytes = options.maxSourceBytes ?? DEFAULT_MAX_OPEN_FILE_BYTES;
      // An unreadable file has no features (GIMP's own open then reports the error).
      const read = session.filesystem === "local" ? await readRegularFileInfo(path, { maxBytes, signal: ctx.signal }).catch(() => undefined) : undefined;
      const features = read === undefined ? [] : await sourceFeatures(read.bytes);
      const [doc, tattoos] = asList(await call(ctx, `(br-opened (br-open ${lit(path)} ${lit(path)}))`, "BAD_REQUEST"), "opened image");
      const document = parseDocument(doc!);
      session.sources.set(document.id, features);
      if (read !== undefined) session.origins.set(document.id, { kind: "file", path, identity: identityOf(read.info), tattoos: parseTattoos(tattoos ?? []) });
      session.activeImage = document.id;
      return document;
    },

    async createDocument(ctx, { width, height, name, background }): Promise<HostDocument> {
      const [r, g, b, a] = background;
      // A fully transparent background is a transparent layer; any other is an opaque fill of its colour.
      const make = `(br-create ${int(width)} ${int(height)} ${lit(name)} ${a === 0 ? 0 : 1} ${int(r)} ${int(g)} ${int(b)})`;
      const [doc, tattoos] = asList(await call(ctx, `(br-opened ${make})`), "new image");
      const document = parseDocument(doc!);
      // Made again by the same form after a loss, as long as no call changed it.
      session.origins.set(document.id, { kind: "new", form: make, tattoos: parseTattoos(tattoos ?? []) });
      session.activeImage = document.id;
      return document;
    },

    async closeDocument(ctx, documentId): Promise<void> {
      await call(ctx, `(begin (br-image ${int(documentId)}) (gimp-image-delete ${int(documentId)}) #t)`);
      session.sources.delete(documentId);
      session.origins.delete(documentId);
      if (session.activeImage === documentId) session.activeImage = undefined;
    },

    async saveLosses(ctx, { documentId, path }): Promise<DataLoss[]> {
      const format = layeredFormat(path);
      const text =
        format === "psd"
          ? flattenTree(parseTree(await call(ctx, `(br-tree ${int(documentId)})`)).roots)
              .filter((l) => l.kind === "text")
              .map((l) => l.id)
          : [];
      return gimpSaveLosses(session.sources.get(documentId) ?? [], format, text);
    },

    async saveDocument(ctx, { documentId, path, backup }) {
      const format = layeredFormat(path);
      const psd = format === "psd" ? "#t" : "#f";
      if (session.filesystem === "remote") {
        // GIMP writes on its own machine: no temporary file or backup can be arranged from here.
        await call(ctx, `(begin (br-save ${int(documentId)} ${lit(path)} ${psd}) (br-saved ${int(documentId)} ${lit(path)}))`, "BAD_REQUEST");
        return { path, format };
      }
      const temp = temporarySibling(path);
      try {
        await call(ctx, `(br-save ${int(documentId)} ${lit(temp)} ${psd})`, "BAD_REQUEST");
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
      // GIMP's PSD writer is read back before it replaces anything, as the embedded editor's is (XCF is GIMP's own).
      const written = await replaceWithFile(temp, path, { backup, ...(format === "psd" ? { verify: psdFileReadBackProblem } : {}) });
      await call(ctx, `(br-saved ${int(documentId)} ${lit(path)})`);
      return { path, format, ...(written.backupPath !== undefined ? { backupPath: written.backupPath } : {}) };
    },
  };
}
