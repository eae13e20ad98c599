import type { LostNotice } from "../types.js";

/**
 * Event order of one logical client: every event carries the next `seq`, so a repeated number is a
 * duplicate and a skipped one an event that will never come. After a resume the bridge says how many frames it
 * replays and how many it had to drop; the loss is reported once, when the replay is over.
 */
export class EventSequence {
  private last = 0;
  private replayLeft = 0;
  private replayLost = 0;
  private replayGap = 0;

  /** A new logical client numbers its events from 1 again. */
  reset(): void {
    this.last = 0;
  }

  /** A handshake: `replayed` frames follow it; `lost` were dropped from the bridge's replay buffer. */
  startReplay(replayed: number, lost: number): void {
    this.replayLeft = replayed;
    this.replayLost = lost;
    this.replayGap = 0;
  }

  /** Counts one received frame (event or answer) against the replay. */
  countFrame(): void {
    if (this.replayLeft > 0) this.replayLeft--;
  }

  /**
   * Checks an event's `seq`: `"duplicate"` when it was delivered already, otherwise how many events were skipped
   * right before it that should be reported now (0 when none, or when a replay loss will report them).
   */
  accept(seq: number): "duplicate" | number {
    if (seq <= this.last) return "duplicate";
    const gap = seq - this.last - 1;
    this.last = seq;
    if (gap > 0 && this.replayLost > 0) {
      this.replayGap += gap;
      return 0;
    }
    return gap;
  }

  /** The replay-overflow notice, once the replay is complete (and only once). */
  takeReplayLoss(): LostNotice | undefined {
    if (this.replayLeft > 0 || this.replayLost === 0) return undefined;
    const notice: LostNotice = { reason: "replay-overflow", events: this.replayGap, frames: this.replayLost };
    this.replayLost = 0;
    this.replayGap = 0;
    return notice;
  }
}
