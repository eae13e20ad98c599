/*
 * The plugin authoring API (`image-editor-bridge/plugin`). Everything a plugin touches is typed
 * here; the bridge's implementation of it lives in `plugin.ts` and `plugin-host.ts`.
 */
import type { z } from "zod";
import type { Logger } from "../logger.js";
import { BridgeError, type BuiltinMethodName, type ErrorCode, type METHOD_SCHEMAS } from "../protocol/index.js";

/**
 * Any validator implementing Standard Schema v1 (zod ≥ 3.24 and 4, valibot, arktype…), so plugins can bring
 * their own validation library and version.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

/** The validated params type of a Standard Schema. */
export type InferParams<S> = S extends StandardSchemaV1<unknown, infer O> ? O : unknown;

/** Params a built-in method accepts (`ctx.bridge.invoke`). */
export type BuiltinParams<M extends BuiltinMethodName> = z.input<(typeof METHOD_SCHEMAS)[M]["params"]>;
/** What a built-in method resolves with. */
export type BuiltinResult<M extends BuiltinMethodName> = z.output<(typeof METHOD_SCHEMAS)[M]["result"]>;

/** How `ctx.bridge.invoke` routes a call when the bridge runs several editors. */
export interface InvokeOptions {
  /**
   * The editor (`<kind>-<n>`, as `getServerInfo().editors` lists them) a call without `documentId` goes to. Without
   * it the call follows the bridge's routing: the owner of a named document, else the editor of the most recently
   * active document (the least loaded one for `document:create` and `document:open`).
   */
  readonly editor?: string;
}

/** Who a plugin method runs for. */
export interface PluginCallContext {
  /** The logical client that sent the request. */
  readonly clientId: string;
  /** The plugin id of the endpoint (`/ws/{id}`). */
  readonly endpoint: string;
  /** Aborts when the call passes its deadline (`limits.pluginCallTimeoutMs`) or the bridge shuts down. */
  readonly signal: AbortSignal;
}

/** Handles one plugin method; its resolved value is the response's `result` (undefined becomes null). */
export type PluginMethodHandler<P = unknown> = (params: P, call: PluginCallContext) => unknown;

export type PluginRouteVerb = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One HTTP request to a plugin route (`/plugins/{id}/…`). */
export interface PluginRouteRequest {
  readonly method: PluginRouteVerb;
  /** The path below `/plugins/{id}`, e.g. `/stats/3`. */
  readonly path: string;
  /** Values of the `:name` segments of the route. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Headers;
  /** The JSON body of a POST/PUT/PATCH (bounded by `limits.maxHttpBodyBytes`); undefined when there is none. */
  readonly body: unknown;
  readonly signal: AbortSignal;
}

/**
 * Handles one plugin route. A returned `Response` is sent as is, `undefined` becomes 204, anything else is sent
 * as JSON. A thrown {@link PluginError} becomes a ProtocolError with its status.
 */
export type PluginRouteHandler = (request: PluginRouteRequest) => unknown;

export interface PluginConnectInfo {
  readonly clientId: string;
  readonly endpoint: string;
  /**
   * Set when the hook runs again for a client that was already connected, because the plugin's state is fresh:
   * `restart` after its worker or process crashed and was restarted, `reload` after a hot reload.
   */
  readonly again?: "restart" | "reload";
}

export interface PluginDisconnectInfo {
  readonly clientId: string;
  readonly endpoint: string;
  /** `closed`: the client closed with 4000; `expired`: its resume TTL ran out; `evicted`: client limit; `shutdown`. */
  readonly reason: "closed" | "expired" | "evicted" | "shutdown";
}

/** Lifecycle hooks `setup` may return. Each is contained: a throw marks the plugin's `runtime` check failed. */
export interface PluginHooks {
  /** A new logical client connected to `/ws/{id}`; throwing rejects only that connection (error event, 1011). */
  onConnect?(info: PluginConnectInfo): void | Promise<void>;
  /** A logical client of this plugin's endpoint was disposed (not on mere socket drops: it may still resume). */
  onDisconnect?(info: PluginDisconnectInfo): void | Promise<void>;
  /** The bridge is shutting down; hooks run in reverse load order, each within `limits.pluginHookTimeoutMs`. */
  onDispose?(info: { readonly reason: string }): void | Promise<void>;
}

/** What `setup` receives. Registrations made through it take effect only if `setup` succeeds (atomic). */
export interface PluginContext {
  readonly id: string;
  /** The `imageEditorBridge.config` object of the plugin's package.json, overlaid by the bridge's `pluginConfig[id]`. */
  readonly config: Readonly<Record<string, unknown>>;
  /** A structured logger tagged with `actor: "plugin:<id>"`. */
  readonly logger: Logger;
  /** Registers a method callable on `/ws/{id}`; it takes precedence over a built-in of the same name there. */
  method<S extends StandardSchemaV1>(name: string, params: S, handler: PluginMethodHandler<InferParams<S>>): void;
  method(name: string, handler: PluginMethodHandler<unknown>): void;
  /** Registers an HTTP route under `/plugins/{id}`; `path` may use `:name` segments and a final `**`. */
  route(verb: PluginRouteVerb, path: string, handler: PluginRouteHandler): void;
  readonly events: {
    /** Sends a plugin-local event to the subscribers of this plugin's endpoint only. */
    emit(type: string, data?: unknown): void;
  };
  readonly bridge: {
    /** Calls a built-in method through the editor mailbox, with the same queueing, deadlines and errors as a client. */
    invoke<M extends BuiltinMethodName>(method: M, params?: BuiltinParams<M>, options?: InvokeOptions): Promise<BuiltinResult<M>>;
    /** Listens to a main event (e.g. `selection:changed`); returns a function that stops listening. */
    on(event: string, listener: (data: unknown) => void): () => void;
  };
}

/** What `setup` returns: nothing, or lifecycle hooks, possibly through a promise. */
// biome-ignore lint/suspicious/noConfusingVoidType: `void` lets setup functions without a return statement type-check.
export type PluginSetupResult = void | PluginHooks | Promise<void | PluginHooks>;

export interface PluginDefinition {
  /** Must match `^[A-Za-z0-9_-]+$`, and the package's `imageEditorBridge.id` when it names one. */
  readonly id: string;
  /** Plugin-local event types clients may subscribe to before the plugin first emits them. */
  readonly events?: readonly string[];
  setup(ctx: PluginContext): PluginSetupResult;
}

/**
 * Declares a plugin; the default export of the plugin package's main module.
 *
 * @example
 * export default definePlugin({
 *   id: "hello",
 *   setup(ctx) {
 *     ctx.method("hello:say", ({ name }) => `hello ${name}`);
 *   },
 * });
 */
export function definePlugin<const T extends PluginDefinition>(definition: T): T {
  return definition;
}

/**
 * An error a plugin throws on purpose: its code passes through to the client with `source: "plugin"` and the
 * plugin id. `status` is the HTTP status over HTTP (default 500, or the built-in code's status).
 *
 * @example
 * throw new PluginError("QUOTA_EXCEEDED", "Only 10 exports a minute", { status: 429, retryable: true });
 */
export class PluginError extends BridgeError {
  constructor(
    code: ErrorCode | (string & {}),
    message: string,
    options: { details?: Record<string, unknown>; status?: number; retryable?: boolean; cause?: unknown } = {},
  ) {
    const details = options.status === undefined ? options.details : { ...options.details, httpStatus: options.status };
    super(code, message, {
      source: "plugin",
      ...(details === undefined ? {} : { details }),
      ...(options.retryable === undefined ? {} : { retryable: options.retryable }),
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.name = "PluginError";
  }
}
