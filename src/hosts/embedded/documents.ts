import { basename } from "node:path";
import { refuseSilentLoss, writeFileAtomic } from "../../files/index.js";
import { psdFileReadBackProblem } from "./psd-file/index.js";
import type { DataLoss, HostDocument } from "../../protocol/index.js";
import type { DocumentTree, HostAdapter, HostCallContext } from "../host.js";
import type { EmbeddedDocument } from "./document.js";
import { newDocumentContent } from "./document.js";
import type { EmbeddedEvents } from "./events.js";
import { OPEN_UNITS, layeredSaveFormat, readDocumentFile } from "./files.js";
import { documentsBytes, rgbaBytes, type EditorMemory, type Reservation } from "./memory.js";
import { psdSaveLosses, psdSaveUnits, renderComposite, serializePsd } from "./psd-save.js";
import { psdThumbnail } from "./psd-thumbnail.js";
import { effectsWorkBytes } from "./effects/index.js";
import type { DocumentStore } from "./store.js";
import { toHostDocument, toHostLayerTree } from "./tree.js";
import { stagesOf, type Stages } from "./work.js";

/** A save composited and encoded, with what it would drop. */
interface PreparedSave {
  readonly doc: EmbeddedDocument;
  readonly revision: number;
  readonly format: "psd" | "psb";
  readonly bytes: Buffer;
  readonly losses: DataLoss[];
}

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
  /** The files roots paths were resolved inside: opens and saves reach their folder from the root, following no link. */
  readonly roots?: readonly string[] | null | undefined;
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
        within: deps.roots,
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

  /**
   * The last save prepared by `saveLosses`: the bytes it measured, kept for the `saveDocument` that follows (the
   * methods always ask before saving), so a file is composited and encoded once per save. One slot: a refused
   * save's bytes stay until the next save or until the document closes.
   */
  let checkedSave: PreparedSave | undefined;

  /**
   * Composites and encodes a save of `doc` to `path` and measures what the bytes would drop. The work is charged
   * to the memory budget while it runs; the bytes are kept for the save that follows.
   */
  async function prepareSave(doc: EmbeddedDocument, path: string, stages?: Stages): Promise<PreparedSave> {
    const format = layeredSaveFormat(path);
    // The file holds every layer's pixels and the composite, at most uncompressed.
    // The composite, and the planes the layer effects work on while it is drawn (one layer at a time).
    const composite = rgbaBytes(doc.width, doc.height) + effectsWorkBytes(doc.layers, { left: 0, top: 0, right: doc.width, bottom: doc.height });
    const held = deps.memory.reserve(`Saving ${basename(path)}`, documentsBytes([doc]) + composite, { path });
    try {
      const composite = renderComposite(doc, stages);
      const thumbnail = await psdThumbnail(doc, composite);
      const bytes = serializePsd(doc, { composite, psb: format === "psb", thumbnail, stages });
      stages?.stage("writing");
      const prepared = { doc, revision: doc.revision, format, bytes, losses: psdSaveLosses(doc, bytes) };
      checkedSave = prepared;
      return prepared;
    } finally {
      held.release();
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
      if (checkedSave?.doc === doc) checkedSave = undefined;
      store.remove(doc.id);
      events.documentClosed(doc.id);
      if (wasActive) events.activeDocumentChanged();
    },

    async saveLosses(ctx, { documentId, path }): Promise<DataLoss[]> {
      deps.checkpoint(ctx);
      const doc = store.get(documentId);
      // Compositing, encoding, then (in saveDocument) writing: the heavy part of a save runs here.
      return (await prepareSave(doc, path, stagesOf(ctx, psdSaveUnits(doc) + 1))).losses;
    },

    async saveDocument(ctx, { documentId, path, backup }) {
      const doc = store.get(documentId);
      const format = layeredSaveFormat(path);
      deps.checkpoint(ctx);
      const checked = checkedSave;
      checkedSave = undefined;
      let bytes: Buffer;
      let stages: Stages;
      if (checked !== undefined && checked.doc === doc && checked.revision === doc.revision && checked.format === format) {
        // Composited and encoded when its losses were checked: only the writing is left.
        bytes = checked.bytes;
        stages = stagesOf(ctx, 1);
        stages.stage("writing");
      } else {
        // Not checked, or the document changed after its losses were checked (another client's edit came in
        // between): what this save would drop must be no more than what the caller agreed to.
        stages = stagesOf(ctx, psdSaveUnits(doc) + 1);
        const prepared = await prepareSave(doc, path, stages);
        checkedSave = undefined;
        const agreed = new Set((checked?.doc === doc ? checked.losses : []).map((loss) => loss.kind));
        refuseSilentLoss(
          prepared.losses.filter((loss) => !agreed.has(loss.kind)),
          { allowLossy: checked === undefined, path, documentId: doc.id },
        );
        bytes = prepared.bytes;
      }
      // Read back before it replaces anything: a file no reader can open never takes the place of the user's.
      const written = await writeFileAtomic(path, bytes, { backup, within: deps.roots, verify: psdFileReadBackProblem });
      stages.done();
      doc.filePath = path;
      doc.name = basename(path);
      doc.isDirty = false;
      return { path, format, ...(written.backupPath !== undefined ? { backupPath: written.backupPath } : {}) };
    },
  };
}
