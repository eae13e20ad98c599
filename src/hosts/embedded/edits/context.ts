import type { EditName, EditOp } from "../../edits.js";
import type { HostCallContext } from "../../host.js";
import type { EmbeddedDocument } from "../document.js";
import type { DocumentChanges } from "../events.js";
import type { EditorMemory } from "../memory.js";
import type { DocumentStore } from "../store.js";
import type { FontCatalogue } from "../text/catalogue.js";

/** What an edit handler works with. */
export interface EditContext {
  /** The call: its deadline and cancellation (`checkpoint(call)` throws once it is over). */
  readonly call: HostCallContext;
  /** Largest layer or document (width × height) an edit may make: the editor's `maxDocumentPixels`. */
  readonly maxDocumentPixels: number;
  /** The editor's memory budget: new pixel buffers are reserved before they are made. */
  readonly memory: EditorMemory;
  /** The fonts text layers are drawn with. */
  readonly fonts: FontCatalogue;
  /** The open documents (for `document:duplicate`, which makes one). */
  readonly store: DocumentStore;
  /** Announces a document an edit added to `store` and made active (`currentDocumentChanged`). */
  documentAdded(doc: EmbeddedDocument): void;
  document(documentId: number | undefined): EmbeddedDocument;
  /** Records what the edit changed (the dispatcher reports it once, as one step). */
  changed(doc: EmbeddedDocument, changes: DocumentChanges): void;
  /** Throws the abort reason once the call is cancelled or out of time (see `work.ts`). */
  checkpoint(ctx: HostCallContext): void;
}

/** What a handler answers: the layer or document it made, if any. */
export type EditMade = { readonly layerId?: number; readonly documentId?: number; readonly compId?: number } | undefined;

/** One edit's handler: the document is `context.document(edit's documentId)`, already checked to exist. */
export type EditHandler<K extends EditName> = (context: EditContext & { readonly doc: EmbeddedDocument }, edit: Extract<EditOp, { op: K }>) => Promise<EditMade> | EditMade;

export type EditHandlers = { readonly [K in EditName]?: EditHandler<K> };
