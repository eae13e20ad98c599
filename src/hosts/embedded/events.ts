// rxjs's modules one by one, not its index: the index loads every operator (a tenth of an editor process's start).
import { EMPTY } from "rxjs/internal/observable/empty";
import { from } from "rxjs/internal/observable/from";
import type { Observable } from "rxjs/internal/Observable";
import { catchError } from "rxjs/internal/operators/catchError";
import { debounceTime } from "rxjs/internal/operators/debounceTime";
import { map } from "rxjs/internal/operators/map";
import { share } from "rxjs/internal/operators/share";
import { switchMap } from "rxjs/internal/operators/switchMap";
import { Subject } from "rxjs/internal/Subject";
import type { HostLayer, HostRect } from "../../protocol/index.js";
import type { PreviewEvent } from "../host.js";

/**
 * Quiet time before a `layer:previewChange` is rendered: a burst of edits (a script filling in a loop, a drag)
 * renders one preview of the final state instead of one per edit.
 * @default 30
 */
export const PREVIEW_DEBOUNCE_MS = 30;

/** The editor's own event names (Photoshop Generator's names), accepted by `event:subscribe` besides the main events. */
export const EMBEDDED_EVENT_TYPES = ["documentChanged", "currentDocumentChanged", "closedDocument", "history:changed"] as const;

/** What an edit changed; every flag defaults to false. */
export interface DocumentChanges {
  /** Pixels of some layer (or the composite) changed. */
  readonly pixels?: boolean | undefined;
  /** The selection changed. */
  readonly selection?: boolean | undefined;
  /** Which layers are active changed. */
  readonly activeLayers?: boolean | undefined;
  /** The layer tree changed: added, removed, renamed, moved, hidden, opacity or blend mode. */
  readonly layers?: boolean | undefined;
}

/** Data of the `documentChanged` event: the document and what changed in it. */
export interface DocumentChangedData {
  readonly documentId: number;
  /** The document's revision after the change. */
  readonly revision: number;
  /** The edit method that made the change; absent for changes made otherwise (a script, an import). */
  readonly method?: string;
  readonly pixels: boolean;
  readonly selection: boolean;
  readonly activeLayers: boolean;
  readonly layers: boolean;
}

/** Reads the state an event reports, at emission time. */
export interface EventSources {
  /** Selection of the active document; `null` when none or no document. */
  selection(): HostRect | null;
  /** Active layers of the active document (without children); `null` when no document is open. */
  activeLayers(): HostLayer[] | null;
  /** Preview of the active document's active layer, or `null` when there is none. */
  preview(): Promise<PreviewEvent | null>;
  /** Id of the active document, `undefined` when none is open. */
  activeDocumentId(): number | undefined;
}

/**
 * The embedded editor's event streams. Every edit reports itself through {@link EmbeddedEvents.notifyChanged}
 * (or the narrower `…Changed` methods) after it completes; values are read from the current state at that
 * moment, and the preview is only rendered while someone is subscribed.
 */
export class EmbeddedEvents {
  private readonly selection$ = new Subject<void>();
  private readonly layerSelection$ = new Subject<void>();
  private readonly preview$ = new Subject<void>();
  private readonly documentChanged$ = new Subject<DocumentChangedData>();
  private readonly currentDocument$ = new Subject<{ documentId: number | null }>();
  private readonly closed$ = new Subject<{ documentId: number }>();
  private readonly streams: ReadonlyMap<string, Observable<unknown>>;

  /** Told of every change before it is reported (the history: a change made otherwise than by an edit is a step). */
  onChange: ((doc: { readonly id: number }, changes: DocumentChanges) => void) | undefined;

  constructor(private readonly sources: EventSources) {
    this.streams = new Map<string, Observable<unknown>>([
      ["selection:changed", this.selection$.pipe(map(() => sources.selection()))],
      ["layer:selectionChange", this.layerSelection$.pipe(map(() => sources.activeLayers()))],
      [
        "layer:previewChange",
        // debounce: one preview per burst; switchMap: a newer change supersedes a preview still rendering;
        // a failed render skips one event.
        this.preview$.pipe(
          debounceTime(PREVIEW_DEBOUNCE_MS),
          switchMap(() => from(sources.preview()).pipe(catchError(() => EMPTY))),
          share(),
        ),
      ],
      ["documentChanged", this.documentChanged$.asObservable()],
      ["currentDocumentChanged", this.currentDocument$.asObservable()],
      ["closedDocument", this.closed$.asObservable()],
    ]);
  }

  /** The stream of one event type, or `undefined` for types this editor never produces. */
  stream(type: string): Observable<unknown> | undefined {
    return this.streams.get(type);
  }

  /**
   * The one hook every edit calls once it is done (methods, scripts, actions). Marks the document dirty when
   * pixels or layers changed, emits `documentChanged` for any document, and for the active document the spec
   * events that apply: `selection:changed`, `layer:selectionChange`, `layer:previewChange` (debounced).
   *
   * `revision`, when given, is the document's revision after the change instead of one more (a rolled-back batch).
   *
   * @example
   * layer.data = filled; events.notifyChanged(doc, { pixels: true });
   */
  notifyChanged(doc: { readonly id: number; isDirty: boolean; revision: number }, changes: DocumentChanges, method?: string, revision?: number): void {
    const pixels = changes.pixels === true;
    const selection = changes.selection === true;
    const activeLayers = changes.activeLayers === true;
    const layers = changes.layers === true;
    // An edit of the vocabulary is one step whatever it changed: it always raises the revision and is reported.
    if (method === undefined && !pixels && !selection && !activeLayers && !layers) return;
    this.onChange?.(doc, changes);
    if (pixels || layers) doc.isDirty = true;
    // A rolled-back batch puts the document back at the revision it had; every other change raises it.
    if (revision !== undefined) doc.revision = revision;
    else if (pixels || layers || method !== undefined) doc.revision++;
    const data: DocumentChangedData = { documentId: doc.id, revision: doc.revision, ...(method !== undefined ? { method } : {}), pixels, selection, activeLayers, layers };
    this.documentChanged$.next(data);
    if (this.sources.activeDocumentId() !== doc.id) return;
    if (data.selection) this.selection$.next();
    if (data.activeLayers) this.layerSelection$.next();
    if (data.pixels || data.layers || data.activeLayers) this.preview$.next();
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
    this.currentDocument$.next({ documentId: this.sources.activeDocumentId() ?? null });
    this.selectionChanged();
    this.layerSelectionChanged();
  }

  /** A document was closed (emitted before the resulting `activeDocumentChanged`, if any). */
  documentClosed(documentId: number): void {
    this.closed$.next({ documentId });
  }
}
