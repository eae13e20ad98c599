import { assign, fromPromise, setup, type SnapshotFrom } from "xstate";
import { BridgeError, isBridgeError, toProtocolError, type PluginHealth, type PluginHealthCheck, type ProtocolError } from "../protocol/index.js";
import type { PluginDefinition } from "./api.js";
import type { LinkHost } from "./isolation/link.js";

/**
 * Lifecycle of one plugin, driven by the machine itself:
 * `loading` (import and check the module) → `registering` (run `setup`, bounded by the named `setupDeadline`) →
 * `loaded{healthy | degraded}` | `failed{load | registration}`, then `stopping` (dispose) → `stopped`.
 * A contained hook failure moves `loaded.healthy → loaded.degraded`: the plugin stays loaded and available.
 * An isolated plugin whose worker dies (exit, out of memory, missed ping) goes `crashed` → (after the named
 * `restartBackoff`) `restarting` → `loaded`, or `failed.crashed` once it crashed more than `restartAttempts`
 * times within `restartWindowMs`.
 * The health `checks` are derived from the state, never stored.
 */

/** What loading a plugin produced: its final id, its definition and its configuration. */
export interface LoadedPlugin {
  readonly id: string;
  readonly definition: PluginDefinition;
  readonly config: Readonly<Record<string, unknown>>;
  /** The manifest lets its methods be MCP tools (`imageEditorBridge.mcp`). */
  readonly mcp?: boolean | undefined;
  /** An isolated plugin's worker: the machine restarts it after a crash and releases it when the plugin ends. */
  readonly supervised?: Supervised | undefined;
}

/** What supervision needs of an isolated plugin's worker (`WorkerLink`). */
export interface Supervised {
  /** Gives the worker the bridge's side of `ctx` (invoke, events, logs, contained failures). */
  bind(host: LinkHost): void;
  /** Calls `listener` when the worker crashes while up. */
  onCrash(listener: (reason: string) => void): void;
  /** Starts a fresh worker and sets the plugin up in it again. */
  restart(): Promise<unknown>;
  /** Terminates the worker for good. */
  stop(): Promise<void>;
}

/** How often a crashed plugin is restarted (`limits.pluginRestart*`). */
export interface RestartPolicy {
  readonly attempts: number;
  readonly windowMs: number;
  readonly backoffMs: number;
}

/**
 * The work the machine invokes, supplied by the plugin instance (`pluginMachine.provide`). `register` runs
 * `setup` and returns what to commit; its `signal` aborts when the machine leaves `registering` (deadline or
 * stop), after which nothing it registers may stay.
 */
export type PluginMachineEvent =
  | { type: "HOOK_FAILED"; error: ProtocolError }
  | { type: "CRASHED"; reason: string }
  | { type: "RELOAD_FAILED"; error: ProtocolError }
  | { type: "STOP" };

export interface PluginMachineContext {
  /** The id known so far: the folder or manifest's before loading, the definition's after. */
  id: string;
  setupTimeoutMs: number;
  loaded: LoadedPlugin | undefined;
  loadedAt: number | undefined;
  lastError: ProtocolError | undefined;
  restartPolicy: RestartPolicy;
  /** Restarts so far. */
  restarts: number;
  /** When the crashes within the restart window happened. */
  crashes: number[];
  lastCrash: { reason: string; at: number } | undefined;
}

function reasonText(error: unknown): string {
  if (error instanceof Error) return error.message;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : String(error);
}

const NO_RESTARTS: RestartPolicy = { attempts: 0, windowMs: 60_000, backoffMs: 100 };

/** Records a crash: its reason and time, and forgets crashes older than the restart window. */
function crashUpdate(context: PluginMachineContext, reason: string): Partial<PluginMachineContext> {
  const at = Date.now();
  return {
    lastCrash: { reason, at },
    crashes: [...context.crashes.filter((t) => at - t < context.restartPolicy.windowMs), at],
  };
}

/** A failure of a phase as the wire error the health reports. */
function phaseError(code: "PLUGIN_LOAD_FAILED" | "PLUGIN_REGISTRATION_FAILED", id: string, error: unknown): ProtocolError {
  if (isBridgeError(error) && error.code === code) return toProtocolError(error, { pluginId: id });
  const reason = error instanceof Error ? error.message : String(error);
  const phase = code === "PLUGIN_LOAD_FAILED" ? "load" : "setup";
  const verb = code === "PLUGIN_LOAD_FAILED" ? "load" : "register";
  return toProtocolError(new BridgeError(code, `Plugin "${id}" failed to ${verb}: ${reason}`, { details: { phase, reason }, pluginId: id }));
}

