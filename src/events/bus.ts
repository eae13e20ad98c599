import { map, ReplaySubject, retry, share, Subject, timer, type Observable } from "rxjs";
import { MAIN_EVENTS } from "../protocol/index.js";
import type { HostAdapter, PreviewEvent } from "../hosts/host.js";
import type { Logger } from "../logger.js";
import { previewPayload, type SerializedEvent } from "../methods/index.js";


/** Editors emit previews as encoded images; the wire payload (with its data URI) is built here, once. */
const WIRE_DATA: Readonly<Record<string, (data: unknown) => unknown>> = {
  "layer:previewChange": (data) => previewPayload(data as PreviewEvent | null),
};

/** First delay before re-subscribing to a host event stream that failed; grows linearly to the max. */
const HOST_EVENT_RETRY_MS = 250;
const HOST_EVENT_RETRY_MAX_MS = 10_000;

const serialize = (type: string) => (data: unknown): SerializedEvent => ({ type, json: JSON.stringify(data ?? null) });

/**
 * Fans events out to subscribed logical clients (RxJS). Host streams are shared and reference-counted: the
 * editor's watcher for a type runs only while at least one client (or a `selection:change` keep-alive) is
 * subscribed. `#ready` is sticky; `#closing` is emitted by the bridge at shutdown.
 */
export class EventBus {
  private readonly streams = new Map<string, Observable<SerializedEvent>>();
  private readonly ready = new ReplaySubject<SerializedEvent>(1);
  private readonly closing = new Subject<SerializedEvent>();

  constructor(
    private readonly host: HostAdapter,
    private readonly log: Logger,
  ) {
    this.streams.set("#ready", this.ready.asObservable());
    this.streams.set("#closing", this.closing.asObservable());
  }

  /** Event types a root endpoint accepts: the main events plus the host's own event names. */
  acceptedTypes(): string[] {
    const extra = this.host.eventTypes ?? [];
    return [...new Set<string>([...MAIN_EVENTS, ...extra])];
  }

  /** The shared stream of one type, or undefined when nothing produces it. */
  stream(type: string): Observable<SerializedEvent> | undefined {
    const known = this.streams.get(type);
    if (known !== undefined) return known;
    if (!this.acceptedTypes().includes(type)) return undefined;
    const source = this.host.events(type);
    if (source === undefined) {
      // A main event this editor never produces: subscribing is allowed and simply stays quiet.
      const quiet = new Subject<SerializedEvent>().asObservable();
      this.streams.set(type, quiet);
      return quiet;
    }
    const toWire = WIRE_DATA[type];
    const shared = source.pipe(
      map((data) => serialize(type)(toWire === undefined ? data : toWire(data))),
      // A failing watcher must not end its subscribers' subscriptions: log it and watch again, backing off.
      retry({
        delay: (error: unknown, attempt) => {
          this.log.warn({ actor: "host", event: type, err: String(error), attempt }, "host event stream failed; rewatching");
          return timer(Math.min(HOST_EVENT_RETRY_MS * attempt, HOST_EVENT_RETRY_MAX_MS));
        },
        resetOnSuccess: true,
      }),
      share(),
    );
    this.streams.set(type, shared);
    return shared;
  }

  emitReady(data: unknown): void {
    this.ready.next(serialize("#ready")(data));
  }

  emitClosing(data: unknown): void {
    this.closing.next(serialize("#closing")(data));
  }
}
