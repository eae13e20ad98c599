import { getSimplePaths } from "xstate/graph";
import { describe, expect, it } from "vitest";
import { BridgeError, PluginHealthSchema } from "../../src/protocol/index.js";
import { healthOf, isAvailable, pluginMachine, type PluginMachineEvent, type PluginSnapshot } from "../../src/plugins/plugin.machine.js";

const failure = (code: string): Error => new BridgeError(code, code, { details: { phase: "x", reason: "y" } });
/**
 * Every way the world can answer the machine: the work it invokes finishing or failing, the setup deadline
 * passing, a contained hook failure, a stop. The graph walk feeds them as the events XState itself delivers.
 */
const EVENTS = [
  { type: "xstate.done.actor.load", output: { id: "p", definition: { id: "p", setup() {} }, config: {} } },
  { type: "xstate.error.actor.load", error: failure("PLUGIN_LOAD_FAILED") },
  { type: "xstate.done.actor.register", output: {} },
  { type: "xstate.error.actor.register", error: new Error("setup threw") },
  { type: "xstate.after.setupDeadline.plugin.registering" },
  { type: "HOOK_FAILED", error: { code: "PLUGIN_LIFECYCLE_FAILED", message: "hook", details: { phase: "x", reason: "y" } } },
  { type: "STOP" },
  { type: "xstate.done.actor.dispose" },
] as unknown as PluginMachineEvent[];

/** What the protocol demands of the health in each state the plugin can reach. */
function expectHealthFits(snapshot: PluginSnapshot): void {
  const health = healthOf(snapshot, 2);
  expect(PluginHealthSchema.safeParse(health).success).toBe(true);
  expect(health.clients).toBe(2);
  const { checks } = health;
  if (snapshot.matches("failed")) {
    expect(health.status).toBe("failed");
    expect(isAvailable(snapshot)).toBe(false);
    if (health.lastError?.code === "PLUGIN_LOAD_FAILED") expect(checks).toEqual({ load: "failed", registration: "skipped" });
    else {
      expect(health.lastError?.code).toBe("PLUGIN_REGISTRATION_FAILED");
      expect(checks).toEqual({ load: "ok", registration: "failed" });
    }
    expect(health.loadedAt).toBeUndefined();
  } else if (snapshot.matches({ loaded: "healthy" })) {
    expect(health.status).toBe("loaded");
    expect(isAvailable(snapshot)).toBe(true);
    expect(checks).toEqual({ load: "ok", registration: "ok", runtime: "ok" });
    expect(health.lastError).toBeUndefined();
    expect(health.loadedAt).toEqual(expect.any(Number));
  } else if (snapshot.matches({ loaded: "degraded" })) {
    // Spec §3: a contained hook failure keeps the plugin loaded, runtime failed, lastError PLUGIN_LIFECYCLE_FAILED.
    expect(health.status).toBe("loaded");
    expect(isAvailable(snapshot)).toBe(true);
    expect(checks).toEqual({ load: "ok", registration: "ok", runtime: "failed" });
    expect(health.lastError?.code).toBe("PLUGIN_LIFECYCLE_FAILED");
  } else {
    // loading, registering, stopping, stopped: never open for clients.
    expect(isAvailable(snapshot)).toBe(false);
  }
}

describe("plugin machine (model-based)", () => {
  const paths = getSimplePaths(pluginMachine, { events: EVENTS, input: { id: "p", setupTimeoutMs: 10_000 } });

  it("reaches every state of the lifecycle", () => {
    const reached = new Set(paths.map((p) => JSON.stringify(p.state.value)));
    for (const state of ["loading", "registering", { loaded: "healthy" }, { loaded: "degraded" }, { failed: "load" }, { failed: "registration" }, "stopping", "stopped"]) {
      expect(reached).toContain(JSON.stringify(state));
    }
  });

  it("maps every reachable state, along every simple path, to the health the spec demands", () => {
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) {
      for (const step of path.steps) expectHealthFits(step.state);
      expectHealthFits(path.state);
    }
  });

  it("a loaded plugin whose hook fails stays loaded", () => {
    const degraded = paths.find((p) => p.state.matches({ loaded: "degraded" }));
    expect(degraded?.steps.map((s) => s.event.type)).toEqual(["xstate.init", "xstate.done.actor.load", "xstate.done.actor.register", "HOOK_FAILED"]);
  });
});

describe("plugin machine deadline", () => {
  it("a setup still running at the named setupDeadline fails registration, reason named", () => {
    const paths = getSimplePaths(pluginMachine, { events: EVENTS, input: { id: "p", setupTimeoutMs: 1234 } });
    const timedOut = paths.find((p) => (p.steps.at(-1)?.event.type as string) === "xstate.after.setupDeadline.plugin.registering");
    expect(timedOut?.state.matches({ failed: "registration" })).toBe(true);
    expect(healthOf(timedOut!.state, 0).lastError).toMatchObject({
      code: "PLUGIN_REGISTRATION_FAILED",
      details: { phase: "setup", reason: "setup did not finish within 1234 ms" },
    });
  });
});
