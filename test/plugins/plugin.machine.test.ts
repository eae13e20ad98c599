import { getSimplePaths } from "xstate/graph";
import { describe, expect, it } from "vitest";
import { PluginHealthSchema, type ProtocolError } from "../../src/protocol/index.js";
import { healthOf, isAvailable, pluginMachine, type PluginMachineEvent, type PluginSnapshot } from "../../src/plugins/plugin.machine.js";

const error = (code: string): ProtocolError => ({ code, message: code, details: { phase: "x", reason: "y" } });
const EVENTS: PluginMachineEvent[] = [
  { type: "IMPORTED" },
  { type: "LOAD_FAILED", error: error("PLUGIN_LOAD_FAILED") },
  { type: "REGISTERED", at: 1_700_000_000_000 },
  { type: "REGISTRATION_FAILED", error: error("PLUGIN_REGISTRATION_FAILED") },
  { type: "HOOK_FAILED", error: error("PLUGIN_LIFECYCLE_FAILED") },
  { type: "STOP" },
  { type: "STOPPED" },
];

/** What spec §2.4/§3 demand of the health in each state the plugin can reach. */
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
    expect(health.loadedAt).toBe(1_700_000_000_000);
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
  const paths = getSimplePaths(pluginMachine, { events: EVENTS, input: { id: "p" } });

  it("reaches every state of the lifecycle", () => {
    const reached = new Set(paths.map((p) => JSON.stringify(p.state.value)));
    for (const state of ["loading", "registering", { loaded: "healthy" }, { loaded: "degraded" }, "failed", "stopping", "stopped"]) {
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

  it("a loaded plugin whose hook fails stays loaded (spec §3)", () => {
    const degraded = paths.find((p) => p.state.matches({ loaded: "degraded" }));
    expect(degraded?.steps.map((s) => s.event.type)).toEqual(["xstate.init", "IMPORTED", "REGISTERED", "HOOK_FAILED"]);
  });
});
