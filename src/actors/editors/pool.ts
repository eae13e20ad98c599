import { merge, type Observable } from "rxjs";
import { BridgeError, type EditorChangedEventData, type EditorSummary } from "../../protocol/index.js";
import type { HostAdapter } from "../../hosts/host.js";
import type { Limits } from "../../limits.js";
import type { Logger } from "../../logger.js";
import { DOCUMENT_ID_RANGE, DocumentIds } from "./document-ids.js";
import { PooledHost } from "./pooled-host.js";
import { EventBus } from "../../events/bus.js";
import { HostSession } from "./host-session.js";
import type { MethodRoute, SerializedEvent } from "../../methods/index.js";

/** Most editors one bridge runs (`--editors`). */
export const MAX_EDITORS = 64;

/** One editor of the pool: its own host session (mailbox, deadlines, reconnects) and its own event streams. */
export interface PoolEditor {
  /** `<kind>-<n>`, n from 1 in the order the editors were given (`<kind>-<n>@<bridge>` in a cluster). */
  readonly id: string;
  readonly host: PooledHost;
  readonly session: HostSession;
  readonly bus: EventBus;
  /** Logical clients assigned to this editor. */
  clients: number;
}

/**
 * The editors of a bridge and the routing rules between them, in one place:
 * - a call naming a `documentId` goes to the editor that owns the document;
 * - otherwise to the caller's editor (a logical client keeps the one it was given; an HTTP request or a plugin
 *   may name one);
 * - otherwise, for a new document (`route: "place"`) to the least loaded editor, and for anything else to the
 *   editor of the pool's most recently active document, so `POST /document/open` then
 *   `POST /image/export-document` act on the same document.
 */
export class EditorPool {
  readonly editors: readonly PoolEditor[];
  private readonly byId: ReadonlyMap<string, PoolEditor>;
  private readonly ids = new DocumentIds();
  /** The editor of the document a call touched last. */
  private recent: PoolEditor | undefined;

  /** With no editors (a cluster's front door): what stands in for the first, never placed, listed or started. */
  private readonly standIn: PoolEditor | undefined;

  /**
   * @param idSuffix ends every editor id (a cluster's `@<bridge>`, so ids are unique cluster-wide).
   * @param standIn with no `hosts` (a front door): the stand-in whose event bus carries the bridge's own events.
   */
  constructor(hosts: readonly HostAdapter[], limits: Limits, log: Logger, idSuffix = "", standIn?: HostAdapter) {
    if (hosts.length === 0 && standIn === undefined) throw new BridgeError("BAD_REQUEST", "A bridge needs at least one editor");
    if (hosts.length > MAX_EDITORS) throw new BridgeError("BAD_REQUEST", `A bridge runs at most ${MAX_EDITORS} editors, got ${hosts.length}`);
    const counts = new Map<string, number>();
    this.editors = hosts.map((inner) => {
      const n = (counts.get(inner.kind) ?? 0) + 1;
      counts.set(inner.kind, n);
      const id = `${inner.kind}-${n}${idSuffix}`;
      const editor: PoolEditor = {
        id,
        host: new PooledHost(id, inner, this.ids, hosts.length === 1, () => {
          this.recent = editor;
        }),
        session: undefined as unknown as HostSession,
        bus: undefined as unknown as EventBus,
        clients: 0,
      };
      const editorLog = log.child({ editorId: id });
      Object.assign(editor, { session: new HostSession(editor.host, limits, editorLog), bus: new EventBus(editor.host, editorLog) });
      return editor;
    });
    this.byId = new Map(this.editors.map((editor) => [editor.id, editor]));
    if (hosts.length === 0 && standIn !== undefined) {
      const id = `${standIn.kind}${idSuffix}`;
      const editorLog = log.child({ editorId: id });
      this.standIn = {
        id,
        host: new PooledHost(id, standIn, this.ids, false, () => {}),
        session: new HostSession(standIn, limits, editorLog),
        bus: new EventBus(standIn, editorLog),
        clients: 0,
      };
    }
  }

  /** No editor of its own (`--editors 0`): every call goes to another bridge's editor. */
  get frontDoor(): boolean {
    return this.editors.length === 0;
  }

  /** Hands out document ids from the range of a cluster slot (`slot × DOCUMENT_ID_RANGE` on). */
  useIdRange(slot: number): void {
    this.ids.useRange(slot * DOCUMENT_ID_RANGE);
  }

