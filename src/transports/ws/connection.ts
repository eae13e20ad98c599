import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import {
  BATCH_FEATURE,
  BINARY_FEATURE,
  BridgeError,
  CANCEL_FEATURE,
  CLOSE_CODES,
  CONNECTION_EVENTS,
  checkRequest,
  PROGRESS_FEATURE,
  PROTOCOL_VERSION,
  type ConnectedEventData,
  type ProtocolError,
  type RequestId,
} from "../../protocol/index.js";
import { messageCount, sendFrame, type LogicalClient, type ReplayBatch } from "../../actors/client.js";
import type { DispatchCaller } from "../../actors/dispatcher.js";
import type { TransportTarget } from "../target.js";
import type { ConnectParams } from "./params.js";
import { BinaryPartCollector, binaryPartsNamed, type PartRequest } from "./binary-parts.js";
import { pauseReading, resumeReading } from "./pauses.js";
import { WsClientSocket } from "./client-socket.js";

/** Close code of a socket whose client kept flooding frames past its rate (RFC 6455 policy violation). */
const POLICY_VIOLATION = CLOSE_CODES.POLICY_VIOLATION;

/** Protocol 1.1 features every WebSocket connection has; `binary` is added where it was asked for. */
const WS_FEATURES = [CANCEL_FEATURE, PROGRESS_FEATURE, BATCH_FEATURE] as const;

