import { BridgeError, CLIENT_ERROR_CODES, looksLikeProtocolError } from "../errors.js";
import type { InvokeOptions, RequestProgress } from "../types.js";
import { encodeRequest } from "../binary.js";
import { FramePacer, frameRateRefusal } from "./frame-pacer.js";

export interface RequestLimits {
  /** Deadline of a request without its own `timeoutMs`. */
  readonly timeoutMs: number;
  /** Requests waiting to be sent; past it new ones are refused. */
  readonly maxQueued: number;
  /** Requests sent and unanswered at once. */
  readonly maxInFlight: number;
  /** Times a request refused for the client's frame rate is sent again, after the wait the bridge named. */
  readonly rateLimitRetries: number;
}

/**
 * Where frames go: the open socket, the logical client behind it and whether that connection negotiated binary
 * messages, or null while none can take frames.
 */
export type Transmitter = () => { send(frame: string | Uint8Array): void; clientId: string; binary: boolean; cancel: boolean } | null;

/** The method that cancels a request on the bridge, and the id prefix of those cancel requests (never a request's). */
const CANCEL_METHOD = "request:cancel";
const CANCEL_ID_PREFIX = "cancel:";

interface PendingRequest {
  readonly id: string;
  readonly method: string;
  /** Encoded when sent: bytes params go as binary parts or data URIs depending on the socket of the moment. */
  readonly params: unknown;
  /** Logical client the request went to; undefined while it waits to be sent. */
  sentTo: string | undefined;
  /** Times it was sent again after a frame-rate refusal. */
  rateRetries: number;
  readonly onProgress: ((progress: RequestProgress) => void) | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  cleanup(): void;
}

/**
 * Requests from `invoke` to their answers: ids, deadlines, abort signals, an ordered outbox for requests the
 * socket cannot take yet, and at most `maxInFlight` on the wire. Answers may come on a later socket of the same
 * logical client (a resume replays them), so requests outlive sockets.
 */