  /** The first editor; on a front door the stand-in (its bus carries the bridge's own events). */
  get first(): PoolEditor {
    return this.editors[0] ?? this.standIn!;
  }

  /**
   * Which other bridge of a cluster holds an editor id or document id, if one does (set by the cluster). The
   * cluster's router (`route.ts`) sends calls for editors there to that bridge; what this pool is asked for them
   * answers `NOT_SUPPORTED` naming it.
   */
  elsewhere: ((what: { editor?: string; documentId?: number }) => string | undefined) | undefined;

  /** Whether an editor id is one of this bridge's. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Why a client may not name this editor (`?editor=`), or null: this bridge's, or (a cluster) another bridge's. */
  refusal(id: string): BridgeError | null {
    if (this.byId.has(id) || (this.forwarding && this.elsewhere?.({ editor: id }) !== undefined)) return null;
    try {
      this.get(id);
      return null;
    } catch (error) {
      return error as BridgeError;
    }
  }

  /** An editor by id. @throws BridgeError `BAD_REQUEST` naming the known ids for an unknown one. */
  get(id: string): PoolEditor {
    const editor = this.byId.get(id);
    if (editor === undefined) {
      this.refuseElsewhere({ editor: id });
      const known = [...this.byId.keys()];
      throw new BridgeError("BAD_REQUEST", `Unknown editor "${id}"; this bridge has: ${known.join(", ")}`, { details: { editor: id, editors: known } });
    }
    return editor;
  }

  /**
   * Fewest queued + running calls, then fewest clients, then (for a new document) fewest documents, then the first
   * given; editors not taking calls only when none is. A new client does not weigh documents: the first one lands
   * on the first editor, where the sample document is.
   */
  leastLoaded(forDocument = false): PoolEditor {
    const anyReady = this.editors.some((e) => e.session.isReady);
    let best: PoolEditor | undefined;
    let bestLoad: readonly number[] = [];
    for (const editor of this.editors) {
      if (anyReady && !editor.session.isReady) continue;
      const { queued, running } = editor.session.status();
      const load = [queued + running, editor.clients, forDocument ? this.ids.count(editor.id) : 0];
      if (best === undefined || lighter(load, bestLoad)) {
        best = editor;
        bestLoad = load;
      }
    }
    return best ?? this.first;
  }

  /**
   * The editor a new logical client is given (or the one it asked for), counted as its client. Undefined only on a
   * front door while no other bridge's editor takes calls: the client's calls then go wherever the load is least.
   */
  assign(requested: string | undefined): { readonly id: string } | undefined {
    // Another bridge's editor (a cluster): asked for, or lighter than any here. Its calls are forwarded there.
    const remote =
      requested === undefined
        ? this.lighterElsewhere(false)?.id
        : !this.byId.has(requested) && this.forwarding && this.elsewhere?.({ editor: requested }) !== undefined
          ? requested
          : undefined;
    if (remote !== undefined) {
      this.remoteClients.set(remote, (this.remoteClients.get(remote) ?? 0) + 1);
      return { id: remote };
    }
    if (requested === undefined && this.frontDoor) return undefined;
    const editor = requested === undefined ? this.leastLoaded() : this.get(requested);
    editor.clients++;
    return editor;
  }

  /** Logical clients of this bridge working with other bridges' editors, by editor id (announced to the cluster). */
  readonly remoteClients = new Map<string, number>();

  /** Other bridges' editors taking calls, with their load as last announced (a cluster). @default none */
  remoteEditors: (() => ReadonlyArray<{ readonly bridge: string; readonly id: string; readonly load: readonly number[] }>) | undefined;

  /**
   * Another bridge's editor strictly lighter than the lightest here (busy calls, then clients, then for a new
   * document documents), or undefined: at equal load this bridge's own editor wins.
   */
  lighterElsewhere(forDocument: boolean): { bridge: string; id: string } | undefined {
    const others = this.remoteEditors?.();
    if (others === undefined || others.length === 0) return undefined;
    const here = this.leastLoaded(forDocument);
    const { queued, running } = here.session.status();
    let best: { bridge: string; id: string } | undefined;
    // A front door has none of its own: any other bridge's editor is lighter.
    let bestLoad: readonly number[] = this.frontDoor ? [Infinity] : [queued + running, here.clients, forDocument ? this.ids.count(here.id) : 0];
    for (const other of others) {
      const load = forDocument ? other.load : [other.load[0]!, other.load[1]!, 0];
      if (lighter(load, bestLoad)) {
        best = other;
        bestLoad = load;
      }
    }
    return best;
  }

