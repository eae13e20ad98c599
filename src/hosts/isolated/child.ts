/*
 * The editor process: the embedded editor (`createEmbeddedHost`) serving the bridge over fd 3. Started by
 * `editor-process.ts` as `dist/hosts/isolated/child.js`; it never outlives the bridge: when the channel closes (the
 * bridge closed it, exited or died) the process exits.
 */
import { Socket } from "node:net";
import { Worker } from "node:worker_threads";
import type { Subscription } from "rxjs";
import { pino, type Logger } from "pino";
// The editor's modules import the protocol's modules they use, not protocol/index.js: the index builds every
// method's schema, which an editor process never reads, and its start is paid on every restart (and in most tests).
import { BridgeError } from "../../protocol/errors.js";
import { createEmbeddedHost } from "../embedded/index.js";
import type { RecoveredDocument } from "../embedded/recovery.js";
import type { HostAdapter, HostCallContext } from "../host.js";
import { type CancelFlags, watchCancels } from "./cancel-flags.js";
import { Channel } from "./channel.js";
import { EDITOR_ORPHAN_CHECK_MS, EDITOR_PROGRESS_INTERVAL_MS, SPILL_MIN_BYTES } from "./limits.js";
import { HOST_OPS, PDEATHSIG_ENV, toWireError, type ChildMessage, type EditorInit, type HostOp, type ParentMessage } from "./protocol.js";
import { testOp } from "./test-hooks.js";
import { SPILL_DIR_ENV, spillWriter } from "./spill.js";

/** The channel's file descriptor: the fourth entry of the parent's `stdio`. */
const CHANNEL_FD = 3;

/** Exit code when the bridge's frames make no sense (EX_SOFTWARE). */
const EXIT_PROTOCOL_ERROR = 70;

type Send = (message: ChildMessage) => void;
type Operation = (ctx: HostCallContext, ...args: unknown[]) => Promise<unknown>;

/** A logger whose every line becomes a `log` message to the bridge, which logs it with `actor: "editor"`. */
function forwardingLogger(level: string, send: Send): Logger {
  return pino(
    {
      level,
      hooks: {
        logMethod(args, _method, levelNumber) {
          const [first, second] = args as unknown[];
          const obj = typeof first === "object" && first !== null ? plainFields(first as Record<string, unknown>) : {};
          const msg = typeof first === "string" ? first : typeof second === "string" ? second : undefined;
          send({ kind: "log", level: this.levels.labels[levelNumber] ?? "info", obj, msg });
        },
      },
    },
    { write: () => {} },
  );
}

/** Errors keep their name and message across the hop (JSON would make them `{}`). */
function plainFields(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(obj).map(([key, value]) => [key, value instanceof Error ? { name: value.name, message: value.message } : value]),
  );
}

/** Builds the editor from the bridge's `init`, reporting the open documents whenever they change. */
function buildEditor(init: EditorInit, send: Send, hooks: { recovered(documents: RecoveredDocument[]): void }): HostAdapter {
  return createEmbeddedHost({
    sample: init.sample,
    open: init.open,
    maxDocumentPixels: init.maxDocumentPixels,
    maxPsdGroupDepth: init.maxPsdGroupDepth,
    memoryBudgetBytes: init.memoryBudgetBytes,
    historySteps: init.historySteps,
    historyBudgetPercent: init.historyBudgetPercent,
    fontsDirs: init.fontsDirs,
    systemFonts: init.systemFonts,
    scriptLimits: init.scriptLimits,
    cutout: init.cutout,
    files: init.files === undefined ? undefined : { ...init.files, policy: Object.freeze({ ...init.files.policy }) },
    firstDocumentId: init.firstDocumentId,
    logger: forwardingLogger(init.logLevel, send),
    onDocumentsChange: (ids, nextId) => send({ kind: "documents", ids, nextId }),
    recovery: init.recovery,
    recover: init.recover,
    onRecovered: hooks.recovered,
    onRecoveryState: (state) => send({ kind: "recovery", state }),
  });
}

/** The operation a `call` names, or `undefined` when the editor has none by that name. */
function operationOf(host: HostAdapter, op: string): Operation | undefined {
  const hook = testOp(op, host);
  if (hook !== undefined) return () => hook();
  if (!(HOST_OPS as readonly string[]).includes(op)) return undefined;
  const fn = host[op as HostOp];
  return typeof fn === "function" ? (fn as Operation).bind(host) : undefined;
}

/** Why a call stopped, as the editor sees it; the bridge has already answered the caller with the real reason. */
function stopped(): BridgeError {
  return new BridgeError("CANCELLED", "The bridge stopped this call (cancelled or out of time)");
}

/** Progress of one call as `progress` messages: never decreasing, at most one per `EDITOR_PROGRESS_INTERVAL_MS`. */
function progressSender(id: number, send: Send): (progress: number, total?: number, message?: string) => void {
  let last = Number.NEGATIVE_INFINITY;
  let lastAt = Number.NEGATIVE_INFINITY;
  return (progress, total, message) => {
    if (!Number.isFinite(progress) || progress < 0 || (total !== undefined && !(total > 0))) return;
    const fraction = total === undefined ? progress : progress / total;
    const now = performance.now();
    if (fraction < last || now - lastAt < EDITOR_PROGRESS_INTERVAL_MS) return;
    last = fraction;
    lastAt = now;
    send({ kind: "progress", id, progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) });
  };
}

