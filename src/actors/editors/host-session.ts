import { createActor, type Actor } from "xstate";
import type { Subscription } from "rxjs";
import { BridgeError } from "../../protocol/index.js";
import { NOT_AT_HAND, type HostAdapter, type HostCallContext, type HostInfo, type PeekableOp } from "../../hosts/host.js";
import type { Limits } from "../../limits.js";
import type { Logger } from "../../logger.js";
import { callContext, cancelledError, newJob, type CallOptions, type Job } from "./call-job.js";
import { Mailbox } from "./mailbox.js";
import { laneLogName } from "../clients/names.js";
import { hostSessionMachine } from "./host-session.machine.js";


export type HostSessionState = "disconnected" | "connecting" | "backoff" | "ready" | "busy" | "closing" | "closed";

/**
 * The host session: the connection actor plus the mailbox in front of the editor. Calls run one at a time by
 * default, FIFO per lane and across lanes the one that used the least editor time lately first; the mailbox is bounded (`HOST_BUSY`), every call has a
 * deadline (`TIMEOUT`), and losing the editor fails queued and running calls with `HOST_UNAVAILABLE`.
 *
 * The per-call bookkeeping is plain code on purpose: it is the hot path of every request. The actor holds the
 * connection lifecycle; `busy` is derived from the running calls when the state is read.
 */
export class HostSession {
  readonly actor: Actor<typeof hostSessionMachine>;
  private readonly mailbox: Mailbox<Job>;
  private readonly running = new Set<Job>();
  private lostSubscription: Subscription | undefined;
  /** The actor's top-level state and `degraded` flag, mirrored on change so the per-call path reads plain fields. */
  private phase: string = "disconnected";
  private degraded = false;
  /** Resolved when the last running call is released (shutdown grace). */
  private idleWaiters: Array<() => void> = [];
  /** Set when `close()` begins: running calls may finish, nothing new is queued. */
  private stopping = false;
  /** Whether `start()` ran; a session closed before it has no actor or editor to stop. */
  private started = false;
  /** Told how long each call waited in the mailbox before it started (`/metrics`); set by whoever counts. */
  onQueueWait: ((waitMs: number) => void) | undefined;

  constructor(
    readonly host: HostAdapter,
    private readonly limits: Limits,
    private readonly log: Logger,
  ) {
    this.mailbox = new Mailbox<Job>(limits.editorTimeHalfLifeMs);
    this.actor = createActor(hostSessionMachine, {
      input: {
        connect: () => this.connectHost(),
        close: () => host.close(),
        reconnectInitialMs: limits.reconnectInitialMs,
        reconnectMaxMs: limits.reconnectMaxMs,
      },
    });
    this.actor.subscribe((snapshot) => {
      this.phase = snapshot.value;
      this.degraded = snapshot.context.degraded;
    });
  }

  /** Starts the actor and waits for the first connection attempt to settle. Resolves `true` when ready. */
  async start(): Promise<boolean> {
    this.started = true;
    this.actor.start();
    this.lostSubscription = this.host.lost$.subscribe((error) => this.onLost(error));
    this.actor.send({ type: "CONNECT" });
    return new Promise((resolve) => {
      const sub = this.actor.subscribe((snapshot) => {
        if (snapshot.matches("connecting")) return;
        sub.unsubscribe();
        resolve(snapshot.matches("ready"));
      });
      const now = this.actor.getSnapshot();
      if (!now.matches("connecting")) {
        sub.unsubscribe();
        resolve(now.matches("ready"));
      }
    });
  }

  get state(): HostSessionState {
    if (this.phase === "ready") return this.running.size > 0 ? "busy" : "ready";
    return this.phase as HostSessionState;
  }

  /** Connected and taking calls (idle or busy). */
  get isReady(): boolean {
    return this.phase === "ready" && !this.stopping;
  }

  get hostVersion(): string | undefined {
    return this.actor.getSnapshot().context.hostVersion;
  }

  /** A summary for `/health` and `/metrics`. */
  status(): { state: HostSessionState; kind: string; degraded: boolean; queued: number; running: number; lastError?: string } {
    const { context } = this.actor.getSnapshot();
    const out: ReturnType<HostSession["status"]> = {
      state: this.state,
      kind: this.host.kind,
      degraded: this.degraded,
      queued: this.mailbox.depth,
      running: this.running.size,
    };
    if (context.lastError !== undefined) out.lastError = context.lastError;
    return out;
  }

