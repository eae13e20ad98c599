import type { WebSocket } from "ws";
import { type AccessScope, BridgeError, CLOSE_CODES, CONNECTION_EVENTS, checkRequest, type ProtocolError, type RequestId } from "../../protocol/index.js";
import type { ClientHandle, FrameAnswer } from "../../actors/clients/port.js";
import type { DispatchCaller } from "../../calls/port.js";
import { NotJson, parseJsonOffThread, TooDeep } from "../json-off-thread.js";
import { BinaryPartCollector, binaryPartsNamed, type PartRequest } from "./binary-parts.js";
import type { WsClientSocket } from "./client-socket.js";
import { holdInboundUntil } from "./inbound-frames.js";
import { pauseReading, resumeReading } from "./pauses.js";
import type { WsPorts } from "./ports.js";

/** An `error` event's frame. */
export function errorEvent(error: ProtocolError): string {
  return JSON.stringify({ type: CONNECTION_EVENTS.error, data: error });
}

/**
 * One socket's frames for its logical client, after the handshake: rate, parse, check, dispatch; answers go back
 * through the client (which keeps them for a resume when the socket is gone). Frames that arrive after the socket
 * lost its client (takeover, slow consumer) are ignored.
 *
 * A class with three listeners bound once, not a dozen closures: every idle socket holds one.
 */
