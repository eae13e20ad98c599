import { withDeadline } from "./deadline.js";

/**
 * The method and route calls running in one plugin: each bounded by its deadline (its signal aborting when it
 * passes), all abortable at once (shutdown), and awaitable for a while (a reload lets them answer first).
 */
export class RunningCalls {
  private readonly calls = new Map<AbortController, Promise<void>>();

  /** Runs `work` with a signal; past `ms` the signal aborts and the call rejects with `onTimeout()`. */
  async run<T>(work: (signal: AbortSignal) => T | Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
    const controller = new AbortController();
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
          controller.abort();
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
    for (const controller of this.calls.keys()) controller.abort();
  }
}
