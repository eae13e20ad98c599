import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import {
  type AccessScope,
  BATCH_FEATURE,
  BINARY_FEATURE,
  type BridgeError,
  CANCEL_FEATURE,
  CLOSE_CODES,
  CONNECTION_EVENTS,
  PROGRESS_FEATURE,
  PROTOCOL_VERSION,
  type ConnectedEventData,
} from "../../protocol/index.js";
import { EDIT_FEATURE, HISTORY_FEATURE } from "../../protocol/control-names.js";
import type { Admitted, ClientHandle, Greeter, Opened } from "../../actors/clients/port.js";
import type { CallsPort } from "../../calls/port.js";
import type { ServerIdentity } from "../views.js";
import { pauseReading, resumeReading } from "./pauses.js";
import type { WsPorts } from "./ports.js";
import { WsClientSocket } from "./client-socket.js";
import { errorEvent, WsSession } from "./session.js";

/** Protocol 1.1 features every WebSocket connection has; `binary` is added where it was asked for. */
const WS_FEATURES = [CANCEL_FEATURE, PROGRESS_FEATURE, BATCH_FEATURE, EDIT_FEATURE, HISTORY_FEATURE];
const BINARY_FEATURES = [BINARY_FEATURE, ...WS_FEATURES];

/** What follows the client id in a new root client's greeting, per server identity: `[plain, binary]`. */
const greetingTails = new WeakMap<ServerIdentity, readonly [string, string]>();

/**
 * The `connected` frame of a new client of the root endpoint: everything but its id is the same for every such
 * client of a server, so it is serialized once and the id put in front (the same JSON as `greeting` would write).
 */
export function newClientGreeting(server: ServerIdentity, clientId: string, binary: boolean): string {
  let tails = greetingTails.get(server);
  if (tails === undefined) {
    const tail = (features: string[]): string => {
      const rest: Omit<ConnectedEventData, "clientId"> = { resumed: false, protocolVersion: PROTOCOL_VERSION, server, features };
      return `${JSON.stringify(rest).slice(1)}}`;
    };
    tails = [tail(WS_FEATURES), tail(BINARY_FEATURES)];
    greetingTails.set(server, tails);
  }
  return `{"type":"${CONNECTION_EVENTS.connected}","data":{"clientId":${JSON.stringify(clientId)},${tails[binary ? 1 : 0]}`;
}

/**
 * The `connected` frame, as its schema types it (`ConnectedEventDataSchema`): what clients parse is what is sent. A
 * read-scoped connection says so (`scope: "read"`); a full one leaves the field out, as bridges before scopes did.
 */
export function greeting(server: ServerIdentity, client: Pick<ClientHandle, "id" | "endpoint">, binary: boolean, batch: { readonly lost: number } | undefined, replayed: number, scope: AccessScope = "full"): string {
  if (batch === undefined && client.endpoint === "root" && scope === "full") return newClientGreeting(server, client.id, binary);
  const connected: ConnectedEventData = {
    clientId: client.id,
    resumed: batch !== undefined,
    protocolVersion: PROTOCOL_VERSION,
    server,
    ...(client.endpoint !== "root" ? { endpoint: client.endpoint } : {}),
    ...(batch !== undefined ? { replayed, lost: batch.lost } : {}),
    features: binary ? BINARY_FEATURES : WS_FEATURES,
    ...(scope !== "full" ? { scope } : {}),
  };
  return JSON.stringify({ type: CONNECTION_EVENTS.connected, data: connected });
}

/** Answers an accepted socket that may not stay: an `error` event, then a close. */
export function refuse(ws: WebSocket, calls: Pick<CallsPort, "toWireError">, error: BridgeError, code: number): void {
  ws.send(errorEvent(calls.toWireError(error, {})));
  ws.close(code, error.code);
}

/** The `connected` frame of one transport's clients, per scope: one function for them all, so no closure is made per socket. */
const greeters = new WeakMap<ServerIdentity, Record<AccessScope, Greeter>>();

function greeterFor(server: ServerIdentity, scope: AccessScope): Greeter {
  let greet = greeters.get(server);
  if (greet === undefined) {
    const of = (each: AccessScope): Greeter => (client, socket, resumed) => greeting(server, client, socket.binary, resumed, resumed?.replayed ?? 0, each);
    greet = { full: of("full"), read: of("read") };
    greeters.set(server, greet);
  }
  return greet[scope];
}

/**
 * One accepted socket bound to the logical client admission gave it: the handshake and replay (written by the
 * admission through `greeting`), then its frames, served by a {@link WsSession}. While a plugin's `onConnect` decides
 * about a new client the socket is not read; a refusal is an `error` event and a close with the code it names.
 */
export function openConnection(
  ws: WebSocket,
  raw: Duplex,
  ports: Pick<WsPorts, "calls" | "limits" | "server">,
  admitted: Admitted,
  binary: boolean,
  address: string,
  scope: AccessScope = "full",
): void {
  const socket = new WsClientSocket(ws, raw, binary, scope);
  const opened = admitted.open(socket, address, greeterFor(ports.server, scope));
  if (!(opened instanceof Promise)) {
    serve(ws, socket, ports, opened);
    return;
  }
  pauseReading(ws, "admission");
  void opened.then((answer) => {
    resumeReading(ws, "admission");
    serve(ws, socket, ports, answer);
  });
}

/** Writes admission's answer: a session for the client's frames, or the refusal. */
function serve(ws: WebSocket, socket: WsClientSocket, ports: Pick<WsPorts, "calls" | "limits">, opened: Opened): void {
  if (opened === undefined) return;
  if (opened.refusal !== undefined) refuse(ws, ports.calls, opened.refusal, opened.closeCode ?? CLOSE_CODES.INTERNAL);
  else new WsSession(ws, socket, ports, opened.client);
}