export class RequestTable {
  private nextId = 0;
  private readonly pending = new Map<string, PendingRequest>();
  private readonly outbox: string[] = [];
  private inFlight = 0;
  /** Paces sends once the bridge refused one for the client's frame rate. */
  private readonly pacer = new FramePacer();
  /** Set while the pacer holds the next send. */
  private paceTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly limits: RequestLimits,
    private readonly transmitter: Transmitter,
  ) {}

  add(method: string, params: unknown, options: InvokeOptions = {}): Promise<unknown> {
    if (options.signal?.aborted) {
      return Promise.reject(new BridgeError(CLIENT_ERROR_CODES.ABORTED, `${method} was aborted before it was sent`, { method }));
    }
    if (this.outbox.length >= this.limits.maxQueued) {
      return Promise.reject(
        new BridgeError(CLIENT_ERROR_CODES.TOO_MANY_REQUESTS, `${this.outbox.length} requests are already waiting to be sent`, {
          method,
          retryable: true,
          details: { limit: this.limits.maxQueued },
        }),
      );
    }
    const id = String(++this.nextId);
    const timeoutMs = options.timeoutMs ?? this.limits.timeoutMs;
    const outcome = (request: PendingRequest): string => (request.sentTo === undefined ? "not-sent" : "unknown");
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const request = this.settle(id);
        if (request === undefined) return;
        reject(
          new BridgeError(CLIENT_ERROR_CODES.TIMEOUT, `${method} got no answer within ${timeoutMs} ms`, {
            requestId: id,
            method,
            retryable: request.sentTo === undefined,
            details: { timeoutMs, outcome: outcome(request) },
          }),
        );
      }, timeoutMs);
      const onAbort = (): void => {
        const request = this.settle(id);
        if (request === undefined) return;
        if (request.sentTo !== undefined) this.cancelOnBridge(request);
        reject(
          new BridgeError(CLIENT_ERROR_CODES.ABORTED, `${method} was aborted`, {
            requestId: id,
            method,
            details: { outcome: outcome(request) },
          }),
        );
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, {
        id,
        method,
        params,
        sentTo: undefined,
        rateRetries: 0,
        onProgress: options.onProgress,
        resolve,
        reject,
        cleanup: () => {
          clearTimeout(timer);
          options.signal?.removeEventListener("abort", onAbort);
        },
      });
      this.outbox.push(id);
      this.pump();
    });
  }

  /** Sends waiting requests, in order, while the socket takes frames and fewer than `maxInFlight` are unanswered. */
  pump(): void {
    if (this.paceTimer !== undefined) return;
    while (this.outbox.length > 0 && this.inFlight < this.limits.maxInFlight) {
      const target = this.transmitter();
      if (target === null) return;
      const wait = this.pacer.take();
      if (wait > 0) {
        this.paceTimer = setTimeout(() => {
          this.paceTimer = undefined;
          this.pump();
        }, wait);
        return;
      }
      const request = this.pending.get(this.outbox.shift()!);
      if (request === undefined) continue;
      let encoded: ReturnType<typeof encodeRequest>;
      try {
        encoded = encodeRequest(request.id, request.method, request.params, target.binary, request.onProgress !== undefined);
      } catch (error) {
        // Params JSON cannot hold (a BigInt, a cycle): the caller's mistake, reported to the caller only.
        this.settle(request.id);
        request.reject(error);
        continue;
      }
      request.sentTo = target.clientId;
      this.inFlight++;
      const { frame, parts } = encoded;
      target.send(frame);
      for (const part of parts) target.send(part);
    }
  }

  /** Settles the request a response frame answers; answers nobody waits for (timed out, aborted) are dropped. */
  answer(frame: Record<string, unknown>): void {
    if (typeof frame["id"] === "string" && frame["id"].startsWith(CANCEL_ID_PREFIX)) return; // a cancel's answer
    const id = frame["id"] as string;
    if (frame["ok"] !== true && this.retryLater(id, frame["error"])) return;
    const request = this.settle(id);
    if (request === undefined) return;
    if (frame["ok"] === true) request.resolve(frame["result"]);
    else if (looksLikeProtocolError(frame["error"])) request.reject(BridgeError.fromProtocolError(frame["error"]));
    else request.reject(new BridgeError("INTERNAL", "Malformed error response", { requestId: request.id, method: request.method }));
  }

  /**
   * Puts a request the bridge refused for the client's rate back in the outbox, in id order, and teaches the pacer
   * the bucket it names; false when it is not such a refusal or the request has had its retries.
   */
  private retryLater(id: string, error: unknown): boolean {
    const request = this.pending.get(id);
    if (request === undefined || request.sentTo === undefined || request.rateRetries >= this.limits.rateLimitRetries) return false;
    const refusal = looksLikeProtocolError(error) ? frameRateRefusal(error) : undefined;
    if (refusal === undefined) return false;
    this.pacer.refused(refusal);
    request.rateRetries++;
    request.sentTo = undefined;
    this.inFlight--;
    const later = this.outbox.findIndex((other) => Number(other) > Number(id));
    this.outbox.splice(later === -1 ? this.outbox.length : later, 0, id);
    this.pump();
    return true;
  }

  /** Hands a `progress` event's data to the request it is about, if it is still waiting and asked for progress. */
  progress(data: unknown): void {
    if (typeof data !== "object" || data === null) return;
    const { requestId, progress, total, message } = data as Record<string, unknown>;
    if (typeof requestId !== "string" || typeof progress !== "number") return;
    const request = this.pending.get(requestId);
    if (request?.onProgress === undefined) return;
    request.onProgress({
      progress,
      ...(typeof total === "number" ? { total } : {}),
      ...(typeof message === "string" ? { message } : {}),
    });
  }

  /**
   * Asks the bridge to stop a request this table gave up on (aborted), on the socket of the logical client it went
   * to. Fire and forget: its answer is dropped, and a socket gone since means the bridge's client is gone or will
   * answer into a replay nobody waits for.
   */
  private cancelOnBridge(request: PendingRequest): void {
    const target = this.transmitter();
    if (target === null || !target.cancel || target.clientId !== request.sentTo) return;
    target.send(JSON.stringify({ id: `${CANCEL_ID_PREFIX}${request.id}`, method: CANCEL_METHOD, params: { id: request.id } }));
  }

  /** Fails the requests sent to one logical client (it is gone, so their answers are). */
  failSentTo(clientId: string, error: (requestId: string, method: string) => BridgeError): void {
    for (const request of [...this.pending.values()]) {
      if (request.sentTo !== clientId) continue;
      this.settle(request.id);
      request.reject(error(request.id, request.method));
    }
  }

  /** Fails every request; `sent` tells whether the bridge may have received it. */
  failAll(error: (requestId: string, method: string, sent: boolean) => BridgeError): void {
    clearTimeout(this.paceTimer);
    this.paceTimer = undefined;
    for (const request of [...this.pending.values()]) {
      this.settle(request.id);
      request.reject(error(request.id, request.method, request.sentTo !== undefined));
    }
  }

  private settle(id: string): PendingRequest | undefined {
    const request = this.pending.get(id);
    if (request === undefined) return undefined;
    this.pending.delete(id);
    request.cleanup();
    if (request.sentTo === undefined) {
      const index = this.outbox.indexOf(id);
      if (index !== -1) this.outbox.splice(index, 1);
    } else {
      this.inFlight--;
    }
    if (this.outbox.length > 0) queueMicrotask(() => this.pump());
    return request;
  }
}
