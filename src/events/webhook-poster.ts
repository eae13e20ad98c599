/**
 * Where webhook attempts are made: on a thread of their own, not the bridge's. Each delivery is an HTTP request,
 * its answer and a closed connection; thirty webhooks on an event that changes twenty times a second make some
 * six hundred a second, and on the thread that reads clients' frames and routes their calls every one of them
 * waited its turn behind that work. The thread runs at a lower priority (`webhookThreadNice`), so on a machine
 * whose cores are all busy the clients' work goes first and the deliveries wait in their webhooks' queues, which
 * are bounded and count what they drop. It starts with the first delivery and does not hold the process open.
 *
 * Without the compiled thread (sources run without a build) the attempts are made on the calling thread, as the
 * same function makes them there.
 */
import { existsSync } from "node:fs";
import type { ClientRequest } from "node:http";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { packageRoot } from "../package-root.js";
import { attemptRecord, type Pending, type PostOutcome, type PostTarget, postDelivery } from "./webhook-post.js";
import type { PostAnswer, PostJob, WorkerSettings } from "./webhook-worker.js";

/**
 * The thread's heap. It holds at most one attempt per webhook at a time, a few KiB each; V8's default young
 * generation for a thread (tens of MiB) filled with each answer's read buffers before it was swept, which showed as
 * some 70 MiB more resident memory while deliveries ran at hundreds a second. A smaller one is swept more often.
 */
const THREAD_HEAP = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 } as const;

interface Job {
  readonly pending: Pending;
  readonly started: number;
  readonly resolve: (outcome: PostOutcome) => void;
}

/** The compiled delivery thread in the package, or null when it was not built. */
export function deliveryThreadEntry(root: string = packageRoot()): string | null {
  const entry = join(root, "dist", "events", "webhook-worker.js");
  return existsSync(entry) ? entry : null;
}

export class DeliveryPoster {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly jobs = new Map<number, Job>();
  /** Attempts made on the calling thread, when there is no delivery thread. */
  private readonly inFlight = new Set<ClientRequest>();
  private closed = false;

  /**
   * @param nice how much lower than the bridge's thread the delivery thread runs (`webhookThreadNice`).
   * @param entry the delivery thread's script; null makes the attempts on the calling thread.
   */
  constructor(
    private readonly nice: number,
    private readonly entry: string | null = deliveryThreadEntry(),
  ) {}

  /** Whether attempts go to the delivery thread (false: the calling thread makes them). */
  get offThread(): boolean {
    return this.entry !== null;
  }

  /** Makes one attempt; resolves with its record, never rejects. */
  post(target: PostTarget, pending: Pending): Promise<PostOutcome> {
    if (this.entry === null) return postDelivery(target, pending, this.inFlight, () => this.closed);
    const worker = this.start(this.entry);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.jobs.set(id, { pending: { ...pending }, started: performance.now(), resolve });
      if (this.jobs.size === 1) worker.ref();
      const { url, ...rest } = target;
      worker.postMessage({ id, target: { ...rest, href: url.href }, pending } satisfies PostJob);
    });
  }

  /** Ends every attempt in flight (each resolves as failed: the bridge closed) and the thread. */
  close(): void {
    this.closed = true;
    for (const req of this.inFlight) req.destroy(new Error("the bridge closed"));
    this.stopped(this.worker, "the bridge closed");
  }

  private start(entry: string): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(entry, { workerData: { nice: this.nice } satisfies WorkerSettings, name: "webhook-deliveries", resourceLimits: THREAD_HEAP });
    worker.unref();
    worker.on("message", ({ id, outcome }: PostAnswer) => {
      const job = this.jobs.get(id);
      if (job === undefined) return;
      this.jobs.delete(id);
      // Held open only while an attempt is on its way.
      if (this.jobs.size === 0) worker.unref();
      job.resolve(outcome);
    });
    worker.on("error", (error) => this.stopped(worker, `the webhook delivery thread failed: ${error.message}`));
    worker.on("exit", (code) => this.stopped(worker, `the webhook delivery thread exited with ${code}`));
    this.worker = worker;
    return worker;
  }

  /** The thread is gone (or being ended): its attempts fail with `why`, and the next delivery starts a new one. */
  private stopped(worker: Worker | undefined, why: string): void {
    if (worker === undefined || this.worker !== worker) return;
    this.worker = undefined;
    void worker.terminate();
    for (const job of this.jobs.values()) job.resolve({ record: attemptRecord(job.pending, job.started, null, why), bodyCut: false });
    this.jobs.clear();
  }
}
