import { BridgeError, decodeBinaryFrame, isBinaryPartReference, type RequestId } from "../../protocol/index.js";
import type { Limits } from "../../limits.js";

/** A request that names binary parts, waiting for them. */
export interface PartRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly params?: unknown;
  /** The request asked for progress events. */
  readonly progress?: unknown;
}

/**
 * How many binary parts a request names: its top-level params whose value is `{ "binary": n }`, numbered 0…k-1,
 * each once. A BAD_REQUEST when the numbering is wrong or the request names more than `maxBinaryPartsPerRequest`.
 */
export function binaryPartsNamed(params: unknown, limits: Limits): number | BridgeError {
  if (typeof params !== "object" || params === null || Array.isArray(params)) return 0;
  const indexes = Object.values(params)
    .filter(isBinaryPartReference)
    .map((reference) => reference.binary);
  if (indexes.length === 0) return 0;
  if (indexes.length > limits.maxBinaryPartsPerRequest) {
    return new BridgeError("BAD_REQUEST", `A request may name at most ${limits.maxBinaryPartsPerRequest} binary part(s), got ${indexes.length}`, {
      details: { limit: limits.maxBinaryPartsPerRequest },
    });
  }
  const sorted = [...indexes].sort((a, b) => a - b);
  if (sorted.some((n, i) => n !== i)) {
    return new BridgeError("BAD_REQUEST", `Binary parts must be numbered 0 to ${indexes.length - 1}, each once; got ${indexes.join(", ")}`);
  }
  return indexes.length;
}

interface Awaiting {
  readonly request: PartRequest;
  readonly count: number;
  readonly parts: Uint8Array[];
  readonly timer: NodeJS.Timeout;
}

export interface PartHandlers {
  /** Every part arrived, in order: run the request with them. */
  complete(request: PartRequest, parts: Uint8Array[]): void;
  /** A part is missing, mismatched or too large: answer the request with this error. */
  fail(request: PartRequest, error: BridgeError): void;
}

/**
 * The binary parts of one socket's requests. After a request that names k parts, the next k messages must be
 * binary messages whose header names that request and parts 0…k-1 in order; anything else (a text message, another
 * request's id, a part above `maxBinaryPartBytes`, nothing within `binaryPartWaitMs`) fails that request with a
 * clear error and the socket carries on. One request waits at a time, so a socket holds at most one request's parts.
 */
export class BinaryPartCollector {
  private awaiting: Awaiting | undefined;

  constructor(
    private readonly limits: Limits,
    private readonly handlers: PartHandlers,
  ) {}

  /** Waits for the `count` parts of `request`. */
  expect(request: PartRequest, count: number): void {
    this.interrupt();
    const timer = setTimeout(() => {
      this.failAwaited(`binary part ${this.awaiting?.parts.length ?? 0} of request ${String(request.id)} did not arrive within ${this.limits.binaryPartWaitMs} ms`);
    }, this.limits.binaryPartWaitMs);
    timer.unref();
    this.awaiting = { request, count, parts: [], timer };
  }

  /**
   * A binary message: the next part of the awaited request. Returns the error to report on the connection when no
   * request awaits a part (the message is dropped).
   */
  receive(message: Buffer): BridgeError | undefined {
    const awaiting = this.awaiting;
    const frame = decodeBinaryFrame(message);
    if (awaiting === undefined) {
      const named = typeof frame === "string" ? "" : ` (it names request ${frame.requestId})`;
      return new BridgeError("BAD_REQUEST", `A binary message arrived${named} but no request waits for one: name it as { "binary": n } in a request's params first`);
    }
    const expected = awaiting.parts.length;
    const id = String(awaiting.request.id);
    if (typeof frame === "string") return this.failAwaited(`binary part ${expected} of request ${id}: ${frame}`);
    if (frame.requestId !== id || frame.index !== expected) {
      return this.failAwaited(`expected binary part ${expected} of request ${id}, got part ${frame.index} of request ${frame.requestId}`);
    }
    if (frame.payload.byteLength > this.limits.maxBinaryPartBytes) {
      this.settle();
      this.handlers.fail(
        awaiting.request,
        new BridgeError("PAYLOAD_TOO_LARGE", `Binary part ${expected} of ${frame.payload.byteLength} bytes exceeds ${this.limits.maxBinaryPartBytes}`, {
          details: { part: expected, size: frame.payload.byteLength, maxBytes: this.limits.maxBinaryPartBytes },
        }),
      );
      return undefined;
    }
    awaiting.parts.push(frame.payload);
    if (awaiting.parts.length === awaiting.count) {
      this.settle();
      this.handlers.complete(awaiting.request, awaiting.parts);
    }
    return undefined;
  }

  /** A text message arrived: the request still waiting for parts fails, since they must follow it directly. */
  interrupt(): void {
    if (this.awaiting === undefined) return;
    this.failAwaited(`request ${String(this.awaiting.request.id)} names ${this.awaiting.count} binary part(s), but a text message came before part ${this.awaiting.parts.length}`);
  }

  /** The socket closed: the request still waiting for parts fails (its answer waits for a resume like any other). */
  abandon(): void {
    if (this.awaiting === undefined) return;
    this.failAwaited(`the connection closed before binary part ${this.awaiting.parts.length} of request ${String(this.awaiting.request.id)} arrived`);
  }

  private failAwaited(message: string): undefined {
    const awaiting = this.settle();
    if (awaiting !== undefined) this.handlers.fail(awaiting.request, new BridgeError("BAD_REQUEST", message, { details: { part: awaiting.parts.length } }));
    return undefined;
  }

  private settle(): Awaiting | undefined {
    const awaiting = this.awaiting;
    if (awaiting !== undefined) clearTimeout(awaiting.timer);
    this.awaiting = undefined;
    return awaiting;
  }
}
