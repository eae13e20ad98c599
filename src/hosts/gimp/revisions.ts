import { Subject, type Observable } from "rxjs";

/** `documentChanged` as the GIMP adapter emits it (adapter ids). */
export interface DocumentChangedEvent {
  readonly documentId: number;
  readonly revision: number;
  /** The edit method that made the change; absent for other changes (an import, a background removal). */
  readonly method?: string;
}

/**
 * Each image's revision, kept by the adapter (GIMP has none it could read): raised by every edit and every other
 * change made through the bridge (an import, a background removal, a script). Keyed by the adapter's image ids,
 * which outlive GIMP restarts, so an image reopened from its recovery copy keeps counting.
 *
 * A script may change any image without saying which: it raises every image's revision at once, as a count of
 * scripts each image has seen since the adapter first reported it.
 */
export class GimpRevisions {
  private readonly own = new Map<number, number>();
  /** Scripts run before the adapter first reported each image. */
  private readonly baseline = new Map<number, number>();
  private scripts = 0;
  private readonly changed$ = new Subject<DocumentChangedEvent>();

  /** `documentChanged`: one per change an image's revision counts, scripts excepted. */
  readonly events: Observable<DocumentChangedEvent> = this.changed$.asObservable();

  /** The revision of image `id`. */
  of(id: number): number {
    let base = this.baseline.get(id);
    if (base === undefined) {
      base = this.scripts;
      this.baseline.set(id, base);
    }
    return (this.own.get(id) ?? 0) + this.scripts - base;
  }

  /** Image `id` changed (by `method`, an edit); answers its new revision. */
  raise(id: number, method?: string): number {
    const before = this.of(id);
    this.own.set(id, (this.own.get(id) ?? 0) + 1);
    const revision = before + 1;
    this.changed$.next({ documentId: id, revision, ...(method !== undefined ? { method } : {}) });
    return revision;
  }

  /** A script ran: any image may have changed. */
  raiseAll(): void {
    this.scripts++;
  }

  /** The image was closed. */
  forget(id: number): void {
    this.own.delete(id);
    this.baseline.delete(id);
  }
}
