import {
  BATCH_METHOD,
  BatchParamsSchema,
  BridgeError,
  isBinaryPartReference,
  isBridgeError,
  issuesOf,
  type BatchRequest,
  type ProtocolError,
  type RequestId,
} from "../protocol/index.js";
import { imageResultJson, isWireImage, LARGE_IMAGE_BYTES, type Caller, type SubscribingClient } from "../methods/index.js";
import type { Limits } from "../limits.js";
import type { CancelSignal } from "../actors/clients/requests.js";
import type { ClientHandle } from "../actors/clients/port.js";
import { invalidParamsError } from "./method-hints.js";

/*
 * A `batch` request runs its calls one after the other for its caller and answers one response listing every
 * outcome. Each call goes through the dispatcher exactly like a separate request (method lookup, params, the
 * editor's mailbox and its admission) and counts against the caller's in-flight limit while it runs; the batch
 * itself does not count, so a batch holds one in-flight slot at a time, as a client sending the same calls one by
 * one would.
 */

/** The caller as a batch needs it: its logical client (none over HTTP) counts the calls in flight. */
export interface BatchCaller extends Caller {
  readonly client: (SubscribingClient & Pick<ClientHandle, "beginCall">) | null;
}

/** What a batch needs from the dispatcher: one call, and the one way a failure reaches the wire. */
export interface BatchDispatch<C extends BatchCaller> {
  call(caller: C, name: string, params: unknown, binaryParts?: readonly Uint8Array[], control?: { readonly cancel?: CancelSignal | undefined }): Promise<unknown>;
  toWireError(error: unknown, context: { requestId?: RequestId; method?: string; caller?: C }): ProtocolError;
  /** Runs an atomic batch's calls as one job of their document's editor (`./atomic-batch.ts`). @default none: `NOT_SUPPORTED` */
  atomic?(caller: C, requests: readonly BatchRequest[], batchId: RequestId | undefined, cancel: CancelSignal | undefined): Promise<BatchOutcome[]>;
}

/** One call's outcome. A result may still be an image keeping its bytes; it is answered as a data URI. */
export type BatchOutcome =
  | { readonly id?: RequestId; readonly ok: true; readonly result: unknown }
  | { readonly id?: RequestId; readonly ok: false; readonly error: ProtocolError };

/** Whether a request names the batch method. */
export function isBatch(name: string): boolean {
  return name === BATCH_METHOD;
}

/**
 * Runs a batch's calls in order, each after the previous one answered, and resolves with their outcomes. With
 * `haltOnFailure` the outcomes end at the first failure: the calls after it are not run and have no entry.
 * Rejects with BAD_REQUEST when the batch itself is invalid (its params, more than `maxBatchRequests` calls, binary
 * parts attached to it); then no call has run.
 *
 * @example
 * const outcomes = await runBatch(dispatcher, limits, caller, { requests: [{ method: "document:list" }] }, []);
 */
export async function runBatch<C extends BatchCaller>(
  dispatch: BatchDispatch<C>,
  limits: Limits,
  caller: C,
  rawParams: unknown,
  binaryParts: readonly Uint8Array[],
  batchId?: RequestId,
  cancel?: CancelSignal,
): Promise<BatchOutcome[]> {
  if (binaryParts.length > 0) {
    throw new BridgeError("BAD_REQUEST", "A batch takes no binary parts: send a call that needs one as a request of its own");
  }
  // Counted before the calls are parsed, so an oversized batch costs no more than its length.
  const count = (rawParams as { requests?: unknown } | null | undefined)?.requests;
  if (Array.isArray(count) && count.length > limits.maxBatchRequests) {
    throw new BridgeError("BAD_REQUEST", `A batch may carry at most ${limits.maxBatchRequests} requests, got ${count.length}`, {
      details: { limit: limits.maxBatchRequests, requests: count.length },
    });
  }
  const parsed = BatchParamsSchema.safeParse(rawParams ?? {});
  if (!parsed.success) throw invalidParamsError(BATCH_METHOD, issuesOf(parsed.error));
  if (parsed.data.atomic === true) return runAtomicBatch(dispatch, caller, parsed.data.requests, batchId, cancel);
  const outcomes: BatchOutcome[] = [];
  for (const request of parsed.data.requests) {
    // A cancelled batch stops like a halted one: the call running answers CANCELLED, the rest are not run.
    if (cancel?.aborted === true) break;
    const outcome = await runOne(dispatch, caller, request, batchId, cancel);
    outcomes.push(outcome);
    if (!outcome.ok && parsed.data.haltOnFailure === true) break;
  }
  return outcomes;
}

/**
 * An atomic batch: checked whole before any call runs (each call as a batch refuses it, then as one of one document),
 * then run as one call of the caller, counted once against its in-flight limit.
 */
