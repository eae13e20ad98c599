import type { Observable } from "rxjs";
import type { Dispatcher } from "../calls/dispatcher.js";
import { allowedFor, isWireImage, type SerializedEvent, withDataUris } from "../methods/index.js";
import type { AccessScope, ServerInfo } from "../protocol/index.js";
import type { McpBackend, McpCallResult, McpMethodInfo } from "./backend.js";

export interface InProcessBackendOptions {
  readonly dispatcher: Dispatcher;
  /** The shared stream of a main event on the root endpoint, or undefined when nothing produces it. */
  readonly events: (type: string) => Observable<SerializedEvent> | undefined;
  /** The caller's mailbox lane: `mcp:<session id prefix>`, so one session's calls queue fairly against the others. */
  readonly lane: string;
  /** The loaded plugins' methods, each with its `pluginId` (they come and go with their plugins). @default none */
  readonly pluginMethods?: () => readonly McpMethodInfo[];
  /** What the session's token may do: a `read` session sees (and calls) only methods that change nothing. @default "full" */
  readonly scope?: AccessScope;
}

/**
 * The bridge's own dispatcher as an MCP backend: calls run exactly as a WebSocket client's do (validation, the
 * editor's mailbox on the session's own lane, cancellation and progress), events come from the same shared streams.
 */
export function inProcessBackend(options: InProcessBackendOptions): McpBackend {
  const { dispatcher, lane } = options;
  const scope = options.scope ?? "full";
  const caller = { lane, client: null, endpoint: "root", scope } as const;
  // Tools are offered by the same rule the dispatcher applies to each call.
  const builtins: McpMethodInfo[] = [...dispatcher.table.values()].filter((method) => allowedFor(scope, method));
  // The same array while the plugins' methods stay the same, so the server derives its tools again only on a change.
  let cached: { key: string; methods: readonly McpMethodInfo[] } = { key: "", methods: builtins };
  const methods = (): readonly McpMethodInfo[] => {
    const plugins = (options.pluginMethods?.() ?? []).filter((method) => allowedFor(scope, method));
    const key = plugins.map((m) => `${m.pluginId}\u0000${m.name}`).join("\u0001");
    if (key !== cached.key) cached = { key, methods: [...builtins, ...plugins] };
    return cached.methods;
  };
  return {
    methods,
    async call(method, params, callOptions = {}): Promise<McpCallResult> {
      const onProgress = callOptions.onProgress;
      // A plugin's method runs on its plugin's endpoint, as for a client of `/ws/<id>`.
      const on = method.pluginId === undefined ? caller : { ...caller, endpoint: method.pluginId };
      const result = await dispatcher.call(on, method.name, params, [], {
        cancel: callOptions.signal,
        progress: onProgress === undefined ? undefined : (progress, total, message) => onProgress({ progress, total, message }),
      });
      return isWireImage(result) ? { kind: "image", image: result.image } : { kind: "json", value: withDataUris(result) };
    },
    on(type, listener) {
      const subscription = options.events(type)?.subscribe((event) => listener(JSON.parse(event.json)));
      return () => subscription?.unsubscribe();
    },
    serverInfo: async () => (await dispatcher.call(caller, "getServerInfo", {})) as ServerInfo,
    toWireError: (error, method) => dispatcher.toWireError(error, { method, caller }),
    close: async () => {},
  };
}
