import type { BatchParams, BatchResult } from "../protocol/batch.js";
import type { RequestId } from "../protocol/frames.js";
import { encodeRequest, readBlobParams } from "./binary.js";
import { BridgeError, looksLikeProtocolError } from "./errors.js";
import { clientResult } from "./image.js";
import type { InvokeOptions, InvokeParams, InvokeResult, MethodName } from "./types.js";

/*
 * `batch`: several calls in one request, run by the bridge one after the other for this client, answered at once.
 * Built on the client's `invoke`, so it queues, times out and reconnects like any request.
 */

/** The method name on the wire (the protocol's `BATCH_METHOD`; the SDK loads no protocol code). */
const BATCH = "batch";

/** One call of a batch. `id` is echoed in its entry, to tell entries apart when some are missing (`haltOnFailure`). */
export interface BatchCall<M extends MethodName = MethodName> {
  readonly method: M;
  readonly params?: InvokeParams<M>;
  readonly id?: RequestId;
}

/** The outcome of one call: its result (typed from its method, images as `BridgeImage`s), or its error. */
export type BatchEntry<M extends string = string> =
  | { readonly id?: RequestId; readonly ok: true; readonly result: InvokeResult<M> }
  | { readonly id?: RequestId; readonly ok: false; readonly error: BridgeError };

/** The entries of a batch, one per call and in order, each typed from its call's method. */
export type BatchEntries<T extends readonly BatchCall[]> = {
  -readonly [K in keyof T]: T[K] extends BatchCall<infer M> ? BatchEntry<M> : BatchEntry;
};

/** Each call's params checked against its own method. */
type CheckedCalls<T extends readonly BatchCall[]> = { readonly [K in keyof T]: T[K] extends { readonly method: infer M extends string } ? BatchCall<M> : T[K] };

export interface BatchOptions extends InvokeOptions {
  /**
   * Stop at the first failure: the calls after it are not run and have no entry, so the entries end with that
   * failure. @default false
   */
  haltOnFailure?: boolean;
  /**
   * All or nothing: every call addresses one document, they run with no other client's call between them as one
   * history step, and when one fails what the earlier ones changed is undone (they answer `ROLLED_BACK`; the failed
   * one's error has `details.rolledBack`). Implies `haltOnFailure`. @default false
   */
  atomic?: boolean;
}

/** What `batch` needs of a client: its `invoke` (a `Connection` has it). */
export interface BatchInvoker {
  invoke(method: typeof BATCH, params?: unknown, options?: InvokeOptions): Promise<unknown>;
}

/**
 * Sends the calls as one `batch` request and resolves with one entry per call, in order. A call that failed is an
 * entry with `ok: false`, not a rejection; the promise rejects only when the batch itself is refused (more calls
 * than the bridge's `maxBatchRequests`) or not answered (`TIMEOUT`, `ABORTED`, a lost connection). Images come
 * back as `BridgeImage`s decoded from data URIs; bytes given as params are sent inline as data URIs.
 *
 * @example
 * const [area, doc] = await batch(client, [
 *   { method: "selection:set", params: { rect: { x: 0, y: 0, width: 10, height: 10 } } },
 *   { method: "document:current" },
 * ]);
 * if (doc.ok) console.log(doc.result.name);
 */
export function batch<const T extends readonly BatchCall[]>(
  client: BatchInvoker,
  requests: T & CheckedCalls<T>,
  options?: BatchOptions & { haltOnFailure?: false },
): Promise<BatchEntries<T>>;
export function batch<const T extends readonly BatchCall[]>(
  client: BatchInvoker,
  requests: T & CheckedCalls<T>,
  options: BatchOptions & { haltOnFailure: true },
): Promise<Array<BatchEntries<T>[number]>>;
export function batch<const T extends readonly BatchCall[]>(
  client: BatchInvoker,
  requests: T & CheckedCalls<T>,
  options?: BatchOptions,
): Promise<Array<BatchEntries<T>[number]>>;
export async function batch(client: BatchInvoker, requests: readonly BatchCall[], options: BatchOptions = {}): Promise<BatchEntry[]> {
  const { haltOnFailure, atomic, ...invokeOptions } = options;
  const params: BatchParams = { requests: await Promise.all(requests.map(inline)) };
  if (haltOnFailure !== undefined) params.haltOnFailure = haltOnFailure;
  if (atomic !== undefined) params.atomic = atomic;
  const result = await client.invoke(BATCH, params, invokeOptions);
  if (!Array.isArray(result)) throw new BridgeError("INTERNAL", "Malformed batch answer: the result is not an array", { method: BATCH });
  return (result as BatchResult).map((entry, index) => toEntry(entry, requests[index]?.method ?? ""));
}

/** `batch` bound to one client, typed as {@link batch} without its first argument: `client.batch(calls, options?)`. */
export interface BatchMethod {
  <const T extends readonly BatchCall[]>(requests: T & CheckedCalls<T>, options?: BatchOptions & { haltOnFailure?: false }): Promise<BatchEntries<T>>;
  <const T extends readonly BatchCall[]>(requests: T & CheckedCalls<T>, options: BatchOptions & { haltOnFailure: true }): Promise<Array<BatchEntries<T>[number]>>;
  <const T extends readonly BatchCall[]>(requests: T & CheckedCalls<T>, options?: BatchOptions): Promise<Array<BatchEntries<T>[number]>>;
}

/**
 * {@link batch} bound to `client`, for a client class to offer as a method.
 *
 * @example
 * readonly batch: BatchMethod = bindBatch(this);
 */
export function bindBatch(client: BatchInvoker): BatchMethod {
  return ((requests: readonly BatchCall[], options?: BatchOptions) => batch(client, requests as never, options)) as BatchMethod;
}

/** A call as sent: byte params become data URIs, since a batch carries no binary parts. */
async function inline(call: BatchCall): Promise<BatchParams["requests"][number]> {
  const sent: BatchParams["requests"][number] = { method: call.method };
  if (call.params !== undefined) sent.params = (JSON.parse(encodeRequest("", call.method, await readBlobParams(call.params), false).frame) as { params: unknown }).params;
  if (call.id !== undefined) sent.id = call.id;
  return sent;
}

/** One wire entry as the SDK answers it: errors as `BridgeError`s, images as `BridgeImage`s. */
function toEntry(entry: BatchResult[number], method: string): BatchEntry {
  const echo = entry.id === undefined ? {} : { id: entry.id };
  if (entry.ok) return { ...echo, ok: true, result: clientResult(method, entry.result) as InvokeResult<string> };
  const error = looksLikeProtocolError(entry.error)
    ? BridgeError.fromProtocolError(entry.error)
    : new BridgeError("INTERNAL", "Malformed batch entry", { method });
  return { ...echo, ok: false, error };
}