export const pluginMachine = setup({
  types: {
    input: {} as { id: string; setupTimeoutMs: number; restartPolicy?: RestartPolicy },
    context: {} as PluginMachineContext,
    events: {} as PluginMachineEvent,
  },
  // The work the machine invokes, supplied by the plugin instance (`pluginMachine.provide`): `load` imports and
  // checks the module and claims its id; `register` runs `setup` and returns what to commit (its `signal` aborts
  // when the machine leaves `registering` — deadline or stop — after which nothing it registered may stay);
  // `dispose` runs `onDispose`.
  actors: {
    load: fromPromise<LoadedPlugin, { id: string }>(() => Promise.reject(new Error("no loader provided"))),
    register: fromPromise<unknown, LoadedPlugin>(() => Promise.reject(new Error("no registration provided"))),
    dispose: fromPromise<void>(async () => {}),
    restart: fromPromise<unknown>(() => Promise.reject(new Error("no supervisor provided"))),
  },
  actions: {
    /** Makes what `setup` registered live (the host's implementation). */
    commit: () => {},
    /** Tells the endpoint's clients the plugin serves again (`plugin:restarted`). */
    announceRestart: () => {},
    /** Tells the endpoint's clients the plugin gave up restarting (`plugin:failed`). */
    announceFailure: () => {},
  },
  guards: {
    /** More crashes within the window than restarts allowed. */
    restartsExhausted: ({ context }) => context.crashes.length > context.restartPolicy.attempts,
  },
  delays: {
    /** `setup` may take this long; past it nothing it registered stays. */
    setupDeadline: ({ context }) => context.setupTimeoutMs,
    /** Doubles with each crash in the window, so a crash loop cannot spin the CPU. */
    restartBackoff: ({ context }) => context.restartPolicy.backoffMs * 2 ** Math.max(0, context.crashes.length - 1),
  },
}).createMachine({
  id: "plugin",
  initial: "loading",
  context: ({ input }) => ({
    id: input.id,
    setupTimeoutMs: input.setupTimeoutMs,
    loaded: undefined,
    loadedAt: undefined,
    lastError: undefined,
    restartPolicy: input.restartPolicy ?? NO_RESTARTS,
    restarts: 0,
    crashes: [],
    lastCrash: undefined,
  }),
  states: {
    loading: {
      invoke: {
        id: "load",
        src: "load",
        input: ({ context }) => ({ id: context.id }),
        onDone: { target: "registering", actions: assign({ id: ({ event }) => event.output.id, loaded: ({ event }) => event.output }) },
        onError: {
          target: "failed.load",
          actions: assign(({ event, context }) => {
            // The loader names the best id it learnt (the manifest's) on its error: the health goes under it.
            const id = isBridgeError(event.error) && event.error.pluginId !== undefined ? event.error.pluginId : context.id;
            return { id, lastError: phaseError("PLUGIN_LOAD_FAILED", id, event.error) };
          }),
        },
      },
      on: { STOP: "stopped" },
    },
    registering: {
      invoke: {
        id: "register",
        src: "register",
        input: ({ context }) => context.loaded!,
        onDone: { target: "loaded", actions: ["commit", assign({ loadedAt: () => Date.now() })] },
        onError: {
          target: "failed.registration",
          actions: assign({ lastError: ({ event, context }) => phaseError("PLUGIN_REGISTRATION_FAILED", context.id, event.error) }),
        },
      },
      after: {
        setupDeadline: {
          target: "failed.registration",
          actions: assign({
            lastError: ({ context }) =>
              phaseError("PLUGIN_REGISTRATION_FAILED", context.id, new Error(`setup did not finish within ${context.setupTimeoutMs} ms`)),
          }),
        },
      },
      on: { STOP: "stopped" },
    },
    loaded: {
      initial: "healthy",
      states: {
        healthy: { on: { HOOK_FAILED: { target: "degraded", actions: assign({ lastError: ({ event }) => event.error }) } } },
        // Sticky: the spec keeps the plugin available with `runtime: failed`; later failures update lastError.
        degraded: { on: { HOOK_FAILED: { actions: assign({ lastError: ({ event }) => event.error }) } } },
      },
      on: {
        STOP: "stopping",
        CRASHED: { target: "crashed", actions: assign(({ context, event }) => crashUpdate(context, event.reason)) },
        // A failed reload leaves this instance serving; the health says why the new code was refused.
        RELOAD_FAILED: { actions: assign({ lastError: ({ event }) => event.error }) },
      },
    },
    crashed: {
      always: {
        guard: "restartsExhausted",
        target: "failed.crashed",
        actions: [
          assign({
            lastError: ({ context }) =>
              toProtocolError(
                new BridgeError(
                  "PLUGIN_UNAVAILABLE",
                  `Plugin "${context.id}" crashed ${context.crashes.length} times within ${context.restartPolicy.windowMs} ms and is not restarted again: ${context.lastCrash?.reason}`,
                  { details: { reason: context.lastCrash?.reason, crashes: context.crashes.length }, retryable: false, pluginId: context.id },
                ),
              ),
          }),
          "announceFailure",
        ],
      },
      after: { restartBackoff: "restarting" },
      on: { STOP: "stopping" },
    },
    restarting: {
      invoke: {
        id: "restart",
        src: "restart",
        onDone: { target: "loaded", actions: [assign({ restarts: ({ context }) => context.restarts + 1, loadedAt: () => Date.now() }), "announceRestart"] },
        onError: {
          target: "crashed",
          actions: assign(({ context, event }) => crashUpdate(context, `restart failed: ${reasonText(event.error)}`)),
        },
      },
      on: { STOP: "stopping" },
    },
    failed: {
      initial: "load",
      states: { load: {}, registration: {}, crashed: {} },
      on: { STOP: "stopped", RELOAD_FAILED: { actions: assign({ lastError: ({ event }) => event.error }) } },
    },
    stopping: {
      invoke: { id: "dispose", src: "dispose", onDone: "stopped", onError: "stopped" },
      // onDispose failures while stopping are logged, not recorded: nobody can read the health any more.
      on: { HOOK_FAILED: {} },
    },
    stopped: { type: "final" },
  },
});

