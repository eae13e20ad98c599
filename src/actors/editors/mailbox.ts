/**
 * The queue in front of the editor: FIFO within a lane (one lane per logical client), and across lanes the lane
 * that used the least editor time lately goes next (equal use takes turns, oldest waiting first). Counting time,
 * not turns, is what keeps one client from starving the others: taking turns, a client whose calls hold the editor
 * for seconds (a huge import, a document made at the memory budget's edge) would hold it most of the time against
 * clients whose calls take milliseconds, and every one of theirs would wait behind one of its calls. Use fades by
 * half every `halfLifeMs`, so what a lane used long ago stops counting; a lane that starts waiting starts no lower
 * than the least-used lane already waiting, so new lanes (new clients, HTTP connections) do not jump the queue.
 * Pure data structure; the host session decides when to take the next job and says how long each ran.
 */
export interface MailboxJob {
  readonly lane: string;
  /** Set by the mailbox while the job is queued. */
  queued: boolean;
}

/** A lane's editor time: `ms` as of `at` (`now()`), fading by half every half-life since. */
interface Use {
  ms: number;
  at: number;
}

/** Faded below this (milliseconds), a lane not waiting is forgotten. */
const FORGOTTEN_BELOW_MS = 0.5;

export class Mailbox<J extends MailboxJob> {
  /** Lanes with waiting jobs, longest waiting first: the order among lanes of equal use. */
  private readonly ring: string[] = [];
  private readonly lanes = new Map<string, J[]>();
  private count = 0;
  /** Editor time per lane, for lanes waiting and lanes that ran lately. */
  private readonly use = new Map<string, Use>();
  /** `use`'s size that triggers the next sweep of forgotten lanes. */
  private sweepAt = 64;

  /**
   * @param halfLifeMs how fast a lane's editor time fades (`Infinity`: never).
   * @param now the clock, in milliseconds.
   */
  constructor(
    private readonly halfLifeMs = Infinity,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Jobs waiting (not running). */
  get depth(): number {
    return this.count;
  }

  /** Lanes with waiting jobs. */
  get laneCount(): number {
    return this.lanes.size;
  }

  /** Lanes whose editor time is remembered: waiting, or ran lately. */
  get lanesRemembered(): number {
    return this.use.size;
  }

  /** Jobs waiting in one lane. */
  laneDepth(lane: string): number {
    return this.lanes.get(lane)?.length ?? 0;
  }

  enqueue(job: J): void {
    let lane = this.lanes.get(job.lane);
    if (lane === undefined) {
      lane = [];
      // Starts no lower than the least-used lane waiting: a new lane takes its turn after that one, not first.
      if (this.ring.length > 0) {
        const at = this.now();
        const floor = this.used(this.ring[this.next(at)]!, at);
        if (this.used(job.lane, at) < floor) this.use.set(job.lane, { ms: floor, at });
      }
      this.lanes.set(job.lane, lane);
      this.ring.push(job.lane);
    }
    lane.push(job);
    job.queued = true;
    this.count++;
  }

  /** The job `take()` would return next, left in place. */
  peek(): J | undefined {
    if (this.ring.length === 0) return undefined;
    return this.lanes.get(this.ring[this.next(this.now())]!)![0];
  }

  /**
   * The first job of the lane that used the least editor time lately, or undefined when empty or when `accept`
   * turns that job down (it stays first): one search of the lanes for the caller's check and the taking.
   */
  take(accept?: (job: J) => boolean): J | undefined {
    if (this.ring.length === 0) return undefined;
    const at = this.ring.length === 1 ? 0 : this.next(this.now());
    const laneId = this.ring[at]!;
    const lane = this.lanes.get(laneId)!;
    if (accept !== undefined && !accept(lane[0]!)) return undefined;
    this.ring.splice(at, 1);
    const job = lane.shift()!;
    if (lane.length === 0) this.lanes.delete(laneId);
    else this.ring.push(laneId); // among lanes of equal use, its next job waits for the others' turns
    job.queued = false;
    this.count--;
    return job;
  }

  /** Counts `ms` of editor time to `lane` (a call of it ran that long). */
  charge(lane: string, ms: number): void {
    if (!(ms > 0)) return;
    const at = this.now();
    this.use.set(lane, { ms: this.used(lane, at) + ms, at });
    if (this.use.size >= this.sweepAt) this.sweep(at);
  }

  /** A lane's editor time as of `at`. */
  used(lane: string, at: number = this.now()): number {
    const use = this.use.get(lane);
    if (use === undefined) return 0;
    return this.halfLifeMs === Infinity ? use.ms : use.ms * 2 ** ((use.at - at) / this.halfLifeMs);
  }

  /** Where in the ring the lane that used the least is (the longest waiting of equals). */
  private next(at: number): number {
    let best = 0;
    let least = Infinity;
    for (let i = 0; i < this.ring.length; i++) {
      const used = this.used(this.ring[i]!, at);
      if (used < least) {
        least = used;
        best = i;
      }
    }
    return best;
  }

  /** Forgets lanes not waiting whose time has faded away; runs again once as many lanes are known again. */
  private sweep(at: number): void {
    for (const lane of this.use.keys()) if (!this.lanes.has(lane) && this.used(lane, at) < FORGOTTEN_BELOW_MS) this.use.delete(lane);
    this.sweepAt = Math.max(64, this.use.size * 2);
  }

  /** Removes a queued job (its deadline passed or its caller went away). */
  remove(job: J): boolean {
    if (!job.queued) return false;
    const lane = this.lanes.get(job.lane);
    const at = lane?.indexOf(job) ?? -1;
    if (lane === undefined || at < 0) return false;
    lane.splice(at, 1);
    job.queued = false;
    this.count--;
    if (lane.length === 0) {
      this.lanes.delete(job.lane);
      this.ring.splice(this.ring.indexOf(job.lane), 1);
    }
    return true;
  }

  /** Empties the mailbox and returns what was waiting, oldest first per lane. */
  drain(): J[] {
    const out: J[] = [];
    for (const laneId of this.ring) for (const job of this.lanes.get(laneId) ?? []) out.push(job);
    for (const job of out) job.queued = false;
    this.ring.length = 0;
    this.lanes.clear();
    this.count = 0;
    return out;
  }
}
