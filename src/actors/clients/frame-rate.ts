import { BridgeError, CLOSE_CODES, withoutStack } from "../../protocol/index.js";
import type { Limits } from "../../limits.js";
import type { FrameAnswer } from "./port.js";

/** What `FrameRate.admit` decides about one inbound frame. */
export type FrameVerdict =
  /** Dispatch it. */
  | { readonly admitted: true }
  /** Answer TOO_MANY_REQUESTS; `abusive` once the client ignored too many refusals within the window (close 1008). */
  | { readonly admitted: false; readonly retryAfterMs: number; readonly abusive: boolean };

const ADMITTED: FrameVerdict & FrameAnswer = { admitted: true };

/** How a client that kept flooding within the abuse window is closed: RFC 6455's policy violation. */
const ABUSE_CLOSE = { code: CLOSE_CODES.POLICY_VIOLATION, reason: "too many frames" } as const;

type FrameRateLimits = Pick<
  Limits,
  "clientFramesPerSecond" | "clientFrameBurst" | "clientFrameAbuseRejections" | "clientFrameAbuseWindowMs" | "clientFramePauseAfter" | "clientFramePauseMs"
>;

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
  /** Frames refused since the last one admitted on the current socket; from `clientFramePauseAfter` on, reading pauses. */
  private refusedInARow = 0;
  /** Until when the current socket's reading is paused (one pause at a time). */
  private pausedUntil = 0;

  constructor(
    private readonly limits: FrameRateLimits,
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

  /** A new socket took the client (a resume): its pauses and refusals in a row start afresh, its bucket does not. */
  newSocket(): void {
    this.refusedInARow = 0;
    this.pausedUntil = 0;
  }

  /**
   * The rate-abuse policy for one inbound text frame: admitted, or refused TOO_MANY_REQUESTS; after
   * `clientFramePauseAfter` refusals in a row the socket is not read for `clientFramePauseMs` (one read's worth is
   * refused per pause at most, instead of a parse and an answer per frame); a client still flooding after
   * `clientFrameAbuseRejections` refusals within `clientFrameAbuseWindowMs` is closed with 1008. `open`: whether the
   * socket can still be paused or closed.
   */
  answer(open: boolean, now: number = performance.now()): FrameAnswer {
    const verdict = this.admit(now);
    if (verdict.admitted) {
      this.refusedInARow = 0;
      return ADMITTED;
    }
    const { clientFramesPerSecond: max, clientFrameBurst: burst } = this.limits;
    const retryAfterMs = verdict.retryAfterMs;
    const error = withoutStack(
      () =>
        new BridgeError("TOO_MANY_REQUESTS", `At most ${max} frames per second (bursts of ${burst}) per client; retry in ${retryAfterMs} ms`, {
          details: { limit: "clientFramesPerSecond", max, burst, retryAfterMs },
        }),
    );
    this.refusedInARow++;
    let pauseMs: number | undefined;
    if (now >= this.pausedUntil && this.refusedInARow >= this.limits.clientFramePauseAfter && open) {
      pauseMs = this.limits.clientFramePauseMs;
      this.pausedUntil = now + pauseMs;
    }
    return { admitted: false, error, pauseMs, close: verdict.abusive && open ? ABUSE_CLOSE : undefined };
  }
}