/** Serves the bridge's messages: calls run concurrently (the bridge's mailbox decides how many). */
function serve(channel: Channel<ParentMessage, ChildMessage>, flags: CancelFlags): (message: ParentMessage) => void {
  const send: Send = (message) => channel.send(message);
  const running = new Map<number, AbortController>();
  const subscriptions = new Map<string, Subscription>();
  let host: HostAdapter | undefined;
  let reported = "";

  /** Sends the memory use when it differs from what the bridge last heard (only calls change it). */
  function reportMemory(): void {
    const use = host?.memoryUse?.();
    if (use === undefined) return;
    const text = JSON.stringify(use);
    if (text === reported) return;
    reported = text;
    send({ kind: "memory", use });
  }

  async function call(id: number, op: string, args: unknown[], caller: string, method: string | undefined, wantsProgress: boolean): Promise<void> {
    const controller = new AbortController();
    running.set(id, controller);
    const since = performance.now();
    const checkpoint = (): void => {
      if (!controller.signal.aborted && flags.cancelled(id, since)) controller.abort(stopped());
      if (controller.signal.aborted) throw controller.signal.reason;
    };
    const ctx: HostCallContext = {
      signal: controller.signal,
      caller,
      method,
      checkpoint,
      ...(wantsProgress ? { progress: progressSender(id, send) } : {}),
    };
    try {
      const operation = host === undefined ? undefined : operationOf(host, op);
      if (operation === undefined) throw new BridgeError("NOT_SUPPORTED", `The editor has no operation ${op}`, { details: { capability: op } });
      const value = await operation(ctx, ...args);
      send({ kind: "result", id, ok: true, value });
    } catch (error) {
      send({ kind: "result", id, ok: false, error: toWireError(error) });
    } finally {
      running.delete(id);
      reportMemory();
    }
  }

  async function start(init: EditorInit): Promise<void> {
    // Beats while the main thread turns; a thread stuck where no checkpoint reaches stops it, which is how the
    // bridge tells a stuck editor (killed) from one busy in native work (left to finish).
    setInterval(() => send({ kind: "heartbeat" }), init.heartbeatMs).unref();
    try {
      let recovered: RecoveredDocument[] | undefined;
      host = buildEditor(init, send, { recovered: (documents) => (recovered = documents) });
      const info = await host.connect();
      reportMemory();
      send({ kind: "ready", hostVersion: info.hostVersion, recovered });
    } catch (error) {
      send({ kind: "failed", error: toWireError(error) });
    }
  }

  function subscribe(type: string): void {
    if (subscriptions.has(type)) return;
    const stream = host?.events(type);
    if (stream === undefined) return;
    subscriptions.set(type, stream.subscribe((data) => send({ kind: "event", type, data })));
  }

  async function close(): Promise<void> {
    for (const subscription of subscriptions.values()) subscription.unsubscribe();
    subscriptions.clear();
    await host?.close();
    channel.end(() => process.exit(0));
  }

  return (message) => {
    switch (message.kind) {
      case "init":
        void start(message.options);
        return;
      case "call":
        void call(message.id, message.op, message.args, message.caller, message.method, message.progress === true);
        return;
      case "cancel":
        running.get(message.id)?.abort(stopped());
        return;
      case "subscribe":
        subscribe(message.type);
        return;
      case "unsubscribe":
        subscriptions.get(message.type)?.unsubscribe();
        subscriptions.delete(message.type);
        return;
      case "close":
        void close();
        return;
    }
  };
}

/**
 * Where the kernel does not kill this process with the bridge, a thread of its own does: it keeps running while the
 * main thread is stuck (a `for(;;){}`, a native call), and kills the process once its parent is gone.
 */
const WATCHDOG_SOURCE = `
const { workerData } = require("node:worker_threads");
const gone = (pid) => { try { process.kill(pid, 0); return false; } catch { return true; } };
setInterval(() => {
  if (process.ppid !== workerData.parent || gone(workerData.parent)) process.kill(workerData.self, "SIGKILL");
}, workerData.every);
`;

function watchParent(): void {
  if (process.env[PDEATHSIG_ENV] === "1") return;
  const workerData = { parent: process.ppid, self: process.pid, every: EDITOR_ORPHAN_CHECK_MS };
  new Worker(WATCHDOG_SOURCE, { eval: true, workerData }).unref();
}

function main(): void {
  watchParent();
  const socket = new Socket({ fd: CHANNEL_FD, readable: true, writable: true });
  let handle: (message: ParentMessage) => void = () => {};
  const spillDir = process.env[SPILL_DIR_ENV];
  const channel = new Channel<ParentMessage, ChildMessage>(
    socket,
    {
      message: (message) => handle(message),
      error: (error) => {
        process.stderr.write(`editor process: ${error.message}\n`);
        process.exit(EXIT_PROTOCOL_ERROR);
      },
      // The bridge closed the channel, exited or died: an editor never outlives it.
      close: () => process.exit(0),
    },
    { writer: spillDir ? spillWriter(spillDir, SPILL_MIN_BYTES) : undefined },
  );
  handle = serve(channel, watchCancels());
}

main();