  /** Whether calls for other bridges' documents and editors are forwarded (a cluster), not refused. */
  forwarding = false;

  /** Another bridge's editor's events (a cluster). @default none: subscribing to them answers `NOT_SUPPORTED` */
  remoteEvents: ((bridge: string, editor: string, type: string) => Observable<SerializedEvent>) | undefined;

  /** This bridge's editors' events numbered for the cluster (see `EventCursor`), once joined. @default none */
  countedEvents: ((editor: string, type: string) => Observable<SerializedEvent> | undefined) | undefined;

  /** The state events of one editor (the caller's, else the first): this bridge's, or another bridge's in a cluster. */
  stateStream(editorId: string | undefined, type: string): Observable<SerializedEvent> | undefined {
    if (editorId !== undefined && !this.byId.has(editorId) && this.remoteEvents !== undefined) {
      const bridge = this.elsewhere?.({ editor: editorId });
      if (bridge !== undefined) return this.remoteEvents(bridge, editorId, type);
    }
    const editor = editorId === undefined ? this.first : this.get(editorId);
    return this.countedEvents?.(editor.id, type) ?? editor.bus.stream(type);
  }

  /** A logical client went away. */
  release(editorId: string): void {
    const editor = this.byId.get(editorId);
    if (editor !== undefined && editor.clients > 0) editor.clients--;
    const remote = this.remoteClients.get(editorId);
    if (remote !== undefined) {
      if (remote > 1) this.remoteClients.set(editorId, remote - 1);
      else this.remoteClients.delete(editorId);
    }
  }

  /**
   * Where in the cluster a call goes when not here: the bridge holding the named document, or the caller's editor;
   * for a new document of a caller without an editor or logical client (HTTP, plugins), another bridge's editor
   * lighter than any here. Undefined: here.
   */
  elsewhereFor(route: MethodRoute, documentId: number | undefined, editorId: string | undefined, logicalClient: boolean): { bridge: string; editor?: string | undefined } | undefined {
    if (documentId !== undefined && route !== "place") {
      if (this.knows(documentId)) return undefined;
      const bridge = this.elsewhere?.({ documentId });
      return bridge === undefined ? undefined : { bridge, editor: editorId };
    }
    if (editorId !== undefined) {
      if (this.has(editorId)) return undefined;
      const bridge = this.elsewhere?.({ editor: editorId });
      return bridge === undefined ? undefined : { bridge, editor: editorId };
    }
    // A logical client works with the editor it was given; other callers' new documents go where the load is least,
    // and on a front door everything a caller without an editor sends.
    if ((route === "place" && !logicalClient) || this.frontDoor) {
      const lighter = this.lighterElsewhere(true);
      if (lighter !== undefined) return { bridge: lighter.bridge, editor: lighter.id };
    }
    return undefined;
  }

  /**
   * A logical client whose editor was another bridge's, and that bridge is gone (died or left): it gets the
   * least-loaded editor now, as a new client would, and an `editor:changed` event saying so. Returns what it sent.
   */
  moveFromGoneEditor(client: { readonly editorId: string | undefined; moveTo(data: EditorChangedEventData): void }): EditorChangedEventData | undefined {
    const from = client.editorId;
    if (from === undefined || this.has(from) || this.elsewhere?.({ editor: from }) !== undefined) return undefined;
    const to = this.assign(undefined)?.id;
    if (to === undefined) return undefined;
    this.release(from);
    const bridge = from.includes("@") ? from.slice(from.lastIndexOf("@") + 1) : undefined;
    const moved: EditorChangedEventData = { from, to, reason: "bridge-gone", ...(bridge !== undefined ? { bridge } : {}) };
    client.moveTo(moved);
    return moved;
  }

  /** The editor that owns a bridge document id, or undefined when no known document has it. */
  owner(documentId: number): PoolEditor | undefined {
    const home = this.ids.home(documentId);
    if (home !== undefined) return this.byId.get(home.editor);
    // One editor: ids the bridge has not seen yet (a script's new document) are that editor's own.
    return this.editors.length === 1 ? this.first : undefined;
  }

