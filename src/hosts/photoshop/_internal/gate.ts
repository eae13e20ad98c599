import { busy } from "../errors.js";

/**
 * A counting gate: at most `capacity` holders, at most `maxWaiters` waiting; past that `HOST_BUSY` (retryable)
 * rather than an unbounded queue (reference "request floods").
 */
export class Gate {
  private held = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(
    private readonly name: string,
    private readonly capacity: number,
    private readonly maxWaiters: number,
  ) {}

  /** Resolves with a release function once a slot is free; rejects when the queue is full or `signal` aborts. */
  acquire(signal: AbortSignal): Promise<() => void> {
    const release = (): void => {
      const next = this.waiters.shift();
      if (next) next();
      else this.held--;
    };
    if (this.held < this.capacity) {
      this.held++;
      return Promise.resolve(once(release));
    }
    if (this.waiters.length >= this.maxWaiters) {
      return Promise.reject(busy(`Too many ${this.name} requests in flight to Photoshop`, { limit: this.capacity + this.maxWaiters }));
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal.removeEventListener("abort", onAbort);
        resolve(once(release));
      };
      const onAbort = (): void => {
        const at = this.waiters.indexOf(grant);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(busy(`Gave up waiting for a ${this.name} slot`));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(grant);
    });
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
