import { StateCoalescer } from "../../events/coalesce.js";
import { createActor, type Actor } from "xstate";
import type { Observable, Subscription } from "rxjs";
import {
  BridgeError,
  withoutStack,
  CLOSE_CODES,
  EDITOR_CHANGED_EVENT,
  STATE_EVENTS,
  type ClientSummarySchema,
  type EditorChangedEventData,
  type RequestCancelResult,
  type RequestId,
} from "../../protocol/index.js";
import type { z } from "zod";
import type { Limits } from "../../limits.js";
import { clientMachine } from "./client.machine.js";
import type { EventCursor, SerializedEvent } from "../../methods/index.js";
import { RequestRegistry, type RequestControl } from "./requests.js";
import { FrameRate } from "./frame-rate.js";
import { ReplayBudget, type ReplayHolder } from "./replay-budget.js";
import { ReplayBuffer, type ReplayBatch } from "./replay.js";
import type { ClientSession, CursorPosition, HandedOverSession } from "./session.js";
import { eventFrameBytes, KeptEventFrame, type KeptFrame, sendFrame } from "./frames.js";
import { clientIdPrefix, clientLogName } from "./names.js";
import type { ChurnLog } from "./churn-log.js";
import type { CallTicket, ClientHandle, ClientSocket, FrameAnswer, OutboundFrame } from "./port.js";



export type ClientState = "attached" | "detached" | "disposed";

/**
 * Why a logical client ended: closed with 4000, resume TTL ran out, evicted at `maxClients`, bridge shutdown, or
 * moved to another bridge of the cluster (resumed there).
 */
export type DisposeReason = "closed" | "expired" | "evicted" | "shutdown" | "moved";

/**
 * What a logical client counts for `/metrics`: plain fields bumped on the frame path; the bridge sums them over
 * its clients (and the disposed ones) when scraped.
 */
export interface DeliveryCounts {
  /** Event frames written to the socket or kept for replay. */
  delivered: number;
  /** State events dropped because a newer one of the same type replaced them while the socket was backed up. */
  coalesced: number;
  /** Sockets closed with 4008 because they fell past the outbound hard cap. */
  slowCloses: number;
}

/** The control of a call nobody can cancel. */
const NO_CONTROL: RequestControl = {};

/**
 * A logical client: outlives its sockets for the resume TTL, owns its subscriptions, its in-flight count, its
 * inbound frame rate, its event sequence and a bounded replay buffer (bounded per client, and with every other
 * detached client's by a shared {@link ReplayBudget}). Lifecycle is the XState `clientMachine`; the fields touched
 * on every frame are plain for speed.
 */
