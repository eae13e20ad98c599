/** What the budget needs of a detached client: its replay buffer can be dropped. */
export interface ReplayHolder {
  /** Drops every buffered frame (counted as `lost`) and keeps nothing more until the client resumes. */
  dropReplay(): void;
}

/**
 * Bytes held for replay across every detached client, bounded by `replayTotalBytes`. Detached clients are kept in
 * the order they detached; past the total, the longest-detached client's buffer is dropped first, then the next.
 * A dropped client keeps nothing more while it stays detached (it has to resync on resume anyway, and `lost` says
 * so), so each drop frees a client for good and the oldest holder is always the first entry: no scan per frame.
 */
export class ReplayBudget {
  /** Bytes buffered now, attached clients' in-flight hand-offs included. */
  used = 0;
  /** Detached clients that still keep replay, oldest first (a `Set` iterates in insertion order). */
  private readonly holders = new Set<ReplayHolder>();
  /** Replay buffers dropped for the total, since the bridge started. */
  dropped = 0;

  constructor(
    readonly totalBytes: number,
    private readonly onDrop: (holder: ReplayHolder, bytesBefore: number) => void = () => {},
  ) {}

  /** A client lost its socket: it is now the newest holder. */
  detached(holder: ReplayHolder): void {
    this.holders.delete(holder);
    this.holders.add(holder);
    this.enforce();
  }

  /** A client resumed, was dropped or disposed: it is no longer a candidate. */
  forget(holder: ReplayHolder): void {
    this.holders.delete(holder);
  }

  charge(bytes: number): void {
    this.used += bytes;
    if (this.used > this.totalBytes) this.enforce();
  }

  release(bytes: number): void {
    this.used -= bytes;
  }

  /** Drops the longest-detached clients' buffers until the total fits again. */
  private enforce(): void {
    for (const holder of this.holders) {
      if (this.used <= this.totalBytes) return;
      const before = this.used;
      this.holders.delete(holder);
      holder.dropReplay();
      this.dropped++;
      this.onDrop(holder, before);
    }
  }
}
