import type { Observable } from "rxjs";
import { createActor, fromPromise, waitFor, type Actor } from "xstate";
import type { PluginContract } from "../methods/contract/index.js";
import type { SerializedEvent } from "../methods/index.js";
import type { Limits } from "../limits.js";
import type { Logger } from "../logger.js";
import { BridgeError, toProtocolError, type PluginHealth } from "../protocol/index.js";
import type {
  InvokeOptions,
  PluginCallContext,
  PluginDisconnectInfo,
  PluginHooks,
  PluginRouteHandler,
  PluginRouteRequest,
} from "./api.js";
import { Admissions } from "./_internal/admissions.js";
import { withDeadline } from "./_internal/deadline.js";
import { MainListeners } from "./_internal/main-listeners.js";
import { RunningCalls } from "./_internal/running-calls.js";
import { matchRoute, routePath } from "./_internal/route-pattern.js";
import { reasonOf, toPluginError } from "./errors.js";
import { issuesToDetails } from "./isolation/definition.js";
import { LocalEvents, PLUGIN_LIFECYCLE_EVENTS } from "./local-events.js";
import { healthOf, isAvailable, pluginMachine, type LoadedPlugin, type PluginMachineContext, type Supervised } from "./plugin.machine.js";
import { runSetup, type MethodEntry, type RouteEntry, type Staged } from "./registration.js";


/** What a plugin needs from the bridge around it. */
export interface PluginEnvironment {
  readonly limits: Limits;
  readonly log: Logger;
  /** Calls a built-in method on the plugin's own mailbox lane (`plugin:<id>`). */
  invoke(pluginId: string, method: string, params: unknown, options?: InvokeOptions): Promise<unknown>;
  /** A main event stream (`ctx.bridge.on`), or undefined for a type the bridge does not know. */
  mainStream(type: string): Observable<SerializedEvent> | undefined;
  /** Main event types, so plugin-local ones cannot shadow them. */
  mainTypes(): readonly string[];
}

/** What a successful `setup` registered, committed when the machine reaches `loaded`. */
interface Registered {
  readonly staged: Staged;
  readonly hooks: PluginHooks;
  readonly events: readonly string[];
}

/**
 * One plugin: its lifecycle actor (which loads, registers and disposes it), what it registered, its plugin-local
 * event streams and its hooks. Every call into plugin code goes through here, contained and bounded.
 */
export class PluginInstance {
  readonly actor: Actor<typeof pluginMachine>;
  private methods = new Map<string, MethodEntry>();
  private routes: RouteEntry[] = [];
  private hooks: PluginHooks = {};
  private config: Readonly<Record<string, unknown>> = {};
  private readonly local: LocalEvents;
  /** Its listeners on main events (`ctx.bridge.on`). */
  private readonly main: MainListeners;
  /** Clients whose `onConnect` succeeded, and the hook runs nobody awaits (shutdown waits for them). */
  private readonly admissions = new Admissions(
    () => this.id,
    () => this.hooks,
    (phase, hook) => this.runHook(phase, hook),
  );
  /** Running method and route calls: bounded, aborted at shutdown, awaited by a reload. */
  private readonly calls = new RunningCalls();
  /** Why the plugin is stopping, for `onDispose`. */
  private stopReason = "shutdown";

