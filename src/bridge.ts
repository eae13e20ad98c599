import { createServer, type Server } from "node:http";
import { resolve as resolvePath } from "node:path";
import type { AddressInfo } from "node:net";
import { setImmediate as nextTick } from "node:timers/promises";
import { toNodeHandler } from "h3";
import { createActor } from "xstate";
import { BridgeError, PROTOCOL_VERSION, type ClosingReason, type ServerInfo } from "./protocol/index.js";
import { bridgeMachine } from "./actors/bridge.machine.js";
import { ClientRegistry } from "./actors/client-registry.js";
import { Dispatcher } from "./actors/dispatcher.js";
import { EventBus } from "./actors/event-bus.js";
import { HostSession } from "./actors/host-session.js";
import { createFilePolicy, UNCONFINED, type FileAccess, type FilePolicy } from "./files/index.js";
import type { HostAdapter } from "./hosts/host.js";
import { createEmbeddedHost, type EmbeddedHostOptions } from "./hosts/embedded/index.js";
import { resolveLimits, type Limits } from "./limits.js";
import { silentLogger, type Logger } from "./logger.js";
import { z } from "zod";
import { BUILTIN_METHODS, isWireImage, methodTable, type BridgeServices, type MethodDefinition } from "./methods/index.js";
import { PluginHost } from "./plugins/index.js";
import { isLoopbackHost, type SecurityOptions } from "./transports/security.js";
import { createHttpApp } from "./transports/http/app.js";
import type { TransportTarget } from "./transports/target.js";
import { attachWebSocket, WS_PATH, type WsTransport } from "./transports/ws/server.js";
import { PACKAGE } from "./version.js";

/** Where the bridge listens unless told otherwise (DESIGN §2 "Address"). */
export const DEFAULT_LISTEN = { host: "127.0.0.1", port: 7700 } as const;

export interface BridgeOptions {
  /** The editor. @default the embedded editor with its sample document */
  host?: HostAdapter;
  /** Options of the embedded editor when `host` is not given. */
  embedded?: EmbeddedHostOptions;
  /** @default { host: "127.0.0.1", port: 7700 }; port 0 picks a free port */
  listen?: { host?: string; port?: number };
  /** Access token; required when `listen.host` is not a loopback address. */
  token?: string;
  /** Extra allowed Origins (see `SecurityOptions.allowOrigins`). */
  allowOrigins?: string[];
  /** Extra allowed Host names (see `SecurityOptions.allowHosts`). */
  allowHosts?: string[];
  /** Overrides of the named limits in `limits.ts`. */
  limits?: Partial<Limits>;
  /** @default a silent logger */
  logger?: Logger;
  /** Extra methods served beside the built-ins (tests, embedders). */
  methods?: MethodDefinition[];
  /** Plugin folders to load first, in order (`--plugin`). */
  plugins?: string[];
  /** A folder whose child folders are plugins, loaded after `plugins`, sorted by name (`--plugins-dir`). */
  pluginsDir?: string;
  /** Per-plugin configuration (`ctx.config`), overlaid on each manifest's `imageEditorBridge.config`. */
  pluginConfig?: Record<string, Record<string, unknown>>;
  /** Where clients may read and write files, and how saves treat the files they replace. */
  files?: FilesOptions;
}

/** File access of a bridge (`--files-root`, `--allow-any-path`, `--allow-editor-scripts`, `--no-backup`). */
export interface FilesOptions {
  /**
   * Folders every path a client sends (open, save, export, imports, scripts' file access) must lie inside, after
   * symlinks are followed; relative paths resolve against the first. Without roots, any path the bridge user can
   * reach is allowed, which is only accepted on loopback unless `allowAnyPath` says so.
   * @default none (unconfined)
   */
  roots?: string[];
  /**
   * Start off loopback without `roots`: every token holder can then read and write any file the bridge user can.
   * @default false
   */
  allowAnyPath?: boolean;
  /**
   * Let `jsx:run`/`jsx:execute` run while confined on editors whose scripts reach any file (Photoshop, GIMP).
   * @default false
   */
  allowEditorScripts?: boolean;
  /** Keep the file a save replaces as `<name>.bak` (one backup, replaced each time). @default true */
  backupOnOverwrite?: boolean;
  /** Let `layer:importImage` read `file:` URIs and local paths. @default `embedded.allowFileImport`, else true */
  allowFileImport?: boolean;
}

