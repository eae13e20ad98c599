import { resolve as resolvePath } from "node:path";
import { ClientRegistry } from "../actors/clients/registry.js";
import { Dispatcher } from "../calls/dispatcher.js";
import type { HostSession } from "../actors/editors/host-session.js";
import { Lifecycle } from "./lifecycle.js";
import { DEFAULT_LISTEN, type BridgeOptions } from "./options.js";
import { createFilePolicy, UNCONFINED, type FileAccess, type FilePolicy } from "../files/index.js";
import { bridgeLimits, clusterCalls, clusterResume, editorHosts, editorPool } from "./editors.js";
import { ANONYMOUS_CLUSTER_RISK, hasClusterCredentials } from "../cluster/options.js";
import type { HostAdapter } from "../hosts/host.js";
import type { ImportPolicy } from "../imports/index.js";
import type { Limits } from "../limits.js";
import { isLoopbackHost } from "../loopback.js";
import { silentLogger } from "../logger.js";
import { BUILTIN_METHODS, methodTable, type BridgeServices } from "../methods/index.js";
import { PluginHost } from "../plugins/index.js";
import { BridgeError, type ClosingReason, type EditorSummary } from "../protocol/index.js";
import { ServerInfoAnswer } from "./server-info.js";
import { bridgeViews } from "./status.js";
import { addressCounter } from "../transports/client-address.js";
import { createEventStreams } from "../transports/http/sse.js";
import { eventSources } from "../events/sources.js";
import { EventLog } from "../events/log.js";
import { EventFollowing } from "../events/follow.js";
import { Admission } from "../actors/clients/admission.js";
import type { PluginsPort } from "../plugins/port.js";
import type { SecurityOptions } from "../transports/security.js";
import { WebhookRegistry } from "../events/webhooks.js";
import { createMcpHttp, inProcessBackend, type McpHttp } from "../mcp/index.js";
import { checkConnectionLimits, checkTrustProxy, TRUST_LOOPBACK } from "../transports/connections.js";
import { listen } from "../transports/listener.js";
import { WS_PATH } from "../transports/ws/server.js";


/** Plugin ids that would shadow the bridge's own paths (`/plugins/health`, top-level route segments). */
const FIXED_RESERVED_IDS = ["health", "ready", "status", "ws", "plugins", "schema", "metrics", "root"];

/**
 * Result schemas are checked in development and test runs (`NODE_ENV` `development` or `test`; vitest sets
 * `test`), where a method answering a shape its schema does not describe must fail loudly; production skips the
 * parse for speed.
 */
const CHECK_RESULTS_BY_DEFAULT = process.env["NODE_ENV"] === "development" || process.env["NODE_ENV"] === "test";

export interface Bridge {
  start(): Promise<void>;
  /** Emits `#closing`, lets running calls finish (bounded), closes sockets with 1001 and the editor. */
  close(reason?: ClosingReason): Promise<void>;
  /** `http://host:port` once started. */
  readonly url: string;
  /** `ws://host:port/ws` once started. */
  readonly wsUrl: string;
  readonly port: number;
  /** The first editor (the only one unless the bridge runs a pool). */
  readonly host: HostAdapter;
  readonly limits: Limits;
  /** The first editor's host session state, as `/health` shows it. */
  hostStatus(): ReturnType<HostSession["status"]>;
  /** Every editor of the pool: state, queue, restarts, documents, clients. */
  editors(): EditorSummary[];
  /** Folders client paths must lie inside (real paths once started), or `null` when unconfined. */
  readonly filesRoots: readonly string[] | null;
}

/**
 * Refuses listen addresses the security defaults forbid (off loopback, a token and files roots, or consent), and a
 * read token that would mean nothing: without the full token every caller has full access.
 */
function checkListen(listenHost: string, options: BridgeOptions): void {
  if (options.readToken !== undefined) {
    if (!options.token) throw new BridgeError("BAD_REQUEST", "A read token (--read-token) needs the full access token (--token) beside it: without one every caller has full access");
    if (options.readToken === options.token) throw new BridgeError("BAD_REQUEST", "The read token (--read-token) must differ from the access token (--token)");
  }
  if (isLoopbackHost(listenHost)) return;
  if (!options.token) throw new BridgeError("FORBIDDEN", `Listening on ${listenHost} (not loopback) requires an access token (--token)`);
  if ((options.files?.roots ?? []).length === 0 && options.files?.allowAnyPath !== true) {
    throw new BridgeError(
      "FORBIDDEN",
      `Listening on ${listenHost} (not loopback) requires --files-root <dir>, or --allow-any-path to let every token holder read and write any file this user can`,
    );
  }
}

