import { BridgeError } from "../../protocol/errors.js";
import type { DocumentContent, DocumentSource, EmbeddedDocument } from "./document.js";

/** Options of a {@link DocumentStore}. */
export interface DocumentStoreOptions {
  /**
   * Id of the first document. An editor restarted after a crash starts past the ids its predecessor handed out,
   * so an id a client still holds can only miss, never name another document.
   * @default 1
   */
  readonly firstId?: number | undefined;
  /** Called with the open ids (in id order) and the next id whenever a document is added or removed. */
  readonly onChange?: ((ids: number[], nextId: number) => void) | undefined;
}

/**
 * The open documents. Ids start at 1 (or `firstId`) and are never reused; the active document is the most
 * recently activated one still open.
 */
export class DocumentStore {
  private readonly documents = new Map<number, EmbeddedDocument>();
  /** Ids, most recently activated last. */
  private recent: number[] = [];
  private nextId: number;
  private readonly onChange: DocumentStoreOptions["onChange"];

  constructor(options: DocumentStoreOptions = {}) {
    this.nextId = options.firstId ?? 1;
    this.onChange = options.onChange;
  }

  /** Open documents in id order. */
  list(): EmbeddedDocument[] {
    return [...this.documents.values()];
  }

  /** The active document, if any. */
  active(): EmbeddedDocument | undefined {
    const id = this.recent[this.recent.length - 1];
    return id === undefined ? undefined : this.documents.get(id);
  }

  /**
   * The document with this id, or the active one when `id` is undefined.
   * @throws BridgeError `NO_DOCUMENT` when none is open, `DOCUMENT_NOT_FOUND` for an unknown id.
   */
  get(id: number | undefined): EmbeddedDocument {
    if (id === undefined) {
      const doc = this.active();
      if (!doc) throw new BridgeError("NO_DOCUMENT", "No document is open");
      return doc;
    }
    const doc = this.documents.get(id);
    if (!doc) throw new BridgeError("DOCUMENT_NOT_FOUND", `No open document with id ${id}`, { details: { documentId: id } });
    return doc;
  }

  /** Adds a document built from `content` and makes it active. */
  add(content: DocumentContent, meta: { name: string; filePath?: string | undefined; source?: DocumentSource | undefined }): EmbeddedDocument {
    const doc: EmbeddedDocument = {
      ...content,
      id: this.nextId++,
      name: meta.name,
      filePath: meta.filePath,
      source: meta.source,
      isDirty: false,
      revision: 0,
      selection: null,
    };
    this.documents.set(doc.id, doc);
    this.activate(doc.id);
    this.changed();
    return doc;
  }

  /**
   * Puts back a document a lost editor had open, under its old id (below `nextId`: ids are never handed out
   * twice, so no open document has it), and makes it active; restoring in the old activation order keeps the
   * active document.
   */
  restore(
    id: number,
    content: DocumentContent,
    meta: { name: string; filePath: string | undefined; source: DocumentSource | undefined; isDirty: boolean; revision: number },
  ): EmbeddedDocument {
    if (this.documents.has(id)) throw new BridgeError("INTERNAL", `Document ${id} is already open`);
    const doc: EmbeddedDocument = { ...content, ...meta, id, selection: null };
    this.documents.set(id, doc);
    this.nextId = Math.max(this.nextId, id + 1);
    this.activate(id);
    this.changed();
    return doc;
  }

  /** Open documents in activation order, the active one last. */
  recentDocuments(): EmbeddedDocument[] {
    return this.recent.map((id) => this.documents.get(id)!);
  }

  /** Makes a document the active one. */
  activate(id: number): void {
    this.recent = this.recent.filter((other) => other !== id);
    this.recent.push(id);
  }

  /** Closes a document; the most recently active remaining one becomes active. */
  remove(id: number): void {
    this.documents.delete(id);
    this.recent = this.recent.filter((other) => other !== id);
    this.changed();
  }

  /** Closes every document (ids keep increasing). */
  clear(): void {
    this.documents.clear();
    this.recent = [];
    this.changed();
  }

  private changed(): void {
    this.onChange?.([...this.documents.keys()], this.nextId);
  }

  /** A name like `Untitled-1` that no open document has. */
  untitledName(): string {
    const names = new Set(this.list().map((doc) => doc.name));
    let n = 1;
    while (names.has(`Untitled-${n}`)) n++;
    return `Untitled-${n}`;
  }
}
