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
