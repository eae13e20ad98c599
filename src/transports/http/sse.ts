import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Observable, Subscription } from "rxjs";
import type { SerializedEvent } from "../../methods/index.js";
import { BridgeError, STATE_EVENTS } from "../../protocol/index.js";
import type { Limits } from "../../limits.js";
import type { Logger } from "../../logger.js";
import { requestAddress } from "../connections.js";
import { EventStreamBudget, type BudgetedStream } from "./sse-budget.js";

/** Path of the root endpoint's event stream; a plugin's is `/plugins/{id}/events`. */
export const EVENTS_PATH = "/events";
/** Path that hands out single-use tickets for `EventSource`, which cannot send an `Authorization` header. */
export const EVENTS_TICKET_PATH = "/events/ticket";
/** Query key of a ticket; the ticket stands in for the token on exactly one event-stream request. */
export const TICKET_QUERY_KEY = "ticket";

/** How often coalesced state events are retried while a reader is backed up (as for WS clients). */
const COALESCE_FLUSH_MS = 25;

/** Where an SSE stream's events come from: the bridge's shared event streams, by endpoint (`root` or a plugin id). */
export interface EventSources {
  /**
   * The shared stream of one type on an endpoint, or undefined when nothing produces it there. State events (the
   * active document's) come from `editorId`'s editor, or the first one; other events from every editor.
   */
  stream(endpoint: string, type: string, editorId: string | undefined): Observable<SerializedEvent> | undefined;
  /** Event types the endpoint accepts (for the error naming them). */
  accepted(endpoint: string): string[];
}

