import { pathToFileURL } from "node:url";
import type { Observable } from "rxjs";
import type { SerializedEvent } from "../actors/event-bus.js";
import { BridgeError, isBridgeError, type PluginHealth, type PluginInfo } from "../protocol/index.js";
import type { PluginDefinition, PluginDisconnectInfo, PluginRouteVerb } from "./api.js";
import { discoverPlugins, idProblem, loadFailure, readManifest, type PluginCandidate } from "./manifest.js";
import { PluginInstance, type PluginEnvironment } from "./plugin.js";
import type { PluginRegistry } from "./registry.js";

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
}

/** Something that failed before it had an id of its own, or lost its id to an earlier plugin. */
export interface PluginFailure extends PluginHealth {
  readonly dir: string;
}

function isDefinition(value: unknown): value is PluginDefinition {
  return typeof value === "object" && value !== null && typeof (value as { setup?: unknown }).setup === "function";
}

/** The plugin definition in an imported module: ESM default, CommonJS `module.exports`, or transpiled `exports.default`. */
function definitionOf(mod: Record<string, unknown>): unknown {
  const first = mod["default"] ?? mod;
  if (isDefinition(first)) return first;
  const nested = (first as { default?: unknown } | null)?.default;
  return nested ?? first;
}

/**
 * The plugin host (DESIGN §5): discovers and loads plugins in order, one lifecycle actor each, and answers
 * the bridge's questions about them (which exist, their health, their methods, routes and events).
 */
export class PluginHost implements PluginRegistry {
  /** Plugins by id, in load order; the first plugin to claim an id owns it. */
  private readonly byId = new Map<string, PluginInstance>();
  /** Plugins that failed without an id of their own (duplicates, invalid ids). */
  private readonly orphans: PluginInstance[] = [];

  constructor(
    private readonly options: PluginHostOptions,
    private readonly env: PluginEnvironment,
  ) {}

  /** Discovers and loads every plugin, one after another so load order is deterministic. Never throws for a plugin. */
  async load(): Promise<void> {
    const candidates = await discoverPlugins(this.options);
    for (const candidate of candidates) await this.loadOne(candidate);
  }

  private async loadOne(candidate: PluginCandidate): Promise<void> {
    let id = candidate.fallbackId;
    let definition: PluginDefinition;
    let config: Readonly<Record<string, unknown>> = {};
    try {
      const manifest = await readManifest(candidate);
      if (idProblem(manifest.id, this.options.reservedIds) === null) id = manifest.id;
      let mod: Record<string, unknown>;
      try {
        mod = (await import(pathToFileURL(manifest.main).href)) as Record<string, unknown>;
      } catch (error) {
        throw loadFailure("import", error instanceof Error ? error.message : String(error), { dir: candidate.dir });
      }
      const value = definitionOf(mod);
      if (!isDefinition(value)) {
        throw loadFailure("definition", "the default export is not a plugin definition (definePlugin({ id, setup }) with a setup function)", {
          dir: candidate.dir,
        });
      }
      const problem = idProblem(value.id, this.options.reservedIds);
      if (problem !== null) throw loadFailure("definition", problem, { dir: candidate.dir });
      if (manifest.explicitId && value.id !== manifest.id) {
        throw loadFailure("definition", `definePlugin id "${value.id}" differs from imageEditorBridge.id "${manifest.id}"`, {
          dir: candidate.dir,
        });
      }
      id = value.id;
      definition = value;
      config = { ...manifest.config, ...this.options.config?.[id] };
    } catch (error) {
      const failure = isBridgeError(error) ? error : loadFailure("manifest", String(error), { dir: candidate.dir });
      this.add(id, candidate, {}).failLoad(failure);
      return;
    }
    const owner = this.byId.get(id);
    if (owner !== undefined) {
      this.add(id, candidate, {}).failLoad(
        loadFailure("duplicate", `id "${id}" is already taken by the plugin in ${owner.dir}`, { dir: candidate.dir, owner: owner.dir }),
      );
      return;
    }
    await this.add(id, candidate, config).register(definition);
  }

  private add(id: string, candidate: PluginCandidate, config: Readonly<Record<string, unknown>>): PluginInstance {
    const instance = new PluginInstance(id, candidate.dir, this.env, config);
    if (this.byId.has(id)) this.orphans.push(instance);
    else this.byId.set(id, instance);
    return instance;
  }

  list(): PluginInfo[] {
    return [...this.byId.values()].filter((p) => p.available).map((p) => ({ id: p.id }));
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

  /** Finds a plugin route for `/plugins/{id}/{...rest}`. */
  route(id: string, verb: string, rest: readonly string[]) {
    const plugin = this.plugin(id);
    if (plugin === undefined) return { plugin: undefined, match: null, verbs: [] as string[] } as const;
    return { plugin, match: plugin.matchRoute(verb as PluginRouteVerb, rest), verbs: plugin.verbsFor(rest) } as const;
  }

  /** Stops plugins in reverse load order; each `onDispose` is contained and bounded. */
  async stop(reason: string): Promise<void> {
    const all = [...this.byId.values(), ...this.orphans].reverse();
    for (const plugin of all) await plugin.stop(reason);
  }
}

function notFound(id: string): BridgeError {
  return new BridgeError("PLUGIN_NOT_FOUND", `No plugin "${id}" is loaded`, { details: { pluginId: id } });
}