export class WsSession implements DispatchCaller {
  readonly lane: string;
  readonly endpoint: string;
  readonly binary: boolean;
  /** What the socket's token lets its requests call; a resumed client takes the scope of the socket that resumed it. */
  readonly scope: AccessScope;
  private malformed = 0;
  /** Binary parts still to come of a request refused for the rate: dropped quietly, never counted as malformed. */
  private refusedParts = 0;
  /** Made on the first request that names binary parts (only on a `binary` socket). */
  private parts: BinaryPartCollector | undefined;
  /**
   * While a large frame is parsed on the JSON worker: the messages that came after it, taken in order once it is
   * done (its binary parts among them). Reading is paused meanwhile, so this holds at most one read's worth.
   */
  private backlog: Array<readonly [unknown, boolean]> | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly socket: WsClientSocket,
    private readonly ports: Pick<WsPorts, "calls" | "limits">,
    readonly client: ClientHandle,
  ) {
    this.lane = client.id;
    this.endpoint = client.endpoint;
    this.binary = socket.binary;
    this.scope = socket.scope;
    ws.on("message", this.onMessage);
    ws.on("close", this.onClose);
    ws.on("error", this.onError);
  }

  /** The client's editor, read per call: the bridge may move it to another (`editor:changed`). */
  get editorId(): string | undefined {
    return this.client.editorId;
  }

  private current(): boolean {
    return this.client.attachedSocket === this.socket;
  }

  private run(request: PartRequest, parts: Uint8Array[]): void {
    const client = this.client;
    const frame = this.ports.calls.respond(this, request.id, request.method, request.params, parts, { progress: request.progress === true });
    if (frame instanceof Promise) void frame.then((text) => client.deliverResponse(text));
    else client.deliverResponse(frame);
  }

  private answerError(request: PartRequest, error: BridgeError): void {
    const wire = this.ports.calls.toWireError(error, { requestId: request.id, method: request.method, caller: this });
    this.client.deliverResponse(JSON.stringify({ id: request.id, ok: false, error: wire }));
  }

  private collector(): BinaryPartCollector {
    this.parts ??= new BinaryPartCollector(this.ports.limits, {
      complete: (request, parts) => this.run(request, parts),
      fail: (request, error) => this.answerError(request, error),
    });
    return this.parts;
  }

  /**
   * A text frame the client's rate refused: not dispatched, answered TOO_MANY_REQUESTS on its id when it has one (an
   * `error` event otherwise); then reading pauses, or the socket closes, as the answer says.
   */
  private tooMany(text: string, answer: Exclude<FrameAnswer, { admitted: true }>): void {
    const { ports, ws, client } = this;
    const { calls, limits } = ports;
    let id: RequestId | undefined;
    try {
      // A large frame is not parsed here just to find its id: that is the cost the rate limit spares.
      if (text.length >= limits.jsonOffThreadBytes) throw new RangeError("not parsed");
      const check = checkRequest(JSON.parse(text));
      id = check.ok ? check.request.id : check.id;
      // Its parts are already on their way (a client sends them right after the request).
      const named = check.ok && this.binary ? binaryPartsNamed(check.request.params, limits) : 0;
      if (typeof named === "number") this.refusedParts += named;
    } catch {
      // Not JSON, or not parsed: still refused for the rate, not counted as malformed (never read as a request).
    }
    if (id !== undefined) {
      const wire = calls.toWireError(answer.error, { requestId: id, caller: this });
      client.deliverResponse(JSON.stringify({ id, ok: false, error: wire }));
    } else {
      client.deliverNotice(errorEvent(calls.toWireError(answer.error, { caller: this })));
    }
    // Not read for a moment: what the client sends meanwhile waits in the kernel (TCP backpressure).
    if (answer.pauseMs !== undefined) {
      pauseReading(ws, "rate");
      setTimeout(() => resumeReading(ws, "rate"), answer.pauseMs).unref();
    }
    if (answer.close !== undefined) {
      const { clientFrameAbuseRejections: rejections, clientFrameAbuseWindowMs: windowMs } = limits;
      calls.mistakes.write("frame-rate abuse", "warn", { actor: client.logName, limit: "clientFrameAbuseRejections", max: rejections, windowMs }, "socket closed: frames kept coming past the rate limit");
      client.closeSocket(this.socket, answer.close.code, answer.close.reason);
    }
  }

  private malformedFrame(error: BridgeError): void {
    this.malformed++;
    this.client.deliverNotice(errorEvent(this.ports.calls.toWireError(error, { caller: this })));
    if (this.malformed >= this.ports.limits.maxMalformedFrames) this.ws.close(CLOSE_CODES.INVALID_DATA, "too many malformed frames");
  }

  private readonly onMessage = (data: unknown, isBinary: boolean): void => {
    if (this.backlog !== undefined) this.backlog.push([data, isBinary]);
    else this.receive(data, isBinary);
  };

  /** A large frame's text, parsed on the JSON worker; the frames after it wait their turn. */
  private parseOffThread(text: string): void {
    this.backlog = [];
    pauseReading(this.ws, "parse");
    const parsing = parseJsonOffThread(text, this.ports.limits.maxJsonDepth);
    // The frame stays counted against the inbound budget while the worker holds it, not only until this returns.
    holdInboundUntil(this.ws, parsing);
    parsing
      .then(
        (value) => {
          if (this.current()) this.request(value);
        },
        (error: unknown) => {
          if (!this.current()) return;
          if (error instanceof NotJson) this.malformedFrame(new BridgeError("BAD_REQUEST", "Frame is not valid JSON"));
          else if (error instanceof TooDeep && error.requestId !== undefined) {
            const wire = this.ports.calls.toWireError(error, { requestId: error.requestId, caller: this });
            this.client.deliverResponse(JSON.stringify({ id: error.requestId, ok: false, error: wire }));
          } else this.client.deliverNotice(errorEvent(this.ports.calls.toWireError(error, { caller: this })));
        },
      )
      .finally(() => {
        const waiting = this.backlog ?? [];
        this.backlog = undefined;
        resumeReading(this.ws, "parse");
        while (waiting.length > 0) {
          const [data, isBinary] = waiting.shift()!;
          this.receive(data, isBinary);
          // Another large frame: what is left goes before anything that arrives while it is parsed.
          const again = this.backlog as Array<readonly [unknown, boolean]> | undefined; // set by receive
          if (again !== undefined) {
            again.push(...waiting);
            return;
          }
        }
      });
  }

  private receive(data: unknown, isBinary: boolean): void {
    if (!this.current()) return;
    if (isBinary && this.binary) {
      const unexpected = this.collector().receive(data as Buffer);
      if (unexpected === undefined) return;
      if (this.refusedParts > 0) this.refusedParts--;
      else this.malformedFrame(unexpected);
      return;
    }
    // Binary parts are not counted: each follows a text request that was, and a stray one is malformed.
    const text = isBinary || typeof data !== "string" ? String(data) : data;
    const answer = this.client.admitFrame(this.ws.readyState === this.ws.OPEN);
    if (!answer.admitted) {
      this.tooMany(text, answer);
      return;
    }
    this.parts?.interrupt();
    this.refusedParts = 0;
    if (text.length >= this.ports.limits.jsonOffThreadBytes) {
      this.parseOffThread(text);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.malformedFrame(new BridgeError("BAD_REQUEST", "Frame is not valid JSON"));
      return;
    }
    this.request(value);
  }

  /** A parsed frame: checked as a request, then run (after its binary parts, when it names any). */
  private request(value: unknown): void {
    const check = checkRequest(value);
    if (!check.ok) {
      const error = new BridgeError("BAD_REQUEST", `Not a valid request: ${check.reason}`);
      if (check.id !== undefined) {
        const wire = this.ports.calls.toWireError(error, { requestId: check.id, caller: this });
        this.client.deliverResponse(JSON.stringify({ id: check.id, ok: false, error: wire }));
      } else {
        // Through the client, so the outbound caps apply: these frames are valid JSON and never count as malformed.
        this.client.deliverNotice(errorEvent(this.ports.calls.toWireError(error, { caller: this })));
      }
      return;
    }
    const request: PartRequest = check.request;
    // Binary parts exist only where they were negotiated; elsewhere `{ "binary": n }` reaches the method, which says so.
    const named = this.binary ? binaryPartsNamed(request.params, this.ports.limits) : 0;
    if (typeof named !== "number") this.answerError(request, named);
    else if (named > 0) this.collector().expect(request, named);
    else this.run(request, []);
  }

  private readonly onClose = (code: number): void => {
    this.client.socketClosed(this.socket, code);
    // After the detach, so the failure is kept for a resume rather than written to the closed socket.
    this.parts?.abandon();
  };

  // Sampled: a client's protocol violations (bad opcodes, invalid UTF-8, oversized frames) are its own mistakes.
  private readonly onError = (error: Error): void =>
    this.ports.calls.mistakes.write("socket error", "warn", { actor: this.client.logName, err: error.message }, "client socket error");
}
