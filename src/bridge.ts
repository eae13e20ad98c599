import { createServer, type Server } from "node:http";
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
import type { HostAdapter } from "./hosts/host.js";
import { createEmbeddedHost, type EmbeddedHostOptions } from "./hosts/embedded/index.js";
import { resolveLimits, type Limits } from "./limits.js";
import { silentLogger, type Logger } from "./logger.js";
import { BUILTIN_METHODS, methodTable, type BridgeServices, type MethodDefinition } from "./methods/index.js";
import { createEmptyPluginRegistry } from "./plugins/index.js";
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
}

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
  const host = options.host ?? createEmbeddedHost(options.embedded ?? {});
  const actor = createActor(bridgeMachine).start();
  const session = new HostSession(host, limits, log);
  const bus = new EventBus(host, log);
  const plugins = createEmptyPluginRegistry();
  let port = 0;

  const clients = new ClientRegistry(limits, log);
  const services: BridgeServices = {
    limits,
    bus,
    serverInfo: (): ServerInfo => {
      const info: ServerInfo = {
        name: PACKAGE.name,
        version: PACKAGE.version,
        protocolVersion: PROTOCOL_VERSION,
        editor: host.kind,
        plugins: plugins.list(),
      };
      if (session.hostVersion !== undefined) info.hostVersion = session.hostVersion;
      return info;
    },
    clients: () => clients.list().map((c) => c.summary()),
    watchSelection: (client, enabled) => client.watch("selection:change", bus.stream("selection:changed")!, enabled),
  };
  // Mirrored on change: read on every request.
  let running = false;
  actor.subscribe((snapshot) => {
    running = snapshot.matches("running");
  });
  const accepting = (): boolean => running;
  const dispatcher = new Dispatcher(
    methodTable([...BUILTIN_METHODS, ...(options.methods ?? [])]),
    session,
    services,
    limits,
    log,
    accepting,
  );
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
    health: () => ({ status: "ok", uptimeMs: Date.now() - startedAt, clients: clients.size, host: session.status() }),
    plugins: () => plugins.list(),
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
      actor.send({ type: "START" });
      try {
        const ready = await session.start();
        if (!ready) log.warn({ actor: "host", editor: host.kind }, "editor not reachable yet; retrying in the background");
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
