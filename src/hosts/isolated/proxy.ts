import { DEFAULT_LIMITS } from "../../limits.js";
import { CUTOUT_EVENT, EMBEDDED_CUTOUT_METHODS } from "../embedded/cutout/index.js";
import { EMBEDDED_EDIT_CAPABILITIES } from "../embedded/edits/index.js";
import { EMBEDDED_EVENT_TYPES } from "../embedded/events.js";
import { embeddedScriptLanguage } from "../embedded/scripts.js";
import { DEFAULT_SCRIPT_LIMITS } from "../embedded/scripts/index.js";
import type { HostAdapter, HostCallContext } from "../host.js";
import type { IsolatedEmbeddedHostOptions, IsolatedHost } from "./options.js";
import { RECOVERY_WRITE_SLICE_BYTES } from "./limits.js";
import { EDITOR_RESTARTED_EVENT, HOST_OPS, TEST_OP_PREFIX, type HostOp } from "./protocol.js";
import { ReadCache } from "./read-cache.js";
import { EditorSupervisor, type SupervisorSettings } from "./supervisor.js";
import { TEST_HOOK, type TestHook } from "./test-hooks.js";

/** The spec's main events, which the embedded editor produces besides its own. */
const MAIN_EVENT_TYPES = ["selection:changed", "layer:selectionChange", "layer:previewChange"] as const;

/** Every operation of the embedded editor, each forwarded to its process. */
type HostOps = { [K in HostOp]-?: NonNullable<HostAdapter[K]> };

/**
 * The embedded editor in its own process, behind a proxy with the full `HostAdapter` of `createEmbeddedHost`: same
 * `kind`, event types (plus `editor:restarted`), script language and operations, local files. Its scripts,
 * compositing, PSD reading and writing, cutouts and import decoding run off the bridge's thread; a stuck call, an
 * out-of-memory or a native crash ends that process, never the bridge, and `connect()` starts a fresh one.
 * See `README.md` beside this file.
 *
 * @example
 * const host = createIsolatedEmbeddedHost({ sample: true, logger });
 * await host.connect();
 * host.lost$.subscribe((error) => logger.warn(error.message));
 */
export function createIsolatedEmbeddedHost(options: IsolatedEmbeddedHostOptions = {}): IsolatedHost {
  const eventTypes = [...EMBEDDED_EVENT_TYPES, CUTOUT_EVENT, EDITOR_RESTARTED_EVENT];
  const supervisor = new EditorSupervisor({
    init: {
      sample: options.sample !== false,
      open: options.open,
      maxDocumentPixels: options.maxDocumentPixels,
      maxPsdGroupDepth: options.maxPsdGroupDepth,
      memoryBudgetBytes: options.memoryBudgetBytes,
      historySteps: options.historySteps,
      historyBudgetPercent: options.historyBudgetPercent,
      fontsDirs: options.fontsDirs,
      systemFonts: options.systemFonts,
      scriptLimits: options.scriptLimits,
      cutout: options.cutout,
      files: options.files,
      logLevel: options.logger?.level ?? "silent",
    },
    process: {
      execArgv: options.execArgv ?? [],
      maxMemoryBytes: options.maxMemoryBytes ?? DEFAULT_LIMITS.editorMaxMemoryBytes,
      rlimit: options.rlimit !== false,
      forwardStderr: options.forwardStderr !== false,
    },
    killGraceMs: options.killGraceMs ?? DEFAULT_LIMITS.editorKillGraceMs,
    recovery: recoverySettings(options.recovery),
    eventTypes: new Set<string>([...MAIN_EVENT_TYPES, ...EMBEDDED_EVENT_TYPES, CUTOUT_EVENT]),
    logger: options.logger,
  });
  const cache = new ReadCache();
  const operations = Object.fromEntries(
    HOST_OPS.map((op) => [op, (ctx: HostCallContext, ...args: unknown[]) => cache.run(op, args, () => supervisor.call(op, ctx, args))]),
  ) as unknown as HostOps;

  const host: IsolatedHost = {
    kind: "embedded",
    eventTypes,
    filesystem: "local",
    // The editor process serves every call it is sent, each to completion; reads overlap the hop (the bridge's
    // `hostReadConcurrency` limit decides how many).
    readConcurrency: Number.MAX_SAFE_INTEGER,
    scriptLanguage: embeddedScriptLanguage({ ...DEFAULT_SCRIPT_LIMITS, ...options.scriptLimits }),
    cutoutMethods: EMBEDDED_CUTOUT_METHODS,
    editCapabilities: EMBEDDED_EDIT_CAPABILITIES,
    lost$: supervisor.lost$,
    connect: () => {
      cache.clear();
      return supervisor.connect();
    },
    close: () => supervisor.close(),
    events: (type) => supervisor.events(type),
    ...operations,
    // The cache's answers are the editor's last ones, dropped before any change is sent (`read-cache.ts`).
    peek: (op, args) => cache.peek(op, args),
    get restarts() {
      return supervisor.restarts;
    },
    get pid() {
      return supervisor.pid;
    },
    get copiedDocumentIds() {
      return supervisor.copiedDocumentIds;
    },
    memoryUse: () => supervisor.memoryUse,
    takeRecovery: () => supervisor.takeRecovery(),
  };
  // The tests' way to make the editor fail on purpose (`test-hooks.ts`); hidden from enumeration.
  Object.defineProperty(host, TEST_HOOK, {
    value: (hook: TestHook, ctx?: HostCallContext) =>
      supervisor.call(`${TEST_OP_PREFIX}${hook}`, ctx ?? { signal: new AbortController().signal, caller: "test" }, []),
  });
  return host;
}

/** The recovery copies' settings, with the bridge's defaults; `undefined` when they are off. */
function recoverySettings(recovery: IsolatedEmbeddedHostOptions["recovery"]): SupervisorSettings["recovery"] {
  if (recovery === false) return undefined;
  const maxBytes = recovery?.maxBytes ?? DEFAULT_LIMITS.editorRecoveryMaxBytes;
  if (maxBytes <= 0) return undefined;
  return {
    intervalMs: recovery?.intervalMs ?? DEFAULT_LIMITS.editorRecoveryIntervalMs,
    settleMs: recovery?.settleMs ?? DEFAULT_LIMITS.editorRecoverySettleMs,
    maxBytes,
    writeSliceBytes: RECOVERY_WRITE_SLICE_BYTES,
  };
}
