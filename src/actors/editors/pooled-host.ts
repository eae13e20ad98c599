import { filter, map, merge, Subject, type Observable } from "rxjs";
import { BridgeError, type EditorRestartedEventData, type HostDocument, type RestartedDocument } from "../../protocol/index.js";
import {
  NOT_AT_HAND,
  OPTIONAL_HOST_OPS,
  type DocumentTree,
  type EditorRecovery,
  type HostAdapter,
  type HostCallContext,
  type HostEventType,
  type PeekableOp,
} from "../../hosts/host.js";
import type { DocumentIds } from "./document-ids.js";

/** Event types every pooled editor accepts, whatever its kind: the pool reports lost documents and restarts. */
export const POOL_EVENT_TYPES = ["closedDocument", "editor:restarted"] as const;

const NEVER_ABORTED = new AbortController().signal;

/** A document as the bridge shows it: bridge id, and the editor it lives on. */
export type PooledDocument = HostDocument & { editorId: string };

type Options = { readonly documentId?: number | undefined };

/**
 * One editor of a pool, seen through the bridge's document ids: every `documentId` going in is turned into the
 * editor's own id and every one coming out (documents, events, error details) into the bridge's. When the editor
 * is lost, its documents are forgotten; once it is back, `closedDocument` for each and one `editor:restarted`
 * are emitted, so subscribers learn what is gone. The methods above see a plain `HostAdapter`.
 */
export class PooledHost implements HostAdapter {
  readonly kind: string;
  readonly eventTypes: readonly string[];
  readonly lost$: Observable<Error>;
  /** How many times the editor was lost after it had connected. */
  restarts = 0;
  private readonly closed$ = new Subject<{ documentId: number }>();
  private readonly restarted$ = new Subject<EditorRestartedEventData>();
  private pendingLoss: { reason: string; pairs: Array<{ native: number; id: number }> } | undefined;

  constructor(
    readonly id: string,
    readonly inner: HostAdapter,
    private readonly ids: DocumentIds,
    /** The only editor of its bridge: an id the bridge has not seen yet is taken as the editor's own. */
    private readonly sole: boolean,
    /** Called with the bridge id of every document a call touched (the pool's "most recently active"). */
    private readonly touched: (documentId: number) => void,
  ) {
    this.kind = inner.kind;
    this.eventTypes = [...new Set([...(inner.eventTypes ?? []), ...POOL_EVENT_TYPES])];
    this.lost$ = inner.lost$.pipe(
      map((error) => {
        this.restarts++;
        this.pendingLoss = { reason: error.message, pairs: [...(this.pendingLoss?.pairs ?? []), ...ids.forgetEditor(id)] };
        return error;
      }),
    );
    // Optional members exist exactly when the editor has them: the methods answer NOT_SUPPORTED otherwise.
    const self = this as unknown as Record<string, unknown>;
    for (const op of OPTIONAL_HOST_OPS) if (typeof inner[op] !== "function") self[op] = undefined;
  }

  get filesystem(): HostAdapter["filesystem"] {
    return this.inner.filesystem;
  }
  get readConcurrency(): number | undefined {
    return this.inner.readConcurrency;
  }
  get scriptsReachFiles(): boolean | undefined {
    return this.inner.scriptsReachFiles;
  }
  get scriptLanguage(): HostAdapter["scriptLanguage"] {
    return this.inner.scriptLanguage;
  }
  /** The inner editor's memory budget and use (`undefined` from an editor without one). */
  memoryUse(): ReturnType<NonNullable<HostAdapter["memoryUse"]>> {
    return this.inner.memoryUse?.();
  }

  get cutoutMethods(): HostAdapter["cutoutMethods"] {
    return this.inner.cutoutMethods;
  }
  get editCapabilities(): HostAdapter["editCapabilities"] {
    return this.inner.editCapabilities;
  }

  async connect() {
    const info = await this.inner.connect();
    const loss = this.pendingLoss;
    this.pendingLoss = undefined;
    // Documents reopened after a loss get their bridge ids back before any other id is handed out for them.
    const restarted = loss === undefined ? undefined : this.restoreAfterLoss(loss, this.inner.takeRecovery?.());
    // In a pool, the documents an editor starts with get their ids now, in pool order: the first editor's sample
    // keeps id 1. A sole editor's ids are always its own.
    if (!this.sole) {
      for (const doc of await this.inner.listDocuments({ signal: NEVER_ABORTED, caller: "bridge" })) this.ids.toBridge(this.id, doc.id);
    }
    if (restarted !== undefined) {
      for (const documentId of restarted.lostDocumentIds) this.closed$.next({ documentId });
      this.restarted$.next(restarted);
    }
    return info;
  }

