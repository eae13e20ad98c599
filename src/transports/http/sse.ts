import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { StateCoalescer } from "../../events/coalesce.js";
import { entryFilter, EventLog, sourceOf, type LogEntry, type LogSources } from "../../events/log.js";
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
/**
 * The `retry:` a stream opens with: how long an `EventSource` waits before reconnecting after the stream drops.
 * Browsers default to about 3 s; 1 s resumes sooner after a bridge restart, where the log replays what was missed.
 */
export const SSE_RETRY_MS = 1_000;


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
export function requestedTypes(sources: LogSources, endpoint: string, url: URL): string[] {
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
export function serveEventStream(context: SseContext, sources: LogSources, request: SseRequest, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { log, limits, counts, budget } = context;
  const types = requestedTypes(sources, request.endpoint, request.url);
  const source = sourceOf(request.endpoint, request.editorId);
  const wanted = new Set(types);
  const passes = entryFilter(request.url.searchParams.get("documentId"), request.url.searchParams.get("layerId"));
  const address = requestAddress(req, context.trustProxy);
  let lastSent = 0;
  let ended = false;
  /** When the queue was first seen above the soft cap, while it stays there. */
  let behindSince: number | undefined;
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
    held.stop();
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
      held.offer();
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
  // State events held while the reader is behind; still behind, checkBehind closes it in time.
  const held = new StateCoalescer<LogEntry>(
    () => !ended && res.writableLength <= limits.sseSoftBytes,
    (entries) => {
      for (const entry of entries.sort((a, b) => a.seq - b.seq)) write(entry);
    },
  );
  const deliver = (entry: LogEntry): void => {
    if (ended || !wanted.has(entry.type) || entry.source !== source || !passes(entry)) return;
    const queued = res.writableLength;
    if (queued > limits.sseHardBytes) {
      closeSlow();
      return;
    }
    if (queued > limits.sseSoftBytes && STATE_EVENTS.has(entry.type)) {
      if (held.hold(entry.type, entry)) counts.coalesced++;
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
  res.write(`: connected\nretry: ${SSE_RETRY_MS}\n\n`);
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
    else if (held.holding) held.offer();
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
  readonly sources: LogSources;
  readonly tickets: TicketStore;
}

export function createEventStreams(sources: LogSources, limits: Limits, logger: Logger, trustProxy: readonly string[] = []): EventStreams {
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
