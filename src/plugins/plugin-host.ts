import type { Observable } from "rxjs";
import { z } from "zod";
import type { PluginContract } from "../methods/contract/index.js";
import type { MethodDefinition, SerializedEvent } from "../methods/index.js";
import { BridgeError, isBridgeError, type PluginHealth, type PluginInfo } from "../protocol/index.js";
import type { PluginDisconnectInfo, PluginRouteVerb } from "./api.js";
import { isDefinition } from "./isolation/definition.js";
import { importPlugin, isolationOf } from "./isolation/load.js";
import type { IsolationMode } from "./isolation/protocol.js";
import { watchPlugins, type PluginWatcher } from "./isolation/watch.js";
import {
  discoverPlugins,
  idProblem,
  loadFailure,
  orderByRequires,
  readManifest,
  requirementFailure,
  type PluginCandidate,
  type PluginManifest,
} from "./manifest.js";
import { PluginInstance, type PluginEnvironment } from "./plugin.js";
import type { LoadedPlugin } from "./plugin.machine.js";

export interface PluginHostOptions {
  /** Plugin folders given one by one (`--plugin`), loaded first, in order. */
  readonly plugins?: readonly string[] | undefined;
  /** A folder whose child folders are plugins (`--plugins-dir`), loaded after, sorted by name. */
  readonly pluginsDir?: string | undefined;
  /** Per-plugin configuration overlaid on the manifest's `imageEditorBridge.config`. */
  readonly config?: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined;
  /** Ids plugins may not take (`health` and the bridge's own route segments). */
  readonly reservedIds: ReadonlySet<string>;
  /** Attached logical clients of an endpoint (`PluginHealth.clients`). */
  countClients(endpoint: string): number;
  /** Runs every plugin in this mode, whatever its manifest asks (`--plugin-isolation`). */
  readonly isolation?: IsolationMode | undefined;
  /** Reloads a plugin when its folder changes (`--watch-plugins`, for development). */
  readonly watch?: boolean | undefined;
}

/** Plugin methods take any params: their own (Standard) schema validates them, not the method table. */
const NO_FIELDS: ReadonlyMap<string, ReadonlySet<"number" | "boolean">> = new Map();

/** A matched plugin route, ready to run with the parts of the request a handler sees. */
export interface PluginRouteRun {
  run(request: { path: string; query: Record<string, string>; headers: Headers; body: unknown }): Promise<unknown>;
}

/** Something that failed before it had an id of its own, or lost its id to an earlier plugin. */
export interface PluginFailure extends PluginHealth {
  readonly dir: string;
}

/**
 * The plugin host: discovers and loads plugins in order, one lifecycle actor each, and answers
 * the bridge's questions about them (which exist, their health, their methods, routes and events).
 */
export class PluginHost {
  /** Plugins by id, in load order; the first plugin to claim an id owns it. */
  private readonly byId = new Map<string, PluginInstance>();
  /** Plugins that failed without an id of their own (duplicates, invalid ids). */
  private readonly orphans: PluginInstance[] = [];
  /** Method-table entries of plugin methods, made once per endpoint and name. */
  private readonly methods = new Map<string, MethodDefinition>();
  /** Where each plugin was found (by folder), so a reload finds it again. */
  private readonly candidates = new Map<string, PluginCandidate>();
  /** Reloads so far: in-process plugins import their entry anew under this tag. */
  private generation = 0;
  /** A reload per plugin at a time: a second request waits for the first. */
  private readonly reloading = new Map<string, Promise<PluginHealth>>();
  private watcher: PluginWatcher | undefined;

  constructor(
    private readonly options: PluginHostOptions,
    private readonly env: PluginEnvironment,
  ) {}

