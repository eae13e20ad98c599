import { existsSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../package-root.js";
import type { Limits } from "../../limits.js";
import { BridgeError } from "../../protocol/index.js";
import type { InvokeOptions } from "../api.js";
import { fromWireError, toWireError, type CallKind, type FromWorker, type ToWorker, type WireRegistration, type WorkerInit } from "./protocol.js";
import { heldBytes, overCapReason, type PluginMemory } from "./memory.js";
import { startRunner, type Runner } from "./runner.js";
import { whenAborted } from "../_internal/running-calls.js";

/** What a worker asks of the bridge: `ctx.bridge.invoke/on`, `ctx.events.emit`, `ctx.logger`, contained failures. */
export interface LinkHost {
  invoke(method: string, params: unknown, options?: InvokeOptions): Promise<unknown>;
  /** Subscribes to a main event for the worker (its setup succeeded, so no availability check). */
  listen(type: string, listener: (data: unknown) => void): () => void;
  emit(type: string, data: unknown): void;
  log(level: "debug" | "info" | "warn" | "error", obj: unknown, msg: string | undefined): void;
  hookFailed(phase: string, reason: string): void;
}

export interface WorkerLinkOptions {
  /** A worker thread, or a child process (native modules, stronger separation). */
  readonly mode: "worker" | "process";
  readonly entry: string;
  readonly mainTypes: readonly string[];
  readonly limits: Limits;
}

/**
 * Where the worker's JavaScript is: the built `dist/plugins/isolation/worker-entry.js` of the package at `root`,
 * whether this module runs from `dist/`, from a bundle, or from `src/` (vitest loads TypeScript).
 */
export function resolveWorkerEntry(root: string = packageRoot()): string | undefined {
  const entry = join(root, "dist", "plugins", "isolation", "worker-entry.js");
  return existsSync(entry) ? entry : undefined;
}

interface PendingCall {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Stops listening for its signal's abort. */
  forget: (() => void) | undefined;
}

type Waiter = { resolve: (message: FromWorker) => void; reject: (reason: string) => void };

/**
 * A worker thread silent for this many of its memory samples is blocked (a synchronous loop): it cannot report
 * what it allocates, so the bridge's own process growth stands in for it (see `WorkerLink.watchBlocked`).
 */
const BLOCKED_AFTER_SAMPLES = 3;

/**
 * The bridge's side of one plugin worker: starts it, forwards calls with ids (their signals crossing as abort
 * messages), answers its requests, pings it, and on a crash (exit, out of memory, missed ping) terminates it,
 * answers every call in flight `PLUGIN_UNAVAILABLE` and tells its supervisor (`onCrash`).
 */
export class WorkerLink {
  private worker: Runner | undefined;
  private host: LinkHost | undefined;
  private waiter: Waiter | undefined;
  private readonly calls = new Map<number, PendingCall>();
  private readonly subs = new Map<number, () => void>();
  private nextCid = 1;
  private pingN = 0;
  private pingDeadline: NodeJS.Timeout | undefined;
  private pinger: NodeJS.Timeout | undefined;
  private crashListener: ((reason: string) => void) | undefined;
  /** A worker thread: when it was last heard from, the bridge's resident memory then, and the timer watching. */
  private heardAt = 0;
  private residentWhenHeard = 0;
  private blockWatch: NodeJS.Timeout | undefined;
  /** Why the worker is down, while it is; calls then answer `PLUGIN_UNAVAILABLE` at once. */
  private down: string | undefined = "not started";
  private stopped = false;
  private config: Readonly<Record<string, unknown>> = {};
  id = "";

  constructor(private readonly options: WorkerLinkOptions) {}

  bind(host: LinkHost): void {
    this.host = host;
  }

  onCrash(listener: (reason: string) => void): void {
    this.crashListener = listener;
  }

  /** Starts a worker and imports the plugin in it; resolves with what its definition says, or rejects with a load failure. */
  async start(): Promise<{ id: unknown; events: unknown }> {
    const entry = resolveWorkerEntry();
    if (entry === undefined) throw Object.assign(new Error("the plugin worker entry is missing; build the bridge with `npm run build`"), { phase: "isolation" });
    const { limits } = this.options;
    const init: WorkerInit = {
      entry: this.options.entry,
      mainTypes: this.options.mainTypes,
      mode: this.options.mode,
      maxMemoryBytes: limits.pluginMaxMemoryBytes,
      memorySampleMs: limits.pluginMemorySampleMs,
    };
    const worker: Runner = startRunner(this.options.mode, entry, init, {
      message: (message) => {
        if (worker === this.worker) this.onMessage(message);
      },
      died: (reason) => {
        if (worker === this.worker) this.crash(reason);
      },
      refused: (message, error) => this.refused(message, error),
    });
    this.worker = worker;
    if (this.options.mode === "worker") this.watchBlocked();
    const message = await this.expect();
    if (message.t === "load-failed") throw Object.assign(new Error(message.reason), { phase: message.phase });
    if (message.t !== "loaded") throw new Error(`unexpected ${message.t} while loading`);
    if (typeof message.id === "string") this.id = message.id;
    return { id: message.id, events: message.events };
  }

  /** Runs `setup` in the worker; resolves with what it registered (then pings begin), rejects with its error. */
  async setup(config: Readonly<Record<string, unknown>>): Promise<WireRegistration> {
    this.config = config;
    this.post({ t: "setup", config });
    const message = await this.expect();
    if (message.t === "setup-failed") throw fromWireError(message.error);
    if (message.t !== "registered") throw new Error(`unexpected ${message.t} during setup`);
    this.down = undefined;
    const { pluginPingIntervalMs } = this.options.limits;
    this.pinger = setInterval(() => this.probe(), pluginPingIntervalMs);
    this.pinger.unref();
    return message.registration;
  }

  /** A fresh worker for a crashed one: the same module, set up again. */
  async restart(): Promise<WireRegistration> {
    const { id } = await this.start();
    if (id !== this.id) throw new Error(`the restarted plugin's id ${JSON.stringify(id)} differs from "${this.id}"`);
    return this.setup(this.config);
  }

  /** Runs a method, route or hook in the worker; `signal` aborting crosses as an abort and checks the worker is alive. */
  call(work: CallKind, signal?: AbortSignal): Promise<unknown> {
    if (this.down !== undefined) return Promise.reject(this.unavailable(this.down));
    const cid = this.nextCid++;
    return new Promise((resolve, reject) => {
      const forget =
        signal === undefined
          ? undefined
          : whenAborted(signal, () => {
              this.post({ t: "abort", cid });
              // A handler that ignores its signal may be spinning: a missed ping terminates and restarts the worker.
              this.probe();
            });
      this.calls.set(cid, { resolve, reject, forget });
      this.post({ t: "call", cid, ...work } as ToWorker);
    });
  }

  /** Pings the worker unless a ping is already out; no pong within `pluginPingTimeoutMs` is a crash. */
  probe(): void {
    if (this.pingDeadline !== undefined || this.worker === undefined || this.down !== undefined) return;
    const n = ++this.pingN;
    const ms = this.options.limits.pluginPingTimeoutMs;
    this.pingDeadline = setTimeout(() => {
      this.pingDeadline = undefined;
      if (n === this.pingN) this.crash(`did not answer a liveness ping within ${ms} ms`);
    }, ms);
    this.post({ t: "ping", n });
  }

  /** Terminates the worker for good (the plugin stopped or failed); calls in flight answer `PLUGIN_UNAVAILABLE`. */
  async stop(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    this.halt("the plugin stopped");
    await worker?.terminate();
  }

  private post(message: ToWorker): void {
    this.worker?.post(message);
  }

  /** A message structured clone refused: its call answers the reason; an answer to the worker's invoke answers that. */
  private refused(message: ToWorker, error: unknown): void {
    const reason = `the value cannot cross to the plugin's ${this.options.mode}: ${error instanceof Error ? error.message : String(error)}`;
    if (message.t === "call") this.settle(message.cid)?.reject(new BridgeError("INTERNAL", reason));
    else if (message.t === "invoked" && message.ok) this.post({ t: "invoked", iid: message.iid, ok: false, error: { message: reason } });
    else this.host?.log("warn", { t: message.t, reason }, "message to a plugin worker refused");
  }

  private expect(): Promise<FromWorker> {
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject: (reason) => reject(new Error(reason)) };
    });
  }

  private unavailable(reason: string): BridgeError {
    return new BridgeError("PLUGIN_UNAVAILABLE", `Plugin "${this.id}" is unavailable: ${reason}`, {
      details: { reason },
      retryable: !this.stopped,
      pluginId: this.id,
    });
  }

  /** Drops the current worker: timers stop, subscriptions end, every call in flight answers `PLUGIN_UNAVAILABLE`. */
  private halt(reason: string): void {
    this.down = reason;
    const worker = this.worker;
    this.worker = undefined;
    clearInterval(this.pinger);
    clearTimeout(this.pingDeadline);
    clearInterval(this.blockWatch);
    this.blockWatch = undefined;
    this.pinger = undefined;
    this.pingDeadline = undefined;
    for (const off of this.subs.values()) off();
    this.subs.clear();
    const error = this.unavailable(reason);
    for (const cid of [...this.calls.keys()]) this.settle(cid)?.reject(error);
    this.waiter?.reject(reason);
    this.waiter = undefined;
    // terminate() stops even a worker spinning in `while (true) {}` (V8 TerminateExecution).
    void worker?.terminate();
  }

  private crash(reason: string): void {
    if (this.stopped) return;
    const wasUp = this.down === undefined;
    this.halt(reason);
    if (!wasUp) return;
    this.host?.log("error", { reason }, "plugin worker crashed; restarting it");
    this.crashListener?.(reason);
  }

  /**
   * Ends the plugin past `pluginMaxMemoryBytes` by what it reported: in a worker its heap and external memory (the
   * `Buffer`s V8's heap cap does not count, held in the bridge's own process). A child process's resident memory is
   * also read from outside by its runner.
   */
  private checkMemory(memory: PluginMemory): void {
    const { mode, limits } = this.options;
    if (heldBytes(mode, memory) > limits.pluginMaxMemoryBytes) this.crash(overCapReason(limits.pluginMaxMemoryBytes, mode, memory));
  }

  /**
   * A worker thread blocked in a synchronous loop runs no timer and answers no ping until it returns, so it cannot
   * report the `Buffer`s it fills there, in the bridge's own process. While it is silent for `BLOCKED_AFTER_SAMPLES`
   * samples, the bridge's resident memory is read instead: grown by more than the cap since the worker's last
   * report (which carries the process's resident memory then), the worker is ended. (Another part of the bridge growing that much at that moment would end a worker
   * that is only busy; the cap is far above what the bridge's thread allocates, its heavy work being elsewhere.)
   */
  private watchBlocked(): void {
    const { pluginMemorySampleMs, pluginMaxMemoryBytes } = this.options.limits;
    // Until its first report, the worker is starting: measured from now.
    this.heardAt = performance.now();
    this.residentWhenHeard = process.memoryUsage.rss();
    clearInterval(this.blockWatch);
    this.blockWatch = setInterval(() => {
      if (performance.now() - this.heardAt < BLOCKED_AFTER_SAMPLES * pluginMemorySampleMs) return;
      const grown = process.memoryUsage.rss() - this.residentWhenHeard;
      if (grown <= pluginMaxMemoryBytes) return;
      this.crash(
        `ran out of memory (limits.pluginMaxMemoryBytes: ${pluginMaxMemoryBytes} bytes): the bridge's process grew by ${Math.round(grown / 1024 / 1024)} MiB while the worker was blocked`,
      );
    }, pluginMemorySampleMs);
    this.blockWatch.unref();
  }

  /** A memory report: the worker runs, and the bridge's process (the worker's too) was this big then. */
  private heard(memory: PluginMemory): void {
    this.heardAt = performance.now();
    this.residentWhenHeard = memory.residentBytes;
  }

  /** Takes a call out of those in flight, to answer it. */
  private settle(cid: number): PendingCall | undefined {
    const call = this.calls.get(cid);
    if (call === undefined) return undefined;
    this.calls.delete(cid);
    call.forget?.();
    return call;
  }

  private onMessage(message: FromWorker): void {
    const host = this.host;
    switch (message.t) {
      case "loaded":
      case "load-failed":
      case "registered":
      case "setup-failed": {
        const waiter = this.waiter;
        this.waiter = undefined;
        waiter?.resolve(message);
        return;
      }
      case "result": {
        const call = this.settle(message.cid);
        if (message.ok) call?.resolve(message.value);
        else call?.reject(fromWireError(message.error));
        return;
      }
      case "pong":
        if (message.n === this.pingN) {
          clearTimeout(this.pingDeadline);
          this.pingDeadline = undefined;
        }
        this.heard(message.memory);
        this.checkMemory(message.memory);
        return;
      case "memory":
        this.heard(message.memory);
        this.checkMemory(message.memory);
        return;
      case "emit":
        try {
          host?.emit(message.type, message.data);
        } catch (error) {
          host?.log("warn", { type: message.type, reason: toWireError(error).message }, "plugin emit refused");
        }
        return;
      case "log":
        host?.log(message.level, message.obj, message.msg);
        return;
      case "invoke": {
        const { iid } = message;
        const run = host === undefined ? Promise.reject(new Error("not bound")) : host.invoke(message.method, message.params, message.options as InvokeOptions);
        run.then(
          (value) => this.post({ t: "invoked", iid, ok: true, value }),
          (error: unknown) => this.post({ t: "invoked", iid, ok: false, error: toWireError(error) }),
        );
        return;
      }
      case "on": {
        const { sub } = message;
        const off = host?.listen(message.type, (data) => this.post({ t: "event", sub, data }));
        if (off !== undefined) this.subs.set(sub, off);
        return;
      }
      case "off":
        this.subs.get(message.sub)?.();
        this.subs.delete(message.sub);
        return;
      case "hook-failed":
        host?.hookFailed(message.phase, message.reason);
        return;
    }
  }
}
