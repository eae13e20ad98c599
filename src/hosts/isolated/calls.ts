import { BridgeError, isBridgeError } from "../../protocol/index.js";
import type { HostCallContext, ProgressReporter } from "../host.js";
import type { EditorProcess } from "./editor-process.js";
import { fromWireError, type ChildMessage } from "./protocol.js";

interface PendingCall {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly progress: ProgressReporter | undefined;
  /** Stops listening to the call's signal and clears its kill timer. */
  readonly cleanup: () => void;
}

type ResultMessage = Extract<ChildMessage, { kind: "result" }>;
type ProgressMessage = Extract<ChildMessage, { kind: "progress" }>;

/**
 * The calls sent to the editor process and not answered yet. A call whose `ctx.signal` aborts is stopped in the
 * editor (see `EditorProcess.cancel`). When it aborted for running out of time and the editor has not answered
 * `killGraceMs` later, the editor is killed (its thread is stuck: a native call that never returns) and every call
 * fails with `HOST_UNAVAILABLE`. A call the caller cancelled is not worth the editor's documents: the editor is
 * killed only if it is still not back `killGraceMs` past the call's own deadline.
 */
export class PendingCalls {
  private readonly calls = new Map<number, PendingCall>();
  private lastId = 0;

  constructor(private readonly killGraceMs: number) {}

  get size(): number {
    return this.calls.size;
  }

  /** Sends a call to `editor` and resolves with its answer. */
  start(editor: EditorProcess, op: string, ctx: HostCallContext, args: unknown[]): Promise<unknown> {
    const { signal } = ctx;
    if (signal.aborted) {
      return Promise.reject(isBridgeError(signal.reason) ? signal.reason : new BridgeError("TIMEOUT", "The call was aborted before the editor finished"));
    }
    const id = ++this.lastId;
    return new Promise((resolve, reject) => {
      let killTimer: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        editor.cancel(id);
        const cancelled = isBridgeError(signal.reason) && signal.reason.code === "CANCELLED";
        const wait = cancelled ? (ctx.deadline === undefined ? undefined : Math.max(0, ctx.deadline - performance.now())) : 0;
        if (wait === undefined) return;
        const reason = cancelled
          ? `editor killed after ignoring a cancelled call past its deadline and ${this.killGraceMs} ms more (${op})`
          : `editor killed after ignoring a cancelled call for ${this.killGraceMs} ms (${op})`;
        killTimer = setTimeout(() => editor.kill(reason), wait + this.killGraceMs);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      const cleanup = (): void => {
        signal.removeEventListener("abort", onAbort);
        clearTimeout(killTimer);
      };
      this.calls.set(id, { resolve, reject, progress: ctx.progress, cleanup });
      try {
        editor.send({ kind: "call", id, op, args, caller: ctx.caller, progress: ctx.progress !== undefined });
      } catch (error) {
        // The message could not be framed (a blob past 4 GiB): nothing was sent.
        this.take(id)?.reject(error);
      }
    });
  }

  /** The editor answered a call (a late answer to a call already failed is dropped). */
  settle(message: ResultMessage): void {
    const call = this.take(message.id);
    if (call === undefined) return;
    if (message.ok) call.resolve(message.value);
    else call.reject(fromWireError(message.error));
  }

  /** The editor reported progress on a call that asked for it. */
  progress(message: ProgressMessage): void {
    this.calls.get(message.id)?.progress?.(message.progress, message.total, message.message);
  }

  /** Fails every call (the editor process is gone). */
  failAll(error: () => Error): void {
    for (const id of [...this.calls.keys()]) this.take(id)?.reject(error());
  }

  private take(id: number): PendingCall | undefined {
    const call = this.calls.get(id);
    if (call === undefined) return undefined;
    this.calls.delete(id);
    call.cleanup();
    return call;
  }
}