export class LogicalClient implements ReplayHolder, ClientHandle {
  /**
   * The lifecycle actor, made when the client first leaves `attached` (detached, or disposed): an attached client has
   * no timer to run, and thousands of idle attached clients would each hold an actor and its system for nothing.
   */
  private actor: Actor<typeof clientMachine> | undefined;
  readonly connectedAt = Date.now();
  /** When the client last lost its socket (0 while attached); the longest-detached goes first at the limit. */
  detachedAt = 0;
  /** Calls of this client running or queued now: counted by the client alone ({@link LogicalClient.beginCall}). */
  private running = 0;
  /** This client's unanswered requests by id as sent, for `request:cancel` (see `./requests.ts`). */
  private readonly requests = new RequestRegistry();
  /** The display name the client gave with `?name=`; a resume that passes one replaces it. */
  name: string | undefined;
  /** How logs name this client (`client:<prefix>`), never the full id. */
  readonly logName: string;
  /** The remote address of its latest socket, by which its comings and goings are logged (`ChurnLog`). */
  address = "unknown";
  /** Events delivered and coalesced, slow-consumer closes: read by `/metrics`. */
  readonly delivery: DeliveryCounts = { delivered: 0, coalesced: 0, slowCloses: 0 };
  /** Inbound frames this client may send (token bucket); kept across resumes so reconnecting does not refill it. */
  private readonly frameRate: FrameRate;
  private socket: ClientSocket | null;
  /** The actor's state, mirrored on change: it is read on every frame. */
  private phase: ClientState = "attached";
  private seq = 0;
  /** Frames kept while detached; made on the first one (an attached client that keeps up never needs it). */
  private replay: ReplayBuffer | undefined;
  /** Made on the first subscription, as `watchers` and the rest: an idle client holds no empty maps. */
  private subscriptions: Map<string, Subscription> | undefined;
  /** Keep-alive subscriptions that hold a host watcher open without delivering (`selection:change`). */
  private watchers: Map<string, Subscription> | undefined;
  /** State events held while the socket is backed up; flushed once it drains, or into the replay buffer on detach. */
  private readonly held = new StateCoalescer<SerializedEvent>(
    () => this.socket === null || this.socket.bufferedAmount <= this.limits.outboundSoftBytes,
    (events) => {
      for (const event of events) this.write(this.eventFrame(event));
    },
  );
  /** In a cluster: how far each editor's events reached this client (sent, or kept for replay). */
  private cursors: Map<string, CursorPosition> | undefined;
  /** `cursors` as they were when the socket went away: what the client really received. */
  private sentCursors: Map<string, CursorPosition> | undefined;
  /** Something a cluster's copy of the session shows changed since it was last written (see `session()`). */
  sessionDirty = true;
  private disposedBecause: Exclude<DisposeReason, "expired"> | undefined;

  constructor(
    readonly id: string,
    /** `"root"` or the plugin id of the endpoint the client connected to. */
    readonly endpoint: string,
    socket: ClientSocket,
    private readonly limits: Limits,
    private readonly onDisposed: (client: LogicalClient) => void,
    name?: string,
    /** The editor this client's calls go to when they name no document; kept across resumes. */
    private editor?: string,
    /** Replay bytes shared with the other clients of the bridge; a client on its own gets a budget of its own. */
    private readonly replayBudget: ReplayBudget = new ReplayBudget(limits.replayTotalBytes),
    /** Where its sockets closing are logged, with the rest of the clients' comings and goings. */
    private readonly churn?: ChurnLog,
  ) {
    this.socket = socket;
    this.frameRate = new FrameRate(limits);
    this.name = name;
    this.logName = clientLogName(id);
  }

  /** The lifecycle actor, started in `attached` on first need (see `actor`). */
  private lifecycle(): Actor<typeof clientMachine> {
    if (this.actor === undefined) {
      const actor = createActor(clientMachine, {
        input: { resumeTtlMs: this.limits.resumeTtlMs, onDisposed: () => this.cleanup() },
      });
      this.actor = actor;
      actor.subscribe((snapshot) => {
        this.phase = snapshot.value as ClientState;
      });
      actor.start();
    }
    return this.actor;
  }

  get state(): ClientState {
    return this.phase;
  }

  get attachedSocket(): ClientSocket | null {
    return this.socket;
  }

  /** Binds a new socket (resume or takeover) and returns what was buffered while detached. */
  attach(socket: ClientSocket): ReplayBatch {
    const previous = this.socket;
    this.socket = socket;
    this.detachedAt = 0;
    if (previous !== null && previous !== socket) previous.close(CLOSE_CODES.TAKEN_OVER, "taken over by another connection");
    this.actor?.send({ type: "ATTACH" });
    this.frameRate.newSocket();
    this.sentCursors = undefined;
    this.sessionDirty = true;
    // The batch is written to the new socket at once: it leaves the budget now.
    this.replayBudget.forget(this);
    return this.replay?.take() ?? { frames: [], lost: 0 };
  }

