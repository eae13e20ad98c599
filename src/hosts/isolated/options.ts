import type { Logger } from "../../logger.js";
import type { EmbeddedHostOptions } from "../embedded/index.js";
import type { HostAdapter } from "../host.js";

/** Options of `createIsolatedEmbeddedHost`: the embedded editor's own, plus how its process is run. */
export interface IsolatedEmbeddedHostOptions
  extends Pick<EmbeddedHostOptions, "sample" | "open" | "maxDocumentPixels" | "maxPsdGroupDepth" | "memoryBudgetBytes" | "historySteps" | "historyBudgetPercent" | "fontsDirs" | "systemFonts" | "scriptLimits" | "cutout" | "files"> {
  /** The bridge's logger; the editor's own log lines arrive in it with `actor: "editor"`. @default none */
  readonly logger?: Logger | undefined;
  /**
   * While a cancelled call (its `ctx.signal` aborted) is still running, how long the editor's main thread may send
   * nothing, not even its heartbeat, before its process is killed and `lost$` emits: a `for(;;){}` no checkpoint
   * reaches must not hold the editor, while native work that keeps the thread free (an encode) is left to finish.
   * @default DEFAULT_LIMITS.editorKillGraceMs (10_000)
   */
  readonly killGraceMs?: number | undefined;
  /**
   * Memory cap of the editor process, native memory included: `RLIMIT_DATA` (through `/bin/sh`'s `ulimit -d`),
   * V8's old space at `EDITOR_HEAP_SHARE` of it, and an RSS sampler that kills the process past it.
   * @default DEFAULT_LIMITS.editorMaxMemoryBytes (half the machine's memory, at least 1 GiB)
   */
  readonly maxMemoryBytes?: number | undefined;
  /**
   * Apply the cap as `RLIMIT_DATA` too. Off, only V8's cap and the RSS sampler apply (as on Windows, which has no
   * `/bin/sh`).
   * @default true
   */
  readonly rlimit?: boolean | undefined;
  /**
   * Recovery copies of the open documents (a PSD per changed document, in a private folder the editor's loss does
   * not touch), so a restarted editor reopens them under their ids; `false` (or `maxBytes` 0) turns them off.
   * @default DEFAULT_LIMITS.editorRecoveryIntervalMs, editorRecoverySettleMs, editorRecoveryMaxBytes
   */
  readonly recovery?: { readonly intervalMs?: number; readonly settleMs?: number; readonly maxBytes?: number } | false | undefined;
  /** Extra Node flags for the editor process (the bridge's own `execArgv` is not inherited). @default [] */
  readonly execArgv?: readonly string[] | undefined;
  /** Forward the editor process's stderr to the bridge's. @default true */
  readonly forwardStderr?: boolean | undefined;
}

/** The embedded editor in its own process, seen as a `HostAdapter` with its process's vital signs. */
export type IsolatedHost = HostAdapter & {
  /** How many times the editor process was lost after it had become ready. */
  readonly restarts: number;
  /** Pid of the running editor process, if one is running. */
  readonly pid: number | undefined;
  /** Open documents (the editor's ids) whose recovery copy holds their latest change. */
  readonly copiedDocumentIds: number[];
};
