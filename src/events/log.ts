/**
 * The bounded log of events that event-stream readers follow, replay from and filter: each event encoded once for
 * every reader, ids that order all of them, and what was dropped remembered well enough to tell a returning reader
 * how much it missed.
 */
import { randomBytes } from "node:crypto";
import type { Subscription } from "rxjs";
import type { Limits } from "../limits.js";
import type { SerializedEvent } from "../methods/index.js";
import type { EventSources } from "./sources.js";

/** What the log reads: the streams of `sources.ts`, and the types an endpoint accepts (for the error naming them). */
export type LogSources = Pick<EventSources, "stream" | "accepted">;

export interface LogEntry {
  readonly seq: number;
  /** The endpoint and editor it was recorded for (`root`, `root@embedded-2`, a plugin id): a stream reads only its own. */
  readonly source: string;
  readonly type: string;
  /**
   * The whole SSE message (`id`, `event`, `data`), encoded once when the event is recorded: every stream writes this
   * same buffer, so a preview sent to a thousand readers is held once, not once per reader.
   */
  readonly frame: Buffer;
  /** Where its `data` starts in `frame`. */
  readonly dataStart: number;
  /** What `?documentId=`/`?layerId=` filters read from its data, parsed once for all streams (null: names nothing). */
  named?: Record<string, unknown> | null;
}

type Listener = (entry: LogEntry) => void;

export function sourceOf(endpoint: string, editorId: string | undefined): string {
  return editorId === undefined ? endpoint : `${endpoint}@${editorId}`;
}

interface Watch {
  readonly subscription: Subscription;
  readonly listeners: Set<Listener>;
  /** Stops the watch once no stream has listened for `sseLogRetainMs`, so a reconnecting reader finds what it missed. */
  idle: NodeJS.Timeout | undefined;
}

/**
 * What a reconnecting reader gets: the events after its id, and how many of its events the log no longer holds
 * (null: unknown). `exact` is false when even the record of dropped events is too old: `lost` then counts every
 * event dropped since the id, whatever its type, an upper bound.
 */
export interface Resume {
  readonly entries: readonly LogEntry[];
  readonly lost: number | null;
  readonly exact: boolean;
}

/** What the log remembers of an event it dropped: enough to count, per reader, what that reader missed. */
interface Dropped {
  readonly seq: number;
  readonly source: string;
  readonly type: string;
}

/**
 * The bounded log every SSE stream reads from. Ids are `<boot>-<seq>`: `seq` counts every event the log records
 * (all types, all endpoints, so one id orders them all) and `boot` is random per bridge, so an id from before a
 * restart is known to be from another log. A type is recorded while a stream listens to it and for
 * `sseLogRetainMs` after the last one left, so a reader that reconnects within that time misses nothing the log
 * still holds.
 */
export class EventLog {
  readonly boot = randomBytes(4).toString("hex");
  private readonly entries: LogEntry[] = [];
  private head = 0;
  private bytes = 0;
  private seq = 0;
  private readonly watches = new Map<string, Watch>();
  /** The last `sseLogDroppedEvents` dropped events (no data), oldest first; `forgotten` is the newest seq no longer in it. */
  private readonly dropped: Dropped[] = [];
  private forgotten = 0;

  constructor(
    private readonly sources: LogSources,
    private readonly limits: Limits,
  ) {}

  /** The id a stream sends with an entry. */
  idOf(entry: LogEntry): string {
    return `${this.boot}-${entry.seq}`;
  }

