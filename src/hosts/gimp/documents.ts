import { rm } from "node:fs/promises";
import { extname } from "node:path";
import { copyFileAtomic, replaceWithFile, temporarySibling } from "../../files/index.js";
import { psdFileReadBackProblem } from "../embedded/psd-file/verify.js";
import { BridgeError, type DataLoss, type HostDocument, type HostLayer } from "../../protocol/index.js";
import type { DocumentTree, HostAdapter } from "../host.js";
import type { GimpSession } from "./connection.js";
import { gimpSaveLosses, sourceFeatures } from "./files.js";
import { parseTattoos } from "./origins.js";
import { asList, int, lit, type Sexp } from "./scheme.js";
import { readClientFile, staged } from "./staging.js";
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
 * saving. On this machine GIMP opens no client path itself: the bridge reads the file inside the files roots and
 * GIMP loads a staged copy (`staging.ts`). Saves write a temporary file and rename it over the target (atomic,
 * with an optional `.bak`): a temporary sibling GIMP writes when unconfined; under files roots GIMP writes into the
 * exchange folder and the bridge copies the bytes into the target's folder, held from the root.
 */
export function documentOps(session: GimpSession): DocumentOps {
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
      const opened = (file: string): Promise<Sexp> => call(ctx, `(br-opened (br-open ${lit(file)} ${lit(path)}))`, "BAD_REQUEST");
      if (session.filesystem === "remote") {
        // A GIMP on another machine opens the path there: nothing of it can be read or staged from here.
        const document = parseDocument(asList(await opened(path), "opened image")[0]!);
        session.sources.set(document.id, []);
        session.activeImage = document.id;
        return document;
      }
      const read = await readClientFile(session, path, { maxBytes: session.maxSourceBytes, signal: ctx.signal });
      const features = await sourceFeatures(read.bytes);
      const [doc, tattoos] = asList(await staged(session, path, read.bytes, opened), "opened image");
      const document = parseDocument(doc!);
      session.sources.set(document.id, features);
      session.origins.set(document.id, { kind: "file", path, identity: read.identity, tattoos: parseTattoos(tattoos ?? []) });
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
      // GIMP's PSD writer is read back before it replaces anything, as the embedded editor's is (XCF is GIMP's own).
      const rules = { backup, ...(format === "psd" ? { verify: psdFileReadBackProblem } : {}) };
      const roots = session.roots();
      let written: { backupPath?: string | undefined };
      if (roots !== null) {
        // Confined: GIMP writes nothing in the client's folders; the bytes go there through the folder held from the root.
        written = await session.scratch(`.${format}`, async (file) => {
          await call(ctx, `(br-save ${int(documentId)} ${lit(file)} ${psd})`, "BAD_REQUEST");
          return copyFileAtomic(file, path, { ...rules, within: roots });
        });
      } else {
        const temp = temporarySibling(path);
        try {
          await call(ctx, `(br-save ${int(documentId)} ${lit(temp)} ${psd})`, "BAD_REQUEST");
        } catch (error) {
          await rm(temp, { force: true });
          throw error;
        }
        written = await replaceWithFile(temp, path, rules);
      }
      await call(ctx, `(br-saved ${int(documentId)} ${lit(path)})`);
      return { path, format, ...(written.backupPath !== undefined ? { backupPath: written.backupPath } : {}) };
    },
  };
}
