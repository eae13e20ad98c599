import type { ProgressReporter } from "../../hosts/host.js";
import { BridgeError, CANCEL_METHOD, issuesOf, PROGRESS_EVENT, RequestCancelParamsSchema, type RequestCancelResult, type RequestId } from "../../protocol/index.js";

/**
 * A call's cancellation as whoever runs it sees it: the part of `AbortSignal` the bridge uses, so an HTTP request's
 * `AbortSignal` serves as one, and a WS request gets a plain object instead (an `AbortController` per request was a
 * tenth of the bridge's CPU time on small calls). Listeners run once, when it aborts.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** What a transport passes with one call beyond its method and params. */
export interface RequestControl {
  /** Aborts when the caller cancels the request (`request:cancel`, an HTTP client that went away). */
  readonly cancel?: CancelSignal | undefined;
  /** Receives the editor's progress reports; only when the caller asked for them. */
  readonly progress?: ProgressReporter | undefined;
  /** Called when the call leaves the queue and starts running (host-bound calls), or at once (the others). */
  readonly started?: (() => void) | undefined;
}

/** A {@link CancelSignal} aborted by hand: listeners kept in a plain array, made on the first one. */
export class Cancellation implements CancelSignal {
  aborted = false;
  private listeners: Array<() => void> | undefined;

  addEventListener(_type: "abort", listener: () => void): void {
    if (this.aborted) return;
    this.listeners ??= [];
    this.listeners.push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    const at = this.listeners?.indexOf(listener) ?? -1;
    if (at >= 0) this.listeners!.splice(at, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const listener of listeners ?? []) listener();
  }
}

/** One unanswered request: its cancellation, and whether it left the editor's queue. */
class Entry extends Cancellation {
  running = false;
}

/**
 * One logical client's unanswered requests, by id as sent (a number and its text are different ids), so the client
 * can cancel its own and nobody else's. A request id reused while the first is unanswered is not cancellable.
 */
export class RequestRegistry {
  /** Made on the first request: an idle client holds no empty map. */
  private entries: Map<RequestId, Entry> | undefined;

  /** Registers a request; the control to pass with its call, and the function that forgets it once answered. */
  begin(id: RequestId): { control: RequestControl; end: () => void } {
    this.entries ??= new Map();
    const entries = this.entries;
    if (entries.has(id)) return { control: {}, end: () => {} };
    const entry = new Entry();
    entries.set(id, entry);
    return {
      control: { cancel: entry, started: () => (entry.running = true) },
      end: () => {
        if (entries.get(id) !== entry) return;
        entries.delete(id);
        // An idle client holds no empty map: most clients have nothing in flight most of the time.
        if (entries.size === 0 && this.entries === entries) this.entries = undefined;
      },
    };
  }

  /** Cancels one request: what `request:cancel` answers. */
  cancel(id: RequestId): RequestCancelResult {
    const entry = this.entries?.get(id);
    if (entry === undefined || entry.aborted) return { id, cancelled: false, state: "unknown" };
    entry.abort();
    return { id, cancelled: true, state: entry.running ? "running" : "queued" };
  }

  /** Cancels every unanswered request (the client is gone for good). */
  cancelAll(): void {
    for (const entry of this.entries?.values() ?? []) entry.abort();
    this.entries?.clear();
  }
}

/** The params of `request:cancel`, checked. */
export function cancelTarget(params: unknown): RequestId {
  const parsed = RequestCancelParamsSchema.safeParse(params ?? {});
  if (!parsed.success) {
    throw new BridgeError("BAD_REQUEST", `${CANCEL_METHOD} needs the "id" of one of your requests, as you sent it`, {
      details: { issues: issuesOf(parsed.error) },
    });
  }
  return parsed.data.id;
}

/**
 * Progress reports of one request as `progress` events through `send`: values never go down, at most one event per
 * `intervalMs`, none after `close()` (the answer is on its way).
 */
export function progressEvents(requestId: RequestId, intervalMs: number, send: (frame: string) => void): { report: ProgressReporter; close: () => void } {
  let closed = false;
  let last = Number.NEGATIVE_INFINITY;
  let lastAt = Number.NEGATIVE_INFINITY;
  const idJson = JSON.stringify(requestId);
  return {
    report: (progress, total, message) => {
      if (closed || !Number.isFinite(progress) || progress < 0 || (total !== undefined && !(Number.isFinite(total) && total > 0))) return;
      const fraction = total === undefined ? progress : progress / total;
      const now = performance.now();
      if (fraction < last || now - lastAt < intervalMs) return;
      last = fraction;
      lastAt = now;
      const data = `{"requestId":${idJson},"progress":${progress}${total === undefined ? "" : `,"total":${total}`}${message === undefined ? "" : `,"message":${JSON.stringify(String(message).slice(0, MAX_PROGRESS_MESSAGE))}`}}`;
      send(`{"type":"${PROGRESS_EVENT}","data":${data}}`);
    },
    close: () => {
      closed = true;
    },
  };
}

/** Longest progress message passed on; a longer one is cut. */
const MAX_PROGRESS_MESSAGE = 200;
