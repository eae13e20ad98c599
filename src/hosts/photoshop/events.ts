import { EMPTY, catchError, debounceTime, distinctUntilChanged, filter, from, map, merge, share, switchMap, tap } from "rxjs";
import type { Observable } from "rxjs";
import type { HostLayer, HostRect } from "../../protocol/index.js";
import type { PreviewEvent } from "../host.js";
import type { PhotoshopLink } from "./link.js";

/**
 * Photoshop events passed through under their own names (the embedded editor mirrors
 * `documentChanged`, `currentDocumentChanged` and `closedDocument`), data read by {@link parseEventData}.
 */
export const PHOTOSHOP_EVENTS = [
  "imageChanged",
  "currentDocumentChanged",
  "documentChanged",
  "closedDocument",
  "toolChanged",
  "foregroundColorChanged",
] as const;

/** Reads the state a derived event reports, at emission time. */
export interface EventQueries {
  selection(): Promise<HostRect | null>;
  activeLayers(): Promise<HostLayer[] | null>;
  preview(): Promise<PreviewEvent | null>;
}

/** Events whose data is a JSON object (generator-core's document-info style payloads). */
const JSON_EVENTS: ReadonlySet<string> = new Set(["imageChanged", "documentChanged"]);
/** Events whose data is a document id. */
const ID_EVENTS: ReadonlySet<string> = new Set(["currentDocumentChanged", "closedDocument"]);

/**
 * An event's data by what that event carries, never by what the text happens to look like: a colour
 * `foregroundColorChanged` sends as "112233" or "5e5555" stays a string (JSON.parse would make a number of one and
 * Infinity, then null, of the other).
 */
export function parseEventData(name: string, text: string): unknown {
  if (ID_EVENTS.has(name)) return /^\d{1,15}$/.test(text) ? Number(text) : text;
  if (!JSON_EVENTS.has(name)) return text;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? value : text;
  } catch {
    return text;
  }
}

/** What the host's revision count needs from the event streams. */
export interface ChangeCounting {
  /** Photoshop reported a change of this document. */
  observed(documentId: number): void;
  /** The host's own `documentChanged` events (one per edit), emitted beside Photoshop's. */
  readonly edited$: Observable<unknown>;
}

/**
 * An `imageChanged` key that reports a change of layers, pixels or the canvas (`layers` lists the layers changed,
 * pixels included; `bounds` and `resolution` are the document's): a payload with none of them (the active layers
 * as `selection`, a save's `metaDataOnly`) changed no content.
 */
const CONTENT_KEYS = ["layers", "bounds", "resolution"];

/** The document whose content a change event reports (`id`), if any: every `documentChanged`, `imageChanged` with content. */
function changedDocument(name: string, text: string): number | undefined {
  const value = parseEventData(name, text);
  if (typeof value !== "object" || value === null) return undefined;
  if (name === "imageChanged" && !CONTENT_KEYS.some((key) => key in value)) return undefined;
  const id = (value as { id?: unknown }).id;
  return typeof id === "number" && Number.isInteger(id) ? id : undefined;
}

/** Keys of an `imageChanged` payload (`selection`, `layers`, `active`, …), empty when it is not an object. */
function keysOf(text: string): Set<string> {
  const value = parseEventData("imageChanged", text);
  return new Set(typeof value === "object" && value !== null ? Object.keys(value) : []);
}

/**
 * The bridge's events derived from Photoshop's noisy ones: Photoshop events are subscribed only while a bridge
 * event needs them, bursts are debounced, and each event re-queries the state it reports rather than trusting
 * `imageChanged` (duplicates, fires for our own edits, may stop after timeline edits).
 */
export function photoshopEventStreams(
  link: PhotoshopLink,
  queries: EventQueries,
  debounceMs: number,
  counting: ChangeCounting,
): Map<string, Observable<unknown>> {
  const requery = <T>(trigger: Observable<unknown>, query: () => Promise<T>): Observable<T> =>
    trigger.pipe(
      debounceTime(debounceMs),
      // A newer change supersedes a query still running; a failed query skips one event.
      switchMap(() => from(query()).pipe(catchError(() => EMPTY))),
      share(),
    );
  // Each change Photoshop reports is counted once, however many streams listen (and only while one does).
  const counted = (name: string): Observable<string> =>
    link.event(name).pipe(
      tap((text) => {
        const id = changedDocument(name, text);
        if (id !== undefined) counting.observed(id);
      }),
      share(),
    );
  const changes = new Map([
    ["imageChanged", counted("imageChanged")],
    ["documentChanged", counted("documentChanged")],
  ]);
  const source = (name: string): Observable<string> => changes.get(name) ?? link.event(name);
  const imageChanged = (...keys: string[]): Observable<unknown> =>
    source("imageChanged").pipe(filter((text) => keys.length === 0 || [...keysOf(text)].some((k) => keys.includes(k))));
  const switched = link.event("currentDocumentChanged");

  const streams = new Map<string, Observable<unknown>>([
    [
      "selection:changed",
      requery(merge(imageChanged(), switched), queries.selection).pipe(distinctUntilChanged((a, b) => JSON.stringify(a) === JSON.stringify(b))),
    ],
    ["layer:selectionChange", requery(merge(imageChanged("selection", "active"), switched), queries.activeLayers)],
    [
      "layer:previewChange",
      requery(merge(imageChanged("layers", "selection", "active"), source("documentChanged"), switched), queries.preview),
    ],
  ]);
  for (const name of PHOTOSHOP_EVENTS) streams.set(name, source(name).pipe(map((text) => parseEventData(name, text))));
  // `documentChanged` also carries the host's own report of each edit, `{documentId, revision, method}`.
  streams.set("documentChanged", merge(streams.get("documentChanged")!, counting.edited$));
  return streams;
}