interface LogEntry {
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

function sourceOf(endpoint: string, editorId: string | undefined): string {
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
    private readonly sources: EventSources,
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

/**
 * Single-use tickets for `EventSource`: valid for `sseTicketTtlMs`, at most `sseMaxTickets` outstanding (the oldest
 * is forgotten first). Tickets are secrets like the token: nothing logs them.
 */
export class TicketStore {
  private readonly tickets = new Map<string, number>();

  constructor(private readonly limits: Limits) {}

  issue(): { ticket: string; expiresInMs: number } {
    const now = Date.now();
    for (const [ticket, expires] of this.tickets) if (expires <= now) this.tickets.delete(ticket);
    while (this.tickets.size >= this.limits.sseMaxTickets) this.tickets.delete(this.tickets.keys().next().value!);
    const ticket = randomBytes(24).toString("base64url");
    this.tickets.set(ticket, now + this.limits.sseTicketTtlMs);
    return { ticket, expiresInMs: this.limits.sseTicketTtlMs };
  }

  /** Whether the ticket was valid; it is spent either way. */
  consume(ticket: string): boolean {
    const expires = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    return expires !== undefined && expires > Date.now();
  }
}

/** Counts read by `/metrics` and `/status`. */
export interface SseCounts {
  open: number;
  delivered: number;
  coalesced: number;
  /** Streams closed past their own caps (`sseHardBytes`, or `sseSoftBytes` for `sseSlowReaderMs`). */
  slowCloses: number;
  /** Streams closed, furthest behind first, because all streams together queued more than `sseTotalBytes`. */
  budgetCloses: number;
  /** Streams refused for `sseMaxStreams` or `sseMaxStreamsPerAddress`. */
  refused: number;
}

export interface SseContext {
  readonly log: EventLog;
  readonly limits: Limits;
  readonly logger: Logger;
  readonly counts: SseCounts;
  readonly budget: EventStreamBudget;
  /** Proxies whose `X-Forwarded-For` names the address a stream counts against (`checkTrustProxy`'s entries). */
  readonly trustProxy: readonly string[];
}

/** A stream's request, already past the Origin/Host/token (or ticket) checks. */
export interface SseRequest {
  readonly endpoint: string;
  /** The editor whose state events the stream follows (`?editor=`, checked); undefined: the first. */
  readonly editorId: string | undefined;
  readonly url: URL;
  readonly lastEventId: string | undefined;
  /** Headers the guard set (CORS); copied onto the stream's answer. */
  readonly headers: Headers;
}

/** The types a request names (`?type=` repeated), checked against what the endpoint produces. */
export function requestedTypes(sources: EventSources, endpoint: string, url: URL): string[] {
  const types = [...new Set(url.searchParams.getAll("type"))];
  const accepted = sources.accepted(endpoint);
  if (types.length === 0) {
    throw new BridgeError("BAD_REQUEST", `Name at least one event type (?type=…); accepted: ${accepted.join(", ")}`, { details: { accepted } });
  }
  for (const type of types) {
    if (!accepted.includes(type)) {
      throw new BridgeError("BAD_REQUEST", `Unknown event type "${type}"; accepted: ${accepted.join(", ")}`, { details: { type, accepted } });
    }
  }
  return types;
}

/** An entry's data as an object, parsed on the first stream that filters and kept for the others. */
function namedOf(entry: LogEntry): Record<string, unknown> | null {
  if (entry.named !== undefined) return entry.named;
  const data = JSON.parse(entry.frame.toString("utf8", entry.dataStart, entry.frame.length - 2)) as unknown;
  entry.named = data !== null && typeof data === "object" ? (data as Record<string, unknown>) : null;
  return entry.named;
}

/** `?documentId=` / `?layerId=`: an event naming another document or layer is skipped; events naming none pass. */
function filterOf(url: URL): (entry: LogEntry) => boolean {
  const documentId = url.searchParams.get("documentId");
  const layerId = url.searchParams.get("layerId");
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

/** How often a stream above `sseSoftBytes` is looked at when no event comes: it may drain, or be closed as slow. */
const BEHIND_CHECK_MS = 1_000;

/**
 * Serves one `text/event-stream` on a Node response: replays from `Last-Event-ID`, then follows the live events,
 * with a heartbeat comment. A reader whose queue passes `sseSoftBytes` gets only the latest value of each state event;
 * past `sseHardBytes`, or above the soft cap for `sseSlowReaderMs` (checked on a timer, whether events come or not),
 * it is closed (it may reconnect with its last id). All streams together share `sseTotalBytes`, and their number is
 * capped in total and per address (`sseMaxStreams`, `sseMaxStreamsPerAddress`): a refused stream throws before its
 * answer starts. Resolves when the stream ends.
 */
export function serveEventStream(context: SseContext, sources: EventSources, request: SseRequest, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { log, limits, counts, budget } = context;
  const types = requestedTypes(sources, request.endpoint, request.url);
  const source = sourceOf(request.endpoint, request.editorId);
  const wanted = new Set(types);
  const passes = filterOf(request.url);
  const address = requestAddress(req, context.trustProxy);
  let lastSent = 0;
  let ended = false;
  let pending: Map<string, LogEntry> | undefined;
  /** When the queue was first seen above the soft cap, while it stays there. */
  let behindSince: number | undefined;
  let flushTimer: NodeJS.Timeout | undefined;
  let behindTimer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  const stops: Array<() => void> = [];

  const end = (): void => {
    if (ended) return;
    ended = true;
    counts.open--;
    budget.remove(stream, address);
    for (const stop of stops) stop();
    clearInterval(heartbeat);
    clearInterval(flushTimer);
    clearTimeout(behindTimer);
    if (!res.destroyed) res.destroy();
  };
  const stream: BudgetedStream = {
    queuedBytes: () => (ended ? 0 : res.writableLength),
    closeForBudget: () => {
      counts.budgetCloses++;
      end();
    },
  };
  try {
    budget.add(stream, address);
  } catch (error) {
    counts.refused++;
    throw error;
  }
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(200, { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive", "x-accel-buffering": "no" });
  counts.open++;

  const closeSlow = (): void => {
    counts.slowCloses++;
    context.logger.info({ actor: "sse", endpoint: request.endpoint, queuedBytes: res.writableLength }, "slow event-stream reader closed");
    end();
  };
  /** Looks at a stream above the soft cap: closed once it has stayed there `sseSlowReaderMs`, else looked at again. */
  const checkBehind = (): void => {
    behindTimer = undefined;
    if (ended) return;
    if (res.writableLength <= limits.sseSoftBytes) {
      behindSince = undefined;
      if (pending !== undefined) flush();
      return;
    }
    const now = Date.now();
    behindSince ??= now;
    if (now - behindSince >= limits.sseSlowReaderMs) {
      closeSlow();
      return;
    }
    behindTimer = setTimeout(checkBehind, Math.min(BEHIND_CHECK_MS, behindSince + limits.sseSlowReaderMs - now));
    behindTimer.unref();
  };
  /** After a write: a queue above the soft cap starts being watched, events or not. */
  const noteQueue = (): void => {
    budget.wrote();
    if (behindTimer === undefined && res.writableLength > limits.sseSoftBytes) checkBehind();
  };
  const write = (entry: LogEntry): void => {
    if (entry.seq <= lastSent) return;
    lastSent = entry.seq;
    counts.delivered++;
    res.write(entry.frame);
    noteQueue();
  };
  const flush = (): void => {
    if (ended || pending === undefined) return;
    if (res.writableLength > limits.sseSoftBytes) return; // still behind: checkBehind closes it in time
    const held = [...pending.values()].sort((a, b) => a.seq - b.seq);
    pending = undefined;
    clearInterval(flushTimer);
    flushTimer = undefined;
    for (const entry of held) write(entry);
  };
  const deliver = (entry: LogEntry): void => {
    if (ended || !wanted.has(entry.type) || entry.source !== source || !passes(entry)) return;
    const queued = res.writableLength;
    if (queued > limits.sseHardBytes) {
      closeSlow();
      return;
    }
    if (queued > limits.sseSoftBytes && STATE_EVENTS.has(entry.type)) {
      pending ??= new Map();
      if (pending.has(entry.type)) counts.coalesced++;
      pending.set(entry.type, entry);
      flushTimer ??= setInterval(flush, COALESCE_FLUSH_MS);
      if (behindTimer === undefined) checkBehind();
      return;
    }
    write(entry);
  };

  // Listen first, then replay: an event arriving in between is both logged and delivered once (ids only grow).
  const live: LogEntry[] = [];
  let replaying = true;
  for (const type of types) {
    const stop = log.listen(request.endpoint, request.editorId, type, (entry) => (replaying ? live.push(entry) : deliver(entry)));
    if (stop !== undefined) stops.push(stop);
  }
  res.write(": connected\n\n");
  if (request.lastEventId !== undefined && request.lastEventId !== "") {
    const resume = log.since(request.lastEventId, source, wanted);
    // An id from another log (a restart) or beyond this one: what was missed is unknown, and said so.
    if (resume.lost !== 0) res.write(`event: lost\ndata: ${JSON.stringify({ count: resume.lost, exact: resume.exact, since: request.lastEventId })}\n\n`);
    for (const entry of resume.entries) deliver(entry);
  }
  replaying = false;
  for (const entry of live) deliver(entry);
  heartbeat = setInterval(() => {
    if (ended) return;
    if (res.writableLength > limits.sseHardBytes) closeSlow();
    else if (pending !== undefined) flush();
    else res.write(": heartbeat\n\n");
  }, limits.sseHeartbeatMs);
  heartbeat.unref();

  return new Promise((resolve) => {
    const finish = (): void => {
      end();
      resolve();
    };
    if (ended) finish();
    req.once("close", finish);
    res.once("close", finish);
    res.once("error", finish);
  });
}

/** The event streams of one bridge: its log, tickets and counts, and where events come from. */
export interface EventStreams extends SseContext {
  readonly sources: EventSources;
  readonly tickets: TicketStore;
}

export function createEventStreams(sources: EventSources, limits: Limits, logger: Logger, trustProxy: readonly string[] = []): EventStreams {
  return {
    sources,
    limits,
    logger,
    log: new EventLog(sources, limits),
    tickets: new TicketStore(limits),
    counts: { open: 0, delivered: 0, coalesced: 0, slowCloses: 0, budgetCloses: 0, refused: 0 },
    budget: new EventStreamBudget(limits, logger),
    trustProxy,
  };
}

/** Whether a path is an event stream: `/events` or `/plugins/{id}/events`. */
export function isEventStreamPath(path: string): boolean {
  return path === EVENTS_PATH || /^\/plugins\/[^/]+\/events$/.test(path);
}