  /**
   * A read answered from what the editor's adapter holds, without a call: only while no call waits in the queue and
   * none that changes anything runs, so it is exactly what a call started now would answer (nothing the mailbox put
   * ahead of it is left out). `NOT_AT_HAND` otherwise, or when the adapter holds no answer: then it is a call.
   */
  peek(op: PeekableOp, args: readonly unknown[]): unknown {
    if (this.phase !== "ready" || this.stopping || this.mailbox.depth > 0 || this.mutating || this.host.peek === undefined) return NOT_AT_HAND;
    return this.host.peek(op, args);
  }

  /** Queues a host-bound call and resolves with its result. */
  call<T>(options: CallOptions, run: (ctx: HostCallContext) => Promise<T>): Promise<T> {
    if (this.phase !== "ready" || this.stopping) {
      if (this.stopping || this.phase === "closing" || this.phase === "closed") {
        return Promise.reject(new BridgeError("SHUTTING_DOWN", "The bridge is shutting down"));
      }
      const { lastError } = this.actor.getSnapshot().context;
      return Promise.reject(
        new BridgeError("HOST_UNAVAILABLE", `The ${this.host.kind} editor is not connected`, {
          details: { state: this.state, ...(lastError ? { reason: lastError } : {}) },
        }),
      );
    }
    const refusal = this.admission(options.lane);
    if (refusal !== undefined) return Promise.reject(refusal);
    if (options.cancel?.aborted === true) return Promise.reject(cancelledError(options, "not-started"));
    return new Promise<T>((resolve, reject) => {
      const job = newJob(options, run as Job["run"], resolve as Job["resolve"], reject);
      job.timer = setTimeout(() => this.onDeadline(job), options.timeoutMs);
      const { cancel } = options;
      if (cancel !== undefined) {
        const onCancel = (): void => this.onCancel(job);
        cancel.addEventListener("abort", onCancel, { once: true });
        job.unlisten = () => cancel.removeEventListener("abort", onCancel);
      }
      // Nothing waits ahead of it and it may start now: what the queue would do at once, without the queue.
      if (this.mailbox.depth === 0 && this.mayStart(job.options.mutates)) this.startJob(job);
      else {
        this.mailbox.enqueue(job);
        this.pump();
      }
    });
  }

  /**
   * Whether one more call of `lane` fits: the mailbox has room, and the lane is within its own cap and its fair
   * share (the depth split between the lanes waiting, plus one share kept for a lane not waiting yet).
   */
  private admission(lane: string): BridgeError | undefined {
    const { mailboxDepth, mailboxDepthPerClient } = this.limits;
    const queued = this.mailbox.depth;
    if (queued >= mailboxDepth) {
      return new BridgeError("HOST_BUSY", "The editor's queue is full; retry shortly", { details: { queued, limit: mailboxDepth } });
    }
    const mine = this.mailbox.laneDepth(lane);
    const lanes = this.mailbox.laneCount + (mine === 0 ? 1 : 0);
    const share = Math.max(1, Math.min(mailboxDepthPerClient, Math.floor(mailboxDepth / (lanes + 1))));
    if (mine >= share) {
      return new BridgeError("HOST_BUSY", `This client already has ${mine} calls waiting for the editor; retry when some finish`, {
        details: { queued: mine, limit: share, scope: "client" },
      });
    }
    return undefined;
  }

  /**
   * Shuts down: queued calls fail with `SHUTTING_DOWN` at once, running calls get up to `graceMs` to finish,
   * then whatever is left fails too and the editor connection is closed.
   */
  async close(graceMs = 0): Promise<void> {
    this.stopping = true;
    if (!this.started) return;
    this.lostSubscription?.unsubscribe();
    const shuttingDown = (): BridgeError => new BridgeError("SHUTTING_DOWN", "The bridge is shutting down");
    for (const job of this.mailbox.drain()) this.answer(job, false, shuttingDown());
    if (this.running.size > 0 && graceMs > 0) await this.whenIdle(graceMs);
    this.failAll(shuttingDown);
    const done = new Promise<void>((resolve) => {
      const sub = this.actor.subscribe({ complete: () => resolve() });
      if (this.actor.getSnapshot().status === "done") {
        sub.unsubscribe();
        resolve();
      }
    });
    this.actor.send({ type: "CLOSE" });
    await done;
    this.actor.stop();
  }

