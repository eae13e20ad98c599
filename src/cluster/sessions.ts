/*
 * Logical clients that outlive their bridge. Each bridge writes its WebSocket clients' sessions (endpoint, editor,
 * subscriptions, `seq`, and how far each editor's event stream reached the client) to the cluster's KV bucket
 * `<cluster>-sessions`, keyed by a hash of the client id (the id is a bearer secret and never crosses), at most
 * every `clusterSessionSyncMs`. Editors' events are kept by the JetStream stream `<cluster>-events` (subjects
 * `<cluster>.events.>`, in the server's memory, bounded by `clusterReplayStreamBytes` and `clusterReplayStreamMs`).
 *
 * `?resume=<id>` on a bridge that does not have the client asks the bridge the bucket names for it
 * (`<cluster>.session.<bridge>`): that bridge hands the session over exactly, frames kept for replay included, and
 * closes the client's socket there with 4009. A bridge that does not answer (it died) is replaced by the bucket's
 * copy and the stream: the events of the client's editor after its cursors are replayed with the `seq` that
 * follows; numbers skipped in a stream (dropped by the stream's bounds, or never published) are counted `lost`.
 */
import { createHash } from "node:crypto";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { KV } from "@nats-io/kv";
import type { LogicalClient } from "../actors/clients/client.js";
import type { ClientSession, CursorPosition, HandedOverSession } from "../actors/clients/session.js";
import type { Limits } from "../limits.js";
import type { Logger } from "../logger.js";
import type { SerializedEvent } from "../methods/index.js";
import { BridgeError, STATE_EVENTS } from "../protocol/index.js";
import { FORWARD_GRACE_MS, isNoResponders } from "./calls.js";
import { readEvent } from "./events.js";
import type { Transfers } from "./transfers.js";

/** How far a bridge's clock may be from the NATS server's when a session without cursors is replayed by time. */
export const CLOCK_SKEW_MS = 2_000;

/** Events read from the stream per fetch while replaying a session. */
const REPLAY_FETCH = 1_000;

/** A session as the bucket keeps it. */
export interface SessionRecord extends ClientSession {
  /** The bridge that holds the client. */
  readonly bridge: string;
  /** When the cursors were true (the client's socket went away, or the record was written), the holder's clock. */
  readonly since: number;
}

/** What a bridge found for a resume: nothing, or the session and the events to replay after its frames. */
export type SessionClaim =
  | { readonly found: false }
  | { readonly found: true; readonly from: string; readonly how: "handed-over" | "recovered"; readonly session: HandedOverSession; readonly events: SerializedEvent[] };

type HandoverAnswer = { readonly found: false } | { readonly attached: true } | { readonly found: true; readonly session: HandedOverSession };