  /** Discovers and loads every plugin, one after another so load order is deterministic. Never throws for a plugin. */
  async load(): Promise<void> {
    const candidates = await discoverPlugins(this.options);
    // Manifests first, so plugins load after the plugins they require (an unreadable one fails at its own load).
    const planned = orderByRequires(await Promise.all(candidates.map(async (candidate) => ({ candidate, manifest: await readManifest(candidate).catch(() => undefined) }))));
    for (const { candidate, cycle } of planned) {
      this.candidates.set(candidate.dir, candidate);
      const instance = new PluginInstance(candidate.fallbackId, candidate.dir, this.env, (self) => this.loadDefinition(candidate, self, cycle));
      await instance.settled();
      // A plugin that failed keeps its id for `/plugins/{id}/health` unless an earlier plugin owns it.
      if (this.byId.get(instance.id) !== instance) {
        if (this.byId.has(instance.id)) this.orphans.push(instance);
        else this.byId.set(instance.id, instance);
      }
    }
    if (this.options.watch === true) {
      this.watcher = watchPlugins([...this.candidates.keys()], (dir) => {
        const plugin = [...this.byId.values()].find((p) => p.dir === dir);
        if (plugin !== undefined) void this.reload(plugin.id).catch(() => {});
      });
    }
  }

  /**
   * The machine's `load`: reads the manifest, imports the module, checks the definition and claims its id.
   * Failures are `PLUGIN_LOAD_FAILED` carrying the best id known so far (the manifest's, else the folder's).
   */
  private async loadDefinition(
    candidate: PluginCandidate,
    instance: PluginInstance,
    cycle?: readonly string[],
    replacing?: PluginInstance,
  ): Promise<LoadedPlugin> {
    let id = candidate.fallbackId;
    let supervised: LoadedPlugin["supervised"];
    try {
      const manifest = await readManifest(candidate);
      if (idProblem(manifest.id, this.options.reservedIds) === null) id = manifest.id;
      this.checkRequirements(manifest, cycle, candidate.dir);
      const imported = await importPlugin(manifest, isolationOf(manifest, this.options.isolation), this.env, candidate.dir, this.generation);
      supervised = imported.supervised;
      const { value } = imported;
      if (!isDefinition(value)) {
        throw loadFailure("definition", "the default export is not a plugin definition (definePlugin({ id, setup }) with a setup function)", {
          dir: candidate.dir,
        });
      }
      const problem = idProblem(value.id, this.options.reservedIds);
      if (problem !== null) throw loadFailure("definition", problem, { dir: candidate.dir });
      if (manifest.explicitId && value.id !== manifest.id) {
        throw loadFailure("definition", `definePlugin id "${value.id}" differs from imageEditorBridge.id "${manifest.id}"`, { dir: candidate.dir });
      }
      id = value.id;
      if (replacing !== undefined && id !== replacing.id) {
        throw loadFailure("definition", `the reloaded plugin's id "${id}" differs from "${replacing.id}"`, { dir: candidate.dir });
      }
      const owner = this.byId.get(id);
      if (owner !== undefined && owner !== replacing) {
        throw loadFailure("duplicate", `id "${id}" is already taken by the plugin in ${owner.dir}`, { dir: candidate.dir, owner: owner.dir });
      }
      // A reload claims the id only once the new instance is set up (`reload` swaps it in).
      if (replacing === undefined) this.byId.set(id, instance);
      return { id, definition: value, config: { ...manifest.config, ...this.options.config?.[id] }, mcp: manifest.mcp, supervised };
    } catch (error) {
      await supervised?.stop();
      const failure = isBridgeError(error) ? error : loadFailure("manifest", String(error), { dir: candidate.dir });
      throw new BridgeError(failure.code, failure.message, { ...(failure.details ? { details: failure.details } : {}), pluginId: id });
    }
  }

  /** Fails a plugin whose requirements are not loaded: on a cycle, not installed, or failed themselves. */
  private checkRequirements(manifest: PluginManifest, cycle: readonly string[] | undefined, dir: string): void {
    if (cycle !== undefined) {
      // Each member requires the next one of the cycle, the last the first.
      throw requirementFailure(cycle[(cycle.indexOf(manifest.id) + 1) % cycle.length]!, "cycle", { dir, cycle });
    }
    for (const requirement of manifest.requires) {
      const owner = this.byId.get(requirement);
      if (owner === undefined || !owner.available) throw requirementFailure(requirement, owner === undefined ? "missing" : "failed", { dir });
    }
  }