  /** The socket went away; the client stays resumable for the TTL. Ignored for a socket no longer bound. */
  detach(socket: ClientSocket): void {
    if (this.socket !== socket) return;
    this.sentCursors = this.cursors === undefined ? undefined : new Map(this.cursors);
    this.sessionDirty = true;
    this.socket = null;
    this.detachedAt = Date.now();
    this.held.drain(); // coalesced state events go to the replay buffer, not to the dead socket
    this.replayBudget.detached(this);
    this.lifecycle().send({ type: "DETACH" });
  }

  /** What the frame rate says about one more inbound text frame (see `FrameRate.answer`). */
  admitFrame(socketOpen: boolean): FrameAnswer {
    return this.frameRate.answer(socketOpen);
  }

  /** Closes a socket the client is done with (abuse): detached first, as a slow consumer is, so answers still being computed go to its replay. */
  closeSocket(socket: ClientSocket, code: number, reason: string): void {
    this.detach(socket);
    socket.close(code, reason);
  }

  /**
   * An operator's `server:disconnectClient`: closes the socket with 4010 (the client stays resumable, as after a
   * dropped connection), or with `evict` disposes the client and closes it with 4410. Returns whether a socket was
   * closed (a detached client has none).
   */
  disconnect(evict: boolean): boolean {
    const socket = this.socket;
    if (evict) {
      // Disposed first: the close that follows finds no socket bound and cannot detach it into a resumable client.
      this.dispose("evicted");
      socket?.close(CLOSE_CODES.EVICTED, "evicted by an operator");
    } else if (socket !== null) {
      this.closeSocket(socket, CLOSE_CODES.DISCONNECTED, "disconnected by an operator");
    }
    return socket !== null;
  }

  /** Its socket closed: disposed for 4000 (the client said it is done), else detached and resumable. Logged. */
  socketClosed(socket: ClientSocket, code: number): void {
    if (this.socket !== socket) return;
    if (code === CLOSE_CODES.DISPOSE) this.dispose("closed");
    else this.detach(socket);
    this.churn?.write(this.address, "closed", { actor: this.logName, code }, "client socket closed");
  }

  /**
   * Drops the whole replay buffer for the bridge's total replay budget (`replayTotalBytes`): every frame it held,
   * and every frame until the client resumes, is counted as `lost`, which the resume reports.
   */
  dropReplay(): void {
    this.replayBuffer().drop();
  }

  /** Why the client was disposed; `expired` when its resume TTL ran out. */
  get disposeReason(): DisposeReason {
    return this.disposedBecause ?? "expired";
  }

  dispose(reason: Exclude<DisposeReason, "expired"> = "closed"): void {
    if (this.state === "disposed") return;
    this.disposedBecause = reason;
    if (this.actor === undefined) {
      // Never detached: `attached → disposed` is the whole of it, with no timer to stop; no actor is made to say so.
      this.phase = "disposed";
      this.cleanup();
      return;
    }
    this.actor.send({ type: "DISPOSE" });
  }

  /** The session as another bridge of a cluster needs it to resume this client (never its id). */
  session(): ClientSession {
    const cursors = this.socket === null ? this.sentCursors : this.cursors;
    return {
      endpoint: this.endpoint,
      ...(this.name === undefined ? {} : { name: this.name }),
      ...(this.editor === undefined ? {} : { editor: this.editor }),
      subscriptions: this.subscriptionTypes(),
      seq: this.seq,
      cursors: Object.fromEntries(cursors ?? []),
      attached: this.socket !== null,
    };
  }

  /**
   * Hands the client to another bridge that resumes it: its socket, if it has one, is closed with 4009 (taken over,
   * as on one bridge), and it ends here without answers to its running calls (they are cancelled).
   */
  handOver(): HandedOverSession {
    const socket = this.socket;
    if (socket !== null) {
      this.detach(socket);
      socket.close(CLOSE_CODES.TAKEN_OVER, "taken over by another connection");
    }
    const handed: HandedOverSession = { ...this.session(), ...(this.replay?.texts() ?? { frames: [], lost: 0 }) };
    this.dispose("moved");
    return handed;
  }