/**
 * Refuses to join a cluster's NATS without credentials when the bridge guards its own door (a token, or an address
 * off loopback): calls from NATS run past that door, so anyone NATS lets in would be let in here too. Consent is
 * `cluster.allowAnonymous` (`--cluster-allow-anonymous`).
 */
function checkClusterCredentials(listenHost: string, options: BridgeOptions): void {
  const cluster = options.cluster;
  if (cluster === undefined || hasClusterCredentials(cluster) || cluster.allowAnonymous === true) return;
  const guarded = options.token ? "has an access token" : isLoopbackHost(listenHost) ? undefined : `listens on ${listenHost} (not loopback)`;
  if (guarded === undefined) return;
  throw new BridgeError(
    "FORBIDDEN",
    `This bridge ${guarded} but would join NATS without credentials: ${ANONYMOUS_CLUSTER_RISK}. Give NATS credentials ` +
      "(--cluster-user and --cluster-pass, --cluster-token, --cluster-creds or a TLS client certificate), or --cluster-allow-anonymous to accept that",
  );
}

/**
 * Composes the bridge: host session, logical clients, event bus, method table, plugins, and the HTTP + WS
 * transports on one port. No singletons, so tests run many bridges in one process.
 *
 * This is the composition root and it is long on purpose: each part is wired to the others here, once, and
 * splitting it would only pass the same dozen locals between helpers. Behaviour lives in the parts.
 *
 * @example
 * const bridge = createBridge({ listen: { port: 0 } });
 * await bridge.start();
 * console.log(bridge.wsUrl);
 * await bridge.close();
 */
