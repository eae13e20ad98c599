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
 * editor (see `EditorProcess.cancel`); the host session has already answered its caller, and a late answer is
 * dropped. An editor still working on it is killed only when it is stuck: its main thread has sent nothing (not
 * even a heartbeat) for `killGraceMs`. An editor whose thread beats is alive, busy in native work that cannot stop
 * (sharp encoding a big export): it is left to finish, since killing it would lose every client's documents. A call
 * the caller cancelled is watched from its own deadline on, not from the cancel.
 */
export class PendingCalls {
  private readonly calls = new Map<number, PendingCall>();
  private lastId = 0;

  constructor(
    private readonly killGraceMs: number,
    /** How often the editor beats: how often a stopped call's editor is looked at again. */
    private readonly heartbeatMs: number,
  ) {}

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
      let immediate: NodeJS.Immediate | undefined;
      const reason = `editor killed after ignoring a cancelled call with its event loop stuck for ${this.killGraceMs} ms (${op})`;
      // Looked at after a turn's I/O: heartbeats already in the socket are read before the bridge judges the
      // editor silent (the bridge's own thread may have been the late one).
      const check = (): void => {
        immediate = setImmediate(() => {
          immediate = undefined;
          if (!this.calls.has(id)) return;
          const silent = editor.silentForMs;
          if (silent >= this.killGraceMs) editor.kill(reason);
          else killTimer = setTimeout(check, Math.max(this.heartbeatMs, this.killGraceMs - silent));
        });
      };
      const onAbort = (): void => {
        editor.cancel(id);
        const cancelled = isBridgeError(signal.reason) && signal.reason.code === "CANCELLED";
        const wait = cancelled ? (ctx.deadline === undefined ? undefined : Math.max(0, ctx.deadline - performance.now())) : 0;
        if (wait === undefined) return;
        killTimer = setTimeout(check, wait + this.killGraceMs);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      const cleanup = (): void => {
        signal.removeEventListener("abort", onAbort);
        clearTimeout(killTimer);
        if (immediate !== undefined) clearImmediate(immediate);
      };
      this.calls.set(id, { resolve, reject, progress: ctx.progress, cleanup });
      try {
        editor.send({ kind: "call", id, op, args, caller: ctx.caller, method: ctx.method, progress: ctx.progress !== undefined });
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