  /** Listens to one type on one endpoint (for one editor); undefined when nothing produces it there. */
  listen(endpoint: string, editorId: string | undefined, type: string, listener: Listener): (() => void) | undefined {
    const source = sourceOf(endpoint, editorId);
    const key = `${source}\u0000${type}`;
    let watch = this.watches.get(key);
    if (watch === undefined) {
      const stream = this.sources.stream(endpoint, type, editorId);
      if (stream === undefined) return undefined;
      const listeners = new Set<Listener>();
      const subscription = stream.subscribe((event) => {
        const entry = this.append(source, event);
        for (const each of [...listeners]) each(entry);
      });
      watch = { subscription, listeners, idle: undefined };
      this.watches.set(key, watch);
    }
    const current = watch;
    clearTimeout(current.idle);
    current.idle = undefined;
    current.listeners.add(listener);
    return () => {
      current.listeners.delete(listener);
      if (current.listeners.size > 0 || current.idle !== undefined) return;
      current.idle = setTimeout(() => {
        current.subscription.unsubscribe();
        this.watches.delete(key);
      }, this.limits.sseLogRetainMs);
      current.idle.unref();
    };
  }

  /**
   * The events of `source` and `types` recorded after `lastEventId` (oldest first), and how many of them the log
   * dropped since then.
   */
  since(lastEventId: string, source: string, types: ReadonlySet<string>): Resume {
    const match = /^([0-9a-f]+)-(\d+)$/.exec(lastEventId);
    if (match === null || match[1] !== this.boot) return { entries: [], lost: null, exact: false };
    const last = Number(match[2]);
    if (last > this.seq) return { entries: [], lost: null, exact: false };
    const held = this.entries.slice(this.head);
    const entries = held.filter((e) => e.seq > last && e.source === source && types.has(e.type));
    if (last >= this.forgotten) {
      const lost = this.dropped.filter((d) => d.seq > last && d.source === source && types.has(d.type)).length;
      return { entries, lost, exact: true };
    }
    const oldest = held[0]?.seq ?? this.seq + 1;
    return { entries, lost: Math.max(0, oldest - 1 - last), exact: false };
  }

  /** Stops every watch (bridge shutdown). */
  close(): void {
    for (const watch of this.watches.values()) {
      clearTimeout(watch.idle);
      watch.subscription.unsubscribe();
    }
    this.watches.clear();
  }

  private append(source: string, event: SerializedEvent): LogEntry {
    const seq = ++this.seq;
    const head = `id: ${this.boot}-${seq}\nevent: ${event.type}\ndata: `;
    // JSON.stringify never emits a raw newline, so `data:` stays one line.
    const frame = Buffer.from(`${head}${event.json}\n\n`);
    const entry: LogEntry = { seq, source, type: event.type, frame, dataStart: Buffer.byteLength(head) };
    this.entries.push(entry);
    this.bytes += frame.length;
    // Bounded by count and by size: a few large previews must not hold more memory than many small events.
    while (this.entries.length - this.head > this.limits.sseLogEvents || (this.bytes > this.limits.sseLogBytes && this.entries.length - this.head > 1)) {
      const gone = this.entries[this.head]!;
      this.bytes -= gone.frame.length;
      this.head++;
      this.dropped.push({ seq: gone.seq, source: gone.source, type: gone.type });
      if (this.dropped.length > this.limits.sseLogDroppedEvents) this.forgotten = this.dropped.shift()!.seq;
    }
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries.splice(0, this.head);
      this.head = 0;
    }
    return entry;
  }
}

/** An entry's data as an object, parsed on the first stream that filters and kept for the others. */
function namedOf(entry: LogEntry): Record<string, unknown> | null {
  if (entry.named !== undefined) return entry.named;
  const data = JSON.parse(entry.frame.toString("utf8", entry.dataStart, entry.frame.length - 2)) as unknown;
  entry.named = data !== null && typeof data === "object" ? (data as Record<string, unknown>) : null;
  return entry.named;
}

/**
 * A reader's filter by document and layer (as given, strings): an event naming another document or layer is skipped;
 * events naming none pass.
 */
export function entryFilter(documentId: string | null, layerId: string | null): (entry: LogEntry) => boolean {
  if (documentId === null && layerId === null) return () => true;
  return (entry) => {
    const named = namedOf(entry);
    if (named === null) return true;
    if (documentId !== null && "documentId" in named && String(named["documentId"]) !== documentId) return false;
    // A preview's `id` is its layer's.
    if (layerId !== null && entry.type === "layer:previewChange" && String(named["id"]) !== layerId) return false;
    return true;
  };
}