  /** Resolves when no call is running, or after `timeoutMs`. */
  private whenIdle(timeoutMs: number): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private notifyIdle(): void {
    if (this.running.size > 0 || this.idleWaiters.length === 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Gives the caller its one answer; later results for the same job (a late host reply) are dropped. */
  private answer(job: Job, ok: boolean, value: unknown): void {
    if (job.answered) return;
    job.answered = true;
    job.unlisten?.();
    // A running call keeps its deadline timer: a call cancelled while running holds its slot until then at most.
    if (job.released || !this.running.has(job)) clearTimeout(job.timer);
    if (ok) job.resolve(value);
    else job.reject(value);
  }

  /**
   * Connects the editor. A failure is logged as a warning once, and again only when its reason changes; the same
   * failure retried in the background (an editor not installed or not started) is logged at debug level, so an
   * absent editor is one clear line and its state stays visible in `/ready` and `/status`.
   */
  private async connectHost(): Promise<HostInfo> {
    try {
      const info = await this.host.connect();
      this.log.info({ actor: "host", editor: this.host.kind, hostVersion: info.hostVersion }, "editor connected");
      this.lastFailure = undefined;
      return info;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const retryInMs = this.actor.getSnapshot().context.retryDelayMs;
      if (reason === this.lastFailure) this.log.debug({ actor: "host", editor: this.host.kind, err: reason, retryInMs }, "editor still not reachable");
      else this.log.warn({ actor: "host", editor: this.host.kind, err: reason }, "editor connection failed; retrying in the background (state in /ready)");
      this.lastFailure = reason;
      throw error;
    }
  }

  /** The reason of the last failed connection attempt, to log a repeated one once. */
  private lastFailure: string | undefined;

  /**
   * Whether a call may start now. Calls that change nothing may run together up to what the editor accepts; a
   * mutation runs alone, after the calls before it finished, and nothing starts past it until it has (so every
   * client sees its own writes).
   */
  private mayStart(mutates: boolean): boolean {
    if (this.mutating) return false;
    if (mutates) return this.running.size === 0;
    const reads = Math.max(1, Math.min(this.host.readConcurrency ?? 1, this.limits.hostReadConcurrency));
    return this.running.size < Math.max(reads, this.limits.hostConcurrency);
  }

  private pump(): void {
    for (;;) {
      const job = this.mailbox.take((next) => this.mayStart(next.options.mutates));
      if (job === undefined) break;
      if (!this.tooLateToStart(job)) this.startJob(job);
    }
  }

  /**
   * A call leaving the queue with less than `callMinTimeLeftMs` (at most half its timeout) of its deadline left is
   * answered `TIMEOUT` without starting: it would be abandoned mid-work and hold the editor from the calls behind it.
   */
  private tooLateToStart(job: Job): boolean {
    const { method, timeoutMs } = job.options;
    const leftMs = job.deadline - performance.now();
    const minLeftMs = Math.min(this.limits.callMinTimeLeftMs, timeoutMs / 2);
    if (leftMs >= minLeftMs) return false;
    job.released = true;
    this.answer(
      job,
      false,
      new BridgeError("TIMEOUT", `${method} waited in the editor's queue until too little of its ${timeoutMs} ms was left, and was not started`, {
        details: { timeoutMs, outcome: "not-started", leftMs: Math.max(0, Math.round(leftMs)), minLeftMs, limit: "callMinTimeLeftMs" },
        retryable: true,
      }),
    );
    return true;
  }

  /** Whether a running call changes the document (then it runs alone). */
  private get mutating(): boolean {
    for (const job of this.running) if (job.options.mutates) return true;
    return false;
  }

  private startJob(job: Job): void {
    this.running.add(job);
    job.options.started?.();
    job.startedAt = performance.now();
    // The deadline was set when the call was queued: the wait is what it has used of its timeout.
    this.onQueueWait?.(job.startedAt - (job.deadline - job.options.timeoutMs));
    const ctx = callContext(job, job.options.callerName ?? laneLogName(job.lane));
    let result: Promise<unknown>;
    try {
      result = job.run(ctx);
    } catch (error) {
      result = Promise.reject(error);
    }
    result.then(
      (value) => this.settle(job, true, value),
      (error: unknown) => this.settle(job, false, error),
    );
  }

  private settle(job: Job, ok: boolean, value: unknown): void {
    this.answer(job, ok, value);
    const elapsed = performance.now() - job.startedAt;
    if (elapsed > this.limits.slowCallMs && !this.degraded) this.actor.send({ type: "SLOW" });
    else if (elapsed <= this.limits.slowCallMs && this.degraded) this.actor.send({ type: "FAST" });
    this.release(job);
  }

  private release(job: Job): void {
    if (job.released) return;
    job.released = true;
    clearTimeout(job.timer);
    this.running.delete(job);
    // The editor was the call's until now: its lane waits that much longer behind lanes that used less.
    if (job.startedAt > 0) this.mailbox.charge(job.lane, performance.now() - job.startedAt);
    this.pump();
    this.notifyIdle();
  }

  private onDeadline(job: Job): void {
    if (job.answered) {
      // Cancelled while running and still not back at its deadline: free the slot as for a timed-out call.
      if (!job.released && this.running.has(job)) this.freeSlotLater(job);
      return;
    }
    const { method, mutates, timeoutMs } = job.options;
    if (this.mailbox.remove(job)) {
      this.answer(
        job,
        false,
        new BridgeError("TIMEOUT", `${method} waited ${timeoutMs} ms in the editor's queue and was not started`, {
          details: { timeoutMs, outcome: "not-started" },
          retryable: true,
        }),
      );
      return;
    }
    const error = new BridgeError("TIMEOUT", `${method} did not finish within ${timeoutMs} ms`, {
      details: mutates ? { timeoutMs, outcome: "unknown" } : { timeoutMs },
      retryable: !mutates,
    });
    this.abort(job, error);
    this.answer(job, false, error);
    this.freeSlotLater(job);
  }

  /** The caller cancelled: a queued call leaves the mailbox; a running one answers now and is told to stop. */
  private onCancel(job: Job): void {
    if (job.answered) return;
    if (this.mailbox.remove(job)) {
      this.answer(job, false, cancelledError(job.options, "not-started"));
      return;
    }
    const error = cancelledError(job.options, "running");
    this.abort(job, error);
    this.answer(job, false, error);
    // The slot stays taken until the editor comes back (a native call cannot be interrupted), or its deadline.
  }

  private abort(job: Job, reason: BridgeError): void {
    if (job.abortReason !== undefined) return;
    job.abortReason = reason;
    job.controller?.abort(reason);
  }

  /** The editor may still be working on an aborted call; give it a moment to honour the abort before freeing its slot. */
  private freeSlotLater(job: Job): void {
    const { method } = job.options;
    clearTimeout(job.timer);
    job.timer = setTimeout(() => {
      if (job.released) return;
      this.log.warn({ actor: "host", method, lane: laneLogName(job.lane) }, "editor ignored an aborted call; freeing its slot");
      this.actor.send({ type: "SLOW" });
      this.release(job);
    }, this.limits.abortGraceMs);
  }

  private onLost(error: Error): void {
    this.log.warn({ actor: "host", editor: this.host.kind, err: error.message }, "editor connection lost");
    this.failAll(
      () =>
        new BridgeError("HOST_UNAVAILABLE", `The ${this.host.kind} editor went away: ${error.message}`, {
          details: { reason: error.message },
        }),
    );
    this.actor.send({ type: "LOST", error: error.message });
  }

  private failAll(makeError: () => BridgeError): void {
    const victims = [...this.mailbox.drain(), ...this.running];
    for (const job of victims) {
      this.abort(job, makeError());
      this.answer(job, false, makeError());
      job.released = true;
      clearTimeout(job.timer);
    }
    this.running.clear();
    this.pump();
    this.notifyIdle();
  }
}