  list(): PluginInfo[] {
    return [...this.byId.values()].filter((p) => p.available).map((p) => ({ id: p.id }));
  }

  /** Whether a loaded plugin's manifest lets its methods be offered as MCP tools (`imageEditorBridge.mcp: true`). */
  offersMcpTools(id: string): boolean {
    return this.byId.get(id)?.offersMcpTools === true;
  }

  /**
   * The methods offered as MCP tools: only those of plugins whose manifest says `imageEditorBridge.mcp: true`, so an
   * agent gets what their authors offered.
   */
  mcpToolMethods(): Array<MethodDefinition & { pluginId: string }> {
    return this.contracts()
      .filter(({ id }) => this.offersMcpTools(id))
      .flatMap(({ id, methods = [] }) =>
        methods.flatMap(({ name }) => {
          const method = this.methodFor(id, name);
          return method === undefined ? [] : [{ ...method, pluginId: id }];
        }),
      );
  }

  /** What each loaded plugin serves, for the published contract (`/openapi.json`, `/asyncapi.json`, `/docs`). */
  contracts(): PluginContract[] {
    return [...this.byId.values()].filter((p) => p.available).map((p) => p.describe());
  }

  health(id: string): PluginHealth {
    const plugin = this.byId.get(id);
    if (plugin === undefined) throw notFound(id);
    return plugin.health(this.options.countClients(id));
  }

  /** Every plugin that failed, including those that lost their id to an earlier one, with their folder. */
  failures(): PluginFailure[] {
    return [...this.byId.values(), ...this.orphans]
      .map((p) => ({ ...p.health(0), dir: p.dir }))
      .filter((h) => h.status === "failed");
  }

  endpointError(id: string): BridgeError | null {
    const plugin = this.byId.get(id);
    return plugin === undefined ? notFound(id) : plugin.endpointError();
  }

  /** The loaded plugin behind an endpoint, if any. */
  plugin(id: string): PluginInstance | undefined {
    const plugin = this.byId.get(id);
    return plugin?.available ? plugin : undefined;
  }

  /** Event types a plugin endpoint accepts beyond the main ones. */
  eventTypes(endpoint: string): string[] {
    return this.plugin(endpoint)?.eventTypes() ?? [];
  }

  eventStream(endpoint: string, type: string): Observable<SerializedEvent> | undefined {
    return this.plugin(endpoint)?.eventStream(type);
  }

  /** Runs `onConnect` for a new client of a plugin endpoint; rejects to refuse the connection. */
  async admit(endpoint: string, clientId: string): Promise<void> {
    const plugin = this.plugin(endpoint);
    if (plugin === undefined) throw this.endpointError(endpoint) ?? notFound(endpoint);
    await plugin.connect(clientId);
  }

  /** A logical client of a plugin endpoint was disposed. */
  disposed(endpoint: string, clientId: string, reason: PluginDisconnectInfo["reason"]): void {
    this.byId.get(endpoint)?.disconnect(clientId, reason);
  }

  /**
   * A plugin's own method on its endpoint as a method-table entry, or undefined. Plugin methods are found before
   * the built-ins there; their params are validated by the plugin's own (Standard) schema.
   */
  methodFor(endpoint: string, name: string): MethodDefinition | undefined {
    // A plugin that failed after crashing keeps its methods' names: its clients get its refusal, not UNKNOWN_METHOD.
    const plugin = this.byId.get(endpoint);
    if (plugin === undefined || !(plugin.hasMethod(name) || (plugin.registered(name) && plugin.endpointError() !== null))) return undefined;
    const key = `${endpoint}\u0000${name}`;
    let method = this.methods.get(key);
    if (method === undefined) {
      method = {
        name,
        params: z.unknown(),
        result: z.unknown(),
        fields: NO_FIELDS,
        host: false,
        mutates: true,
        // Looked up per call: after a hot reload the next call reaches the new instance.
        run: (ctx, params) => {
          const current = this.plugin(endpoint);
          if (current === undefined) throw this.endpointError(endpoint) ?? notFound(endpoint);
          return current.callMethod(name, params, { clientId: ctx.caller.lane, endpoint });
        },
      };
      this.methods.set(key, method);
    }
    return method;
  }

