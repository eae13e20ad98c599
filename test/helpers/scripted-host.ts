import { Subject, type Observable } from "rxjs";
import sharp from "sharp";
import { BridgeError, type HostDocument, type HostLayer, type HostRect } from "../../src/protocol/index.js";
import type { DocumentTree, EncodedImage, HostAdapter, HostCallContext, HostInfo, SelectionShape } from "../../src/hosts/host.js";

/**
 * A deterministic in-test editor for the faults the embedded editor cannot produce: calls that hang until the
 * test releases them, calls that ignore aborts, a lost connection, failed reconnects. Every call is recorded with
 * the caller (the log name of the logical client or lane) it ran for, so fairness can be asserted.
 */
export class ScriptedHost implements HostAdapter {
  readonly kind = "scripted";
  readonly calls: Array<{ op: string; lane: string }> = [];
  readonly lost = new Subject<Error>();
  readonly lost$: Observable<Error> = this.lost.asObservable();
  private gate: Promise<void> | null = null;
  private openGate: (() => void) | null = null;
  private readonly selection$ = new Subject<HostRect | null>();
  private selection: HostRect | null = null;
  private connectFailures = 0;
  private waiters: Array<{ condition: () => boolean; resolve: () => void }> = [];
  connects = 0;
  /** When set, held calls ignore their abort signal (a stuck editor). */
  ignoreAbort = false;

  private readonly doc: HostDocument = {
    id: 1,
    name: "Scripted",
    width: 64,
    height: 48,
    resolution: 72,
    colorMode: "RGB",
    isDirty: false,
    revision: 0,
    activeLayerIds: [2],
  };

  private readonly layer: HostLayer = {
    id: 2,
    index: 0,
    name: "Layer",
    kind: "pixel",
    visible: true,
    opacity: 100,
    blendMode: "normal",
    bounds: { left: 0, top: 0, right: 64, bottom: 48 },
    rect: { x: 0, y: 0, width: 64, height: 48 },
    clipped: false,
  };

  /** Holds every call that starts from now on until `release()`. */
  hold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }

  release(): void {
    this.openGate?.();
    this.gate = null;
    this.openGate = null;
  }

  /** Resolves once `count` calls in total have started. */
  whenStarted(count: number): Promise<void> {
    return this.until(() => this.calls.length >= count);
  }

  /** The editor goes away: the bridge must fail queued and running calls and reconnect. */
  lose(reason = "editor crashed", failNextConnects = 0): void {
    this.connectFailures = failNextConnects;
    this.lost.next(new Error(reason));
  }

  /** Resolves when `connect()` has succeeded `count` times in total. */
  whenConnected(count: number): Promise<void> {
    return this.until(() => this.connects >= count);
  }

  /** Resolves once `condition` holds; re-checked whenever a call starts or a connection succeeds. */
  private until(condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ condition, resolve }));
  }

  private changed(): void {
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.condition()) return true;
      waiter.resolve();
      return false;
    });
  }

  async connect(): Promise<HostInfo> {
    if (this.connectFailures > 0) {
      this.connectFailures--;
      throw new Error("editor not reachable");
    }
    this.connects++;
    this.changed();
    return { hostVersion: "scripted 1.0" };
  }

  async close(): Promise<void> {
    this.release();
  }

  events(type: string): Observable<unknown> | undefined {
    return type === "selection:changed" ? this.selection$.asObservable() : undefined;
  }

  private async enter(op: string, ctx: HostCallContext): Promise<void> {
    this.calls.push({ op, lane: ctx.caller });
    this.changed();
    const gate = this.gate;
    if (gate === null) return;
    if (this.ignoreAbort) return gate;
    await Promise.race([
      gate,
      new Promise<never>((_, reject) => {
        if (ctx.signal.aborted) reject(new BridgeError("TIMEOUT", "aborted"));
        ctx.signal.addEventListener("abort", () => reject(new BridgeError("TIMEOUT", "aborted")), { once: true });
      }),
    ]);
  }

  async listDocuments(ctx: HostCallContext): Promise<HostDocument[]> {
    await this.enter("listDocuments", ctx);
    return [this.doc];
  }

  async getDocument(ctx: HostCallContext, documentId: number | undefined): Promise<HostDocument> {
    await this.enter("getDocument", ctx);
    if (documentId !== undefined && documentId !== this.doc.id) {
      throw new BridgeError("DOCUMENT_NOT_FOUND", `No document ${documentId}`);
    }
    return this.doc;
  }

  async getDocumentTree(ctx: HostCallContext, documentId: number | undefined): Promise<DocumentTree> {
    return { document: await this.getDocument(ctx, documentId), layers: [this.layer] };
  }

  private async encode(ctx: HostCallContext): Promise<EncodedImage> {
    await this.enter("export", ctx);
    const bytes = await sharp({ create: { width: 4, height: 3, channels: 4, background: "#ff0000" } }).png().toBuffer();
    return { bytes, format: "png", width: 4, height: 3, bounds: { left: 0, top: 0, right: 4, bottom: 3 } };
  }

  exportDocumentImage(ctx: HostCallContext): Promise<EncodedImage> {
    return this.encode(ctx);
  }

  exportLayerImage(ctx: HostCallContext): Promise<EncodedImage> {
    return this.encode(ctx);
  }

  async getSelection(ctx: HostCallContext): Promise<HostRect | null> {
    await this.enter("getSelection", ctx);
    return this.selection;
  }

  async setSelection(ctx: HostCallContext, options: { shape: SelectionShape | null }): Promise<HostRect | null> {
    await this.enter("setSelection", ctx);
    const { shape } = options;
    this.selection = shape === null ? null : shape.kind === "polygon" ? null : shape.rect;
    this.selection$.next(this.selection);
    return this.selection;
  }
}
