/**
 * The webhook delivery thread (started by `webhook-poster.ts` as `dist/events/webhook-worker.js`): it POSTs the
 * attempts the bridge's thread hands it, each with `postDelivery`, and answers each one's outcome. Before its first
 * delivery it lowers its own scheduling priority by `workerData.nice` (on Linux a thread's niceness is its own, so
 * the bridge's thread keeps its priority): when the cores are busy, the threads serving clients go first and the
 * receivers wait, which their queues absorb.
 */
import type { ClientRequest } from "node:http";
import { getPriority, setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { type Pending, type PostOutcome, postDelivery } from "./webhook-post.js";

/** One attempt to make: the target as plain data (a `URL` does not cross threads). */
export interface PostJob {
  readonly id: number;
  readonly target: { readonly href: string; readonly secret: string; readonly allowPrivate: boolean; readonly timeoutMs: number; readonly maxBodyBytes: number };
  readonly pending: Pending;
}

/** What the thread answers for each job. */
export interface PostAnswer {
  readonly id: number;
  readonly outcome: PostOutcome;
}

/** What the bridge's thread starts the worker with. */
export interface WorkerSettings {
  /** Added to the thread's niceness (capped at 19); 0 leaves it as the bridge's. */
  readonly nice: number;
}

/** The lowest scheduling priority Linux knows. */
const LOWEST_PRIORITY = 19;

const port = parentPort;
if (port === null) throw new Error("webhook-worker.js runs as a worker thread of the bridge");
const { nice } = workerData as WorkerSettings;
if (nice > 0) {
  try {
    setPriority(Math.min(LOWEST_PRIORITY, getPriority() + nice));
  } catch {
    // A system that refuses it leaves the thread at the bridge's priority: deliveries still go.
  }
}

const inFlight = new Set<ClientRequest>();
port.on("message", (job: PostJob) => {
  const target = { ...job.target, url: new URL(job.target.href) };
  void postDelivery(target, job.pending, inFlight, () => false).then((outcome) => port.postMessage({ id: job.id, outcome } satisfies PostAnswer));
});
