import { Subject } from "rxjs";
import { describe, expect, it } from "vitest";
import type { SerializedEvent } from "../../src/methods/index.js";
import { resolveLimits } from "../../src/limits.js";
import { silentLogger } from "../../src/logger.js";
import type { PluginContext, PluginDefinition } from "../../src/plugins/api.js";
import { PluginInstance, type PluginEnvironment } from "../../src/plugins/plugin.js";

function environment(): { env: PluginEnvironment; selection: Subject<SerializedEvent> } {
  const selection = new Subject<SerializedEvent>();
  const env: PluginEnvironment = {
    limits: resolveLimits({ pluginSetupTimeoutMs: 100 }),
    log: silentLogger(),
    invoke: () => Promise.resolve(null),
    mainStream: (type) => (type === "selection:changed" ? selection.asObservable() : undefined),
    mainTypes: () => ["selection:changed"],
  };
  return { env, selection };
}

/** A plugin whose machine loads `definition` and runs its setup; resolves once it is loaded or failed. */
async function registered(env: PluginEnvironment, definition: PluginDefinition): Promise<PluginInstance> {
  const plugin = new PluginInstance(definition.id, `/${definition.id}`, env, async () => ({ id: definition.id, definition, config: {} }));
  await plugin.settled();
  return plugin;
}

describe("plugin registration", () => {
  it("a setup that throws leaves no method, route or event subscription behind", async () => {
    const { env, selection } = environment();
    const plugin = await registered(env, {
      id: "p",
      setup(ctx) {
        ctx.method("p:m", () => 1);
        ctx.route("GET", "/r", () => 1);
        ctx.bridge.on("selection:changed", () => {});
        throw new Error("no");
      },
    });
    expect(plugin.health(0).status).toBe("failed");
    expect(plugin.hasMethod("p:m")).toBe(false);
    expect(plugin.matchRoute("GET", ["r"])).toBeNull();
    expect(selection.observed).toBe(false);
  });

  it("a setup that succeeds commits its registrations and subscriptions at once", async () => {
    const { env, selection } = environment();
    const heard: unknown[] = [];
    const plugin = await registered(env, {
      id: "p",
      setup(ctx) {
        ctx.method("p:m", () => 1);
        ctx.route("GET", "/r/:x", () => 1);
        ctx.bridge.on("selection:changed", (data) => heard.push(data));
      },
    });
    expect(plugin.hasMethod("p:m")).toBe(true);
    expect(plugin.matchRoute("GET", ["r", "7"])?.params).toEqual({ x: "7" });
    selection.next({ type: "selection:changed", json: '{"x":1}' });
    expect(heard).toEqual([{ x: 1 }]);
    await plugin.stop("test");
    expect(selection.observed).toBe(false);
  });

  it("a setup past its deadline fails, and what it registers later is refused", async () => {
    const { env } = environment();
    let ctx: PluginContext | undefined;
    let release: () => void = () => {};
    const plugin = await registered(env, {
      id: "p",
      setup(c) {
        ctx = c;
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    expect(plugin.health(0).lastError?.code).toBe("PLUGIN_REGISTRATION_FAILED");
    release();
    expect(() => ctx!.method("p:late", () => 1)).toThrow(/only possible during setup/);
    expect(plugin.hasMethod("p:late")).toBe(false);
  });

  it.each([
    ["a bad method name", (ctx: PluginContext) => ctx.method("has space", () => 1), /must match/],
    ["a reserved method name", (ctx: PluginContext) => ctx.method("event:subscribe", () => 1), /reserved/],
    ["a method registered twice", (ctx: PluginContext) => { for (const _ of [1, 2]) ctx.method("m", () => 1); }, /twice/],
    ["a non-standard schema", (ctx: PluginContext) => ctx.method("m", {} as never, () => 1), /Standard Schema/],
    ["the reserved health route", (ctx: PluginContext) => ctx.route("GET", "/health", () => 1), /reserved/],
    ["the reserved events route", (ctx: PluginContext) => ctx.route("GET", "/events/:x", () => 1), /reserved/],
    ["an unknown verb", (ctx: PluginContext) => ctx.route("TRACE" as never, "/x", () => 1), /must be one of/],
    ["a route registered twice", (ctx: PluginContext) => { for (const p of ["/a/:x", "/a/:y"]) ctx.route("GET", p, () => 1); }, /twice/],
    ["an unknown main event", (ctx: PluginContext) => ctx.bridge.on("nope", () => {}), /Unknown event type/],
    ["hooks that are not functions", () => ({ onConnect: 3 }) as never, /onConnect must be a function/],
  ])("%s fails registration with the reason", async (_name, setup, reason) => {
    const plugin = await registered(environment().env, { id: "p", setup: setup as never });
    const health = plugin.health(0);
    expect(health.lastError).toMatchObject({ code: "PLUGIN_REGISTRATION_FAILED", details: { phase: "setup" } });
    expect(String(health.lastError?.details?.["reason"])).toMatch(reason);
  });

  it("a plugin cannot declare or emit a main event as its own", async () => {
    const plugin = await registered(environment().env, { id: "p", events: ["selection:changed"], setup() {} });
    expect(plugin.health(0).lastError?.details?.["reason"]).toMatch(/main event/);
    const ok = await registered(environment().env, { id: "q", setup() {} });
    expect(() => ok.emit("selection:changed", {})).toThrow(/main event/);
    expect(() => ok.emit("#ready", {})).toThrow(/must match/);
  });
});
