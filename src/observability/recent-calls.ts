import type { RecentCalls } from "../protocol/index.js";

/** How far back `/status` `calls` looks: long enough to see a trend on a dashboard, short enough to stay small. */
export const RECENT_CALLS_WINDOW_MS = 5 * 60_000;

/** The width of one `/status` `calls` bucket: 30 buckets over the window, one dashboard bar each. */
export const RECENT_CALLS_BUCKET_MS = 10_000;

/**
 * Latency bins grow by 2^(1/4) (about 19 % apart, so a percentile is within about 10 % of the truth) from
 * {@link SMALLEST_MS}; {@link BINS} of them reach past ten minutes, the longest call timeout. Slower calls land in
 * the last bin.
 */
const BINS_PER_DOUBLING = 4;
const SMALLEST_MS = 0.01;
const BINS = 112;
const LOG_GROWTH = Math.LN2 / BINS_PER_DOUBLING;

interface Bucket {
  /** Epoch ms of the bucket's start; -1 for a slot not used yet. */
  at: number;
  count: number;
  errors: number;
  min: number;
  max: number;
  readonly bins: Uint32Array;
}

function binOf(ms: number): number {
  if (ms <= SMALLEST_MS) return 0;
  return Math.min(BINS - 1, Math.floor(Math.log(ms / SMALLEST_MS) / LOG_GROWTH));
}

/** The geometric middle of a bin: what a percentile falling in it is reported as. */
function binMiddle(bin: number): number {
  return SMALLEST_MS * Math.exp((bin + 0.5) * LOG_GROWTH);
}

/** The latency below which `fraction` of the bucket's calls fall, clamped to what was really seen. */
function percentile(bucket: Bucket, fraction: number): number {
  if (bucket.count === 0) return 0;
  const rank = Math.max(1, Math.ceil(fraction * bucket.count));
  let seen = 0;
  for (let bin = 0; bin < BINS; bin++) {
    seen += bucket.bins[bin]!;
    if (seen >= rank) return Math.round(Math.min(bucket.max, Math.max(bucket.min, binMiddle(bin))) * 1000) / 1000;
  }
  return bucket.max;
}

/**
 * Calls of the last few minutes in fixed time buckets, for `/status`: a ring of buckets, each counting calls and
 * errors and keeping a log-scale latency histogram, so recording is a few array writes and the memory is fixed
 * whatever the traffic.
 */
export class RecentCallsRing {
  private readonly buckets: Bucket[];

  constructor(
    private readonly windowMs = RECENT_CALLS_WINDOW_MS,
    private readonly bucketMs = RECENT_CALLS_BUCKET_MS,
    private readonly now: () => number = Date.now,
  ) {
    const slots = Math.max(1, Math.ceil(windowMs / bucketMs));
    this.buckets = Array.from({ length: slots }, () => ({ at: -1, count: 0, errors: 0, min: 0, max: 0, bins: new Uint32Array(BINS) }));
  }

  record(elapsedMs: number, failed: boolean): void {
    const at = Math.floor(this.now() / this.bucketMs) * this.bucketMs;
    const bucket = this.buckets[(at / this.bucketMs) % this.buckets.length]!;
    if (bucket.at !== at) {
      bucket.at = at;
      bucket.count = 0;
      bucket.errors = 0;
      bucket.bins.fill(0);
    }
    if (bucket.count === 0 || elapsedMs < bucket.min) bucket.min = elapsedMs;
    if (bucket.count === 0 || elapsedMs > bucket.max) bucket.max = elapsedMs;
    bucket.count++;
    if (failed) bucket.errors++;
    bucket.bins[binOf(elapsedMs)]!++;
  }

  /** Every bucket of the window, oldest first, the current (partial) one last; empty buckets count zero. */
  summary(): RecentCalls {
    const slots = this.buckets.length;
    const current = Math.floor(this.now() / this.bucketMs) * this.bucketMs;
    const buckets: RecentCalls["buckets"] = [];
    for (let i = slots - 1; i >= 0; i--) {
      const at = current - i * this.bucketMs;
      const bucket = this.buckets[(at / this.bucketMs) % slots]!;
      if (bucket.at !== at || bucket.count === 0) {
        buckets.push({ at, count: 0, errors: 0, p50: 0, p95: 0, p99: 0 });
        continue;
      }
      buckets.push({ at, count: bucket.count, errors: bucket.errors, p50: percentile(bucket, 0.5), p95: percentile(bucket, 0.95), p99: percentile(bucket, 0.99) });
    }
    return { windowMs: this.windowMs, bucketMs: this.bucketMs, buckets };
  }
}
