import { basename } from "node:path";
import { lostFeatures, writeFileAtomic } from "../../files/index.js";
import type { DataLoss, HostDocument } from "../../protocol/index.js";
import type { DocumentTree, HostAdapter, HostCallContext } from "../host.js";
import type { EmbeddedDocument } from "./document.js";
import { newDocumentContent } from "./document.js";
import type { EmbeddedEvents } from "./events.js";
import { OPEN_UNITS, layeredSaveFormat, readDocumentFile } from "./files.js";
import { documentsBytes, rgbaBytes, type EditorMemory, type Reservation } from "./memory.js";
import { psdSaveUnits, serializePsd } from "./psd.js";
import { effectsWorkBytes } from "./effects/index.js";
import type { DocumentStore } from "./store.js";
import { flattenLayers, toHostDocument, toHostLayerTree } from "./tree.js";
import { stagesOf, type Stages } from "./work.js";

/** What the document operations need from the editor. */
export interface DocumentOpsDeps {
  readonly store: DocumentStore;
  readonly events: EmbeddedEvents;
  /** The editor's memory budget: an open, a new document and a save are charged before they allocate. */
  readonly memory: EditorMemory;
  /** Largest file (width × height) `openDocument` reads; a header can declare anything. */
  readonly maxDocumentPixels: number;
  /** Deepest group nesting of a PSD `openDocument` reads. */
  readonly maxPsdGroupDepth: number;
  /** Largest file `openDocument` reads, in bytes. */
  readonly maxOpenFileBytes: number;
  /** Throws the abort reason once the call is cancelled or out of time (see `work.ts`). */
  checkpoint(ctx: HostCallContext): void;
}

/** The document operations of {@link HostAdapter}. */
export type DocumentOps = Required<
  Pick<
    HostAdapter,
    "listDocuments" | "getDocument" | "getDocumentTree" | "openDocument" | "createDocument" | "closeDocument" | "saveLosses" | "saveDocument"
  >
>;

/**
 * The embedded editor's document operations, and `openFile` for the file the editor starts with.
 *
 * @example
 * const documents = documentOps({ store, events, memory, maxDocumentPixels, maxPsdGroupDepth, maxOpenFileBytes, checkpoint });
 */
export function documentOps(deps: DocumentOpsDeps): DocumentOps & { openFile(path: string, ctx?: HostCallContext): Promise<EmbeddedDocument> } {
  const { store, events } = deps;

  /**
   * Opens a file at a path already resolved against the files roots and makes it the active document; with
   * `ctx`, stops at its checkpoints and reports the stages of `readDocumentFile`.
   */
  async function openFile(path: string, ctx?: HostCallContext): Promise<EmbeddedDocument> {
    const stages: Stages | undefined = ctx ? stagesOf(ctx, OPEN_UNITS) : undefined;
    // What the reading holds (the file, then the pixels its headers declare) until the document holds the pixels.
    const held: Reservation[] = [];
    const charge = (bytes: number, details: Record<string, unknown> = {}): void => {
      held.push(deps.memory.reserve(`Opening ${basename(path)}`, bytes, { path, ...details }));
    };
    try {
      const file = await readDocumentFile(path, {
        maxPixels: deps.maxDocumentPixels,
        maxGroupDepth: deps.maxPsdGroupDepth,
        maxBytes: deps.maxOpenFileBytes,
        signal: ctx?.signal,
        stages,
        charge,
      });
      if (ctx) deps.checkpoint(ctx);
      const doc = store.add(file.content, { name: file.name, filePath: file.filePath, source: file.source });
      events.activeDocumentChanged();
      stages?.done();
      return doc;
    } finally {
      for (const reservation of held) reservation.release();
    }
  }

  return {
    openFile,

    async listDocuments(): Promise<HostDocument[]> {
      return store.list().map(toHostDocument);
    },

    async getDocument(_ctx, documentId): Promise<HostDocument> {
      return toHostDocument(store.get(documentId));
    },

    async getDocumentTree(_ctx, documentId): Promise<DocumentTree> {
      const doc = store.get(documentId);
      return { document: toHostDocument(doc), layers: toHostLayerTree(doc) };
    },

    async openDocument(ctx, path): Promise<HostDocument> {
      deps.checkpoint(ctx);
      return toHostDocument(await openFile(path, ctx));
    },

    async createDocument(ctx, { width, height, name, background }): Promise<HostDocument> {
      deps.checkpoint(ctx);
      // A fully transparent document starts with an empty layer: nothing to allocate.
      deps.memory.check(`Creating a document of ${width}×${height}`, background[3] === 0 ? 0 : rgbaBytes(width, height), { width, height });
      const doc = store.add(newDocumentContent(width, height, background), { name });
      events.activeDocumentChanged();
      return toHostDocument(doc);
    },

    async closeDocument(_ctx, documentId): Promise<void> {
      const doc = store.get(documentId);
      const wasActive = store.active() === doc;
      store.remove(doc.id);
      events.documentClosed(doc.id);
      if (wasActive) events.activeDocumentChanged();
    },

    async saveLosses(_ctx, { documentId, path }): Promise<DataLoss[]> {
      const doc = store.get(documentId);
      const features = doc.source?.features ?? [];
      // A PSB written as PSB keeps its format; everything else in the source's list is beyond this model.
      // Clipping masks and fill opacity are kept in the saved layers; a PSB written as PSB keeps its format.
      const kept = new Set<string>(["clipping", "fillOpacity", ...(layeredSaveFormat(path) === "psb" ? ["psbFormat"] : [])]);
      const present = new Set(flattenLayers(doc.layers).map((entry) => entry.layer.id));
      return lostFeatures(features, kept, (id) => present.has(id));
    },

    async saveDocument(ctx, { documentId, path, backup }) {
      const doc = store.get(documentId);
      const format = layeredSaveFormat(path);
      deps.checkpoint(ctx);
      // Compositing, encoding, then writing (a temporary file renamed over the target) as one stage.
      const stages = stagesOf(ctx, psdSaveUnits(doc) + 1);
      // The file holds every layer's pixels and the composite, at most uncompressed.
      const composite = rgbaBytes(doc.width, doc.height) + effectsWorkBytes(doc.layers, { left: 0, top: 0, right: doc.width, bottom: doc.height });
      const held = deps.memory.reserve(`Saving ${basename(path)}`, documentsBytes([doc]) + composite, { path });
      let written: Awaited<ReturnType<typeof writeFileAtomic>>;
      try {
        const bytes = serializePsd(doc, { psb: format === "psb", stages });
        stages.stage("writing");
        written = await writeFileAtomic(path, bytes, { backup });
      } finally {
        held.release();
      }
      stages.done();
      doc.filePath = path;
      doc.name = basename(path);
      doc.isDirty = false;
      return { path, format, ...(written.backupPath !== undefined ? { backupPath: written.backupPath } : {}) };
    },
  };
}