async function runAtomicBatch<C extends BatchCaller>(
  dispatch: BatchDispatch<C>,
  caller: C,
  requests: readonly BatchRequest[],
  batchId: RequestId | undefined,
  cancel: CancelSignal | undefined,
): Promise<BatchOutcome[]> {
  for (const request of requests) {
    const refusal = refusalOf(request);
    if (refusal !== null) throw refusal;
  }
  if (dispatch.atomic === undefined) throw new BridgeError("NOT_SUPPORTED", "This bridge cannot run atomic batches", { details: { capability: "history" } });
  const ticket = caller.client?.beginCall(undefined);
  if (isBridgeError(ticket)) throw ticket;
  try {
    return await dispatch.atomic(caller, requests, batchId, cancel);
  } finally {
    ticket?.end();
  }
}

/** One call of a batch; never rejects. Its error names the call's id when it has one, else the batch's. */
async function runOne<C extends BatchCaller>(
  dispatch: BatchDispatch<C>,
  caller: C,
  request: BatchRequest,
  batchId: RequestId | undefined,
  cancel: CancelSignal | undefined,
): Promise<BatchOutcome> {
  const echo = request.id === undefined ? {} : { id: request.id };
  const client = caller.client;
  try {
    const refusal = refusalOf(request);
    if (refusal !== null) throw refusal;
    // The same limit and answer as a separate request: the client counts its calls.
    const ticket = client?.beginCall(undefined);
    if (isBridgeError(ticket)) throw ticket;
    try {
      const result = await dispatch.call(caller, request.method, request.params, [], { cancel });
      return { ...echo, ok: true, result: result === undefined ? null : result };
    } finally {
      ticket?.end();
    }
  } catch (error) {
    const requestId = request.id ?? batchId;
    return { ...echo, ok: false, error: dispatch.toWireError(error, { requestId, method: request.method, caller }) };
  }
}

/** What a batch refuses of one call before dispatching it, or null. */
function refusalOf(request: BatchRequest): BridgeError | null {
  if (isBatch(request.method)) return new BridgeError("BAD_REQUEST", "A batch may not contain a batch", { details: { method: BATCH_METHOD } });
  const params = request.params;
  if (typeof params === "object" && params !== null && !Array.isArray(params)) {
    const param = Object.keys(params).find((key) => isBinaryPartReference((params as Record<string, unknown>)[key]));
    if (param !== undefined) {
      return new BridgeError(
        "BAD_REQUEST",
        `${param} names a binary part, which a batch cannot carry: send ${request.method} as a request of its own, or pass the data inline`,
        { details: { param } },
      );
    }
  }
  return null;
}

/**
 * `prefix` + the outcomes as a JSON array + `suffix`. Images are data URIs, on binary connections too; a large one is
 * encoded in slices (see `imageResultJson`), and then the answer is UTF-8 bytes rather than a string.
 */
export async function batchJson(outcomes: readonly BatchOutcome[], prefix: string, suffix: string): Promise<string | Buffer> {
  const large = (outcome: BatchOutcome): boolean =>
    outcome.ok && isWireImage(outcome.result) && outcome.result.image.bytes.byteLength > LARGE_IMAGE_BYTES;
  if (!outcomes.some(large)) return `${prefix}${JSON.stringify(outcomes)}${suffix}`;
  const parts: Buffer[] = [Buffer.from(`${prefix}[`)];
  for (const [index, outcome] of outcomes.entries()) {
    if (index > 0) parts.push(Buffer.from(","));
    if (outcome.ok && isWireImage(outcome.result) && large(outcome)) {
      const head = `${JSON.stringify({ ...outcome, result: undefined }).slice(0, -1)},"result":`;
      parts.push(await imageResultJson(outcome.result, head, "}"));
    } else {
      parts.push(Buffer.from(JSON.stringify(outcome)));
    }
  }
  parts.push(Buffer.from(`]${suffix}`));
  return Buffer.concat(parts);
}

/**
 * Answers a WS `batch` request frame: one response whose result is the outcomes. Never rejects: an invalid batch
 * is a failure response, as any request's.
 */
export async function respondBatch<C extends BatchCaller>(
  dispatch: BatchDispatch<C>,
  limits: Limits,
  caller: C,
  id: RequestId,
  params: unknown,
  binaryParts: readonly Uint8Array[],
  cancel?: CancelSignal,
): Promise<string | Buffer> {
  try {
    const outcomes = await runBatch(dispatch, limits, caller, params, binaryParts, id, cancel);
    return await batchJson(outcomes, `{"id":${JSON.stringify(id)},"ok":true,"result":`, "}");
  } catch (error) {
    return JSON.stringify({ id, ok: false, error: dispatch.toWireError(error, { requestId: id, method: BATCH_METHOD, caller }) });
  }
}
