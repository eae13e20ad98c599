import { BridgeError } from "../../protocol/index.js";
import type { DocumentContent, DocumentSource, EmbeddedDocument } from "./document.js";

/**
 * The open documents. Ids start at 1 and are never reused; the active document is the most recently activated
 * one still open.
 */
export class DocumentStore {
  private readonly documents = new Map<number, EmbeddedDocument>();
  /** Ids, most recently activated last. */
  private recent: number[] = [];
  private nextId = 1;

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
      selection: null,
    };
    this.documents.set(doc.id, doc);
    this.activate(doc.id);
    return doc;
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
  }

  /** Closes every document (ids keep increasing). */
  clear(): void {
    this.documents.clear();
    this.recent = [];
  }

  /** A name like `Untitled-1` that no open document has. */
  untitledName(): string {
    const names = new Set(this.list().map((doc) => doc.name));
    let n = 1;
    while (names.has(`Untitled-${n}`)) n++;
    return `Untitled-${n}`;
  }
}
