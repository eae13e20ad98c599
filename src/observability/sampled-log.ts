import type { Limits } from "../limits.js";
import type { Logger } from "../logger.js";

interface Window {
  startedAt: number;
  written: number;
  suppressed: number;
}

/**
 * Log lines about client mistakes, sampled per kind: at most `clientMistakeLogLines` lines of one kind per
 * `clientMistakeLogIntervalMs`, the rest counted. The count is written as one line (`suppressed`, `kind`) when the
 * next line of that kind comes after the interval, or at `flush()`; no timer is kept, so a quiet bridge holds
 * nothing. A client sending 200,000 unknown methods costs the log a few dozen lines, not 200,000.
 */
export class SampledLog {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly log: Logger,
    private readonly limits: Pick<Limits, "clientMistakeLogLines" | "clientMistakeLogIntervalMs">,
  ) {}

  /** Writes `msg` at `level` unless `kind` already wrote its share of lines in this interval. */
  write(kind: string, level: "info" | "warn", fields: Record<string, unknown>, msg: string): void {
    const now = Date.now();
    let window = this.windows.get(kind);
    if (window === undefined || now - window.startedAt >= this.limits.clientMistakeLogIntervalMs) {
      if (window !== undefined) this.report(kind, window, now);
      window = { startedAt: now, written: 0, suppressed: 0 };
      this.windows.set(kind, window);
    }
    if (window.written >= this.limits.clientMistakeLogLines) {
      window.suppressed++;
      return;
    }
    window.written++;
    this.log[level]({ ...fields, kind }, msg);
  }

  /** Writes the counts of every kind still suppressing and forgets the windows. */
  flush(): void {
    const now = Date.now();
    for (const [kind, window] of this.windows) this.report(kind, window, now);
    this.windows.clear();
  }

  private report(kind: string, window: Window, now: number): void {
    if (window.suppressed === 0) return;
    this.log.warn(
      { actor: "bridge", kind, suppressed: window.suppressed, intervalMs: now - window.startedAt, limit: "clientMistakeLogLines", max: this.limits.clientMistakeLogLines },
      "client mistake log lines suppressed",
    );
  }
}
