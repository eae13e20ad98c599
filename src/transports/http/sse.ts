import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AccessScope } from "../../protocol/index.js";
import type { EventReader, EventsPort, FollowCounts } from "../../events/port.js";
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
 * Single-use tickets for `EventSource`: valid for `sseTicketTtlMs`, at most `sseMaxTickets` outstanding (the oldest
 * is forgotten first). Tickets are secrets like the token: nothing logs them.
 */
export class TicketStore {
  /** Each ticket's expiry and the scope of the token it was issued under. */
  private readonly tickets = new Map<string, { expires: number; scope: AccessScope }>();

  constructor(private readonly limits: Limits) {}

  /** A ticket standing for a token of `scope`, on one stream. */
  issue(scope: AccessScope = "full"): { ticket: string; expiresInMs: number } {
    const now = Date.now();
    for (const [ticket, { expires }] of this.tickets) if (expires <= now) this.tickets.delete(ticket);
    while (this.tickets.size >= this.limits.sseMaxTickets) this.tickets.delete(this.tickets.keys().next().value!);
    const ticket = randomBytes(24).toString("base64url");
    this.tickets.set(ticket, { expires: now + this.limits.sseTicketTtlMs, scope });
    return { ticket, expiresInMs: this.limits.sseTicketTtlMs };
  }

  /** The scope of the token a valid ticket was issued under, or undefined for an invalid one; it is spent either way. */
  consume(ticket: string): AccessScope | undefined {
    const issued = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    return issued !== undefined && issued.expires > Date.now() ? issued.scope : undefined;
  }
}

/** Counts read by `/metrics` and `/status`. */
export interface SseCounts extends FollowCounts {
  open: number;
  /** Streams closed, furthest behind first, because all streams together queued more than `sseTotalBytes`. */
  budgetCloses: number;
  /** Streams refused for `sseMaxStreams` or `sseMaxStreamsPerAddress`. */
  refused: number;
}

/** The event streams of one bridge: the log they follow, their tickets, counts and shared budget. */
export interface EventStreams {
  readonly events: EventsPort;
  readonly tickets: TicketStore;
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
export function requestedTypes(events: EventsPort, endpoint: string, url: URL): string[] {
  return events.types(endpoint, url.searchParams.getAll("type"));
}

/**
 * Serves one `text/event-stream` on a Node response, following the event log (see `EventsPort.follow`: replay from
 * `Last-Event-ID`, live events, coalescing and closing a reader that falls behind). All streams together share
 * `sseTotalBytes`, and their number is capped in total and per address (`sseMaxStreams`, `sseMaxStreamsPerAddress`):
 * a refused stream throws before its answer starts. Resolves when the stream ends.
 */
export function serveEventStream(streams: EventStreams, request: SseRequest, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { counts, budget } = streams;
  const types = requestedTypes(streams.events, request.endpoint, request.url);
  const address = requestAddress(req, streams.trustProxy);
  let ended = false;
  let unfollow: (() => void) | undefined;

  const end = (): void => {
    if (ended) return;
    ended = true;
    counts.open--;
    budget.remove(stream, address);
    unfollow?.();
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

  const reader: EventReader = {
    queuedBytes: () => res.writableLength,
    write: (text) => {
      res.write(text);
    },
    deliver: (frame) => {
      res.write(frame);
      budget.wrote();
    },
    close: end,
  };
  const search = request.url.searchParams;
  const following = { endpoint: request.endpoint, editorId: request.editorId, types, documentId: search.get("documentId"), layerId: search.get("layerId"), lastEventId: request.lastEventId, counts };
  unfollow = streams.events.follow(following, reader);
  if (ended) unfollow();

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

export function createEventStreams(events: EventsPort, limits: Limits, logger: Logger, trustProxy: readonly string[] = []): EventStreams {
  return {
    events,
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
