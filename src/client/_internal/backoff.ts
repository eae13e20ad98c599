export interface BackoffOptions {
  /** First retry delay. */
  initialDelayMs: number;
  /** Upper bound of any delay. */
  maxDelayMs: number;
  /** Fraction of each delay that is random, 0–1; spreads the reconnects of many clients after an outage. */
  jitter: number;
}

/**
 * Delay before reconnect attempt `attempt` (1-based): exponential from `initialDelayMs`, capped at `maxDelayMs`,
 * with the last `jitter` fraction drawn at random.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const base = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** exponent);
  const jitter = Math.min(Math.max(options.jitter, 0), 1);
  return Math.round(base * (1 - jitter) + base * jitter * random());
}

/**
 * When a dropped connection tries again: attempts counted since the last handshake, and closes for flooding (1008)
 * since a request was last answered. Each such close lengthens the next delay as a failed attempt would, though the
 * handshakes between them succeed, so a flooding app resumes ever more slowly.
 */
export class ReconnectSchedule {
  private attempt = 0;
  private policyCloses = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly options: BackoffOptions & { maxAttempts: number },
    private readonly random: (() => number) | undefined,
  ) {}

  get maxAttempts(): number {
    return this.options.maxAttempts;
  }

  /** A handshake succeeded: the next drop starts counting again. */
  opened(): void {
    this.attempt = 0;
  }

  /** The bridge answered a request: the flood, if there was one, is over. */
  answered(): void {
    this.policyCloses = 0;
  }

  /** The bridge closed the socket for flooding. */
  closedForFlooding(): void {
    this.policyCloses++;
  }

  /**
   * Schedules `reopen` after the next attempt's delay and returns that attempt and delay, or undefined when
   * `maxAttempts` are spent (nothing scheduled).
   */
  next(reopen: () => void): { attempt: number; delayMs: number } | undefined {
    this.attempt++;
    if (this.attempt > this.options.maxAttempts) return undefined;
    const delayMs = backoffDelay(this.attempt + this.policyCloses, this.options, this.random);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      reopen();
    }, delayMs);
    return { attempt: this.attempt, delayMs };
  }

  /** Cancels a scheduled attempt. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