  /** Where a call goes: see the class comment. */
  route(route: MethodRoute, documentId: number | undefined, callerEditor: string | undefined): PoolEditor {
    if (documentId !== undefined && route !== "place") {
      if (!this.knows(documentId)) this.refuseElsewhere({ documentId });
      const owner = this.owner(documentId);
      if (owner === undefined) {
        throw new BridgeError("DOCUMENT_NOT_FOUND", `No open document with id ${documentId}`, { details: { documentId } });
      }
      return owner;
    }
    if (callerEditor !== undefined) return this.get(callerEditor);
    if (route === "place") return this.leastLoaded(true);
    return this.recent ?? this.first;
  }

  private refuseElsewhere(what: { editor?: string; documentId?: number }): void {
    const bridge = this.elsewhere?.(what);
    if (bridge === undefined) return;
    const subject = what.editor !== undefined ? `Editor "${what.editor}"` : `Document ${what.documentId}`;
    throw new BridgeError("NOT_SUPPORTED", `${subject} is on bridge "${bridge}" of this cluster, and this is not forwarded between bridges (yet)`, {
      details: { ...what, bridge },
    });
  }

  /** Whether a bridge id belongs to a known document (false: the pool may not have seen it yet). */
  knows(documentId: number): boolean {
    return this.ids.home(documentId) !== undefined;
  }

  /** Events of one type from every editor (plugins see the whole pool). */
  mergedStream(type: string): Observable<SerializedEvent> | undefined {
    const streams = this.editors.map((editor) => editor.bus.stream(type)).filter((s): s is Observable<SerializedEvent> => s !== undefined);
    if (streams.length === 0) return undefined;
    return streams.length === 1 ? streams[0] : merge(...streams);
  }

  /** Other bridges' editors' events of a pool-wide type (a cluster). @default none */
  remoteWide: ((type: string) => Observable<SerializedEvent> | undefined) | undefined;

  /** Events of one type from every editor of the cluster: this bridge's, and in a cluster the other bridges'. */
  wideStream(type: string): Observable<SerializedEvent> | undefined {
    const here = this.mergedStream(type);
    const there = here === undefined && !this.frontDoor ? undefined : this.remoteWide?.(type);
    if (there === undefined) return here;
    return here === undefined ? there : merge(here, there);
  }

  acceptedTypes(): string[] {
    if (this.frontDoor) return this.first.bus.acceptedTypes();
    return [...new Set(this.editors.flatMap((editor) => editor.bus.acceptedTypes()))];
  }

  summaries(): EditorSummary[] {
    return this.editors.map((editor) => {
      const status = editor.session.status();
      const version = editor.session.hostVersion;
      return {
        id: editor.id,
        kind: editor.host.kind,
        state: status.state,
        ...(version !== undefined ? { hostVersion: version } : {}),
        queued: status.queued,
        running: status.running,
        restarts: editor.host.restarts,
        documents: this.ids.count(editor.id),
        clients: editor.clients,
        ...(editor.host.editCapabilities !== undefined ? { edits: editor.host.editCapabilities as Record<string, { unsupported?: string[]; unsupportedTypes?: string[] }> } : {}),
        history: typeof editor.host.history === "function",
      };
    });
  }

  /**
   * Whether `kept`, made by `summaries()` earlier, still shows every editor as it is: each field is compared with
   * where `summaries()` read it, so `getServerInfo` checks its kept answer without making new summaries per call.
   * Kind, edits and history are fixed per editor and its host, and a new host counts a restart.
   */
  summariesMatch(kept: readonly EditorSummary[]): boolean {
    if (kept.length !== this.editors.length) return false;
    for (let i = 0; i < kept.length; i++) {
      const editor = this.editors[i]!;
      const summary = kept[i]!;
      const status = editor.session.status();
      if (
        summary.id !== editor.id ||
        summary.state !== status.state ||
        summary.hostVersion !== editor.session.hostVersion ||
        summary.queued !== status.queued ||
        summary.running !== status.running ||
        summary.restarts !== editor.host.restarts ||
        summary.documents !== this.ids.count(editor.id) ||
        summary.clients !== editor.clients
      )
        return false;
    }
    return true;
  }

  /** Starts every editor; resolves with whether at least one is ready. */
  async start(): Promise<boolean> {
    const ready = await Promise.all(this.editors.map((editor) => editor.session.start()));
    return ready.some(Boolean);
  }

  get ready(): boolean {
    return this.editors.some((editor) => editor.session.isReady);
  }

  async close(graceMs = 0): Promise<void> {
    await Promise.all(this.editors.map((editor) => editor.session.close(graceMs)));
  }
}

/** Whether load `a` is lighter than `b`, comparing criterion by criterion. */
function lighter(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}