  /**
   * Starts the lifecycle at once: `load` imports and checks the module and claims its id (rejecting with
   * `PLUGIN_LOAD_FAILED`, its `pluginId` the best id known, when it cannot).
   */
  constructor(
    fallbackId: string,
    readonly dir: string,
    private readonly env: PluginEnvironment,
    load: (instance: PluginInstance) => Promise<LoadedPlugin>,
  ) {
    this.local = new LocalEvents(() => env.mainTypes());
    this.main = new MainListeners((type) => env.mainStream(type), (error) => this.hookFailed("event", error));
    const machine = pluginMachine.provide({
      actors: {
        load: fromPromise(() => load(this)),
        register: fromPromise<unknown, LoadedPlugin>(({ input, signal }) => this.register(input, signal)),
        dispose: fromPromise(() => this.dispose()),
        restart: fromPromise(() => this.supervised?.restart() ?? Promise.reject(new Error("the plugin is not isolated"))),
      },
      actions: {
        commit: ({ event }) => this.commit((event as unknown as { output: Registered }).output),
        // The context as of the transition: the actor's snapshot is not updated yet while actions run.
        announceRestart: ({ context }) => {
          this.announce("plugin:restarted", context);
          this.admissions.readmit("restart");
        },
        announceFailure: ({ context }) => this.announce("plugin:failed", context),
      },
    });
    const { limits: l } = env;
    const restartPolicy = { attempts: l.pluginRestartAttempts, windowMs: l.pluginRestartWindowMs, backoffMs: l.pluginRestartBackoffMs };
    this.actor = createActor(machine, { input: { id: fallbackId, setupTimeoutMs: l.pluginSetupTimeoutMs, restartPolicy } });
    let logged: unknown;
    this.actor.subscribe((snapshot) => {
      if (snapshot.matches("failed") && snapshot.context.lastError !== undefined && logged !== snapshot.context.lastError) {
        logged = snapshot.context.lastError;
        const { code, message, details } = snapshot.context.lastError;
        this.log.error({ code, phase: details?.["phase"], reason: details?.["reason"] }, message);
      }
      // A worker whose plugin failed or stopped is terminated: nothing may keep running behind a closed endpoint.
      if ((snapshot.matches("failed") || snapshot.status === "done") && this.supervised !== undefined) void this.supervised.stop();
    });
    this.actor.start();
  }

  private get supervised(): Supervised | undefined {
    return this.actor.getSnapshot().context.loaded?.supervised;
  }

  /** The plugin's id: its folder's or manifest's until the module says otherwise. */
  get id(): string {
    return this.actor.getSnapshot().context.id;
  }

  get log(): Logger {
    return this.env.log.child({ actor: `plugin:${this.id}` });
  }

  /** Resolves once loading and registration are over (loaded, failed, or stopped meanwhile). */
  settled(): Promise<void> {
    return waitFor(this.actor, (s) => !s.matches("loading") && !s.matches("registering")).then(() => undefined);
  }

  /** Its manifest lets its methods be offered as MCP tools (`imageEditorBridge.mcp: true`); only while loaded. */
  get offersMcpTools(): boolean {
    return this.available && this.actor.getSnapshot().context.loaded?.mcp === true;
  }

  /** What this plugin serves, for the published contract: method names, routes (below `/plugins/{id}`), event types. */
  describe(): PluginContract {
    return {
      id: this.id,
      methods: [...this.methods.keys()].map((name) => ({ name })),
      routes: this.routes.map((route) => ({ verb: route.verb, path: routePath(route.pattern) })),
      events: this.local.list(),
    };
  }

  get available(): boolean {
    return isAvailable(this.actor.getSnapshot());
  }

  health(clients: number): PluginHealth {
    return healthOf(this.actor.getSnapshot(), clients);
  }

  /** The error `/ws/{id}` is refused with, or null when the endpoint is open. */
  endpointError(): BridgeError | null {
    if (this.available) return null;
    const last = this.actor.getSnapshot().context.lastError;
    if (last !== undefined) {
      return new BridgeError(last.code, last.message, { ...(last.details ? { details: last.details } : {}), pluginId: this.id });
    }
    return new BridgeError("PLUGIN_NOT_FOUND", `Plugin "${this.id}" is not loaded`, { pluginId: this.id });
  }

  /**
   * Runs `setup` (the machine bounds it with its `setupDeadline`). Registrations are staged and become live only
   * when the machine commits them; once `signal` aborts (deadline, stop) the context refuses further ones.
   */
  private async register(loaded: LoadedPlugin, signal: AbortSignal): Promise<Registered> {
    const { definition } = loaded;
    this.config = loaded.config;
    const events: string[] = [];
    for (const type of definition.events ?? []) {
      const problem = this.local.problem(type);
      if (problem !== null) throw new Error(problem);
      events.push(type);
    }
    const staged: Staged = { methods: new Map(), routes: [], listeners: [] };
    const invoke = (method: string, params: unknown, options?: InvokeOptions): Promise<unknown> => this.env.invoke(this.id, method, params, options);
    if (loaded.supervised !== undefined) {
      const log = (level: "debug" | "info" | "warn" | "error", obj: unknown, msg: string | undefined): void => this.log[level](obj as object, msg);
      const hookFailed = (phase: string, reason: string): void => this.hookFailed(phase, new Error(reason));
      loaded.supervised.bind({ invoke, listen: (type, listener) => this.main.add(type, listener), emit: (type, data) => this.emit(type, data), log, hookFailed });
      loaded.supervised.onCrash((reason) => this.actor.send({ type: "CRASHED", reason }));
      events.push(...PLUGIN_LIFECYCLE_EVENTS);
    }
    const hooks = await runSetup(
      definition,
      {
        id: this.id,
        config: this.config,
        log: this.log,
        emit: (type, data) => this.emit(type, data),
        invoke,
        mainStream: (type) => this.env.mainStream(type),
        mainTypes: () => this.env.mainTypes(),
        listen: (type, listener) => this.listen(type, listener),
      },
      staged,
      () => !signal.aborted,
    );
    return { staged, hooks, events };
  }