export type PluginSnapshot = SnapshotFrom<typeof pluginMachine>;

/** Whether the plugin's endpoint, methods and routes are available in this state. */
export function isAvailable(snapshot: PluginSnapshot): boolean {
  // While a crashed plugin restarts its endpoint stays open: calls answer PLUGIN_UNAVAILABLE (retryable) meanwhile.
  return snapshot.matches("loaded") || snapshot.matches("crashed") || snapshot.matches("restarting");
}

/** The health checks of a state: derived from where the plugin is, nothing stored. */
export function checksOf(snapshot: PluginSnapshot): Record<string, PluginHealthCheck> {
  if (snapshot.matches({ failed: "load" })) return { load: "failed", registration: "skipped" };
  if (snapshot.matches({ failed: "registration" })) return { load: "ok", registration: "failed" };
  if (snapshot.matches({ loaded: "healthy" })) return { load: "ok", registration: "ok", runtime: "ok" };
  if (snapshot.matches({ loaded: "degraded" })) return { load: "ok", registration: "ok", runtime: "failed" };
  if (snapshot.matches("crashed") || snapshot.matches("restarting") || snapshot.matches({ failed: "crashed" })) {
    return { load: "ok", registration: "ok", runtime: "failed" };
  }
  if (snapshot.matches("registering")) return { load: "ok" };
  return {};
}

/** Projects a snapshot onto the wire `PluginHealth`; `clients` is counted by the caller. */
export function healthOf(snapshot: PluginSnapshot, clients: number): PluginHealth {
  const { id, loadedAt, lastError, restarts, lastCrash } = snapshot.context;
  const health: PluginHealth = {
    id,
    status: snapshot.matches("failed") || (snapshot.status === "done" && loadedAt === undefined) ? "failed" : "loaded",
    clients,
    checks: checksOf(snapshot),
  };
  if (loadedAt !== undefined) health.loadedAt = loadedAt;
  if (lastError !== undefined) health.lastError = lastError;
  if (restarts > 0 || lastCrash !== undefined) health.restarts = restarts;
  if (lastCrash !== undefined) health.lastCrash = lastCrash;
  return health;
}
