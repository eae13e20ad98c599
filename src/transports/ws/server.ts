import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { type AccessScope, BEARER_PROTOCOL_PREFIX, BridgeError, CLOSE_CODES, isBridgeError, statusForError, type ProtocolError } from "../../protocol/index.js";
import { accessOf } from "../security.js";
import type { Admitted, ConnectRequest, Refused } from "../../actors/clients/port.js";
import type { WsPorts } from "./ports.js";
import { normalizeAddress, type ConnectionGate } from "../connections.js";
import { inboundBudgetFor, inboundOwner } from "../inbound.js";
import { openConnection, refuse } from "./connection.js";
import { textFrameTooLarge, watchInboundFrames, type InboundFrameRules } from "./inbound-frames.js";
import { NO_CONNECT_PARAMS, parseConnectParams, type ConnectParams } from "./params.js";

/** Root endpoint path; plugin endpoints are `/ws/{pluginId}`. */
export const WS_PATH = "/ws";
const PLUGIN_ENDPOINT = /^\/ws\/([A-Za-z0-9_-]{1,128})$/;

/** How long shutdown waits for a peer to answer the close handshake before dropping its socket. */
const CLOSE_HANDSHAKE_TIMEOUT_MS = 1_000;

export interface WsTransport {
  /** Closes every socket with `code` (1001 at shutdown) and stops accepting upgrades. */
  close(code?: number, reason?: string): Promise<void>;
}

/** A socket's `error` listener during and after the upgrade: a plain function, so it holds nothing of the request. */
function destroyOnError(this: Duplex): void {
  this.destroy();
}

function uncorkSocket(socket: Duplex): void {
  socket.uncork();
}

