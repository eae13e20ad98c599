/*
 * Editor events across bridges, on `<cluster>.events.<editor>.<type>`. Each of a bridge's editors' state events is
 * counted (`EventCursor`: the nth of its stream since the bridge started) and published once, whether or not any
 * bridge listens now: the cluster's event stream keeps them for clients that resume on another bridge. An event
 * over one NATS message crosses as a reference each subscriber pulls (`Transfers`), and only while some other
 * bridge wants it: a bridge whose clients subscribe to another bridge's editor says so on
 * `<cluster>.interest.<bridge>` and repeats it every heartbeat while it still does; interest not repeated for the
 * members' time to live lapses (the subscriber's bridge died). On the subscriber's side one NATS subscription per
 * editor and type feeds every local subscriber (shared, reference-counted), fanned out locally as usual.
 *
 * Events that are not one editor's state (`documentChanged`, `closedDocument`, `editor:restarted`…) are the whole
 * pool's: a subscriber gets every editor's. Across bridges a bridge wanting a type of them from everyone says so
 * on `<cluster>.interest` (all bridges listen), repeated every heartbeat; each bridge then publishes its editors'
 * events of that type until the interest lapses, and the subscriber's bridge follows `<cluster>.events.*.<type>`
 * once, leaving out its own editors' (they arrive locally).
 */
import { map, Observable, share, type Subscription as RxSubscription } from "rxjs";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "../logger.js";
import type { EventCursor, SerializedEvent } from "../methods/index.js";
import { STATE_EVENTS } from "../protocol/index.js";
import type { Transfers } from "./transfers.js";
import { decodeFrame, encodeFrame } from "./wire.js";

/** One followed stream of another bridge's editor, as `/status` shows it (`cluster.following`). */
export interface FollowedStream {
  readonly bridge: string;
  readonly editor: string;
  readonly type: string;
  /** Local subscribers. */
  readonly subscribers: number;
  /** The other bridge confirmed it publishes them (after the first subscriber came). */
  readonly flowing: boolean;
}

interface RemoteStream {
  stream: Observable<SerializedEvent>;
  readonly bridge: string;
  readonly editor: string;
  readonly type: string;
  live: number;
  flowing: boolean;
}

/** What an event message says besides the event: its place in its stream. */
export interface EventHeader {
  readonly t: "event" | "ref";
  readonly ref?: Parameters<Transfers["fetch"]>[0];
  /** The publishing bridge's start time and the event's number since (see `EventCursor`). */
  readonly e?: number;
  readonly n?: number;
}

interface Interest {
  readonly from: string;
  readonly editor: string;
  readonly type: string;
  /** false: the subscriber's last local subscriber left. */
  readonly on: boolean;
}

export class ClusterEvents {
  /** Subscriber side: shared streams of other bridges' editors, by `<editor> <type>`, and where each lives. */
  private readonly remote = new Map<string, RemoteStream>();
  /** Publisher side: per `<editor> <type>`, which bridges want events over one message (last heard). */
  private readonly wanted = new Map<string, Map<string, number>>();
  /** Publisher side: this bridge's editors' counted streams, by `<editor> <type>`, and what feeds them to NATS. */
  private readonly counted = new Map<string, Observable<SerializedEvent>>();
  private readonly feeds: RxSubscription[] = [];
  /** Subscriber side: every other bridge's editors' events of a pool-wide type, by type. */
  private readonly wide = new Map<string, { stream: Observable<SerializedEvent>; live: number; flowing: boolean }>();
  /** Publisher side: per pool-wide type, which bridges want it (last heard), and what feeds it to NATS. */
  private readonly wideWanted = new Map<string, { from: Map<string, number>; feeds: RxSubscription[] }>();
  private readonly subs: Subscription[] = [];

