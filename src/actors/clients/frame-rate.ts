import type { Limits } from "../../limits.js";

/** What `FrameRate.admit` decides about one inbound frame. */
export type FrameVerdict =
  /** Dispatch it. */
  | { readonly admitted: true }
  /** Answer TOO_MANY_REQUESTS; `abusive` once the client ignored too many refusals within the window (close 1008). */
  | { readonly admitted: false; readonly retryAfterMs: number; readonly abusive: boolean };

const ADMITTED: FrameVerdict = { admitted: true };

/**
 * A logical client's inbound frame rate: a token bucket of `clientFrameBurst` frames refilled at
 * `clientFramesPerSecond`, and a count of refused frames per `clientFrameAbuseWindowMs`. It belongs to the logical
 * client, not the socket, so a resume does not hand a flooding client a fresh bucket.
 */
export class FrameRate {
  private tokens: number;
  private refilledAt: number;
  private windowStart = 0;
  private refusedInWindow = 0;

  constructor(
    private readonly limits: Pick<Limits, "clientFramesPerSecond" | "clientFrameBurst" | "clientFrameAbuseRejections" | "clientFrameAbuseWindowMs">,
    now: number = performance.now(),
  ) {
    this.tokens = limits.clientFrameBurst;
    this.refilledAt = now;
  }

  /** Takes a token for one frame, or says how long until the next one and whether the client is abusing. */
  admit(now: number = performance.now()): FrameVerdict {
    const { clientFramesPerSecond: rate, clientFrameBurst: burst } = this.limits;
    this.tokens = Math.min(burst, this.tokens + ((now - this.refilledAt) * rate) / 1000);
    this.refilledAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return ADMITTED;
    }
    if (now - this.windowStart > this.limits.clientFrameAbuseWindowMs) {
      this.windowStart = now;
      this.refusedInWindow = 0;
    }
    this.refusedInWindow++;
    const retryAfterMs = Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / rate));
    return { admitted: false, retryAfterMs, abusive: this.refusedInWindow >= this.limits.clientFrameAbuseRejections };
  }
}
