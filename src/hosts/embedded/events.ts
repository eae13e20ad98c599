import { EMPTY, Subject, catchError, from, map, share, switchMap } from "rxjs";
import type { Observable } from "rxjs";
import type { HostLayer, HostRect, LayerPreviewPayload } from "../../protocol/index.js";

/** Reads the state an event reports, at emission time. */
export interface EventSources {
  /** Selection of the active document; `null` when none or no document. */
  selection(): HostRect | null;
  /** Active layers of the active document (without children); `null` when no document is open. */
  activeLayers(): HostLayer[] | null;
  /** Preview of the active layer, or `null`. */
  preview(): Promise<LayerPreviewPayload>;
}

/**
 * The embedded editor's event streams. Operations call the `…Changed` methods after they complete; values are
 * read from the current state at that moment, and the preview is only rendered while someone is subscribed.
 */
export class EmbeddedEvents {
  private readonly selection$ = new Subject<void>();
  private readonly layerSelection$ = new Subject<void>();
  private readonly preview$ = new Subject<void>();
  private readonly streams: ReadonlyMap<string, Observable<unknown>>;

  constructor(sources: EventSources) {
    this.streams = new Map<string, Observable<unknown>>([
      ["selection:changed", this.selection$.pipe(map(() => sources.selection()))],
      ["layer:selectionChange", this.layerSelection$.pipe(map(() => sources.activeLayers()))],
      [
        "layer:previewChange",
        // switchMap: a newer change supersedes a preview still rendering; a failed render skips one event.
        this.preview$.pipe(
          switchMap(() => from(sources.preview()).pipe(catchError(() => EMPTY))),
          share(),
        ),
      ],
    ]);
  }

  /** The stream of one event type, or `undefined` for types this editor never produces. */
  stream(type: string): Observable<unknown> | undefined {
    return this.streams.get(type);
  }

  /** The active document's selection changed. */
  selectionChanged(): void {
    this.selection$.next();
  }

  /** The active layers of the active document changed (which also changes the previewed layer). */
  layerSelectionChanged(): void {
    this.layerSelection$.next();
    this.preview$.next();
  }

  /** The pixels of the active layer changed. */
  previewChanged(): void {
    this.preview$.next();
  }

  /** Another document became active, or the last one closed: every state event may differ. */
  activeDocumentChanged(): void {
    this.selectionChanged();
    this.layerSelectionChanged();
  }
}