  constructor(
    private readonly nc: NatsConnection,
    private readonly cluster: string,
    private readonly bridge: string,
    private readonly transfers: Transfers,
    private readonly log: Logger,
    /** A local editor's shared stream of a type, or undefined. */
    private readonly local: (editor: string, type: string) => Observable<SerializedEvent> | undefined,
    private readonly interestTtlMs: number,
    /** This bridge's editors. */
    private readonly editors: () => readonly string[],
    /** When this bridge started: with `n`, it places an event in its stream (`EventCursor`). */
    private readonly epoch: number,
  ) {}

  start(): void {
    for (const editor of this.editors()) {
      for (const type of STATE_EVENTS) {
        const stream = this.localStream(editor, type);
        if (stream === undefined) continue;
        const subject = `${this.cluster}.events.${editor}.${type}`;
        this.feeds.push(
          stream.subscribe((event) => {
            const data = this.fitted(event, (this.wanted.get(`${editor} ${type}`)?.size ?? 0) > 0);
            if (data !== undefined && !this.nc.isClosed()) this.nc.publish(subject, data);
          }),
        );
      }
    }
    this.subs.push(
      this.nc.subscribe(`${this.cluster}.interest`, {
        callback: (_error, msg) => {
          try {
            const { from, type, on } = JSON.parse(new TextDecoder().decode(msg.data)) as Interest;
            if (typeof from === "string" && typeof type === "string" && from !== this.bridge && this.wideInterest(from, type, on !== false)) {
              // Asked with a reply subject: this bridge's editors' events of the type flow from now on.
              if (msg.reply !== undefined && msg.reply !== "") msg.respond();
            }
          } catch {
            // Not an interest message: ignored.
          }
        },
      }),
      this.nc.subscribe(`${this.cluster}.interest.${this.bridge}`, {
        callback: (_error, msg) => {
          try {
            this.interest(JSON.parse(new TextDecoder().decode(msg.data)) as Interest);
          } catch {
            // Not an interest message: ignored.
          }
          // Asked with a reply subject: the events flow from now on.
          if (msg.reply !== undefined && msg.reply !== "") msg.respond();
        },
      }),
    );
  }

  /** Another bridge's editor's events of `type`, shared by every local subscriber. */
  stream(bridge: string, editor: string, type: string): Observable<SerializedEvent> {
    const key = `${editor} ${type}`;
    const known = this.remote.get(key);
    if (known !== undefined) return known.stream;
    const entry: RemoteStream = { bridge, editor, type, live: 0, flowing: false, stream: undefined as unknown as Observable<SerializedEvent> };
    entry.stream = new Observable<SerializedEvent>((subscriber) => {
      entry.live++;
      // In order, even when one event must be pulled and the next is inline.
      let chain: Promise<void> = Promise.resolve();
      const sub = this.nc.subscribe(`${this.cluster}.events.${editor}.${type}`, {
        callback: (_error, msg) => {
          chain = chain.then(() =>
            this.received(msg.data, `${editor} ${type}`).then(
              ({ json, cursor }) => subscriber.next(cursor === undefined ? { type, json } : { type, json, cursor }),
              (error: unknown) => this.log.warn({ editor, type, reason: String(error) }, "an event from another bridge was lost"),
            ),
          );
        },
      });
      const interest: Interest = { from: this.bridge, editor, type, on: true };
      this.nc.request(`${this.cluster}.interest.${bridge}`, new TextEncoder().encode(JSON.stringify(interest)), { timeout: this.interestTtlMs }).then(
        () => {
          if (entry.live > 0) entry.flowing = true;
        },
        // Not there now: the heartbeat says it again until it is.
        () => undefined,
      );
      return () => {
        entry.live--;
        entry.flowing = false;
        sub.unsubscribe();
        this.announce(entry, false);
      };
    }).pipe(share());
    this.remote.set(key, entry);
    return entry.stream;
  }

