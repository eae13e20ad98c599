import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import {
  BATCH_FEATURE,
  BINARY_FEATURE,
  BridgeError,
  CANCEL_FEATURE,
  CLOSE_CODES,
  CONNECTION_EVENTS,
  PROGRESS_FEATURE,
  PROTOCOL_VERSION,
  type ConnectedEventData,
} from "../../protocol/index.js";
import { EDIT_FEATURE } from "../../protocol/control-names.js";
import type { LogicalClient } from "../../actors/clients/client.js";
import { messageCount, sendFrame } from "../../actors/clients/frames.js";
import type { ReplayBatch } from "../../actors/clients/replay.js";
import type { TransportTarget } from "../target.js";
import { normalizeAddress } from "../connections.js";
import type { ConnectParams } from "./params.js";
import { pauseReading, resumeReading } from "./pauses.js";
import { WsClientSocket } from "./client-socket.js";
import { errorEvent, WsSession } from "./session.js";

/** Protocol 1.1 features every WebSocket connection has; `binary` is added where it was asked for. */
const WS_FEATURES = [CANCEL_FEATURE, PROGRESS_FEATURE, BATCH_FEATURE, EDIT_FEATURE];
const BINARY_FEATURES = [BINARY_FEATURE, ...WS_FEATURES];

/** What follows the client id in a new root client's greeting, per server identity: `[plain, binary]`. */
const greetingTails = new WeakMap<TransportTarget["server"], readonly [string, string]>();

/**
 * The `connected` frame of a new client of the root endpoint: everything but its id is the same for every such
 * client of a server, so it is serialized once and the id put in front (the same JSON as `greeting` would write).
 */
export function newClientGreeting(server: TransportTarget["server"], clientId: string, binary: boolean): string {
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

/** The `connected` frame, as its schema types it (`ConnectedEventDataSchema`): what clients parse is what is sent. */
export function greeting(server: TransportTarget["server"], client: Pick<LogicalClient, "id" | "endpoint">, binary: boolean, batch: ReplayBatch | undefined, replayed: number): string {
  if (batch === undefined && client.endpoint === "root") return newClientGreeting(server, client.id, binary);
  const connected: ConnectedEventData = {
    clientId: client.id,
    resumed: batch !== undefined,
    protocolVersion: PROTOCOL_VERSION,
    server,
    ...(client.endpoint !== "root" ? { endpoint: client.endpoint } : {}),
    ...(batch !== undefined ? { replayed, lost: batch.lost } : {}),
    features: binary ? BINARY_FEATURES : WS_FEATURES,
  };
  return JSON.stringify({ type: CONNECTION_EVENTS.connected, data: connected });
}

/** Answers an accepted socket that may not stay: an `error` event, then a close. */
export function refuse(ws: WebSocket, target: TransportTarget, error: BridgeError, code: number): void {
  ws.send(errorEvent(target.dispatcher.toWireError(error, {})));
  ws.close(code, error.code);
}

/**
 * One accepted socket bound to a logical client: the handshake, replay, frames in, responses out. Frames that
 * arrive after the socket lost its client (takeover, slow consumer) are ignored. A new client of a plugin
 * endpoint is admitted by the plugin's `onConnect` first; a refusal is an `error` event and close 1011. A resume
 * with `takeover=0` of a client another socket holds is refused (CLIENT_ATTACHED, close 4409) and binds nothing.
 */
export function bindConnection(ws: WebSocket, raw: Duplex, target: TransportTarget, endpoint: string, params: ConnectParams): LogicalClient | undefined {
  const socket = new WsClientSocket(ws, raw, params.binary);
  const resumable = params.resume === undefined ? undefined : target.clients.find(params.resume, endpoint);
  if (resumable !== undefined && !params.takeover && resumable.attachedSocket !== null) {
    // The live socket keeps the client; the refusal names no id (the asker has it, logs must not).
    target.log.info({ actor: resumable.logName, endpoint }, "resume refused: the client is attached and takeover=0");
    refuse(ws, target, new BridgeError("CLIENT_ATTACHED", "That client is attached to another connection, and takeover=0 was given"), CLOSE_CODES.CLIENT_ATTACHED);
    return undefined;
  }
  if (resumable !== undefined) {
    if (params.name !== undefined) resumable.name = params.name;
    serve(ws, socket, target, resumable, resumable.attach(socket));
    return resumable;
  }
  let client: LogicalClient;
  try {
    client = target.clients.create(endpoint, socket, params.name, params.editor);
  } catch (error) {
    refuse(ws, target, error as BridgeError, CLOSE_CODES.INTERNAL);
    return undefined;
  }
  if (endpoint === "root") {
    serve(ws, socket, target, client, undefined);
    return client;
  }
  // A plugin's onConnect decides whether a new client may stay; frames wait (socket paused) until it has.
  pauseReading(ws, "admission");
  target.admit(endpoint, client.id).then(
    () => {
      resumeReading(ws, "admission");
      if (ws.readyState !== ws.OPEN) {
        client.dispose("closed");
        return;
      }
      serve(ws, socket, target, client, undefined);
    },
    (error: unknown) => {
      client.dispose("closed");
      resumeReading(ws, "admission");
      refuse(ws, target, error as BridgeError, CLOSE_CODES.INTERNAL);
    },
  );
  return client;
}

/** Sends the handshake and replay, then serves the socket's frames for its logical client. */
function serve(ws: WebSocket, socket: WsClientSocket, target: TransportTarget, client: LogicalClient, batch: ReplayBatch | undefined): void {
  const endpoint = client.endpoint;
  const resumed = batch !== undefined;
  const replayed = batch === undefined ? 0 : messageCount(socket, batch.frames);
  client.address = normalizeAddress((socket.raw as Partial<Socket>).remoteAddress ?? "unknown");
  target.clients.churn.write(client.address, "connected", { actor: client.logName, endpoint, name: client.name, resumed, replayed, binary: socket.binary }, "client connected");
  socket.send(greeting(target.server, client, socket.binary, batch, replayed));
  for (const frame of batch?.frames ?? []) sendFrame(socket, frame);
  new WsSession(ws, socket, target, client);
}
