import { frameBytes, KeptEventFrame, type KeptFrame } from "./frames.js";
import type { ReplayBudget } from "./replay-budget.js";

/** What a resumed client is sent before anything new: the frames kept for it, and how many could not be kept. */
export interface ReplayBatch {
  frames: KeptFrame[];
  lost: number;
}

/**
 * The frames a detached logical client is owed, bounded by count (`replayBufferEvents`) and size (its cap, never above
 * the bridge's total), and charged to the bridge's {@link ReplayBudget}. What does not fit is counted as `lost`; once
 * the budget has dropped the buffer, nothing more is kept until it is taken by a resume.
 */
export class ReplayBuffer {
  private frames: KeptFrame[] = [];
  /** UTF-8 size of `frames`. */
  private bytes = 0;
  private lost = 0;
  /** The budget dropped this buffer: frames are only counted lost until the next `take`. */
  private dropped = false;

  constructor(
    private readonly maxFrames: number,
    private readonly maxBytes: number,
    private readonly budget: ReplayBudget,
  ) {}

  /** Keeps one frame, dropping the oldest past the bounds; a frame larger than the whole cap is dropped too. */
  push(frame: KeptFrame): void {
    if (this.dropped) {
      this.lost++;
      return;
    }
    const bytes = frameBytes(frame);
    this.frames.push(frame);
    this.bytes += bytes;
    let trimmed = 0;
    while (this.frames.length > 0 && (this.frames.length > this.maxFrames || this.bytes > this.maxBytes)) {
      const dropped = frameBytes(this.frames.shift()!);
      this.bytes -= dropped;
      trimmed += dropped;
      this.lost++;
    }
    // Charged last: past the total, the longest-detached clients' buffers go (this one's too, if it is the oldest).
    this.budget.charge(bytes - trimmed);
  }

  /** Frames that were never kept (another bridge's count, on a hand-over). */
  addLost(count: number): void {
    this.lost += count;
  }

  /** Drops every frame for the total budget: they, and all until the next `take`, count as lost. */
  drop(): void {
    this.lost += this.frames.length;
    this.clear();
    this.dropped = true;
  }

  /** Everything kept and the lost count, emptied and released from the budget (the batch is written at once). */
  take(): ReplayBatch {
    const batch = { frames: this.frames, lost: this.lost };
    this.clear();
    this.lost = 0;
    this.dropped = false;
    return batch;
  }

  /** The frames kept, as text (a hand-over to another bridge), and the lost count; the buffer is unchanged. */
  texts(): { frames: string[]; lost: number } {
    const frames = this.frames.map((f) => (typeof f === "string" ? f : Buffer.isBuffer(f) || f instanceof KeptEventFrame ? f.toString() : f.textForm()));
    return { frames, lost: this.lost };
  }

  /** Empties the buffer and gives its bytes back to the budget. */
  clear(): void {
    this.budget.release(this.bytes);
    this.frames = [];
    this.bytes = 0;
  }
}