  /**
   * The route for `verb /plugins/{id}/{...rest}`: a function running its handler, or the verbs the path answers to
   * (empty when the plugin or path is unknown).
   * @throws BridgeError the endpoint's refusal (`PLUGIN_NOT_FOUND`, load failure) for an unavailable plugin.
   */
  route(id: string, verb: string, rest: readonly string[]): PluginRouteRun | { verbs: string[] } {
    // `/plugins/{id}/reload` is the bridge's (reserved): it also revives a failed plugin, so it runs before the refusal.
    if (rest.length === 1 && rest[0] === "reload" && this.byId.has(id)) {
      return verb === "POST" ? { run: () => this.reload(id) } : { verbs: ["POST"] };
    }
    const refusal = this.endpointError(id);
    if (refusal !== null) throw refusal;
    const plugin = this.plugin(id);
    // A GET route answers HEAD too, as the bridge's own routes do: the handler runs as GET and Node drops the body.
    const method = (verb === "HEAD" ? "GET" : verb) as PluginRouteVerb;
    const match = plugin?.matchRoute(method, rest) ?? null;
    if (plugin === undefined || match === null) {
      const verbs = plugin?.verbsFor(rest) ?? [];
      return { verbs: verbs.includes("GET") ? [...verbs, "HEAD"] : verbs };
    }
    return { run: (request) => plugin.runRoute(match.handler, { ...request, method, params: match.params }) };
  }

  /**
   * Hot reload (`POST /plugins/{id}/reload`, `--watch-plugins`): loads and sets up the plugin's current code as a
   * new instance first; only if that succeeds is the old one disposed and the new one swapped in, taking over its
   * clients and event subscribers (their next call reaches the new code). Otherwise the old one keeps serving
   * and its health's `lastError` says why.
   * @throws BridgeError why the new code was refused (`PLUGIN_LOAD_FAILED`, `PLUGIN_REGISTRATION_FAILED`).
   */
  reload(id: string): Promise<PluginHealth> {
    const running = this.reloading.get(id);
    const next = (running ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => this.reloadNow(id))
      .finally(() => {
        if (this.reloading.get(id) === next) this.reloading.delete(id);
      });
    this.reloading.set(id, next);
    return next;
  }

  private async reloadNow(id: string): Promise<PluginHealth> {
    const old = this.byId.get(id);
    const candidate = old === undefined ? undefined : this.candidates.get(old.dir);
    if (old === undefined || candidate === undefined) throw notFound(id);
    this.generation += 1;
    const fresh = new PluginInstance(candidate.fallbackId, candidate.dir, this.env, (self) => this.loadDefinition(candidate, self, undefined, old));
    await fresh.settled();
    if (!fresh.available) {
      const error = fresh.endpointError() ?? notFound(id);
      await fresh.stop("reload failed");
      old.reloadFailed(error);
      old.log.warn({ code: error.code, reason: error.message }, "plugin reload failed; the previous code keeps serving");
      throw error;
    }
    fresh.adopt(old);
    this.byId.set(id, fresh);
    old.log.info({}, "plugin reloaded");
    // New calls reach the new instance from here; those already running answer from the old code first.
    await old.drain();
    await old.stop("reload");
    return this.health(id);
  }

  /** Stops plugins in reverse load order; each `onDispose` is contained and bounded. */
  async stop(reason: string): Promise<void> {
    this.watcher?.close();
    await Promise.allSettled([...this.reloading.values()]);
    const all = [...this.byId.values(), ...this.orphans].reverse();
    for (const plugin of all) await plugin.stop(reason);
  }
}

function notFound(id: string): BridgeError {
  return new BridgeError("PLUGIN_NOT_FOUND", `No plugin "${id}" is loaded`, { details: { pluginId: id } });
}
