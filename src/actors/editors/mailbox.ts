/**
 * The queue in front of the editor: FIFO within a lane (one lane per logical client), round-robin across lanes,
 * so one busy client cannot starve the others. Pure data structure; the host session
 * decides when to take the next job.
 */
export interface MailboxJob {
  readonly lane: string;
  /** Set by the mailbox while the job is queued. */
  queued: boolean;
}

export class Mailbox<J extends MailboxJob> {
  /** Lanes with waiting jobs, in turn order. */
  private readonly ring: string[] = [];
  private readonly lanes = new Map<string, J[]>();
  private count = 0;

  /** Jobs waiting (not running). */
  get depth(): number {
    return this.count;
  }

  /** Lanes with waiting jobs. */
  get laneCount(): number {
    return this.lanes.size;
  }

  /** Jobs waiting in one lane. */
  laneDepth(lane: string): number {
    return this.lanes.get(lane)?.length ?? 0;
  }

  enqueue(job: J): void {
    let lane = this.lanes.get(job.lane);
    if (lane === undefined) {
      lane = [];
      this.lanes.set(job.lane, lane);
      this.ring.push(job.lane);
    }
    lane.push(job);
    job.queued = true;
    this.count++;
  }

  /** The job `take()` would return next, left in place. */
  peek(): J | undefined {
    const laneId = this.ring[0];
    return laneId === undefined ? undefined : this.lanes.get(laneId)![0];
  }

  /** The next job in round-robin order, or undefined when empty. */
  take(): J | undefined {
    const laneId = this.ring.shift();
    if (laneId === undefined) return undefined;
    const lane = this.lanes.get(laneId)!;
    const job = lane.shift()!;
    if (lane.length === 0) this.lanes.delete(laneId);
    else this.ring.push(laneId); // its next job waits for every other lane's turn
    job.queued = false;
    this.count--;
    return job;
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
