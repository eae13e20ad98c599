/**
 * Where an event comes from, decided once for every way of following events (a client's `event:subscribe`, an
 * event stream, a plugin listening to the bridge, a webhook): bridge events (`#ready`, `#closing`) come once,
 * from the bridge; state events describe an editor's active document, so they come from the caller's editor;
 * events naming their document come from every editor (and, in a cluster, every bridge); a plugin endpoint adds
 * the events its plugin declares.
 */
import type { Observable } from "rxjs";
import type { SerializedEvent } from "../methods/index.js";
import { STATE_EVENTS } from "../protocol/index.js";

/** The editors' streams, as the editor pool offers them. */
export interface EditorStreams {
  /** A state event of `editorId`'s editor (the first when undefined). */
  stateStream(editorId: string | undefined, type: string): Observable<SerializedEvent> | undefined;
  /** An event from every editor of this bridge. */
  mergedStream(type: string): Observable<SerializedEvent> | undefined;
  /** An event from every editor of this bridge and, in a cluster, of every other bridge. */
  wideStream(type: string): Observable<SerializedEvent> | undefined;
  /** Every event type the editors produce. */
  acceptedTypes(): string[];
}

/** The events plugins declare, by endpoint (a plugin id). */
export interface PluginStreams {
  eventTypes(endpoint: string): string[];
  eventStream(endpoint: string, type: string): Observable<SerializedEvent> | undefined;
}

export interface EventSources {
  /** Event types an endpoint (`root` or a plugin id) accepts. */
  accepted(endpoint: string): string[];
  /** The stream of `type` for a follower on `endpoint` whose editor is `editorId`; undefined when nothing produces it. */
  stream(endpoint: string, type: string, editorId: string | undefined): Observable<SerializedEvent> | undefined;
  /** What a plugin hears of the bridge's own events (`#…`) and every editor's. */
  main(type: string): Observable<SerializedEvent> | undefined;
}

/** `bridge`: the bridge-wide stream (`#…` events); `plugins` is read when a follower asks, so it may come later. */
export function eventSources(bridge: { stream(type: string): Observable<SerializedEvent> | undefined }, editors: EditorStreams, plugins: () => PluginStreams): EventSources {
  return {
    accepted: (endpoint) => (endpoint === "root" ? editors.acceptedTypes() : [...editors.acceptedTypes(), ...plugins().eventTypes(endpoint)]),
    stream: (endpoint, type, editorId) =>
      (type.startsWith("#") ? bridge.stream(type) : STATE_EVENTS.has(type) ? editors.stateStream(editorId, type) : editors.wideStream(type)) ??
      (endpoint === "root" ? undefined : plugins().eventStream(endpoint, type)),
    main: (type) => (type.startsWith("#") ? bridge.stream(type) : editors.mergedStream(type)),
  };
}