  /** Continues a session from another bridge, while detached: its `seq`, cursors, and the frames to replay. */
  restore(state: Pick<HandedOverSession, "seq" | "lost" | "frames" | "cursors">): void {
    this.seq = state.seq;
    this.cursors = new Map(Object.entries(state.cursors));
    this.sentCursors = new Map(this.cursors);
    const replay = this.replayBuffer();
    for (const frame of state.frames) replay.push(frame);
    replay.addLost(state.lost);
  }

  /** Calls of this client in flight now (`server:clients` shows it). */
  get inFlight(): number {
    return this.running;
  }

  /**
   * Begins one call: counted in flight until `end()`, and registered for `request:cancel` under `id` when it has one
   * (a batch's calls have none: the batch's id cancels them). A client at `maxInFlightPerClient` is refused
   * `TOO_MANY_REQUESTS` and nothing is counted.
   */
  beginCall(id: RequestId | undefined): CallTicket | BridgeError {
    const limit = this.limits.maxInFlightPerClient;
    if (this.running >= limit) {
      // Made by the thousand when a client pipelines a flood: no stack (it would only point into the bridge).
      return withoutStack(() => new BridgeError("TOO_MANY_REQUESTS", `At most ${limit} requests may be in flight per client`, { details: { limit } }));
    }
    this.running++;
    const registered = id === undefined ? undefined : this.requests.begin(id);
    return {
      control: registered?.control ?? NO_CONTROL,
      end: () => {
        registered?.end();
        this.running--;
      },
    };
  }

  /**
   * Registers a request for `request:cancel` without counting it in flight: a batch, whose calls count one by one
   * as they run, so a batch holds one in-flight slot at a time.
   */
  register(id: RequestId): CallTicket {
    return this.requests.begin(id);
  }

  /** Cancels one of this client's own unanswered requests: what `request:cancel` answers. */
  cancel(id: RequestId): RequestCancelResult {
    return this.requests.cancel(id);
  }

  /** What `server:clients` shows of this client: the id's prefix only, never the resumable id. */
  summary(): z.infer<typeof ClientSummarySchema> {
    return {
      idPrefix: clientIdPrefix(this.id),
      ...(this.name === undefined ? {} : { name: this.name }),
      endpoint: this.endpoint,
      ...(this.editorId === undefined ? {} : { editorId: this.editorId }),
      state: this.phase === "attached" ? "attached" : "detached",
      subscriptions: this.subscriptionTypes(),
      inFlight: this.running,
      connectedAt: this.connectedAt,
    };
  }

  subscriptionTypes(): string[] {
    return this.subscriptions === undefined ? [] : [...this.subscriptions.keys()];
  }

  /** Subscribes to a stream; idempotent. */
  subscribe(type: string, stream: Observable<SerializedEvent>): void {
    if (this.subscriptions?.has(type) === true || this.state === "disposed") return;
    this.subscriptions ??= new Map();
    this.subscriptions.set(type, stream.subscribe((event) => this.deliverEvent(event)));
    this.sessionDirty = true;
  }

  /** Drops a subscription; returns whether there was one. */
  unsubscribe(type: string): boolean {
    const sub = this.subscriptions?.get(type);
    if (sub === undefined) return false;
    this.subscriptions!.delete(type);
    sub.unsubscribe();
    this.sessionDirty = true;
    return true;
  }

  /** Keeps a stream's producer running on this client's behalf without delivering its events. */
  watch(key: string, stream: Observable<unknown>, enabled: boolean): boolean {
    const current = this.watchers?.get(key);
    if (!enabled || this.state === "disposed") {
      current?.unsubscribe();
      this.watchers?.delete(key);
      return false;
    }
    if (current === undefined) {
      this.watchers ??= new Map();
      this.watchers.set(key, stream.subscribe());
    }
    return true;
  }

  /** The editor this client's calls go to when they name no document. */
  get editorId(): string | undefined {
    return this.editor;
  }

