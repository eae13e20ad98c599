import type { Observable } from "rxjs";
import type { SerializedEvent } from "../methods/index.js";
import type { Logger } from "../logger.js";
import { BridgeError } from "../protocol/index.js";
import type { InvokeOptions, PluginContext, PluginDefinition, PluginHooks, PluginMethodHandler, PluginRouteHandler, PluginRouteVerb, StandardSchemaV1 } from "./api.js";
import { parseRoutePattern, patternKey, type RoutePattern } from "./_internal/route-pattern.js";

/** First segments of plugin routes the bridge answers itself: a plugin's health, its hot reload and its event stream. */
const RESERVED_ROUTES: ReadonlySet<string> = new Set(["health", "reload", "events"]);

/** Method names a plugin may register: printable, bounded; `event:*` stays the bridge's (subscriptions). */
export const PLUGIN_METHOD_PATTERN = /^[A-Za-z0-9_.:/-]{1,128}$/;
const ROUTE_VERBS: ReadonlySet<string> = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

export interface MethodEntry {
  readonly schema: StandardSchemaV1 | undefined;
  readonly handler: PluginMethodHandler;
}

export interface RouteEntry {
  readonly verb: PluginRouteVerb;
  readonly pattern: RoutePattern;
  readonly handler: PluginRouteHandler;
}

/** Registrations made during `setup`; they take effect only when `setup` succeeds (atomic registration). */
export interface Staged {
  methods: Map<string, MethodEntry>;
  routes: RouteEntry[];
  listeners: Array<{ type: string; listener: (data: unknown) => void }>;
}

/** What the context needs from its plugin. */
export interface PluginContextHost {
  readonly id: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly log: Logger;
  emit(type: string, data: unknown): void;
  invoke(method: string, params: unknown, options?: InvokeOptions): Promise<unknown>;
  mainStream(type: string): Observable<SerializedEvent> | undefined;
  mainTypes(): readonly string[];
  /** Listens to a main event now (after setup). */
  listen(type: string, listener: (data: unknown) => void): () => void;
}

/**
 * The `ctx` handed to `setup`. Methods, routes and listeners go to `staged` while `open()` holds; the plugin
 * commits them only if `setup` succeeds, and registering after that throws (atomic registration).
 */
export function createPluginContext(plugin: PluginContextHost, staged: Staged, open: () => boolean): PluginContext {
  const closed = (what: string): Error =>
    new Error(`${what} is only possible during setup (registrations are atomic and closed now)`);
  return {
    id: plugin.id,
    config: plugin.config,
    logger: plugin.log,
    method(name: string, schemaOrHandler: unknown, maybeHandler?: unknown): void {
      if (!open()) throw closed("ctx.method");
      const handler = (maybeHandler ?? schemaOrHandler) as PluginMethodHandler;
      const schema = maybeHandler === undefined ? undefined : (schemaOrHandler as StandardSchemaV1);
      if (typeof name !== "string" || !PLUGIN_METHOD_PATTERN.test(name)) {
        throw new Error(`method name ${JSON.stringify(name)} must match ${PLUGIN_METHOD_PATTERN.source}`);
      }
      if (name.startsWith("event:")) throw new Error(`method name "${name}" is reserved (event:* belongs to the bridge)`);
      if (staged.methods.has(name)) throw new Error(`method "${name}" is registered twice`);
      if (typeof handler !== "function") throw new Error(`the handler of method "${name}" is not a function`);
      if (schema !== undefined && typeof schema?.["~standard"]?.validate !== "function") {
        throw new Error(`the params schema of method "${name}" is not a Standard Schema (e.g. a zod schema)`);
      }
      staged.methods.set(name, { schema, handler });
    },
    route(verb, path, handler): void {
      if (!open()) throw closed("ctx.route");
      const upper = String(verb).toUpperCase();
      if (!ROUTE_VERBS.has(upper)) throw new Error(`route verb "${verb}" must be one of ${[...ROUTE_VERBS].join(", ")}`);
      const pattern = parseRoutePattern(path);
      const first = pattern[0];
      if (first !== undefined && "literal" in first && RESERVED_ROUTES.has(first.literal)) {
        throw new Error(`route path "${path}" is reserved (/plugins/{id}/${first.literal} is the bridge's)`);
      }
      if (typeof handler !== "function") throw new Error(`the handler of route ${upper} ${path} is not a function`);
      const key = patternKey(pattern);
      if (staged.routes.some((r) => r.verb === upper && patternKey(r.pattern) === key)) {
        throw new Error(`route ${upper} ${path} is registered twice`);
      }
      staged.routes.push({ verb: upper as PluginRouteVerb, pattern, handler });
    },
    events: {
      emit: (type, data) => plugin.emit(type, data),
    },
    bridge: {
      invoke: (method, params, options) => plugin.invoke(method, params, options) as never,
      on(type, listener) {
        if (plugin.mainStream(type) === undefined) {
          throw new BridgeError("BAD_REQUEST", `Unknown event type "${type}"`, { details: { type, accepted: plugin.mainTypes() } });
        }
        if (typeof listener !== "function") throw new Error("ctx.bridge.on needs a listener function");
        if (open()) {
          const entry = { type, listener };
          staged.listeners.push(entry);
          return () => {
            staged.listeners = staged.listeners.filter((l) => l !== entry);
          };
        }
        return plugin.listen(type, listener);
      },
    },
  };
}

/** Why `setup`'s return value is not nothing or an object of hooks, or null when it is fine. */
export function hooksProblem(hooks: unknown): string | null {
  if (hooks !== undefined && (typeof hooks !== "object" || hooks === null)) return "setup must return nothing or an object of hooks";
  for (const name of ["onConnect", "onDisconnect", "onDispose"] as const) {
    const hook = (hooks as Record<string, unknown> | undefined)?.[name];
    if (hook !== undefined && typeof hook !== "function") return `${name} must be a function`;
  }
  return null;
}

/**
 * Runs a plugin's `setup` with a context that takes registrations only while it runs (and while `stillWanted()`
 * holds: a setup past its deadline registers nothing), and checks what it returns. The one path for plugins in
 * the bridge's thread and in a worker.
 * @throws Error when `setup` throws or returns something other than nothing or an object of hooks.
 */
export async function runSetup(
  definition: Pick<PluginDefinition, "setup">,
  host: PluginContextHost,
  staged: Staged,
  stillWanted: () => boolean = () => true,
): Promise<PluginHooks> {
  let open = true;
  const ctx = createPluginContext(host, staged, () => open && stillWanted());
  let result: unknown;
  try {
    result = await definition.setup(ctx);
  } finally {
    open = false;
  }
  const problem = hooksProblem(result);
  if (problem !== null) throw new Error(problem);
  return (result as PluginHooks | undefined) ?? {};
}
