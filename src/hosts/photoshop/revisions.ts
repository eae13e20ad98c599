import { Subject } from "rxjs";

/** What the host reports after each of its edits as `documentChanged` (beside Photoshop's own events). */
export interface EditChangedData {
  readonly documentId: number;
  readonly revision: number;
  readonly method: string;
}

/**
 * Document revisions for Photoshop, which keeps none a script could read: the host counts, per document, the
 * changes it makes (edits, imports, Remove Background) and the changes Photoshop reports (`imageChanged`,
 * `documentChanged`) while those events are subscribed. Photoshop also reports the bridge's own changes; an event
 * arriving while a bridge change of that document runs, or within `echoMs` after it, is taken as that change's
 * echo and not counted again.
 */
export class Revisions {
  private readonly counts = new Map<number, number>();
  /** Bridge changes running, per document. */
  private readonly running = new Map<number, number>();
  /** Until when (ms) Photoshop's events of a document echo a bridge change that ended. */
  private readonly echoUntil = new Map<number, number>();
  /** The host's own `documentChanged` events, one per edit. */
  readonly edited$ = new Subject<EditChangedData>();
  /** Documents closed: what is kept about them can go. */
  readonly forgotten$ = new Subject<number>();

  constructor(
    private readonly echoMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The document's revision: 0 until something changed it since the bridge connected. */
  of(documentId: number): number {
    return this.counts.get(documentId) ?? 0;
  }

  /** Runs one bridge change of a document; once it succeeded, the revision rises by one. Answers both. */
  async change<T>(documentId: number, work: () => Promise<T>): Promise<{ result: T; revision: number }> {
    const result = await this.run(documentId, work);
    return { result, revision: this.raise(documentId) };
  }

  /**
   * Runs one bridge change that puts the document back as it was at `revision` (an atomic batch rolled back); once
   * it succeeded, the revision is that one again.
   */
  async restore<T>(documentId: number, revision: number, work: () => Promise<T>): Promise<T> {
    const result = await this.run(documentId, work);
    this.counts.set(documentId, revision);
    return result;
  }

  /** A change Photoshop reported for a document: counted unless it echoes a bridge change. */
  observed(documentId: number): void {
    if (this.running.has(documentId) || this.now() < (this.echoUntil.get(documentId) ?? Number.NEGATIVE_INFINITY)) return;
    this.raise(documentId);
  }

  /** A document closed: its count goes (Photoshop never gives its id to another document). */
  forget(documentId: number): void {
    this.counts.delete(documentId);
    this.echoUntil.delete(documentId);
    this.forgotten$.next(documentId);
  }

  /** Runs a bridge change: Photoshop's events of the document meanwhile, and for `echoMs` after, are its echo. */
  private async run<T>(documentId: number, work: () => Promise<T>): Promise<T> {
    this.running.set(documentId, (this.running.get(documentId) ?? 0) + 1);
    try {
      return await work();
    } finally {
      const left = (this.running.get(documentId) ?? 1) - 1;
      if (left === 0) this.running.delete(documentId);
      else this.running.set(documentId, left);
      this.echoUntil.set(documentId, this.now() + this.echoMs);
    }
  }

  private raise(documentId: number): number {
    const next = this.of(documentId) + 1;
    this.counts.set(documentId, next);
    return next;
  }
}