  /** Every other bridge's editors' events of a pool-wide type (not one editor's state), shared by local subscribers. */
  wideStream(type: string): Observable<SerializedEvent> {
    const known = this.wide.get(type);
    if (known !== undefined) return known.stream;
    const entry = { live: 0, flowing: false, stream: undefined as unknown as Observable<SerializedEvent> };
    const prefix = `${this.cluster}.events.`;
    const own = `@${this.bridge}`;
    entry.stream = new Observable<SerializedEvent>((subscriber) => {
      entry.live++;
      let chain: Promise<void> = Promise.resolve();
      const sub = this.nc.subscribe(`${prefix}*.${type}`, {
        callback: (_error, msg) => {
          const editor = msg.subject.slice(prefix.length, msg.subject.length - type.length - 1);
          if (editor.endsWith(own)) return; // this bridge's own editors' arrive locally
          chain = chain.then(() =>
            readEvent(msg.data, `${editor} ${type}`, this.transfers, this.interestTtlMs).then(
              ({ json }) => subscriber.next({ type, json }),
              (error: unknown) => this.log.warn({ editor, type, reason: String(error) }, "an event from another bridge was lost"),
            ),
          );
        },
      });
      const interest: Interest = { from: this.bridge, editor: "*", type, on: true };
      this.nc.request(`${this.cluster}.interest`, new TextEncoder().encode(JSON.stringify(interest)), { timeout: this.interestTtlMs }).then(
        () => {
          if (entry.live > 0) entry.flowing = true;
        },
        // No other bridge there now: the heartbeat says it again.
        () => undefined,
      );
      return () => {
        entry.live--;
        sub.unsubscribe();
        if (entry.live === 0) {
          entry.flowing = false;
          this.announceWide(type, false);
        }
      };
    }).pipe(share());
    this.wide.set(type, entry);
    return entry.stream;
  }

  /** The streams of other bridges this one follows now. */
  following(): FollowedStream[] {
    return [
      ...[...this.remote.values()].filter((e) => e.live > 0).map(({ bridge, editor, type, live, flowing }) => ({ bridge, editor, type, subscribers: live, flowing })),
      ...[...this.wide].filter(([, e]) => e.live > 0).map(([type, { live, flowing }]) => ({ bridge: "*", editor: "*", type, subscribers: live, flowing })),
    ];
  }

  /**
   * One of this bridge's editors' events of a type, each with its `EventCursor`: local subscribers and NATS see
   * the same numbers. Undefined for an editor or type this bridge does not have.
   */
  localStream(editor: string, type: string): Observable<SerializedEvent> | undefined {
    const key = `${editor} ${type}`;
    const known = this.counted.get(key);
    if (known !== undefined) return known;
    const source = this.local(editor, type);
    if (source === undefined) return undefined;
    let n = 0;
    const epoch = this.epoch;
    const stream = source.pipe(
      map((event): SerializedEvent => ({ type: event.type, json: event.json, cursor: { key, epoch, n: ++n } })),
      share(),
    );
    this.counted.set(key, stream);
    return stream;
  }

  /** Every heartbeat: says again which events this bridge still wants, and lets lapse what nobody repeated. */
  heartbeat(): void {
    for (const entry of this.remote.values()) if (entry.live > 0) this.announce(entry, true);
    for (const [type, entry] of this.wide) if (entry.live > 0) this.announceWide(type, true);
    const oldest = Date.now() - this.interestTtlMs;
    for (const [type, wanted] of this.wideWanted) {
      for (const [from, at] of wanted.from) if (at < oldest) wanted.from.delete(from);
      if (wanted.from.size === 0) this.stopWide(type);
    }
    for (const [key, wanted] of this.wanted) {
      for (const [from, at] of wanted) if (at < oldest) wanted.delete(from);
      if (wanted.size === 0) this.wanted.delete(key);
    }
  }

  stop(): void {
    for (const sub of this.subs.splice(0)) sub.unsubscribe();
    for (const feed of this.feeds.splice(0)) feed.unsubscribe();
    this.wanted.clear();
    for (const type of [...this.wideWanted.keys()]) this.stopWide(type);
  }

  private announce(entry: { bridge: string; editor: string; type: string }, on: boolean): void {
    const interest: Interest = { from: this.bridge, editor: entry.editor, type: entry.type, on };
    if (!this.nc.isClosed()) this.nc.publish(`${this.cluster}.interest.${entry.bridge}`, new TextEncoder().encode(JSON.stringify(interest)));
  }