function errorEvent(error: ProtocolError): string {
  return JSON.stringify({ type: CONNECTION_EVENTS.error, data: error });
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
  // The client's editor is read per call: the bridge may move it to another (`editor:changed`).
  const caller: DispatchCaller = {
    lane: client.id,
    client,
    endpoint,
    get editorId() {
      return client.editorId;
    },
    binary: socket.binary,
  };
  const actor = client.logName;
  const replayed = batch === undefined ? 0 : messageCount(socket, batch.frames);
  target.log.info({ actor, endpoint, name: client.name, resumed, replayed, binary: socket.binary }, "client connected");

  // The handshake is typed by its schema (`ConnectedEventDataSchema`): what clients parse is what is sent.
  const connected: ConnectedEventData = {
    clientId: client.id,
    resumed,
    protocolVersion: PROTOCOL_VERSION,
    server: target.server,
    ...(endpoint !== "root" ? { endpoint } : {}),
    ...(batch !== undefined ? { replayed, lost: batch.lost } : {}),
    features: [...(socket.binary ? [BINARY_FEATURE] : []), ...WS_FEATURES],
  };
  socket.send(JSON.stringify({ type: CONNECTION_EVENTS.connected, data: connected }));
  for (const frame of batch?.frames ?? []) sendFrame(socket, frame);

  let malformed = 0;
  /** Binary parts still to come of a request refused for the rate: dropped quietly, never counted as malformed. */
  let refusedParts = 0;
  /** Frames refused for the rate since the last one admitted; from `clientFramePauseAfter` on, reading pauses. */
  let refusedInARow = 0;
  /** Reading is paused for `clientFramePauseMs`. */
  let ratePaused = false;
  const current = (): boolean => client.attachedSocket === socket;
  const run = (request: PartRequest, parts: Uint8Array[]): void => {
    const options = { progress: request.progress === true };
    void target.dispatcher.respond(caller, request.id, request.method, request.params, parts, options).then((text) => client.deliverResponse(text));
  };
  const answerError = (request: PartRequest, error: BridgeError): void => {
    const wire = target.dispatcher.toWireError(error, { requestId: request.id, method: request.method, caller });
    client.deliverResponse(JSON.stringify({ id: request.id, ok: false, error: wire }));
  };
  const parts = new BinaryPartCollector(target.limits, { complete: run, fail: answerError });
  /**
   * A text frame past the client's rate: not dispatched, answered TOO_MANY_REQUESTS on its id when it has one (an
   * `error` event otherwise). A client that keeps flooding within the abuse window is closed with 1008.
   */
  const tooMany = (text: string, retryAfterMs: number, abusive: boolean): void => {
    const { clientFramesPerSecond: max, clientFrameBurst: burst } = target.limits;
    const error = new BridgeError("TOO_MANY_REQUESTS", `At most ${max} frames per second (bursts of ${burst}) per client; retry in ${retryAfterMs} ms`, {
      details: { limit: "clientFramesPerSecond", max, burst, retryAfterMs },
    });
    let id: RequestId | undefined;
    try {
      const check = checkRequest(JSON.parse(text));
      id = check.ok ? check.request.id : check.id;
      // Its parts are already on their way (a client sends them right after the request).
      const named = check.ok && socket.binary ? binaryPartsNamed(check.request.params, target.limits) : 0;
      if (typeof named === "number") refusedParts += named;
    } catch {
      // Not JSON: still refused for the rate, not counted as malformed (it was never read as a request).
    }
    if (id !== undefined) {
      const wire = target.dispatcher.toWireError(error, { requestId: id, caller });
      client.deliverResponse(JSON.stringify({ id, ok: false, error: wire }));
    } else {
      client.deliverNotice(errorEvent(target.dispatcher.toWireError(error, { caller })));
    }
    // Not read for a moment: what the client sends meanwhile waits in the kernel (TCP backpressure) instead of
    // costing the bridge a parse and an answer per frame, and one read's worth is refused per pause at most.
    refusedInARow++;
    if (!ratePaused && refusedInARow >= target.limits.clientFramePauseAfter && ws.readyState === ws.OPEN) {
      ratePaused = true;
      pauseReading(ws, "rate");
      setTimeout(() => {
        ratePaused = false;
        resumeReading(ws, "rate");
      }, target.limits.clientFramePauseMs).unref();
    }
    if (abusive && ws.readyState === ws.OPEN) {
      const { clientFrameAbuseRejections: rejections, clientFrameAbuseWindowMs: windowMs } = target.limits;
      target.dispatcher.mistakes.write("frame-rate abuse", "warn", { actor, limit: "clientFrameAbuseRejections", max: rejections, windowMs }, "socket closed: frames kept coming past the rate limit");
      // Detached first, as a slow consumer is: answers still being computed go to its replay, not to a closing socket.
      client.detach(socket);
      ws.close(POLICY_VIOLATION, "too many frames");
    }
  };
  const malformedFrame = (error: BridgeError): void => {
    malformed++;
    client.deliverNotice(errorEvent(target.dispatcher.toWireError(error, { caller })));
    if (malformed >= target.limits.maxMalformedFrames) ws.close(CLOSE_CODES.INVALID_DATA, "too many malformed frames");
  };

  ws.on("message", (data, isBinary) => {
    if (!current()) return;
    if (isBinary && socket.binary) {
      const unexpected = parts.receive(data as Buffer);
      if (unexpected === undefined) return;
      if (refusedParts > 0) refusedParts--;
      else malformedFrame(unexpected);
      return;
    }
    // Binary parts are not counted: each follows a text request that was, and a stray one is malformed.
    const text = isBinary || typeof data !== "string" ? String(data) : data;
    const verdict = client.frameRate.admit();
    if (!verdict.admitted) {
      tooMany(text, verdict.retryAfterMs, verdict.abusive);
      return;
    }
    refusedInARow = 0;
    parts.interrupt();
    refusedParts = 0;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      malformedFrame(new BridgeError("BAD_REQUEST", "Frame is not valid JSON"));
      return;
    }
    const check = checkRequest(value);
    if (!check.ok) {
      const error = new BridgeError("BAD_REQUEST", `Not a valid request: ${check.reason}`);
      if (check.id !== undefined) {
        const wire = target.dispatcher.toWireError(error, { requestId: check.id, caller });
        client.deliverResponse(JSON.stringify({ id: check.id, ok: false, error: wire }));
      } else {
        // Through the client, so the outbound caps apply: these frames are valid JSON and never count as malformed.
        client.deliverNotice(errorEvent(target.dispatcher.toWireError(error, { caller })));
      }
      return;
    }
    const request: PartRequest = check.request;
    // Binary parts exist only where they were negotiated; elsewhere `{ "binary": n }` reaches the method, which says so.
    const named = socket.binary ? binaryPartsNamed(request.params, target.limits) : 0;
    if (typeof named !== "number") answerError(request, named);
    else if (named > 0) parts.expect(request, named);
    else run(request, []);
  });

  ws.on("close", (code) => {
    if (current()) {
      if (code === CLOSE_CODES.DISPOSE) client.dispose("closed");
      else client.detach(socket);
      target.log.info({ actor, code }, "client socket closed");
    }
    // After the detach, so the failure is kept for a resume rather than written to the closed socket.
    parts.abandon();
  });
  // Sampled: a client's protocol violations (bad opcodes, invalid UTF-8, oversized frames) are its own mistakes.
  ws.on("error", (error) => target.dispatcher.mistakes.write("socket error", "warn", { actor, err: error.message }, "client socket error"));
}