function rejectUpgrade(socket: Duplex, error: ProtocolError): void {
  const body = JSON.stringify(error);
  const status = statusForError(error);
  socket.end(
    `HTTP/1.1 ${status} ${error.code}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The request target's path and what its query asks for, or undefined for a target that does not parse (`//`, `//host:99999/`). */
function upgradeTarget(target: string | undefined): { pathname: string; params: ConnectParams | BridgeError } | undefined {
  // Nearly every upgrade is a plain `/ws`: no URL to build for it.
  if (target === WS_PATH) return { pathname: WS_PATH, params: NO_CONNECT_PARAMS };
  try {
    const url = new URL(target ?? "/", "http://bridge");
    return { pathname: url.pathname, params: parseConnectParams(url.searchParams) };
  } catch {
    return undefined;
  }
}

/** A connection asking the clients for a logical client: a class, so an upgrade makes no closures for it. */
class UpgradeRequest implements ConnectRequest {
  readonly resume: string | undefined;
  readonly takeover: boolean;
  readonly name: string | undefined;
  readonly editor: string | undefined;
  readonly binary: boolean;
  /** What the upgrade's token lets the socket call. */
  readonly scope: AccessScope;
  /** The socket once upgraded: from then on, connected while it is open. */
  ws: WebSocket | undefined;

  constructor(
    readonly endpoint: string,
    params: ConnectParams,
    private readonly socket: Duplex,
    scope: AccessScope,
  ) {
    this.scope = scope;
    this.resume = params.resume;
    this.takeover = params.takeover;
    this.name = params.name;
    this.editor = params.editor;
    this.binary = params.binary;
  }

  connected(): boolean {
    const ws = this.ws;
    return ws === undefined ? !this.socket.destroyed : ws.readyState === ws.OPEN;
  }
}

/**
 * WebSocket transport on the HTTP server's port: checks Host/Origin/token before upgrading, binds each socket to a
 * logical client, and pings every `heartbeatMs`, dropping sockets that missed the previous pong. Large incoming
 * messages wait for room in the server's inbound budget (`inboundBytesInFlight`), which HTTP bodies share.
 */
export function attachWebSocket(server: Server, ports: WsPorts, connections?: Pick<ConnectionGate, "admitUpgrade">): WsTransport {
  const { calls, limits } = ports;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxPayloadBytes,
    perMessageDeflate: false,
    // Browsers must see one of their offered subprotocols echoed; prefer one that is not the token.
    handleProtocols: (protocols) => {
      const list = [...protocols];
      return list.find((p) => !p.startsWith(BEARER_PROTOCOL_PREFIX)) ?? list[0] ?? false;
    },
  });
  /**
   * Sockets pinged and not heard from since: a pong takes a socket out, the next heartbeat terminates one still in.
   * Between heartbeats it is empty, and a socket holds no closure for it (one would keep its upgrade request alive).
   */
  const unanswered = new Set<WebSocket>();
  function answered(this: WebSocket): void {
    unanswered.delete(this);
  }
  // Frames and HTTP bodies being received draw from one budget per server: large ones wait for room.
  const inbound = inboundBudgetFor(server, limits);

  const frameRules: InboundFrameRules = {
    maxPayloadBytes: limits.maxPayloadBytes,
    maxTextFrameBytes: limits.maxTextFrameBytes,
    framesPerTurn: limits.clientFramesPerTurn,
    refuseText: (ws, bytes, requestId) => {
      const error = textFrameTooLarge(bytes, limits.maxTextFrameBytes);
      if (requestId === undefined) return refuse(ws, calls, error, CLOSE_CODES.MESSAGE_TOO_BIG);
      // The answer to that request, so the caller's call fails now rather than at its deadline.
      ws.send(JSON.stringify({ id: requestId, ok: false, error: calls.toWireError(error, { requestId }) }));
      ws.close(CLOSE_CODES.MESSAGE_TOO_BIG, error.code);
    },
  };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on("error", destroyOnError);
    safely(req, socket, head);
  };
  // An exception here would be thrown from the HTTP server's event and end the process: answer it instead.
  const safely = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    try {
      upgrade(req, socket, head);
    } catch (error) {
      if (!socket.destroyed) rejectUpgrade(socket, calls.toWireError(error, {}));
    }
  };
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    // Past the socket caps the upgrade is answered there (503 or 429) before anything else is read.
    if (connections !== undefined && !connections.admitUpgrade(req, socket)) return;
    const url = upgradeTarget(req.url);
    if (url === undefined) {
      rejectUpgrade(socket, calls.toWireError(new BridgeError("BAD_REQUEST", "The upgrade request's target is not a valid path", { details: { target: req.url } }), {}));
      return;
    }
    const endpoint = url.pathname === WS_PATH ? "root" : PLUGIN_ENDPOINT.exec(url.pathname)?.[1];
    const header = (name: string): string | undefined => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const params = url.params;
    const access = endpoint === undefined ? new BridgeError("NOT_FOUND", `No WebSocket endpoint at ${url.pathname}`) : accessOf(header, ports.security);
    if (typeof access !== "string" || endpoint === undefined || isBridgeError(params)) {
      rejectUpgrade(socket, calls.toWireError(typeof access !== "string" ? access : params, {}));
      return;
    }
    const request = new UpgradeRequest(endpoint, params, socket, access);
    // The clients decide, once; this only writes their answer.
    const admission = ports.clients.admit(request);
    if (!(admission instanceof Promise)) {
      answer(req, socket, head, admission, request);
      return;
    }
    admission.then(
      (answered) => {
        if (answered !== undefined && !socket.destroyed) answer(req, socket, head, answered, request);
      },
      (error: unknown) => {
        if (!socket.destroyed) rejectUpgrade(socket, calls.toWireError(error, {}));
      },
    );
  };
  const answer = (req: IncomingMessage, socket: Duplex, head: Buffer, admission: Refused | Admitted, request: UpgradeRequest): void => {
    if (admission.refusal !== undefined) {
      const { refusal, closeCode } = admission;
      if (closeCode === undefined) rejectUpgrade(socket, calls.toWireError(refusal, {}));
      else wss.handleUpgrade(req, socket, head, (ws) => refuse(ws, calls, refusal, closeCode));
      return;
    }
    // The 101 answer and the greeting leave in one write: ws writes the answer, the client's socket corks for the
    // greeting, and the socket is uncorked once that turn is over (one system call per connection, not two).
    socket.cork();
    process.nextTick(uncorkSocket, socket);
    wss.handleUpgrade(req, socket, head, (ws) => {
      request.ws = ws;
      watchInboundFrames(ws, socket, inbound, inboundOwner(req.socket), frameRules);
      ws.on("pong", answered);
      ws.on("close", answered); // emitted once; `once` would wrap it per socket
      openConnection(ws, socket, ports, admission, request.binary, normalizeAddress((socket as Partial<Socket>).remoteAddress ?? "unknown"), request.scope);
    });
  };
  server.on("upgrade", onUpgrade);

  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      if (unanswered.has(ws)) {
        ws.terminate();
        continue;
      }
      unanswered.add(ws);
      ws.ping();
    }
  }, limits.heartbeatMs);
  heartbeat.unref();

  return {
    async close(code = CLOSE_CODES.GOING_AWAY, reason = "bridge shutting down") {
      clearInterval(heartbeat);
      server.off("upgrade", onUpgrade);
      const closed = [...wss.clients].map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === ws.CLOSED) return resolve();
            ws.once("close", () => resolve());
            ws.close(code, reason);
            // A peer that never answers the close handshake must not hold shutdown.
            setTimeout(() => {
              ws.terminate();
              resolve();
            }, CLOSE_HANDSHAKE_TIMEOUT_MS).unref();
          }),
      );
      await Promise.all(closed);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