  private announceWide(type: string, on: boolean): void {
    const interest: Interest = { from: this.bridge, editor: "*", type, on };
    if (!this.nc.isClosed()) this.nc.publish(`${this.cluster}.interest`, new TextEncoder().encode(JSON.stringify(interest)));
  }

  /**
   * Another bridge wants (or no longer wants) this bridge's editors' events of a pool-wide type. Returns whether
   * this bridge now publishes them (it has editors producing the type).
   */
  private wideInterest(from: string, type: string, on: boolean): boolean {
    if (STATE_EVENTS.has(type) || type.startsWith("#")) return false;
    let wanted = this.wideWanted.get(type);
    if (!on) {
      wanted?.from.delete(from);
      if (wanted?.from.size === 0) this.stopWide(type);
      return false;
    }
    if (wanted === undefined) {
      const feeds: RxSubscription[] = [];
      for (const editor of this.editors()) {
        const stream = this.local(editor, type);
        if (stream === undefined) continue;
        const subject = `${this.cluster}.events.${editor}.${type}`;
        feeds.push(
          stream.subscribe((event) => {
            const data = this.fitted(event, true);
            if (data !== undefined && !this.nc.isClosed()) this.nc.publish(subject, data);
          }),
        );
      }
      if (feeds.length === 0) return false;
      wanted = { from: new Map(), feeds };
      this.wideWanted.set(type, wanted);
    }
    wanted.from.set(from, Date.now());
    return true;
  }

  private stopWide(type: string): void {
    for (const feed of this.wideWanted.get(type)?.feeds ?? []) feed.unsubscribe();
    this.wideWanted.delete(type);
  }

  private interest({ from, editor, type, on }: Interest): void {
    if (typeof from !== "string" || typeof editor !== "string" || typeof type !== "string") return;
    const key = `${editor} ${type}`;
    if (!on) {
      this.wanted.get(key)?.delete(from);
      if (this.wanted.get(key)?.size === 0) this.wanted.delete(key);
      return;
    }
    if (this.localStream(editor, type) === undefined) return;
    const wanted = this.wanted.get(key) ?? new Map<string, number>();
    this.wanted.set(key, wanted);
    wanted.set(from, Date.now());
  }

  /**
   * An event as it crosses: inline; or, over one NATS message, a reference each subscriber pulls, and only while
   * some bridge wants it (undefined: not published; its number is skipped, so a resume counts it lost).
   */
  private fitted(event: SerializedEvent, wanted: boolean): Uint8Array | undefined {
    const bytes = new TextEncoder().encode(event.json);
    const place = event.cursor === undefined ? {} : { e: event.cursor.epoch, n: event.cursor.n };
    if (bytes.byteLength + 128 <= this.transfers.messageBytes) return encodeFrame({ t: "event", ...place }, [bytes]);
    if (!wanted) return undefined;
    return encodeFrame({ t: "ref", ref: this.transfers.offer(bytes, { shared: true }), ...place });
  }

  private async received(data: Uint8Array, key: string): Promise<{ json: string; cursor?: EventCursor }> {
    return readEvent(data, key, this.transfers, this.interestTtlMs);
  }
}

/**
 * An event message's JSON (pulled when it crossed as a reference) and its place in its stream.
 * @throws when a referenced event can no longer be pulled (its bridge is gone, or its time passed).
 */
export async function readEvent(data: Uint8Array, key: string, transfers: Transfers, timeoutMs: number): Promise<{ json: string; cursor?: EventCursor }> {
  const { header, parts } = decodeFrame<EventHeader>(data);
  const bytes = header.t === "ref" && header.ref !== undefined ? await transfers.fetch(header.ref, timeoutMs) : parts[0];
  const json = new TextDecoder().decode(bytes ?? new Uint8Array(0));
  if (typeof header.e !== "number" || typeof header.n !== "number") return { json };
  return { json, cursor: { key, epoch: header.e, n: header.n } };
}
