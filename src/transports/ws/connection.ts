import type { WebSocket } from "ws";
import { CONNECTION_EVENTS, checkRequest, PROTOCOL_VERSION, type ProtocolError } from "../../protocol/index.js";
import { BridgeError } from "../../protocol/index.js";
import { CLOSE_CODES, type ClientSocket, type LogicalClient } from "../../actors/client.js";
import type { Caller } from "../../methods/index.js";
import type { TransportTarget } from "../target.js";

function errorEvent(error: ProtocolError): string {
  return JSON.stringify({ type: CONNECTION_EVENTS.error, data: error });
}

/** Answers an accepted socket that may not stay: an `error` event, then a close (DESIGN §2 "Handshake"). */
export function refuse(ws: WebSocket, target: TransportTarget, error: BridgeError, code: number): void {
  ws.send(errorEvent(target.dispatcher.toWireError(error, {})));
  ws.close(code, error.code);
}

/**
 * One accepted socket bound to a logical client: the handshake, replay, frames in, responses out. Frames that
 * arrive after the socket lost its client (takeover, slow consumer) are ignored.
 */
export function bindConnection(ws: WebSocket, target: TransportTarget, endpoint: string, resumeId: string | undefined): LogicalClient {
  const socket: ClientSocket = {
    send: (text) => ws.send(text),
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
    close: (code, reason) => ws.close(code, reason),
  };
  const resumable = resumeId === undefined ? undefined : target.clients.find(resumeId, endpoint);
  const client = resumable ?? target.clients.create(endpoint, socket);
  const batch = resumable === undefined ? { frames: [], lost: 0 } : resumable.attach(socket);
  const caller: Caller = { lane: client.id, client, endpoint };
  const actor = `client:${client.id}`;
  target.log.info({ actor, endpoint, resumed: resumable !== undefined, replayed: batch.frames.length }, "client connected");

  const connected: Record<string, unknown> = {
    clientId: client.id,
    resumed: resumable !== undefined,
    protocolVersion: PROTOCOL_VERSION,
    server: target.server,
  };
  if (endpoint !== "root") connected["endpoint"] = endpoint;
  if (resumable !== undefined) {
    connected["replayed"] = batch.frames.length;
    connected["lost"] = batch.lost;
  }
  ws.send(JSON.stringify({ type: CONNECTION_EVENTS.connected, data: connected }));
  for (const frame of batch.frames) ws.send(frame);

  let malformed = 0;
  const current = (): boolean => client.attachedSocket === socket;

  ws.on("message", (data, isBinary) => {
    if (!current()) return;
    const text = isBinary || typeof data !== "string" ? String(data) : data;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      malformed++;
      ws.send(errorEvent(target.dispatcher.toWireError(new BridgeError("BAD_REQUEST", "Frame is not valid JSON"), { caller })));
      if (malformed >= target.limits.maxMalformedFrames) ws.close(CLOSE_CODES.INVALID_DATA, "too many malformed frames");
      return;
    }
    const check = checkRequest(value);
    if (!check.ok) {
      const error = new BridgeError("BAD_REQUEST", `Not a valid request: ${check.reason}`);
      if (check.id !== undefined) {
        const wire = target.dispatcher.toWireError(error, { requestId: check.id, caller });
        client.deliverResponse(JSON.stringify({ id: check.id, ok: false, error: wire }));
      } else {
        ws.send(errorEvent(target.dispatcher.toWireError(error, { caller })));
      }
      return;
    }
    const { id, method, params } = check.request;
    void target.dispatcher.respond(caller, id, method, params).then((text) => client.deliverResponse(text));
  });

  ws.on("close", (code) => {
    if (!current()) return;
    if (code === CLOSE_CODES.DISPOSE) client.dispose();
    else client.detach(socket);
    target.log.info({ actor, code }, "client socket closed");
  });
  ws.on("error", (error) => target.log.warn({ actor, err: error.message }, "client socket error"));
  return client;
}