/** Plugin ids that would shadow the bridge's own paths (`/plugins/health`, top-level route segments). */
const FIXED_RESERVED_IDS = ["health", "status", "ws", "plugins", "schema", "metrics", "root"];

export interface Bridge {
  start(): Promise<void>;
  /** Emits `#closing`, lets running calls finish (bounded), closes sockets with 1001 and the editor. */
  close(reason?: ClosingReason): Promise<void>;
  /** `http://host:port` once started. */
  readonly url: string;
  /** `ws://host:port/ws` once started. */
  readonly wsUrl: string;
  readonly port: number;
  readonly host: HostAdapter;
  readonly limits: Limits;
  /** The host session's state, as `/health` shows it. */
  hostStatus(): ReturnType<HostSession["status"]>;
  /** Folders client paths must lie inside (real paths once started), or `null` when unconfined. */
  readonly filesRoots: readonly string[] | null;
}

/**
 * Composes the bridge: host session, logical clients, event bus, method table, and the HTTP + WS transports
 * on one port. No singletons, so tests run many bridges in one process.
 *
 * @example
 * const bridge = createBridge({ listen: { port: 0 } });
 * await bridge.start();
 * console.log(bridge.wsUrl);
 * await bridge.close();
 */
export function createBridge(options: BridgeOptions = {}): Bridge {
  const log = options.logger ?? silentLogger();
  const limits = resolveLimits(options.limits);
  const listenHost = options.listen?.host ?? DEFAULT_LISTEN.host;
  const listenPort = options.listen?.port ?? DEFAULT_LISTEN.port;
  if (!isLoopbackHost(listenHost) && !options.token) {
    throw new BridgeError("FORBIDDEN", `Listening on ${listenHost} (not loopback) requires an access token (--token)`);
  }
  const roots = options.files?.roots ?? [];
  if (!isLoopbackHost(listenHost) && roots.length === 0 && options.files?.allowAnyPath !== true) {
    throw new BridgeError(
      "FORBIDDEN",
      `Listening on ${listenHost} (not loopback) requires --files-root <dir>, or --allow-any-path to let every token holder read and write any file this user can`,
    );
  }
  // Until start() has followed the roots' symlinks, their plain absolute form confines (fails closed).
  let filePolicy: FilePolicy = roots.length === 0 ? UNCONFINED : { roots: roots.map((root) => resolvePath(root)) };
  const files: FileAccess = {
    get policy() {
      return filePolicy;
    },
    backupOnOverwrite: options.files?.backupOnOverwrite ?? true,
    maxOpenFileBytes: limits.maxOpenFileBytes,
    maxImportFileBytes: limits.maxImportFileBytes,
    allowFileImport: options.files?.allowFileImport ?? options.embedded?.allowFileImport ?? true,
    allowEditorScripts: options.files?.allowEditorScripts ?? false,
  };
  const host = options.host ?? createEmbeddedHost({ logger: log.child({ actor: "host" }), files, ...options.embedded });
  const actor = createActor(bridgeMachine).start();
  const session = new HostSession(host, limits, log);
  const bus = new EventBus(host, log);
  let port = 0;
  const allMethods = [...BUILTIN_METHODS, ...(options.methods ?? [])];
  const reservedIds = new Set([
    ...FIXED_RESERVED_IDS,
    ...allMethods.flatMap((m) => (m.http ? [m.http.path.split("/")[1]!.toLowerCase()] : [])),
  ]);
  // Late-bound: plugins call built-ins through the dispatcher, which finds plugin methods through them.
  let dispatcher: Dispatcher | undefined;
  const clients: ClientRegistry = new ClientRegistry(limits, log, (client) => {
    if (client.endpoint !== "root") plugins.disposed(client.endpoint, client.id, client.disposeReason);
  });
  const plugins = new PluginHost(
    {
      plugins: options.plugins,
      pluginsDir: options.pluginsDir,
      config: options.pluginConfig,
      reservedIds,
      countClients: (endpoint) => clients.countAttached(endpoint),
    },
    {
      limits,
      log,
      invoke: async (pluginId, method, params) => {
        const result = await dispatcher!.call({ lane: `plugin:${pluginId}`, client: null, endpoint: "root" }, method, params);
        // Plugins see results exactly as a WS client would (images as data URIs).
        return isWireImage(result) ? result.toJSON() : result;
      },
      mainStream: (type) => bus.stream(type),
      mainTypes: () => bus.acceptedTypes(),
    },
  );
  const pluginMethods = new Map<string, MethodDefinition>();
  const pluginMethod = (endpoint: string, name: string): MethodDefinition | undefined => {
    const plugin = plugins.plugin(endpoint);
    if (plugin === undefined || !plugin.hasMethod(name)) return undefined;
    const key = `${endpoint}\u0000${name}`;
    let method = pluginMethods.get(key);
    if (method === undefined) {
      method = {
        name,
        params: z.unknown(), // validated by the plugin's own (Standard) schema in callMethod
        result: z.unknown(),
        host: false,
        mutates: true,
        run: (ctx, params) => plugin.callMethod(name, params, { clientId: ctx.caller.client?.id ?? ctx.caller.lane, endpoint }),
      };
      pluginMethods.set(key, method);
    }
    return method;
  };
  const services: BridgeServices = {
    limits,
    files,
    bus,
    serverInfo: (): ServerInfo => {
      const info: ServerInfo = {
        name: PACKAGE.name,
        version: PACKAGE.version,
        protocolVersion: PROTOCOL_VERSION,
        editor: host.kind,
        plugins: plugins.list(),
        filesRoots: filePolicy.roots === null ? null : [...filePolicy.roots],
      };
      if (session.hostVersion !== undefined) info.hostVersion = session.hostVersion;
      return info;
    },
    clients: () => clients.list().map((c) => c.summary()),
    watchSelection: (client, enabled) => client.watch("selection:change", bus.stream("selection:changed")!, enabled),
    acceptedEvents: (endpoint) => (endpoint === "root" ? bus.acceptedTypes() : [...bus.acceptedTypes(), ...plugins.eventTypes(endpoint)]),
    eventStream: (endpoint, type) => bus.stream(type) ?? (endpoint === "root" ? undefined : plugins.eventStream(endpoint, type)),
  };
  // Mirrored on change: read on every request.
  let running = false;
  actor.subscribe((snapshot) => {
    running = snapshot.matches("running");
  });
  const accepting = (): boolean => running;
  dispatcher = new Dispatcher(methodTable(allMethods), session, services, limits, log, accepting, pluginMethod);
  const security: SecurityOptions = {
    token: options.token,
    allowOrigins: options.allowOrigins ?? [],
    allowHosts: options.allowHosts ?? [],
    listenHost,
  };
  const startedAt = Date.now();
  const target: TransportTarget = {
    dispatcher,
    clients,
    limits,
    security,
    log,
    server: { name: PACKAGE.name, version: PACKAGE.version },
    accepting,
    endpointError: (endpoint) => (endpoint === "root" ? null : plugins.endpointError(endpoint)),
    admit: (endpoint, clientId) => plugins.admit(endpoint, clientId),
    pluginRoute: (id, verb, segments) => {
      const refusal = plugins.endpointError(id);
      if (refusal !== null) throw refusal;
      const { plugin, match, verbs } = plugins.route(id, verb, segments);
      if (plugin === undefined || match === null) return { verbs };
      return {
        run: (request) =>
          plugin.runRoute(match.handler, { ...request, method: verb as "GET", params: match.params }),
      };
    },
    health: () => ({
      status: "ok",
      uptimeMs: Date.now() - startedAt,
      clients: clients.size,
      host: session.status(),
      plugins: { loaded: plugins.list().length, failed: plugins.failures().length },
    }),
    status: () => ({
      status: "ok",
      name: PACKAGE.name,
      version: PACKAGE.version,
      uptimeMs: Date.now() - startedAt,
      editor: { ...session.status(), ...(session.hostVersion !== undefined ? { hostVersion: session.hostVersion } : {}) },
      clients: clients.list().map((client) => client.summary()),
      plugins: { loaded: plugins.list(), failed: plugins.failures() },
      files: {
        roots: filePolicy.roots,
        backupOnOverwrite: files.backupOnOverwrite,
        allowEditorScripts: files.allowEditorScripts,
        allowFileImport: files.allowFileImport,
        maxOpenFileBytes: files.maxOpenFileBytes,
        maxImportFileBytes: files.maxImportFileBytes,
      },
    }),
    plugins: () => ({ plugins: plugins.list(), failed: plugins.failures() }),
    pluginHealth: (id) => plugins.health(id),
    metrics: () => {
      const status = session.status();
      return dispatcher.metrics.render({
        clients: clients.size,
        subscriptions: clients.list().reduce((n, c) => n + c.subscriptionTypes().length, 0),
        queue_depth: status.queued,
        host_running: status.running,
        host_ready: status.state === "ready" || status.state === "busy" ? 1 : 0,
      });
    },
  };

  let server: Server | undefined;
  let ws: WsTransport | undefined;
  let closing: Promise<void> | undefined;
  const displayHost = listenHost.includes(":") ? `[${listenHost}]` : listenHost;

  return {
    host,
    limits,
    hostStatus: () => session.status(),
    get filesRoots() {
      return filePolicy.roots;
    },
    get port() {
      return port;
    },
    get url() {
      return `http://${displayHost}:${port}`;
    },
    get wsUrl() {
      return `ws://${displayHost}:${port}${WS_PATH}`;
    },
    async start() {
      if (!actor.getSnapshot().matches("idle")) throw new BridgeError("BAD_REQUEST", "The bridge was already started");
      // Before anything starts: a root that does not exist is a configuration error, not a half-started bridge.
      filePolicy = await createFilePolicy(roots);
      actor.send({ type: "START" });
      try {
        const ready = await session.start();
        if (!ready) log.warn({ actor: "host", editor: host.kind }, "editor not reachable yet; retrying in the background");
        // Before listening, so `/plugins`, `getServerInfo` and `#ready` are complete from the first request.
        await plugins.load();
        server = createServer(toNodeHandler(createHttpApp(target)));
        server.keepAliveTimeout = 5_000;
        ws = attachWebSocket(server, target);
        await new Promise<void>((resolve, reject) => {
          server!.once("error", reject);
          server!.listen(listenPort, listenHost, () => {
            server!.off("error", reject);
            resolve();
          });
        });
        port = (server.address() as AddressInfo).port;
      } catch (error) {
        actor.send({ type: "FAILED" });
        await plugins.stop("start-failed");
        await session.close();
        throw error;
      }
      actor.send({ type: "STARTED" });
      bus.emitReady({ port, plugins: plugins.list() });
      log.info({ actor: "bridge", url: `http://${displayHost}:${port}`, editor: host.kind }, "bridge listening");
    },
    close(reason: ClosingReason = "process-exit") {
      closing ??= (async () => {
        const wasRunning = actor.getSnapshot().matches("running");
        actor.send({ type: "CLOSE" });
        if (wasRunning) bus.emitClosing({ reason });
        await session.close(limits.shutdownGraceMs);
        await nextTick(); // let answers of the last calls reach their sockets before they close
        await ws?.close();
        clients.disposeAll();
        await plugins.stop(reason);
        if (server !== undefined) {
          server.closeAllConnections();
          await new Promise<void>((resolve) => server!.close(() => resolve()));
        }
        actor.send({ type: "CLOSED" });
        actor.stop();
        log.info({ actor: "bridge", reason }, "bridge closed");
      })();
      return closing;
    },
  };
}
