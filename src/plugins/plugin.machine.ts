import { assign, setup, type SnapshotFrom } from "xstate";
import type { PluginHealth, PluginHealthCheck, ProtocolError } from "../protocol/index.js";

/**
 * Lifecycle of one plugin (DESIGN §1 and §5, spec §2.4 and §3):
 * `loading → registering → loaded{healthy | degraded} | failed`, then `stopping → stopped`.
 * A contained hook failure moves `loaded.healthy → loaded.degraded`: the plugin stays loaded and available.
 */
export type PluginMachineEvent =
  | { type: "IMPORTED" }
  | { type: "LOAD_FAILED"; error: ProtocolError }
  | { type: "REGISTERED"; at: number }
  | { type: "REGISTRATION_FAILED"; error: ProtocolError }
  | { type: "HOOK_FAILED"; error: ProtocolError }
  | { type: "STOP" }
  | { type: "STOPPED" };

export interface PluginMachineContext {
  id: string;
  loadedAt: number | undefined;
  lastError: ProtocolError | undefined;
  checks: Record<string, PluginHealthCheck>;
}

export const pluginMachine = setup({
  types: {
    input: {} as { id: string },
    context: {} as PluginMachineContext,
    events: {} as PluginMachineEvent,
  },
  actions: {
    importFailed: assign(({ event }) => {
      if (event.type !== "LOAD_FAILED") return {};
      return { lastError: event.error, checks: { load: "failed", registration: "skipped" } as const };
    }),
    imported: assign({ checks: { load: "ok" } }),
    registered: assign(({ event }) => ({
      loadedAt: event.type === "REGISTERED" ? event.at : undefined,
      checks: { load: "ok", registration: "ok", runtime: "ok" } as const,
    })),
    registrationFailed: assign(({ event }) => {
      if (event.type !== "REGISTRATION_FAILED") return {};
      return { lastError: event.error, checks: { load: "ok", registration: "failed" } as const };
    }),
    hookFailed: assign(({ event, context }) => {
      if (event.type !== "HOOK_FAILED") return {};
      return { lastError: event.error, checks: { ...context.checks, runtime: "failed" } as const };
    }),
  },
}).createMachine({
  id: "plugin",
  initial: "loading",
  context: ({ input }) => ({ id: input.id, loadedAt: undefined, lastError: undefined, checks: {} }),
  states: {
    loading: {
      on: {
        IMPORTED: { target: "registering", actions: "imported" },
        LOAD_FAILED: { target: "failed", actions: "importFailed" },
        STOP: "stopped",
      },
    },
    registering: {
      on: {
        REGISTERED: { target: "loaded", actions: "registered" },
        REGISTRATION_FAILED: { target: "failed", actions: "registrationFailed" },
        STOP: "stopped",
      },
    },
    loaded: {
      initial: "healthy",
      states: {
        healthy: { on: { HOOK_FAILED: { target: "degraded", actions: "hookFailed" } } },
        // Sticky: the spec keeps the plugin available with `runtime: failed`; later failures update lastError.
        degraded: { on: { HOOK_FAILED: { actions: "hookFailed" } } },
      },
      on: { STOP: "stopping" },
    },
    failed: { on: { STOP: "stopped" } },
    stopping: {
      // onDispose failures while stopping are logged, not recorded: nobody can read the health any more.
      on: { STOPPED: "stopped", HOOK_FAILED: {} },
    },
    stopped: { type: "final" },
  },
});

export type PluginSnapshot = SnapshotFrom<typeof pluginMachine>;

/** Whether the plugin's endpoint, methods and routes are available in this state. */
export function isAvailable(snapshot: PluginSnapshot): boolean {
  return snapshot.matches("loaded");
}

/** Projects a snapshot onto the wire `PluginHealth` (spec §2.4); `clients` is counted by the caller. */
export function healthOf(snapshot: PluginSnapshot, clients: number): PluginHealth {
  const { id, loadedAt, lastError, checks } = snapshot.context;
  const health: PluginHealth = {
    id,
    status: snapshot.matches("failed") || (snapshot.status === "done" && loadedAt === undefined) ? "failed" : "loaded",
    clients,
    checks: { ...checks },
  };
  if (loadedAt !== undefined) health.loadedAt = loadedAt;
  if (lastError !== undefined) health.lastError = lastError;
  return health;
}
