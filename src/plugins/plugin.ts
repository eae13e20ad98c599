import { Subject, type Observable, type Subscription } from "rxjs";
import { createActor, type Actor } from "xstate";
import type { SerializedEvent } from "../actors/event-bus.js";
import type { Limits } from "../limits.js";
import type { Logger } from "../logger.js";
import { BridgeError, toProtocolError, type PluginHealth } from "../protocol/index.js";
import type {
  PluginCallContext,
  PluginDefinition,
  PluginDisconnectInfo,
  PluginHooks,
  PluginRouteHandler,
  PluginRouteRequest,
} from "./api.js";
import { withDeadline } from "./_internal/deadline.js";
import { matchRoute } from "./_internal/route-pattern.js";
import { reasonOf, toPluginError } from "./errors.js";
import { healthOf, isAvailable, pluginMachine } from "./plugin.machine.js";
import { createPluginContext, type MethodEntry, type RouteEntry, type Staged } from "./registration.js";

/** Plugin-local event types; they may not start with `#` (the bridge's lifecycle events). */
export const PLUGIN_EVENT_PATTERN = /^[A-Za-z0-9_.:/-]{1,128}$/;

/** What a plugin needs from the bridge around it. */
export interface PluginEnvironment {
  readonly limits: Limits;
  readonly log: Logger;
  /** Calls a built-in method on the plugin's own mailbox lane (`plugin:<id>`). */
  invoke(pluginId: string, method: string, params: unknown): Promise<unknown>;
  /** A main event stream (`ctx.bridge.on`), or undefined for a type the bridge does not know. */
  mainStream(type: string): Observable<SerializedEvent> | undefined;
  /** Main event types, so plugin-local ones cannot shadow them. */
  mainTypes(): readonly string[];
}

