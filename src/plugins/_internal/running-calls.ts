import { withDeadline } from "./deadline.js";

/** Callbacks on the signals `RunningCalls` made, run when it aborts one: no EventTarget listener per call. */
const abortHooks = new WeakMap<AbortSignal, () => void>();

/**
 * Runs `fn` when `signal` aborts; returns the way to forget it. A signal a plugin call runs with (made here) takes
 * a plain callback, cheaper than an `abort` listener on every call crossing to a worker; any other signal gets
 * an ordinary listener.
 */
export function whenAborted(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) {
    fn();
    return () => {};
  }
  if (owned.has(signal)) {
    abortHooks.set(signal, fn);
    return () => abortHooks.delete(signal);
  }
  signal.addEventListener("abort", fn, { once: true });
  return () => signal.removeEventListener("abort", fn);
}

const owned = new WeakSet<AbortSignal>();

function abort(controller: AbortController): void {
  controller.abort();
  const hook = abortHooks.get(controller.signal);
  abortHooks.delete(controller.signal);
  hook?.();
}

/**
 * The method and route calls running in one plugin: each bounded by its deadline (its signal aborting when it
 * passes), all abortable at once (shutdown), and awaitable for a while (a reload lets them answer first).
 */
export class RunningCalls {
  private readonly calls = new Map<AbortController, Promise<void>>();

  /** Runs `work` with a signal; past `ms` the signal aborts and the call rejects with `onTimeout()`. */
  async run<T>(work: (signal: AbortSignal) => T | Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
    const controller = new AbortController();
    owned.add(controller.signal);
    let finished: () => void = () => {};
    this.calls.set(
      controller,
      new Promise<void>((resolve) => {
        finished = resolve;
      }),
    );
    try {
      return await withDeadline(
        () => work(controller.signal),
        ms,
        () => {
          abort(controller);
          return onTimeout();
        },
      );
    } finally {
      this.calls.delete(controller);
      finished();
    }
  }

  /** Waits for the running calls to finish, at most `ms`. */
  async drain(ms: number): Promise<void> {
    if (this.calls.size === 0) return;
    await withDeadline(() => Promise.all([...this.calls.values()]), ms, () => new Error("drain")).catch(() => undefined);
  }

  abortAll(): void {
    for (const controller of this.calls.keys()) abort(controller);
  }
}
