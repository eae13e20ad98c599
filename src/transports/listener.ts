/*
 * One port for both transports: a Node HTTP server whose sockets are counted and capped before anything is read,
 * whose received bytes draw from one budget, answering HTTP (the fast path, then the h3 app) and upgrading
 * `/ws` to WebSocket.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "h3";
import type { ClientsPort } from "../actors/clients/port.js";
import type { Logger } from "../logger.js";
import type { McpHttp } from "../mcp/index.js";
import { connectionsCheckingInterval, guardConnections, type ConnectionGate, type ConnectionOptions } from "./connections.js";
import { createHttpApp, type HttpPorts } from "./http/app.js";
import { withFastPath } from "./http/fast-path.js";
import type { EventStreams } from "./http/sse.js";
import { inboundBudgetFor, type InboundBudget } from "./inbound.js";
import { attachWebSocket, type WsTransport } from "./ws/server.js";

/** How long an idle HTTP keep-alive connection stays open: long enough for a polling client, short enough to free sockets. */
const HTTP_KEEP_ALIVE_MS = 5_000;

export interface ListenerPorts extends HttpPorts {
  /** The logical clients' door, for WebSocket upgrades. */
  readonly clients: ClientsPort;
  readonly mcp?: McpHttp | undefined;
  readonly events: EventStreams;
  readonly connectionOptions: ConnectionOptions;
  readonly log: Logger;
}

export interface Listener {
  /** The port bound (the one asked for, or the one the system chose for 0). */
  readonly port: number;
  readonly connections: ConnectionGate;
  readonly inbound: InboundBudget;
  /** Closes every WebSocket with 1001 and stops accepting upgrades. */
  closeSockets(): Promise<void>;
  /** Drops every remaining connection and closes the port. */
  close(): Promise<void>;
}

/** Listens on `host:port` with both transports; rejects when the port cannot be bound. */
export async function listen(host: string, port: number, ports: ListenerPorts): Promise<Listener> {
  const { limits } = ports;
  const server: Server = createServer({ connectionsCheckingInterval: connectionsCheckingInterval(limits) });
  server.keepAliveTimeout = HTTP_KEEP_ALIVE_MS;
  // Sockets are counted and capped before any request or upgrade is read.
  const connections = guardConnections(server, limits, ports.connectionOptions, ports.log);
  // WS frames and HTTP bodies of every accepted socket draw from one budget of bytes being received.
  const inbound = inboundBudgetFor(server, limits);
  server.on("request", connections.requests(withFastPath(ports, toNodeHandler(createHttpApp(ports, ports.mcp, ports.events)))));
  const ws: WsTransport = attachWebSocket(
    server,
    { clients: ports.clients, calls: ports.calls, limits, security: ports.security, server: ports.views.server },
    connections,
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host, backlog: limits.listenBacklog }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    connections,
    inbound,
    closeSockets: () => ws.close(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
