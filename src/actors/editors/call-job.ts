import { BridgeError } from "../../protocol/index.js";
import type { HostCallContext, ProgressReporter } from "../../hosts/host.js";
import type { MailboxJob } from "./mailbox.js";
import type { CancelSignal } from "../clients/requests.js";

/*
 * One host-bound call as the host session keeps it: its options, its record while queued and running, the context
 * the editor sees, and the answer a cancelled call gets. The session (`./host-session.ts`) decides when each
 * happens; this file only says what each is.
 */

/** How a call is queued and bounded. */
export interface CallOptions {
  /** Mailbox lane: the logical client id (or an HTTP connection's lane). */
  readonly lane: string;
  /** How logs name the caller, when the dispatcher already knows (`client:<prefix>`); else made from `lane`. */
  readonly callerName?: string | undefined;
  readonly method: string;
  /** Whether the call changes the document; a mutation that times out reports `outcome: "unknown"`. */
  readonly mutates: boolean;
  readonly timeoutMs: number;
  /**
   * Aborts when the caller cancels. A queued call is removed; a running one answers at once and its editor is told
   * to stop (its slot stays taken until the editor comes back). Both answer `CANCELLED`.
   */
  readonly cancel?: CancelSignal | undefined;
  /** Receives the editor's progress reports while the call runs (never after its answer). */
  readonly progress?: ProgressReporter | undefined;
  /** Called when the call leaves the queue and starts. */
  readonly started?: (() => void) | undefined;
}

export interface Job extends MailboxJob {
  readonly options: CallOptions;
  readonly run: (ctx: HostCallContext) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  /** Created only when the host reads `ctx.signal`: most calls never need one. */
  controller: AbortController | undefined;
  timer: NodeJS.Timeout | undefined;
  /** When the bridge gives up on the call (`performance.now()`), counted from when it was queued. */
  readonly deadline: number;
  /** Why the call was aborted (cancelled or out of time), once it was. */
  abortReason: BridgeError | undefined;
  /** Stops listening to `options.cancel`. */
  unlisten: (() => void) | undefined;
  /** The caller has its answer (result, TIMEOUT or HOST_UNAVAILABLE); a late host result is dropped. */
  answered: boolean;
  /** The job's mailbox slot is free again. */
  released: boolean;
  startedAt: number;
}

/** A fresh record of a call, queued now: its deadline counts from this moment. */
export function newJob(options: CallOptions, run: Job["run"], resolve: Job["resolve"], reject: Job["reject"]): Job {
  return {
    lane: options.lane,
    queued: false,
    options,
    run,
    resolve,
    reject,
    controller: undefined,
    timer: undefined,
    deadline: performance.now() + options.timeoutMs,
    abortReason: undefined,
    unlisten: undefined,
    answered: false,
    released: false,
    startedAt: 0,
  };
}

/**
 * What the editor sees of a running call: a signal made only when read (most calls never need one), a checkpoint
 * that throws once the call was aborted, its deadline, and progress reports dropped once the caller has its answer.
 */
export function callContext(job: Job, caller: string): HostCallContext {
  const { progress } = job.options;
  return {
    get signal() {
      if (job.controller === undefined) {
        job.controller = new AbortController();
        if (job.abortReason !== undefined) job.controller.abort(job.abortReason);
      }
      return job.controller.signal;
    },
    caller,
    method: job.options.method,
    checkpoint: () => {
      if (job.abortReason !== undefined) throw job.abortReason;
    },
    deadline: job.deadline,
    ...(progress === undefined ? {} : { progress: (value: number, total?: number, message?: string) => job.answered || progress(value, total, message) }),
  };
}

/** The answer of a cancelled call: `not-started` when it left the queue, else whether its effect is known. */
export function cancelledError(options: CallOptions, state: "not-started" | "running"): BridgeError {
  if (state === "not-started") {
    return new BridgeError("CANCELLED", `${options.method} was cancelled before it started`, { details: { outcome: "not-started" } });
  }
  return new BridgeError("CANCELLED", `${options.method} was cancelled while running; the editor was told to stop`, {
    details: options.mutates ? { outcome: "unknown" } : {},
  });
}
