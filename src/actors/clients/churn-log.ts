import type { Limits } from "../../limits.js";
import type { Logger } from "../../logger.js";

/** What a client's coming or going is logged as. */
export type ChurnKind = "connected" | "closed" | "disposed";

interface Window {
  startedAt: number;
  written: number;
  suppressed: Record<ChurnKind, number>;
}

/**
 * Log lines about clients coming and going (`client connected`, `client socket closed`, `client disposed`), sampled
 * per remote address: at most `connectionLogLines` lines per address per `connectionLogIntervalMs`, the rest
 * counted. A window that counted lines ends with one `client connections summarised` line (the address and how
 * many connects, closes and disposals it left out) once its interval is over. Each line costs some 300 bytes, so a
 * program connecting and dropping in a loop (3,000 times in 8 s) wrote most of a megabyte; now a few dozen lines.
 * One timer serves every window, and only while there are windows: a quiet bridge holds nothing.
 */
export class ChurnLog {
  private readonly windows = new Map<string, Window>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: Logger,
    private readonly limits: Pick<Limits, "connectionLogLines" | "connectionLogIntervalMs">,
  ) {}

  /** Writes `msg` at `info` unless `address` already wrote its share of lines in this interval. */
  write(address: string, kind: ChurnKind, fields: Record<string, unknown>, msg: string): void {
    const now = Date.now();
    let window = this.windows.get(address);
    if (window !== undefined && now - window.startedAt >= this.limits.connectionLogIntervalMs) {
      this.report(address, window, now);
      window = undefined;
    }
    if (window === undefined) {
      window = { startedAt: now, written: 0, suppressed: { connected: 0, closed: 0, disposed: 0 } };
      this.windows.set(address, window);
      this.timer ??= setTimeout(this.sweep, this.limits.connectionLogIntervalMs).unref();
    }
    if (window.written < this.limits.connectionLogLines) {
      window.written++;
      this.log.info({ ...fields, address }, msg);
      return;
    }
    window.suppressed[kind]++;
  }

  /** Writes the counts of every window still counting and forgets the windows (shutdown). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const now = Date.now();
    for (const [address, window] of this.windows) this.report(address, window, now);
    this.windows.clear();
  }

  /** Ends the windows whose interval is over (each address's window is forgotten then); looks again while some are left. */
  private readonly sweep = (): void => {
    this.timer = undefined;
    const now = Date.now();
    let oldest = now;
    for (const [address, window] of this.windows) {
      if (now - window.startedAt >= this.limits.connectionLogIntervalMs) this.report(address, window, now);
      else oldest = Math.min(oldest, window.startedAt);
    }
    if (this.windows.size > 0) this.timer = setTimeout(this.sweep, oldest + this.limits.connectionLogIntervalMs - now).unref();
  };

  private report(address: string, window: Window, now: number): void {
    this.windows.delete(address);
    if (total(window) === 0) return;
    this.log.info(
      { actor: "bridge", address, ...window.suppressed, intervalMs: now - window.startedAt, limit: "connectionLogLines", max: this.limits.connectionLogLines },
      "client connections summarised",
    );
  }
}

function total(window: Window): number {
  return window.suppressed.connected + window.suppressed.closed + window.suppressed.disposed;
}