  /** Makes a successful registration live (the machine's `commit`, on entering `loaded`). */
  private commit({ staged, hooks, events }: Registered): void {
    this.hooks = hooks;
    this.methods = staged.methods;
    this.routes = staged.routes;
    for (const type of events) this.local.declare(type);
    // Runs as the machine enters `loaded` (the snapshot does not say so yet), hence no availability check.
    for (const { type, listener } of staged.listeners) this.main.add(type, listener);
    this.log.info({ methods: [...this.methods.keys()], routes: this.routes.length }, "plugin loaded");
  }

  /** Sends a supervision event to the endpoint's subscribers, whatever the plugin's state. */
  private announce(type: (typeof PLUGIN_LIFECYCLE_EVENTS)[number], context: PluginMachineContext): void {
    const { restarts, lastCrash } = context;
    this.local.send(type, { id: this.id, restarts, reason: lastCrash?.reason ?? null, at: Date.now() });
  }

  /**
   * Takes over a replaced instance's clients (hot reload): its event streams, so subscribers keep receiving, and
   * its admitted clients, so they get `onDisconnect` from the new code.
   */
  adopt(previous: PluginInstance): void {
    this.local.adopt(previous.local);
    this.admissions.takeOver(previous.admissions);
    this.admissions.readmit("reload");
  }

  /** A reload of this plugin failed: it keeps serving, and its health says why. */
  reloadFailed(error: BridgeError): void {
    this.actor.send({ type: "RELOAD_FAILED", error: toProtocolError(error) });
  }

  /** `ctx.bridge.on` after setup: only while the plugin is loaded. */
  private listen(type: string, listener: (data: unknown) => void): () => void {
    return this.available ? this.main.add(type, listener) : () => {};
  }

  /** Sends a plugin-local event to subscribers of this plugin's endpoint; unknown types become known. */
  emit(type: string, data: unknown): void {
    const problem = this.local.problem(type);
    if (problem !== null) throw new BridgeError("BAD_REQUEST", `Cannot emit: ${problem}`, { pluginId: this.id });
    if (!this.available) return;
    this.local.declare(type);
    this.local.send(type, data);
  }

  /** Plugin-local event types clients of this endpoint may subscribe to. */
  eventTypes(): string[] {
    return this.local.list();
  }

  /** The stream of a plugin-local event type, or undefined when the plugin has never declared or emitted it. */
  eventStream(type: string): Observable<SerializedEvent> | undefined {
    return this.local.stream(type);
  }

  hasMethod(name: string): boolean {
    return this.available && this.methods.has(name);
  }

  /** Whether the plugin registered this method, available or not (a plugin that failed after crashing still did). */
  registered(name: string): boolean {
    return this.methods.has(name);
  }

  /** Runs a plugin method: params validated by its schema, bounded by `pluginCallTimeoutMs`, errors contained. */
  async callMethod(name: string, rawParams: unknown, call: Omit<PluginCallContext, "signal">): Promise<unknown> {
    const entry = this.methods.get(name);
    if (entry === undefined || !this.available) {
      throw new BridgeError("UNKNOWN_METHOD", `Unknown method "${name}"`, { details: { method: name }, pluginId: this.id });
    }
    let params = rawParams;
    if (entry.schema !== undefined) {
      const result = await entry.schema["~standard"].validate(rawParams ?? {});
      if (result.issues !== undefined) {
        throw new BridgeError("BAD_REQUEST", `Invalid params for ${name}`, {
          details: { issues: issuesToDetails(result.issues) },
          pluginId: this.id,
        });
      }
      params = result.value;
    }
    return this.bounded(`method ${name}`, (signal) => entry.handler(params, { ...call, signal }));
  }