function issuesToDetails(issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined }>) {
  return issues.map((issue) => ({
    path: (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join("."),
    message: issue.message,
  }));
}

/**
 * One plugin: its lifecycle actor, what it registered, its plugin-local event streams and its hooks. Every
 * call into plugin code goes through here, contained and bounded.
 */
export class PluginInstance {
  readonly actor: Actor<typeof pluginMachine>;
  readonly log: Logger;
  private methods = new Map<string, MethodEntry>();
  private routes: RouteEntry[] = [];
  private hooks: PluginHooks = {};
  private readonly localTypes = new Set<string>();
  private readonly localStreams = new Map<string, Subject<SerializedEvent>>();
  private listeners: Subscription[] = [];
  /** Clients whose `onConnect` succeeded: only they get `onDisconnect`. */
  private readonly admitted = new Set<string>();
  /** Hook runs not awaited by their trigger (onDisconnect); shutdown waits for them. */
  private readonly pending = new Set<Promise<unknown>>();
  /** Running method and route calls, aborted at shutdown. */
  private readonly calls = new Set<AbortController>();

  constructor(
    readonly id: string,
    readonly dir: string,
    private readonly env: PluginEnvironment,
    private readonly config: Readonly<Record<string, unknown>>,
  ) {
    this.log = env.log.child({ actor: `plugin:${id}` });
    this.actor = createActor(pluginMachine, { input: { id } }).start();
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

  /** Records a failure to load (before `setup` ran). */
  failLoad(error: BridgeError): void {
    this.actor.send({ type: "LOAD_FAILED", error: toProtocolError(error, { pluginId: this.id }) });
    this.log.error({ phase: error.details?.["phase"], reason: error.details?.["reason"] }, error.message);
  }

  /** Runs `setup` with a deadline; commits what it registered only if it succeeds. */
  async register(definition: PluginDefinition): Promise<void> {
    this.actor.send({ type: "IMPORTED" });
    for (const type of definition.events ?? []) {
      const problem = this.eventTypeProblem(type);
      if (problem !== null) return this.failRegistration(problem);
      this.localTypes.add(type);
    }
    const staged: Staged = { methods: new Map(), routes: [], listeners: [] };
    let open = true;
    const ctx = createPluginContext(
      {
        id: this.id,
        config: this.config,
        log: this.log,
        emit: (type, data) => this.emit(type, data),
        invoke: (method, params) => this.env.invoke(this.id, method, params),
        mainStream: (type) => this.env.mainStream(type),
        mainTypes: () => this.env.mainTypes(),
        listen: (type, listener) => this.listen(type, listener),
      },
      staged,
      () => open,
    );
    let hooks: unknown;
    try {
      hooks = await withDeadline(
        () => definition.setup(ctx),
        this.env.limits.pluginSetupTimeoutMs,
        () => new Error(`setup did not finish within ${this.env.limits.pluginSetupTimeoutMs} ms`),
      );
    } catch (error) {
      open = false;
      return this.failRegistration(reasonOf(error));
    }
    open = false;
    if (hooks !== undefined && (typeof hooks !== "object" || hooks === null)) {
      return this.failRegistration("setup must return nothing or an object of hooks");
    }
    for (const name of ["onConnect", "onDisconnect", "onDispose"] as const) {
      const hook = (hooks as Record<string, unknown> | undefined)?.[name];
      if (hook !== undefined && typeof hook !== "function") return this.failRegistration(`${name} must be a function`);
    }
    this.hooks = (hooks as PluginHooks | undefined) ?? {};
    this.methods = staged.methods;
    this.routes = staged.routes;
    this.actor.send({ type: "REGISTERED", at: Date.now() });
    for (const { type, listener } of staged.listeners) this.listen(type, listener);
    this.log.info({ methods: [...this.methods.keys()], routes: this.routes.length }, "plugin loaded");
  }

  private failRegistration(reason: string): void {
    this.localTypes.clear();
    const error = new BridgeError("PLUGIN_REGISTRATION_FAILED", `Plugin "${this.id}" failed to register: ${reason}`, {
      details: { phase: "setup", reason },
      pluginId: this.id,
    });
    this.actor.send({ type: "REGISTRATION_FAILED", error: toProtocolError(error) });
    this.log.error({ phase: "setup", reason }, error.message);
  }

  private eventTypeProblem(type: unknown): string | null {
    if (typeof type !== "string" || !PLUGIN_EVENT_PATTERN.test(type)) {
      return `event type ${JSON.stringify(type)} must match ${PLUGIN_EVENT_PATTERN.source}`;
    }
    if (this.env.mainTypes().includes(type)) return `event type "${type}" is a main event of the bridge`;
    return null;
  }

  private listen(type: string, listener: (data: unknown) => void): () => void {
    const stream = this.env.mainStream(type);
    if (stream === undefined || !this.available) return () => {};
    const sub = stream.subscribe((event) => {
      let data: unknown;
      try {
        data = JSON.parse(event.json);
        const result = listener(data) as unknown;
        if (result instanceof Promise) result.catch((error: unknown) => this.hookFailed("event", error));
      } catch (error) {
        this.hookFailed("event", error);
      }
    });
    this.listeners.push(sub);
    return () => {
      sub.unsubscribe();
      this.listeners = this.listeners.filter((s) => s !== sub);
    };
  }

  /** Sends a plugin-local event to subscribers of this plugin's endpoint; unknown types become known. */
  emit(type: string, data: unknown): void {
    const problem = this.eventTypeProblem(type);
    if (problem !== null) throw new BridgeError("BAD_REQUEST", `Cannot emit: ${problem}`, { pluginId: this.id });
    if (!this.available) return;
    this.localTypes.add(type);
    const json = JSON.stringify(data ?? null);
    this.localStreams.get(type)?.next({ type, json });
  }

  /** Plugin-local event types clients of this endpoint may subscribe to. */
  eventTypes(): string[] {
    return [...this.localTypes];
  }

  /** The stream of a plugin-local event type, or undefined when the plugin has never declared or emitted it. */
  eventStream(type: string): Observable<SerializedEvent> | undefined {
    if (!this.localTypes.has(type)) return undefined;
    let subject = this.localStreams.get(type);
    if (subject === undefined) {
      subject = new Subject<SerializedEvent>();
      this.localStreams.set(type, subject);
    }
    return subject.asObservable();
  }

  hasMethod(name: string): boolean {
    return this.available && this.methods.has(name);
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
    const controller = new AbortController();
    this.calls.add(controller);
    const ms = this.env.limits.pluginCallTimeoutMs;
    try {
      return await withDeadline(
        () => work(controller.signal),
        ms,
        () => {
          controller.abort();
          return new BridgeError("TIMEOUT", `Plugin "${this.id}" did not answer ${where} within ${ms} ms`, {
            details: { timeoutMs: ms, outcome: "unknown" },
            retryable: false,
            pluginId: this.id,
          });
        },
      );
    } catch (error) {
      throw toPluginError(error, this.id, where, this.log);
    } finally {
      this.calls.delete(controller);
    }
  }

  /** Runs `onConnect` for a new client; throws `PLUGIN_LIFECYCLE_FAILED` to refuse the connection. */
  async connect(clientId: string): Promise<void> {
    const hook = this.hooks.onConnect;
    if (hook !== undefined) {
      const ok = await this.runHook("onConnect", () => hook.call(this.hooks, { clientId, endpoint: this.id }));
      if (!ok) {
        throw new BridgeError("PLUGIN_LIFECYCLE_FAILED", `Plugin "${this.id}" refused the connection: its onConnect hook failed`, {
          details: { phase: "onConnect", reason: this.actor.getSnapshot().context.lastError?.details?.["reason"] },
          pluginId: this.id,
        });
      }
    }
    this.admitted.add(clientId);
  }

  /** Runs `onDisconnect` for a disposed client that was admitted; not awaited by the caller, awaited at shutdown. */
  disconnect(clientId: string, reason: PluginDisconnectInfo["reason"]): void {
    if (!this.admitted.delete(clientId)) return;
    const hook = this.hooks.onDisconnect;
    if (hook === undefined) return;
    const run = this.runHook("onDisconnect", () => hook.call(this.hooks, { clientId, endpoint: this.id, reason }));
    this.pending.add(run);
    void run.finally(() => this.pending.delete(run));
  }

  /** Stops the plugin: waits for running disconnect hooks, aborts running calls, runs `onDispose`, drops streams. */
  async stop(reason: string): Promise<void> {
    const wasLoaded = this.available;
    this.actor.send({ type: "STOP" });
    await Promise.all([...this.pending]);
    for (const controller of this.calls) controller.abort();
    const hook = this.hooks.onDispose;
    if (wasLoaded && hook !== undefined) await this.runHook("onDispose", () => hook.call(this.hooks, { reason }));
    for (const sub of this.listeners) sub.unsubscribe();
    this.listeners = [];
    for (const subject of this.localStreams.values()) subject.complete();
    this.localStreams.clear();
    if (this.actor.getSnapshot().matches("stopping")) this.actor.send({ type: "STOPPED" });
    this.actor.stop();
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
