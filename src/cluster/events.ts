/*
 * Editor events across bridges. A bridge publishes an editor's events of a type on `<cluster>.events.<editor>.<type>`
 * only while some other bridge wants them: a bridge whose clients subscribe to another bridge's editor says so on
 * `<cluster>.interest.<bridge>` and repeats it every heartbeat while it still does; interest not repeated for
 * the members' time to live lapses (the subscriber's bridge died). On the subscriber's side one NATS subscription
 * per editor and type feeds every local subscriber (shared, reference-counted), fanned out locally as usual.
 * An event over one NATS message crosses as a reference that each subscriber pulls (`Transfers`).
 */
import { Observable, share, type Subscription as RxSubscription } from "rxjs";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "../logger.js";
import type { SerializedEvent } from "../methods/index.js";
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
  /** Publisher side: per `<editor> <type>`, which bridges want it (last heard), and the local subscription feeding NATS. */
  private readonly published = new Map<string, { wanted: Map<string, number>; feed: RxSubscription }>();
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
  ) {}

  start(): void {
    this.subs.push(
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
            this.received(msg.data).then(
              (json) => subscriber.next({ type, json }),
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

  /** The streams of other bridges this one follows now. */
  following(): FollowedStream[] {
    return [...this.remote.values()].filter((e) => e.live > 0).map(({ bridge, editor, type, live, flowing }) => ({ bridge, editor, type, subscribers: live, flowing }));
  }

  /** Every heartbeat: says again which events this bridge still wants, and lets lapse what nobody repeated. */
  heartbeat(): void {
    for (const entry of this.remote.values()) if (entry.live > 0) this.announce(entry, true);
    const oldest = Date.now() - this.interestTtlMs;
    for (const [key, published] of this.published) {
      for (const [from, at] of published.wanted) if (at < oldest) published.wanted.delete(from);
      if (published.wanted.size === 0) this.unpublish(key);
    }
  }

  stop(): void {
    for (const sub of this.subs.splice(0)) sub.unsubscribe();
    for (const key of [...this.published.keys()]) this.unpublish(key);
  }

  private announce(entry: { bridge: string; editor: string; type: string }, on: boolean): void {
    const interest: Interest = { from: this.bridge, editor: entry.editor, type: entry.type, on };
    if (!this.nc.isClosed()) this.nc.publish(`${this.cluster}.interest.${entry.bridge}`, new TextEncoder().encode(JSON.stringify(interest)));
  }

  private interest({ from, editor, type, on }: Interest): void {
    if (typeof from !== "string" || typeof editor !== "string" || typeof type !== "string") return;
    const key = `${editor} ${type}`;
    let published = this.published.get(key);
    if (!on) {
      published?.wanted.delete(from);
      if (published?.wanted.size === 0) this.unpublish(key);
      return;
    }
    if (published === undefined) {
      const stream = this.local(editor, type);
      if (stream === undefined) return;
      const subject = `${this.cluster}.events.${editor}.${type}`;
      const feed = stream.subscribe((event) => this.nc.publish(subject, this.fitted(event.json)));
      published = { wanted: new Map(), feed };
      this.published.set(key, published);
    }
    published.wanted.set(from, Date.now());
  }

  private unpublish(key: string): void {
    this.published.get(key)?.feed.unsubscribe();
    this.published.delete(key);
  }

  /** An event's JSON as it crosses: inline, or a reference each subscriber pulls when over one NATS message. */
  private fitted(json: string): Uint8Array {
    const bytes = new TextEncoder().encode(json);
    if (bytes.byteLength + 64 <= this.transfers.messageBytes) return encodeFrame({ t: "event" }, [bytes]);
    return encodeFrame({ t: "ref", ref: this.transfers.offer(bytes, { shared: true }) });
  }

  private async received(data: Uint8Array): Promise<string> {
    const { header, parts } = decodeFrame<{ t?: string; ref?: Parameters<Transfers["fetch"]>[0] }>(data);
    const bytes = header.t === "ref" && header.ref !== undefined ? await this.transfers.fetch(header.ref, this.interestTtlMs) : parts[0];
    return new TextDecoder().decode(bytes ?? new Uint8Array(0));
  }
}