/** The bucket's key for a client id: a hash, so nothing in NATS can resume the client. */
export function sessionKey(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

export class ClusterSessions {
  private kv: KV | undefined;
  private sub: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly keys = new WeakMap<LogicalClient, string>();
  /** When each key was last written: an attached client's record is rewritten before the bucket's TTL drops it. */
  private readonly written = new Map<string, number>();
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly nc: NatsConnection,
    private readonly cluster: string,
    private readonly bridge: string,
    private readonly limits: Limits,
    private readonly log: Logger,
    private readonly transfers: Transfers,
    /** Whether a bridge is a live member now. */
    private readonly live: (bridge: string) => boolean,
    /** This bridge's logical clients. */
    private readonly clients: () => Iterable<LogicalClient>,
    /** A bridge turned out not to be there (NATS has no subscriber for it). */
    private readonly gone: (bridge: string) => void,
  ) {}

  private get bucket(): string {
    return `${this.cluster}-sessions`;
  }

  private get stream(): string {
    return `${this.cluster}-events`;
  }

  /** Creates (or brings up to date) the bucket and the stream, then writes sessions and answers hand-overs. */
  async start(): Promise<void> {
    const { Kvm } = await import("@nats-io/kv");
    this.kv = await new Kvm(this.nc).create(this.bucket, { history: 1, ttl: this.limits.resumeTtlMs });
    // Made in the background, and again every heartbeat until it is there.
    this.repairStream();
    this.sub = this.nc.subscribe(`${this.cluster}.session.${this.bridge}`, {
      callback: (_error, msg) => {
        let answer: HandoverAnswer = { found: false };
        try {
          const { key, takeover } = JSON.parse(new TextDecoder().decode(msg.data)) as { key?: unknown; takeover?: unknown };
          if (typeof key === "string") answer = this.handOver(key, takeover !== false);
        } catch (error) {
          this.log.warn({ reason: String(error) }, "a session hand-over failed");
        }
        const bytes = this.encoder.encode(JSON.stringify(answer));
        msg.respond(bytes.byteLength + 128 <= this.transfers.messageBytes ? bytes : this.encoder.encode(JSON.stringify({ ref: this.transfers.offer(bytes) })));
      },
    });
    this.timer = setInterval(() => this.sync(), this.limits.clusterSessionSyncMs);
    this.timer.unref();
  }

  /** The events stream is not known to be there (not made yet, or NATS came back and may have lost it). */
  streamMissing = true;
  private ensuring: Promise<void> | undefined;

  /**
   * Makes the events stream again when it may be missing, at most one attempt at a time: called every heartbeat
   * (a server just restarted may not take JetStream requests yet, so the first attempt can fail).
   */
  repairStream(): void {
    if (!this.streamMissing || this.ensuring !== undefined) return;
    this.ensuring = this.ensureStream()
      .catch((error: unknown) => this.log.warn({ reason: String(error) }, "the cluster's events stream could not be made yet; trying again"))
      .finally(() => (this.ensuring = undefined));
  }

  /**
   * Creates the events stream, or brings its bounds up to date. Again after NATS comes back: a server restarted
   * has lost it (it is kept in memory).
   */
  async ensureStream(): Promise<void> {
    const { jetstreamManager, DiscardPolicy, StorageType } = await import("@nats-io/jetstream");
    const jsm = await jetstreamManager(this.nc);
    const config = {
      subjects: [`${this.cluster}.events.>`],
      storage: StorageType.Memory,
      discard: DiscardPolicy.Old,
      max_age: this.limits.clusterReplayStreamMs * 1_000_000,
      max_bytes: this.limits.clusterReplayStreamBytes,
    };
    const exists = (): Promise<boolean> =>
      jsm.streams.info(this.stream).then(
        () => true,
        () => false,
      );
    if (await exists()) await jsm.streams.update(this.stream, config);
    else {
      // Another bridge may create it at the same moment: then it is there, as wanted.
      await jsm.streams.add({ name: this.stream, ...config }).catch(async (error: unknown) => {
        if (!(await exists())) throw error;
      });
    }
    this.streamMissing = false;
  }

  /**
   * Stops writing and handing over. Every client's session is written once more first, as it is now: a bridge
   * that is stopped (a rolling restart) leaves its clients resumable on the others, with nothing replayed twice.
   */
  stop(): void {
    clearInterval(this.timer);
    this.sub?.unsubscribe();
    this.sync(true);
  }

  /** A client ended here: its record goes, unless another bridge resumed it (that bridge writes it now). */
  ended(client: LogicalClient): void {
    // Moved: another bridge writes it now. Shutdown: it stays resumable on the other bridges.
    const reason = client.disposeReason;
    if (client.endpoint !== "root" || reason === "moved" || reason === "shutdown" || this.kv === undefined || this.nc.isClosed()) return;
    const key = this.keyOf(client);
    this.written.delete(key);
    this.kv.delete(key).catch(() => undefined);
  }

  /**
   * Finds a client this bridge does not have: handed over by the bridge holding it, or recovered from the bucket
   * and the stream when that bridge is gone.
   * @throws BridgeError `CLIENT_ATTACHED` when the holder has it attached and `takeover` is false.
   */
  async claim(id: string, endpoint: string, takeover: boolean): Promise<SessionClaim> {
    const kv = this.kv;
    if (kv === undefined || endpoint !== "root") return { found: false };
    const key = sessionKey(id);
    const entry = await kv.get(key);
    if (entry === null || entry.operation !== "PUT") return { found: false };
    const record = parseRecord(entry.string());
    if (record === undefined || record.endpoint !== endpoint) return { found: false };
    if (record.bridge !== this.bridge && this.live(record.bridge)) {
      const answer = await this.askHolder(record.bridge, key, takeover);
      if (answer !== undefined && "attached" in answer) {
        throw new BridgeError("CLIENT_ATTACHED", "That client is attached to another connection, and takeover=0 was given");
      }
      if (answer?.found === true) return { found: true, from: record.bridge, how: "handed-over", session: answer.session, events: [] };
    }
    return this.recover(record);
  }

  /** Writes the records of clients whose session changed (`all`: every one), and refreshes attached ones before they expire. */
  private sync(all = false): void {
    if (this.kv === undefined || this.nc.isClosed()) return;
    const now = Date.now();
    const refreshMs = this.limits.resumeTtlMs / 2;
    for (const client of this.clients()) {
      if (client.endpoint !== "root" || client.state === "disposed") continue;
      const key = this.keyOf(client);
      if (!all && !client.sessionDirty && !(client.state === "attached" && now - (this.written.get(key) ?? 0) > refreshMs)) continue;
      client.sessionDirty = false;
      this.written.set(key, now);
      const record: SessionRecord = { ...client.session(), bridge: this.bridge, since: client.state === "detached" ? client.detachedAt : now };
      // A plain publish to the bucket's subject is a KV put without waiting for the server's acknowledgement.
      this.nc.publish(`$KV.${this.bucket}.${key}`, this.encoder.encode(JSON.stringify(record)));
    }
  }

  private keyOf(client: LogicalClient): string {
    const known = this.keys.get(client);
    if (known !== undefined) return known;
    const key = sessionKey(client.id);
    this.keys.set(client, key);
    return key;
  }

  private handOver(key: string, takeover: boolean): HandoverAnswer {
    for (const client of this.clients()) {
      if (client.endpoint !== "root" || client.state === "disposed" || this.keyOf(client) !== key) continue;
      if (client.attachedSocket !== null && !takeover) return { attached: true };
      this.written.delete(key);
      this.log.info({ actor: client.logName }, "client resumed on another bridge: handed over");
      return { found: true, session: client.handOver() };
    }
    return { found: false };
  }

  /** The holder's answer, or undefined when it did not give one (gone, or too slow). */
  private async askHolder(bridge: string, key: string, takeover: boolean): Promise<HandoverAnswer | undefined> {
    try {
      const reply = await this.nc.request(`${this.cluster}.session.${bridge}`, this.encoder.encode(JSON.stringify({ key, takeover })), { timeout: FORWARD_GRACE_MS });
      const parsed = JSON.parse(reply.string()) as HandoverAnswer | { ref: Parameters<Transfers["fetch"]>[0] };
      if ("ref" in parsed) return JSON.parse(new TextDecoder().decode(await this.transfers.fetch(parsed.ref, FORWARD_GRACE_MS))) as HandoverAnswer;
      return parsed;
    } catch (error) {
      // Gone (nobody subscribes), or killed so lately that NATS still routed to it and nobody answered in time:
      // either way its editors are taken as gone now (a live bridge comes back with its next heartbeat).
      this.gone(bridge);
      this.log.info({ bridge, noResponders: isNoResponders(error), reason: String(error) }, "the bridge holding a resumed client did not answer: recovering it from the cluster's copy");
      return undefined;
    }
  }

  /** The session as the bucket last had it, and its editor's events since, read from the stream. */
  private async recover(record: SessionRecord): Promise<SessionClaim> {
    const cursors: Record<string, CursorPosition> = { ...record.cursors };
    const events: SerializedEvent[] = [];
    let lost = 0;
    const types = new Set(record.subscriptions.filter((t) => STATE_EVENTS.has(t)));
    if (record.editor !== undefined && types.size > 0) {
      const { jetstream, DeliverPolicy } = await import("@nats-io/jetstream");
      const prefix = `${this.cluster}.events.${record.editor}.`;
      const consumer = await jetstream(this.nc).consumers.get(this.stream, {
        filter_subjects: `${prefix}>`,
        deliver_policy: DeliverPolicy.StartTime,
        opt_start_time: new Date(record.since - this.limits.clusterSessionSyncMs - CLOCK_SKEW_MS).toISOString(),
      });
      let pending = (await consumer.info(true)).num_pending;
      while (pending > 0) {
        const batch = await consumer.fetch({ max_messages: Math.min(pending, REPLAY_FETCH), expires: FORWARD_GRACE_MS });
        let read = 0;
        for await (const msg of batch) {
          read++;
          pending = msg.info.pending;
          const type = msg.subject.slice(prefix.length);
          if (!types.has(type)) {
            if (pending === 0) break;
            continue;
          }
          const key = `${record.editor} ${type}`;
          let event: Awaited<ReturnType<typeof readEvent>>;
          try {
            event = await readEvent(msg.data, key, this.transfers, FORWARD_GRACE_MS);
          } catch {
            lost++; // an event over one message whose bytes are gone with its bridge, or past their time
            if (pending === 0) break;
            continue;
          }
          const before = cursors[key];
          if (event.cursor !== undefined && before !== undefined && before[0] === event.cursor.epoch) {
            if (event.cursor.n > before[1]) {
              lost += event.cursor.n - before[1] - 1;
              cursors[key] = [event.cursor.epoch, event.cursor.n];
              events.push({ type, json: event.json, cursor: event.cursor });
            }
          } else if (msg.time.getTime() > record.since) {
            if (event.cursor !== undefined) cursors[key] = [event.cursor.epoch, event.cursor.n];
            events.push(event.cursor === undefined ? { type, json: event.json } : { type, json: event.json, cursor: event.cursor });
          }
          if (pending === 0) break;
        }
        if (read === 0) break;
      }
    }
    this.log.info({ from: record.bridge, events: events.length, lost }, "client resumed from the cluster's copy of its session");
    const { bridge: _bridge, since: _since, ...session } = record;
    return { found: true, from: record.bridge, how: "recovered", session: { ...session, attached: false, frames: [], lost }, events };
  }
}


function parseRecord(text: string): SessionRecord | undefined {
  try {
    const record = JSON.parse(text) as SessionRecord;
    if (typeof record.bridge !== "string" || typeof record.endpoint !== "string" || !Array.isArray(record.subscriptions) || typeof record.seq !== "number") return undefined;
    if (typeof record.since !== "number" || typeof record.cursors !== "object" || record.cursors === null) return undefined;
    return record;
  } catch {
    return undefined;
  }
}
