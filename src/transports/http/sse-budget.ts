import { BridgeError } from "../../protocol/index.js";
import type { Limits } from "../../limits.js";
import type { Logger } from "../../logger.js";

/*
 * What all event streams of one bridge hold together: how many are open (in total and per remote address) and the
 * bytes queued on them. Each stream has its own caps (`sseSoftBytes`, `sseHardBytes`), but a thousand readers that
 * never read, each below them, would still hold gigabytes: past `sseTotalBytes` the streams furthest behind are
 * closed first, until the rest fit. The check runs once per turn of the event loop in which something was written,
 * not once per stream and event, so an event fanned out to a thousand streams costs one pass over them.
 */

/** What a stream shows the budget: how far behind it is, and how to close it. */
export interface BudgetedStream {
  /** Bytes written to the stream and not yet taken by its reader's socket. */
  queuedBytes(): number;
  /** Closes the stream for being furthest behind (the reader may resume with its last id). */
  closeForBudget(): void;
}

/** How long a refused reader is told to wait (`details.retryAfterMs`). */
const STREAM_RETRY_AFTER_MS = 1_000;

export class EventStreamBudget {
  private readonly streams = new Set<BudgetedStream>();
  private readonly perAddress = new Map<string, number>();
  private checkScheduled = false;

  constructor(
    private readonly limits: Limits,
    private readonly logger: Logger,
  ) {}

  /** Streams open now. */
  get open(): number {
    return this.streams.size;
  }

  /**
   * Takes a place for a new stream from `address`, or throws why it may not have one: `HOST_BUSY` past
   * `sseMaxStreams`, `TOO_MANY_REQUESTS` past `sseMaxStreamsPerAddress`. Give the place back with `remove`.
   */
  add(stream: BudgetedStream, address: string): void {
    const { sseMaxStreams: max, sseMaxStreamsPerAddress: perAddress } = this.limits;
    if (this.streams.size >= max) {
      throw new BridgeError("HOST_BUSY", `The bridge already serves ${max} event streams`, { details: { limit: "sseMaxStreams", max, retryAfterMs: STREAM_RETRY_AFTER_MS } });
    }
    const held = this.perAddress.get(address) ?? 0;
    if (held >= perAddress) {
      throw new BridgeError("TOO_MANY_REQUESTS", `This address already holds ${perAddress} event streams`, {
        details: { limit: "sseMaxStreamsPerAddress", max: perAddress, retryAfterMs: STREAM_RETRY_AFTER_MS },
      });
    }
    this.perAddress.set(address, held + 1);
    this.streams.add(stream);
  }

  remove(stream: BudgetedStream, address: string): void {
    if (!this.streams.delete(stream)) return;
    const left = (this.perAddress.get(address) ?? 1) - 1;
    if (left > 0) this.perAddress.set(address, left);
    else this.perAddress.delete(address);
  }

  /** A stream was written to: the total is checked once this turn's writes are done. */
  wrote(): void {
    if (this.checkScheduled) return;
    this.checkScheduled = true;
    setImmediate(this.check);
  }

  /** Closes the streams furthest behind until what all of them queue fits `sseTotalBytes`. */
  private readonly check = (): void => {
    this.checkScheduled = false;
    const max = this.limits.sseTotalBytes;
    let total = 0;
    const queued: Array<{ stream: BudgetedStream; bytes: number }> = [];
    for (const stream of this.streams) {
      const bytes = stream.queuedBytes();
      total += bytes;
      if (bytes > 0) queued.push({ stream, bytes });
    }
    if (total <= max) return;
    const before = total;
    queued.sort((a, b) => b.bytes - a.bytes);
    let closed = 0;
    for (const { stream, bytes } of queued) {
      if (total <= max) break;
      total -= bytes;
      closed++;
      stream.closeForBudget();
    }
    // One line per sweep, not per stream: a thousand stuck readers must not also flood the log.
    this.logger.info({ actor: "sse", limit: "sseTotalBytes", max, queuedBytes: before, closed, open: this.streams.size }, "event streams past their total budget: closed the readers furthest behind");
  };
}