  /** Moves the client to another editor (its own is gone) and tells it with `editor:changed` (sequenced, replayed). */
  moveTo(data: EditorChangedEventData): void {
    this.editor = data.to;
    this.sessionDirty = true;
    this.deliverEvent({ type: EDITOR_CHANGED_EVENT, json: JSON.stringify(data) });
  }

  /** Delivers an event frame with the next `seq`; coalesces state events while the socket is backed up. */
  deliverEvent(event: SerializedEvent): void {
    if (this.state === "disposed") return;
    if (event.cursor !== undefined) this.advance(event.cursor);
    const socket = this.socket;
    if (socket !== null && STATE_EVENTS.has(event.type)) {
      const queued = socket.bufferedAmount;
      if (queued > this.limits.outboundSoftBytes && queued <= this.limits.outboundHardBytes) {
        if (this.held.hold(event.type, event)) this.delivery.coalesced++;
        return;
      }
    }
    this.write(this.eventFrame(event));
  }

  /** Sends a response; while detached it waits in the replay buffer so a resumed client still gets it. */
  deliverResponse(text: OutboundFrame): void {
    if (this.state === "disposed") return;
    this.write(text);
  }

  /**
   * Sends a connection-level notice (an `error` event about a frame). It is about this socket only, so it is not
   * kept for replay, but it counts against the same outbound caps as everything else: a client that never reads
   * cannot grow the bridge's memory by sending frames that each earn a notice.
   */
  deliverNotice(text: string): void {
    const socket = this.socket;
    if (this.state === "disposed" || socket === null || this.dropIfBehind(socket)) return;
    socket.send(text);
  }

  private advance({ key, epoch, n }: EventCursor): void {
    if (this.cursors === undefined) this.cursors = new Map();
    this.cursors.set(key, [epoch, n]);
    this.sessionDirty = true;
  }

  /** The event's frame with the next `seq`: its bytes for a socket; while there is none, kept as the event's shared bytes and the `seq`. */
  private eventFrame(event: SerializedEvent): KeptFrame {
    this.delivery.delivered++;
    return this.socket === null ? new KeptEventFrame(event, ++this.seq) : eventFrameBytes(event, ++this.seq);
  }

  private write(frame: KeptFrame): void {
    const socket = this.socket;
    if (socket === null) {
      this.replayBuffer().push(frame);
      return;
    }
    if (socket.bufferedAmount > this.limits.outboundHardBytes) {
      // Slow consumer: drop the socket, keep the logical client and everything it has not received.
      this.replayBuffer().push(frame);
      this.dropIfBehind(socket);
      return;
    }
    sendFrame(socket, frame);
  }

  /** Past the hard cap the socket is closed with 4008; the logical client stays resumable. */
  private dropIfBehind(socket: ClientSocket): boolean {
    if (socket.bufferedAmount <= this.limits.outboundHardBytes) return false;
    this.detach(socket);
    this.delivery.slowCloses++;
    socket.close(CLOSE_CODES.SLOW_CONSUMER, "slow consumer");
    return true;
  }

  /** The replay buffer, made on first need; its cap is `replayBufferBytes`, never above the total budget. */
  private replayBuffer(): ReplayBuffer {
    this.replay ??= new ReplayBuffer(this.limits.replayBufferEvents, Math.min(this.limits.replayBufferBytes, this.limits.replayTotalBytes), this.replayBudget);
    return this.replay;
  }

  private cleanup(): void {
    this.held.stop();
    for (const sub of this.subscriptions?.values() ?? []) sub.unsubscribe();
    this.subscriptions = undefined;
    for (const sub of this.watchers?.values() ?? []) sub.unsubscribe();
    this.watchers = undefined;
    // Nobody can receive their answers any more: queued calls leave the editor's queue, running ones are stopped.
    this.requests.cancelAll();
    this.replayBudget.forget(this);
    this.replay?.clear();
    this.socket = null;
    this.onDisposed(this);
  }
}