  /**
   * The documents the restarted editor reopened keep their bridge ids; the others are to be reported closed, then
   * one `editor:restarted` says which came back and what each lost.
   */
  private restoreAfterLoss(loss: { reason: string; pairs: Array<{ native: number; id: number }> }, recovery: EditorRecovery | undefined): EditorRestartedEventData {
    const byNative = new Map((recovery?.documents ?? []).map((doc) => [doc.documentId, doc]));
    const documents: RestartedDocument[] = [];
    const seen = new Set<number>();
    for (const { native, id } of loss.pairs) {
      seen.add(native);
      const doc = byNative.get(native);
      if (doc?.recovered === true) this.ids.restore(this.id, native, id);
      documents.push({ documentId: id, recovered: doc?.recovered === true, lost: doc?.lost ?? ["document"] });
    }
    // Recovered documents the bridge had not seen yet (a sole editor's ids are its own) get their ids now.
    for (const doc of recovery?.documents ?? []) {
      if (seen.has(doc.documentId) || !doc.recovered) continue;
      documents.push({ documentId: this.ids.toBridge(this.id, doc.documentId), recovered: true, lost: doc.lost });
    }
    const lostDocumentIds = documents.filter((doc) => !doc.recovered).map((doc) => doc.documentId);
    const recoveredDocumentIds = documents.filter((doc) => doc.recovered).map((doc) => doc.documentId);
    return { editorId: this.id, reason: loss.reason, restarts: this.restarts, lostDocumentIds, recoveredDocumentIds, documents };
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  events(type: HostEventType): Observable<unknown> | undefined {
    if (type === "editor:restarted") return this.restarted$.asObservable();
    const source = this.inner.events(type);
    if (type === "closedDocument") {
      const closed = source?.pipe(
        map((data) => {
          const native = (data as { documentId?: unknown }).documentId;
          const id = typeof native === "number" ? this.ids.forget(this.id, native) : undefined;
          return id === undefined ? undefined : { ...(data as object), documentId: id };
        }),
      );
      // An editor's own report of a document the pool already forgot (lost with the editor) is dropped.
      return merge(this.closed$, (closed ?? new Subject<undefined>()).pipe(filter((data) => data !== undefined)));
    }
    return source?.pipe(map((data) => this.outEvent(data)));
  }

  private outEvent(data: unknown): unknown {
    if (data === null || typeof data !== "object") return data;
    const native = (data as { documentId?: unknown }).documentId;
    if (typeof native !== "number") return data;
    return { ...data, documentId: this.ids.toBridge(this.id, native) };
  }

  /** A document coming out of the editor. */
  private outDocument(doc: HostDocument): PooledDocument {
    // Whatever is not a document passes unchanged: the dispatcher's checks judge it, not this mapping.
    if (doc === null || typeof doc !== "object" || typeof doc.id !== "number") return doc as PooledDocument;
    const id = this.ids.toBridge(this.id, doc.id);
    this.touched(id);
    return { ...doc, id, editorId: this.id };
  }

  /** A `documentId` going in; an id of another editor's (or no) document is refused as not found. */
  private inId(documentId: number): number;
  private inId(documentId: number | undefined): number | undefined;
  private inId(documentId: number | undefined): number | undefined {
    if (documentId === undefined) return undefined;
    const native = this.ids.toNative(this.id, documentId) ?? (this.sole && !this.ids.claimedElsewhere(documentId) ? documentId : undefined);
    if (native === undefined) {
      throw new BridgeError("DOCUMENT_NOT_FOUND", `No open document with id ${documentId}`, { details: { documentId } });
    }
    this.touched(documentId);
    return native;
  }

  private inOptions<O extends Options>(options: O): O {
    return options.documentId === undefined ? options : { ...options, documentId: this.inId(options.documentId) };
  }

  /** Runs an editor call, turning the editor's ids in error details into the bridge's. */
  private async run<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const native = error instanceof BridgeError ? error.details?.["documentId"] : undefined;
      if (typeof native !== "number" || !(error instanceof BridgeError)) throw error;
      const id = this.ids.toBridge(this.id, native);
      throw new BridgeError(error.code, error.message.replace(String(native), String(id)), {
        details: { ...error.details, documentId: id },
        ...(error.retryable === undefined ? {} : { retryable: error.retryable }),
        ...(error.source === undefined ? {} : { source: error.source }),
        cause: error,
      });
    }
  }

  async listDocuments(ctx: HostCallContext): Promise<PooledDocument[]> {
    const docs = await this.run(() => this.inner.listDocuments(ctx));
    if (!Array.isArray(docs)) return docs;
    return docs.map((doc) => {
      if (doc === null || typeof doc !== "object" || typeof doc.id !== "number") return doc as PooledDocument;
      const id = this.ids.toBridge(this.id, doc.id);
      return { ...doc, id, editorId: this.id };
    });
  }

  async getDocument(ctx: HostCallContext, documentId: number | undefined): Promise<HostDocument> {
    const native = this.inId(documentId);
    return this.outDocument(await this.run(() => this.inner.getDocument(ctx, native)));
  }

  async getDocumentTree(ctx: HostCallContext, documentId: number | undefined): Promise<DocumentTree> {
    const native = this.inId(documentId);
    const tree = await this.run(() => this.inner.getDocumentTree(ctx, native));
    if (tree === null || typeof tree !== "object") return tree;
    return { ...tree, document: this.outDocument(tree.document) };
  }

  openDocument? = async (ctx: HostCallContext, path: string): Promise<HostDocument> =>
    this.outDocument(await this.run(() => this.inner.openDocument!(ctx, path)));

  createDocument?: HostAdapter["createDocument"] = async (ctx, options) =>
    this.outDocument(await this.run(() => this.inner.createDocument!(ctx, options)));

  closeDocument?: HostAdapter["closeDocument"] = async (ctx, documentId) => {
    const native = this.inId(documentId);
    await this.run(() => this.inner.closeDocument!(ctx, native));
    this.ids.forget(this.id, native);
  };

  saveLosses?: HostAdapter["saveLosses"] = (ctx, options) => this.run(() => this.inner.saveLosses!(ctx, this.inOptions(options)));
  saveDocument?: HostAdapter["saveDocument"] = (ctx, options) => this.run(() => this.inner.saveDocument!(ctx, this.inOptions(options)));
  selectLayers?: HostAdapter["selectLayers"] = (ctx, options) => this.run(() => this.inner.selectLayers!(ctx, this.inOptions(options)));
  importLayer?: HostAdapter["importLayer"] = (ctx, options) => this.run(() => this.inner.importLayer!(ctx, this.inOptions(options)));
  exportDocumentImage: HostAdapter["exportDocumentImage"] = (ctx, options) =>
    this.run(() => this.inner.exportDocumentImage(ctx, this.inOptions(options)));
  exportLayerImage: HostAdapter["exportLayerImage"] = (ctx, options) => this.run(() => this.inner.exportLayerImage(ctx, this.inOptions(options)));
  /**
   * A selection the editor's adapter holds, the document id turned into the editor's own; the other reads carry
   * ids in their answers and are always calls here.
   */
  peek(op: PeekableOp, args: readonly unknown[]): unknown {
    if (op !== "getSelection" || this.inner.peek === undefined) return NOT_AT_HAND;
    const documentId = args[0];
    if (documentId !== undefined && typeof documentId !== "number") return NOT_AT_HAND;
    const native = documentId === undefined ? undefined : (this.ids.toNative(this.id, documentId) ?? (this.sole && !this.ids.claimedElsewhere(documentId) ? documentId : undefined));
    if (documentId !== undefined && native === undefined) return NOT_AT_HAND; // answered by the call: not found
    if (documentId !== undefined) this.touched(documentId);
    return this.inner.peek(op, [native]);
  }

  getSelection: HostAdapter["getSelection"] = (ctx, documentId) => {
    const native = this.inId(documentId);
    return this.run(() => this.inner.getSelection(ctx, native));
  };
  setSelection?: HostAdapter["setSelection"] = (ctx, options) => this.run(() => this.inner.setSelection!(ctx, this.inOptions(options)));
  getSelectionOutline?: HostAdapter["getSelectionOutline"] = (ctx, options) =>
    this.run(() => this.inner.getSelectionOutline!(ctx, this.inOptions(options)));
  autoCutout?: HostAdapter["autoCutout"] = (ctx, options) => this.run(() => this.inner.autoCutout!(ctx, this.inOptions(options)));
  removeBackground?: HostAdapter["removeBackground"] = (ctx, options) => this.run(() => this.inner.removeBackground!(ctx, this.inOptions(options)));
  /** An edit of one document; the document `document:duplicate` made comes back under a bridge id. */
  edit?: HostAdapter["edit"] = async (ctx, request) => {
    const outcome = await this.run(() => this.inner.edit!(ctx, { ...request, documentId: this.inId(request.documentId) }));
    if (outcome?.documentId === undefined) return outcome;
    const documentId = this.ids.toBridge(this.id, outcome.documentId);
    this.touched(documentId);
    return { ...outcome, documentId };
  };
  /** A document's history: the document id goes in as the editor's own and comes back as the bridge's. */
  history?: HostAdapter["history"] = async (ctx, request) => {
    const answer = await this.run(() => this.inner.history!(ctx, { ...request, documentId: this.inId(request.documentId) }));
    return { ...answer, documentId: request.documentId };
  };
  /** The editor's fonts: nothing of a document in them. */
  listFonts?: HostAdapter["listFonts"] = (ctx) => this.run(() => this.inner.listFonts!(ctx));
  /** A document's layer comps: the document id goes in as the editor's own and comes back as the bridge's. */
  layerComps?: HostAdapter["layerComps"] = async (ctx, options) => {
    const answer = await this.run(() => this.inner.layerComps!(ctx, this.inOptions(options)));
    return { ...answer, documentId: options.documentId };
  };
  /** Scripts see and return the editor's own document ids (equal to the bridge's unless a pool had to renumber). */
  runScript?: HostAdapter["runScript"] = (ctx, options) => this.inner.runScript!(ctx, options);
}

