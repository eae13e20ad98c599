/*
 * The bridge keeps a token bucket per logical client (`clientFramesPerSecond`, bursts of `clientFrameBurst`) and
 * answers frames past it TOO_MANY_REQUESTS with `retryAfterMs`, undispatched. Resending every refused request as soon
 * as the wait is over would be refused again, all but one: the client would spend the bridge's patience (a client
 * refused too often is closed with 1008). So the first refusal teaches the client a copy of the bucket, empty at that
 * moment, and requests are then sent only as fast as it refills.
 */

/** The wait, rate and burst a frame-rate refusal names; undefined for any other error. */
export interface FrameRateRefusal {
  readonly retryAfterMs: number;
  /** Frames per second, when the bridge said (`details.max`). */
  readonly rate: number | undefined;
  /** Bucket size, when the bridge said (`details.burst`). */
  readonly burst: number | undefined;
}

/** The limit the bridge names when it refuses a frame for the client's rate (that frame was never dispatched). */
const FRAME_RATE_LIMIT = "clientFramesPerSecond";

const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** Reads a frame-rate refusal out of a wire error, or undefined when it is something else. */
export function frameRateRefusal(error: { code: string; details?: Record<string, unknown> | undefined }): FrameRateRefusal | undefined {
  const details = error.details;
  if (error.code !== "TOO_MANY_REQUESTS" || details?.["limit"] !== FRAME_RATE_LIMIT || !finite(details["retryAfterMs"])) return undefined;
  const { max, burst } = details;
  return {
    retryAfterMs: Math.max(0, details["retryAfterMs"]),
    rate: finite(max) && max > 0 ? max : undefined,
    burst: finite(burst) && burst >= 1 ? burst : undefined,
  };
}

/**
 * The client's copy of its bucket on the bridge. Until the first refusal it lets everything through; after one it
 * holds frames for the wait named and then releases them at the bridge's rate, never more than its burst at once.
 */
export class FramePacer {
  private rate: number | undefined;
  private burst = 1;
  private tokens = 0;
  private refilledAt = 0;
  private holdUntil = 0;

  /** Learns from a refusal: the bucket is empty now and holds one frame again after `retryAfterMs`. */
  refused(refusal: FrameRateRefusal, now: number = performance.now()): void {
    this.holdUntil = Math.max(this.holdUntil, now + refusal.retryAfterMs);
    if (refusal.rate === undefined) return;
    this.rate = refusal.rate;
    this.burst = refusal.burst ?? 1;
    this.tokens = 1;
    this.refilledAt = this.holdUntil;
  }

  /** Takes the right to send one frame now (0), or says how many ms until the next one is due. */
  take(now: number = performance.now()): number {
    if (now < this.holdUntil) return Math.ceil(this.holdUntil - now);
    if (this.rate === undefined) return 0;
    this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, now - this.refilledAt) * this.rate) / 1000);
    this.refilledAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.rate));
  }
}