export function createBridge(options: BridgeOptions = {}): Bridge {
  const log = options.logger ?? silentLogger();
  const limits = bridgeLimits(options);
  const listenHost = options.listen?.host ?? DEFAULT_LISTEN.host;
  const listenPort = options.listen?.port ?? DEFAULT_LISTEN.port;
  checkListen(listenHost, options);
  checkClusterCredentials(listenHost, options);
  checkConnectionLimits(limits);
  const trustProxy = checkTrustProxy(options.trustProxy === true ? [TRUST_LOOPBACK] : options.trustProxy || []);
  const countLoopback = options.countLoopbackPerAddress === true;
  const roots = options.files?.roots ?? [];
  // Until start() has followed the roots' symlinks, their plain absolute form confines (fails closed).
  let filePolicy: FilePolicy = roots.length === 0 ? UNCONFINED : { roots: roots.map((root) => resolvePath(root)) };
  const files: FileAccess = {
    get policy() {
      return filePolicy;
    },
    backupOnOverwrite: options.files?.backupOnOverwrite ?? true,
    maxOpenFileBytes: limits.maxOpenFileBytes,
    allowEditorScripts: options.files?.allowEditorScripts ?? false,
  };
  const imports: ImportPolicy = {
    limits: { maxBytes: limits.maxImportBytes, maxPixels: limits.maxImportPixels, urlTimeoutMs: limits.importUrlTimeoutMs, maxRedirects: limits.importMaxRedirects },
    allowFile: options.imports?.allowFile ?? true,
    allowPrivateUrl: options.imports?.allowPrivateUrl ?? false,
    get files() {
      return filePolicy;
    },
  };
  const hosts = editorHosts(options, log, files, limits);
  for (const editor of hosts) editor.useFileAccess?.(files);
  const { pool, cluster } = editorPool(options, hosts, limits, log);
  // The first editor's kind is the bridge's (`getServerInfo.editor`); a front door's stand-in says "none".
  const host: HostAdapter = hosts[0] ?? pool.first.host;
  const crossing = clusterCalls(cluster, pool, log);
  // Bridge-wide events (`#ready`, `#closing`) go out through the first editor's bus.
  const bus = pool.first.bus;
  const sources = eventSources(bus, pool, () => plugins);
  const allMethods = [...BUILTIN_METHODS, ...(options.methods ?? [])];
  const reservedIds = new Set([...FIXED_RESERVED_IDS, ...allMethods.flatMap((m) => (m.http ? [m.http.path.split("/")[1]!.toLowerCase()] : []))]);
  const clients: ClientRegistry = new ClientRegistry(
    limits,
    log,
    (client) => {
      dispatcher.metrics.retireClient(client.delivery);
      cluster?.sessionEnded(client);
      if (client.endpoint !== "root" && client.disposeReason !== "moved") plugins.disposed(client.endpoint, client.id, client.disposeReason);
    },
    pool,
  );
  const accepting = (): boolean => lifecycle.running;
  const statusSources = { pool, clients, files, cluster, startedAt: Date.now(), calls: () => dispatcher.metrics.recentCalls(), disabledWebhooks: () => webhooks.disabled().length, get plugins() {
    return plugins;
  } };
  const serverInfo = new ServerInfoAnswer(statusSources, host.kind);
  const services: BridgeServices = {
    limits,
    files,
    imports,
    scriptDirs: options.scriptDirs ?? [],
    serverInfo: () => serverInfo.current(),
    clients: () => clients.list().map((c) => c.summary()),
    disconnectClient: (prefix, evict) => clients.disconnect(prefix, evict),
    selectionWatch: (editorId) => pool.stateStream(editorId, "selection:changed")!,
    get webhooks() {
      return webhooks;
    },
    acceptedEvents: (endpoint) => sources.accepted(endpoint),
    eventStream: (endpoint, type, editorId) => sources.stream(endpoint, type, editorId),
  };
  // Plugin methods are found through the plugin host, which calls built-ins through the dispatcher: each side
  // reaches the other only when a call runs, after both exist.
  const dispatcher = new Dispatcher({
    methods: methodTable(allMethods),
    pool,
    services,
    log,
    accepting,
    pluginMethod: (endpoint, name) => plugins.methodFor(endpoint, name),
    checkResults: options.checkResults ?? CHECK_RESULTS_BY_DEFAULT,
    route: crossing.route,
    remote: crossing.remote,
  });
  crossing.serve(dispatcher);
  const plugins: PluginHost = new PluginHost(
    {
      plugins: options.plugins,
      pluginsDir: options.pluginsDir,
      config: options.pluginConfig,
      reservedIds,
      countClients: (endpoint) => clients.countAttached(endpoint),
      isolation: options.pluginIsolation,
      watch: options.watchPlugins,
    },
    {
      limits,
      log,
      invoke: (pluginId, method, params, invokeOptions) => dispatcher.callForPlugin(pluginId, method, params, invokeOptions?.editor),
      mainStream: (type) => sources.main(type),
      mainTypes: () => pool.acceptedTypes(),
    },
  );
  for (const editor of pool.editors) editor.session.onQueueWait = (waitMs) => dispatcher.metrics.recordQueueWait(editor.id, waitMs);
  dispatcher.metrics.observe({
    webhooks: () => {
      const disabled = webhooks.disabled().length;
      return { ...webhooks.counts, disabled, enabled: webhooks.size - disabled };
    },
    editors: () => pool.summaries(),
    editorMemory: () => pool.editors.flatMap((editor) => {
      const use = editor.host.memoryUse();
      return use === undefined ? [] : [{ id: editor.id, usedBytes: use.usedBytes, budgetBytes: use.budgetBytes }];
    }),
    clients: () => clients.list(),
    connections: () => lifecycle.port?.connections.counts(),
    eventStreams: () => events.counts,
    plugins: () => [
      ...plugins.list().map(({ id }) => ({ id, ok: !Object.values(plugins.health(id).checks ?? {}).includes("failed") })),
      ...plugins.failures().map(({ id }) => ({ id, ok: false })),
    ],
  });
  // The transports' ports: the clients' door, the calls (the dispatcher), the event log, the plugins, the views.
  const admission = new Admission(clients, {
    log,
    accepting,
    checkEditor: (editorId) => pool.refusal(editorId),
    endpointError: (endpoint) => (endpoint === "root" ? null : plugins.endpointError(endpoint)),
    admitToPlugin: (endpoint, clientId) => plugins.admit(endpoint, clientId),
    resumeElsewhere: clusterResume(cluster, clients, pool, services.eventStream),
  });
  const pluginsPort: PluginsPort = {
    endpointError: (endpoint) => (endpoint === "root" ? null : plugins.endpointError(endpoint)),
    route: (id, verb, segments) => plugins.route(id, verb, segments),
    list: () => ({ plugins: plugins.list(), failed: plugins.failures() }),
    contracts: () => plugins.contracts(),
    health: (id) => plugins.health(id),
  };
  const views = bridgeViews(
    statusSources,
    accepting,
    () => {
      const listener = lifecycle.port;
      return {
        eventStreams: { ...events.counts },
        webhooks: { ...webhooks.counts, hooks: webhooks.list() },
        ...(listener !== undefined ? { connections: listener.connections.counts(), inbound: listener.inbound.counts() } : {}),
        ...(mcp !== undefined ? { mcp: mcp.counts() } : {}),
      };
    },
    () => dispatcher.metrics.render(),
  );
  const security: SecurityOptions = { token: options.token, readToken: options.readToken, allowOrigins: options.allowOrigins ?? [], allowHosts: options.allowHosts ?? [], listenHost, publicHealth: options.publicHealth === true };

  // The MCP endpoint's sessions call the dispatcher like a WS client, each on its own lane.
  const mcp: McpHttp | undefined =
    options.mcp === false
      ? undefined
      : createMcpHttp({
          backend: (lane, scope) =>
            inProcessBackend({
              dispatcher,
              lane,
              scope,
              events: (type) => services.eventStream("root", type, undefined),
              pluginMethods: () => plugins.mcpToolMethods(),
            }),
          allowScripts: options.mcp?.allowScripts === true,
          maxSessions: limits.mcpMaxSessions,
          maxSessionsPerAddress: limits.mcpMaxSessionsPerAddress,
          sessionIdleMs: limits.mcpSessionIdleMs,
          addressOf: addressCounter({ trustProxy, countLoopback }),
          maxImageBytes: limits.mcpMaxImageBytes,
          log,
        });

  // Server-Sent Events (`GET /events`) read the same shared streams through one bounded log.
  const eventLog = new EventLog(sources, limits);
  const events = createEventStreams(new EventFollowing(eventLog, sources, limits, log), limits, log, trustProxy);
  // Webhooks POST the same events, signed, to their receivers.
  const webhooks = new WebhookRegistry(
    {
      stream: (type) => services.eventStream("root", type, undefined),
      accepted: () => services.acceptedEvents("root"),
      allowPrivate: options.webhooks?.allowPrivate === true,
      file: options.webhooks?.file,
    },
    limits,
    log,
  );

  const displayHost = listenHost.includes(":") ? `[${listenHost}]` : listenHost;
  const lifecycle: Lifecycle = new Lifecycle({
    log,
    shutdownGraceMs: limits.shutdownGraceMs,
    cluster,
    pool,
    plugins,
    webhooks,
    hooks: options.webhooks?.hooks ?? [],
    eventLog,
    mcp,
    clients,
    bus,
    // Before anything starts: a root that does not exist is a configuration error, not a half-started bridge.
    prepare: async () => {
      filePolicy = await createFilePolicy(roots);
    },
    listen: () =>
      listen(listenHost, listenPort, {
        calls: dispatcher,
        plugins: pluginsPort,
        views,
        limits,
        security,
        clients: admission,
        mcp,
        events,
        connectionOptions: { trustProxy, countLoopback },
        log,
      }),
    editorKind: host.kind,
    url: (port) => `http://${displayHost}:${port}`,
  });

  return {
    host,
    limits,
    hostStatus: () => pool.first.session.status(),
    editors: () => pool.summaries(),
    get filesRoots() {
      return filePolicy.roots;
    },
    get port() {
      return lifecycle.port?.port ?? 0;
    },
    get url() {
      return `http://${displayHost}:${this.port}`;
    },
    get wsUrl() {
      return `ws://${displayHost}:${this.port}${WS_PATH}`;
    },
    start: () => lifecycle.start(),
    close: (reason: ClosingReason = "process-exit") => lifecycle.close(reason),
  };
}
