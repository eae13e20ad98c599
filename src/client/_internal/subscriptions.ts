import { CLIENT_ERROR_CODES, isBridgeError } from "../errors.js";
import type { EventMeta } from "../types.js";

type EventListener = (data: unknown, meta: EventMeta) => void;

interface Entry {
  readonly fn: EventListener;
  readonly once: boolean;
}

/** What the bridge knows of one event type, and what this client wants it to know. */
interface WireState {
  wanted: boolean;
  active: boolean;
  busy: boolean;
  /** Why the bridge refused the last subscribe; no retry until the wish changes or the socket reopens. */
  failure: unknown;
  waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }>;
}

export interface SubscriptionWire {
  /** Sends `event:subscribe` / `event:unsubscribe` and resolves with the bridge's `subscribed`. */
  send(method: "event:subscribe" | "event:unsubscribe", type: string): Promise<boolean>;
  /** Whether frames can be sent now; when not, {@link SubscriptionTable.resync} runs after reopening. */
  canSend(): boolean;
  /** A subscription the bridge refused (e.g. an unknown type). */
  refused(type: string, error: unknown): void;
}

/**
 * Listeners per event type, reference-counted onto the wire: the first listener of a type subscribes, the last
 * one leaving unsubscribes. At most one wire operation per type is in flight; when it completes the table sends
 * another if the wish changed meanwhile, so quick on/off sequences end in the right state.
 */
export class SubscriptionTable {
  private readonly listeners = new Map<string, Entry[]>();
  private readonly wire = new Map<string, WireState>();

  constructor(private readonly io: SubscriptionWire) {}

  add(type: string, fn: EventListener, once: boolean): void {
    const list = this.listeners.get(type);
    if (list === undefined) this.listeners.set(type, [{ fn, once }]);
    else list.push({ fn, once });
    if (list === undefined) this.want(type, true);
  }

  /** Removes one registration of `fn`; returns whether there was one. */
  remove(type: string, fn: EventListener): boolean {
    const list = this.listeners.get(type);
    const index = list?.findIndex((e) => e.fn === fn) ?? -1;
    if (list === undefined || index === -1) return false;
    list.splice(index, 1);
    if (list.length === 0) {
      this.listeners.delete(type);
      this.want(type, false);
    }
    return true;
  }

  /** Calls the listeners of `type`; a throwing listener does not stop the others. */
  dispatch(type: string, data: unknown, meta: EventMeta, onListenerError: (error: unknown) => void): void {
    const list = this.listeners.get(type);
    if (list === undefined) return;
    for (const entry of list.slice()) {
      if (entry.once) this.remove(type, entry.fn);
      try {
        entry.fn(data, meta);
      } catch (error) {
        onListenerError(error);
      }
    }
  }

  /** Resolves once the bridge's subscription of `type` matches the listeners; rejects if the bridge refused. */
  settled(type: string): Promise<void> {
    const state = this.wire.get(type);
    if (state === undefined || (state.wanted === state.active && !state.busy)) return Promise.resolve();
    if (state.failure !== undefined) return Promise.reject(state.failure);
    return new Promise((resolve, reject) => {
      state.waiters.push({ resolve, reject });
      this.sync(type);
    });
  }

  /** The bridge started a new logical client: it holds none of our subscriptions. */
  forgetServerState(): void {
    for (const state of this.wire.values()) {
      state.active = false;
      state.failure = undefined;
    }
  }

  /** Sends whatever the socket could not carry while it was away; resolves when every type is in sync. */
  resync(): Promise<void> {
    const pending: Array<Promise<void>> = [];
    for (const [type, state] of this.wire) {
      state.failure = undefined;
      pending.push(this.settled(type).catch(() => undefined));
    }
    return Promise.all(pending).then(() => undefined);
  }

  /** The connection ended: nobody will settle the waiters. */
  rejectAll(error: unknown): void {
    for (const state of this.wire.values()) {
      for (const waiter of state.waiters.splice(0)) waiter.reject(error);
    }
  }

  private want(type: string, wanted: boolean): void {
    let state = this.wire.get(type);
    if (state === undefined) {
      if (!wanted) return;
      state = { wanted, active: false, busy: false, failure: undefined, waiters: [] };
      this.wire.set(type, state);
    }
    state.wanted = wanted;
    state.failure = undefined;
    this.sync(type);
  }

  private sync(type: string): void {
    const state = this.wire.get(type);
    if (state === undefined || state.busy || state.failure !== undefined) return;
    if (state.wanted === state.active) {
      for (const waiter of state.waiters.splice(0)) waiter.resolve();
      if (!state.wanted) this.wire.delete(type);
      return;
    }
    if (!this.io.canSend()) return;
    state.busy = true;
    const wanted = state.wanted;
    this.io.send(wanted ? "event:subscribe" : "event:unsubscribe", type).then(
      (subscribed) => {
        state.busy = false;
        state.active = subscribed;
        this.sync(type);
      },
      (error: unknown) => {
        state.busy = false;
        // The answer was lost with a logical client the bridge forgot: the reconnect resync sends it again.
        if (isBridgeError(error) && error.code === CLIENT_ERROR_CODES.CONNECTION_LOST) {
          this.sync(type);
          return;
        }
        state.failure = error;
        for (const waiter of state.waiters.splice(0)) waiter.reject(error);
        if (wanted) this.io.refused(type, error);
      },
    );
  }
}
