import { BridgeError, EVERY_EVENT, spellOutEventTypes, STATE_EVENTS } from "../protocol/index.js";
import type { Limits } from "../limits.js";
import type { Logger } from "../logger.js";
import { StateCoalescer } from "./coalesce.js";
import { entryFilter, sourceOf, type EventLog, type LogEntry, type LogSources } from "./log.js";
import type { EventReader, EventsPort, FollowRequest } from "./port.js";

/** How often a stream above `sseSoftBytes` is looked at when no event comes: it may drain, or be closed as slow. */
const BEHIND_CHECK_MS = 1_000;
/**
 * The `retry:` a stream opens with: how long an `EventSource` waits before reconnecting after the stream drops.
 * Browsers default to about 3 s; 1 s resumes sooner after a bridge restart, where the log replays what was missed.
 */
export const SSE_RETRY_MS = 1_000;

/**
 * Event-stream readers following the bounded log: a reader replays from its `Last-Event-ID`, then follows the live
 * events, with a heartbeat comment. A reader whose queue passes `sseSoftBytes` gets only the latest value of each
 * state event; past `sseHardBytes`, or above the soft cap for `sseSlowReaderMs` (checked on a timer, whether events
 * come or not), it is closed (it may reconnect with its last id).
 */
export class EventFollowing implements EventsPort {
  constructor(
    private readonly log: EventLog,
    private readonly sources: LogSources,
    private readonly limits: Limits,
    private readonly logger: Logger,
  ) {}

  /** No type named is `"*"`: every type but previews (`spellOutEventTypes`), as for `event:subscribe`. */
  types(endpoint: string, named: readonly string[]): string[] {
    const accepted = this.sources.accepted(endpoint);
    const types = spellOutEventTypes(named.length === 0 ? [EVERY_EVENT] : named, accepted);
    for (const type of types) {
      if (!accepted.includes(type)) {
        throw new BridgeError("BAD_REQUEST", `Unknown event type "${type}"; accepted: ${accepted.join(", ")}`, { details: { type, accepted } });
      }
    }
    return types;
  }

  follow(request: FollowRequest, reader: EventReader): () => void {
    const { log, limits } = this;
    const { counts } = request;
    const source = sourceOf(request.endpoint, request.editorId);
    const wanted = new Set(request.types);
    const passes = entryFilter(request.documentId, request.layerId);
    let lastSent = 0;
    let ended = false;
    /** When the queue was first seen above the soft cap, while it stays there. */
    let behindSince: number | undefined;
    let behindTimer: NodeJS.Timeout | undefined;
    let heartbeat: NodeJS.Timeout | undefined;
    const stops: Array<() => void> = [];

    const stop = (): void => {
      if (ended) return;
      ended = true;
      for (const each of stops) each();
      clearInterval(heartbeat);
      held.stop();
      clearTimeout(behindTimer);
    };
    const closeSlow = (): void => {
      counts.slowCloses++;
      this.logger.info({ actor: "sse", endpoint: request.endpoint, queuedBytes: reader.queuedBytes() }, "slow event-stream reader closed");
      stop();
      reader.close();
    };
    /** Looks at a stream above the soft cap: closed once it has stayed there `sseSlowReaderMs`, else looked at again. */
    const checkBehind = (): void => {
      behindTimer = undefined;
      if (ended) return;
      if (reader.queuedBytes() <= limits.sseSoftBytes) {
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
    const write = (entry: LogEntry): void => {
      if (entry.seq <= lastSent) return;
      lastSent = entry.seq;
      counts.delivered++;
      reader.deliver(entry.frame);
      // After a write: a queue above the soft cap starts being watched, events or not.
      if (behindTimer === undefined && reader.queuedBytes() > limits.sseSoftBytes) checkBehind();
    };
    // State events held while the reader is behind; still behind, checkBehind closes it in time.
    const held = new StateCoalescer<LogEntry>(
      () => !ended && reader.queuedBytes() <= limits.sseSoftBytes,
      (entries) => {
        for (const entry of entries.sort((a, b) => a.seq - b.seq)) write(entry);
      },
    );
    const deliver = (entry: LogEntry): void => {
      if (ended || !wanted.has(entry.type) || entry.source !== source || !passes(entry)) return;
      const queued = reader.queuedBytes();
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
    for (const type of request.types) {
      const unlisten = log.listen(request.endpoint, request.editorId, type, (entry) => (replaying ? live.push(entry) : deliver(entry)));
      if (unlisten !== undefined) stops.push(unlisten);
    }
    reader.write(`: connected\nretry: ${SSE_RETRY_MS}\n\n`);
    if (request.lastEventId !== undefined && request.lastEventId !== "") {
      const resume = log.since(request.lastEventId, source, wanted);
      // An id from another log (a restart) or beyond this one: what was missed is unknown, and said so.
      if (resume.lost !== 0) reader.write(`event: lost\ndata: ${JSON.stringify({ count: resume.lost, exact: resume.exact, since: request.lastEventId })}\n\n`);
      for (const entry of resume.entries) deliver(entry);
    }
    replaying = false;
    for (const entry of live) deliver(entry);
    if (!ended) {
      heartbeat = setInterval(() => {
        if (ended) return;
        if (reader.queuedBytes() > limits.sseHardBytes) closeSlow();
        else if (held.holding) held.offer();
        else reader.write(": heartbeat\n\n");
      }, limits.sseHeartbeatMs);
      heartbeat.unref();
    }
    return stop;
  }
}