  /** Finds the route for a request below `/plugins/{id}`, or null. */
  matchRoute(verb: string, segments: readonly string[]): { handler: PluginRouteHandler; params: Record<string, string> } | null {
    if (!this.available) return null;
    for (const route of this.routes) {
      if (route.verb !== verb) continue;
      const params = matchRoute(route.pattern, segments);
      if (params !== null) return { handler: route.handler, params };
    }
    return null;
  }

  /** Verbs some route answers for this path (for a helpful 404). */
  verbsFor(segments: readonly string[]): string[] {
    return this.routes.filter((r) => matchRoute(r.pattern, segments) !== null).map((r) => r.verb);
  }

  runRoute(handler: PluginRouteHandler, request: Omit<PluginRouteRequest, "signal">): Promise<unknown> {
    return this.bounded(`route ${request.method} ${request.path}`, (signal) => handler({ ...request, signal }));
  }

  private async bounded(where: string, work: (signal: AbortSignal) => unknown): Promise<unknown> {
    const ms = this.env.limits.pluginCallTimeoutMs;
    const late = (): BridgeError =>
      new BridgeError("TIMEOUT", `Plugin "${this.id}" did not answer ${where} within ${ms} ms`, {
        details: { timeoutMs: ms, outcome: "unknown" },
        retryable: false,
        pluginId: this.id,
      });
    try {
      return await this.calls.run(work, ms, late);
    } catch (error) {
      throw toPluginError(error, this.id, where, this.log);
    }
  }

  /** Waits for running calls to finish, at most `pluginHookTimeoutMs`: a reload lets them answer from the old code. */
  drain(): Promise<void> {
    return this.calls.drain(this.env.limits.pluginHookTimeoutMs);
  }

  /** Runs `onConnect` for a new client; throws `PLUGIN_LIFECYCLE_FAILED` to refuse the connection. */
  async connect(clientId: string): Promise<void> {
    if (await this.admissions.admit(clientId)) return;
    throw new BridgeError("PLUGIN_LIFECYCLE_FAILED", `Plugin "${this.id}" refused the connection: its onConnect hook failed`, {
      details: { phase: "onConnect", reason: this.actor.getSnapshot().context.lastError?.details?.["reason"] },
      pluginId: this.id,
    });
  }

  /** Runs `onDisconnect` for a disposed client that was admitted; not awaited by the caller, awaited at shutdown. */
  disconnect(clientId: string, reason: PluginDisconnectInfo["reason"]): void {
    this.admissions.release(clientId, reason);
  }

  /** Stops the plugin; a loaded one is disposed by its machine (`stopping`), bounded per hook. */
  async stop(reason: string): Promise<void> {
    this.stopReason = reason;
    this.actor.send({ type: "STOP" });
    await waitFor(this.actor, (s) => s.status === "done");
    this.actor.stop();
  }

  /** The machine's `dispose`: waits for running disconnect hooks, aborts running calls, runs `onDispose`, drops streams. */
  private async dispose(): Promise<void> {
    await this.admissions.settled();
    this.calls.abortAll();
    const hook = this.hooks.onDispose;
    if (hook !== undefined) await this.runHook("onDispose", () => hook.call(this.hooks, { reason: this.stopReason }));
    this.main.clear();
    this.local.complete();
  }

  /** Runs a lifecycle hook within `pluginHookTimeoutMs`; a failure is contained and recorded. Resolves ok or not. */
  private async runHook(phase: string, hook: () => unknown): Promise<boolean> {
    const ms = this.env.limits.pluginHookTimeoutMs;
    try {
      await withDeadline(hook, ms, () => new Error(`${phase} did not finish within ${ms} ms`));
      return true;
    } catch (error) {
      this.hookFailed(phase, error);
      return false;
    }
  }

  private hookFailed(phase: string, error: unknown): void {
    const reason = reasonOf(error);
    const failure = new BridgeError("PLUGIN_LIFECYCLE_FAILED", `Plugin "${this.id}" ${phase} failed: ${reason}`, {
      details: { phase, reason },
      pluginId: this.id,
    });
    this.actor.send({ type: "HOOK_FAILED", error: toProtocolError(failure) });
    this.log.warn({ phase, reason }, "plugin hook failed (contained)");
  }
}
