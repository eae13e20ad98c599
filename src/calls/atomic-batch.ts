/**
 * An atomic batch (`batch {requests, atomic: true}`): every entry addresses one document; the entries run in one
 * job of that document's editor, so no other client's call runs between them; they make one history step; and when
 * one fails, the steps the earlier ones made are undone. Checked before anything runs: every entry a method acting
 * on one document, all of them on the same one, an editor with a history.
 */
import { BridgeError, ROLLED_BACK_CODE, type BatchRequest, type ProtocolError, type RequestId } from "../protocol/index.js";
import type { HostAdapter, HostCallContext } from "../hosts/host.js";
import type { BridgeServices, Caller, MethodDefinition } from "../methods/index.js";
import type { BatchOutcome } from "./batch.js";
import { checkedParams } from "./params.js";

/**
 * Methods an atomic batch refuses though they act on one document: closing it ends its history, a copy is a
 * document of its own, and moving the history inside the batch would undo what the batch is about.
 */
const NOT_IN_ATOMIC: ReadonlySet<string> = new Set(["document:close", "document:duplicate", "history:undo", "history:redo", "history:go"]);

/** The step an atomic batch makes, as the history lists it. */
export const ATOMIC_STEP_NAME = "batch";

/** One entry, checked: its method and its params as sent. */
export interface AtomicEntry {
  readonly request: BatchRequest;
  readonly method: MethodDefinition;
}

/**
 * The entries of an atomic batch, each checked to be a method that acts on one document, and the document they name
 * (undefined: none names one, so the active document).
 * @throws BridgeError `BAD_REQUEST` naming the entry, or the documents when they differ
 */
export function atomicEntries(requests: readonly BatchRequest[], methodOf: (name: string) => MethodDefinition | undefined): { entries: AtomicEntry[]; documentId: number | undefined } {
  const entries = requests.map((request, index) => {
    const method = methodOf(request.method);
    if (method === undefined || !method.host || (method.route ?? "document") !== "document" || NOT_IN_ATOMIC.has(request.method)) {
      throw new BridgeError("BAD_REQUEST", `${request.method} cannot be part of an atomic batch: every entry must be a method of one open document`, {
        details: { index, method: request.method },
      });
    }
    return { request, method };
  });
  const named = new Set<number>();
  for (const { request } of entries) {
    const documentId = (request.params as { documentId?: unknown } | undefined)?.documentId;
    if (typeof documentId === "number") named.add(documentId);
  }
  if (named.size > 1) {
    throw new BridgeError("BAD_REQUEST", `Every entry of an atomic batch must address the same document, not ${[...named].join(" and ")}`, {
      details: { documentIds: [...named] },
    });
  }
  return { entries, documentId: [...named][0] };
}

/** What running the entries needs of the dispatcher. */
export interface AtomicRun {
  readonly host: HostAdapter;
  readonly caller: Caller;
  readonly bridge: BridgeServices;
  readonly batchId: RequestId | undefined;
  toWireError(error: unknown, context: { requestId?: RequestId; method?: string }): ProtocolError;
}

/**
 * Runs the entries in the job that holds the editor (`call`): one history step when all succeed; when one fails,
 * the earlier ones' steps undone (`details.rolledBack` on its error) and each earlier entry answered `ROLLED_BACK`.
 * @throws BridgeError `NOT_SUPPORTED {editor, capability: "history"}` from an editor without a history, `BAD_REQUEST`
 * when the entries name another document than the active one they leave to default
 */
export async function runAtomic(run: AtomicRun, call: HostCallContext, entries: readonly AtomicEntry[], named: number | undefined): Promise<BatchOutcome[]> {
  const { host } = run;
  if (typeof host.history !== "function") {
    throw new BridgeError("NOT_SUPPORTED", `The ${host.kind} editor has no history to make a batch all or nothing`, { details: { editor: host.kind, capability: "history" } });
  }
  // Entries that name no document act on the active one: it must be the one the others name.
  const documentId = (await host.getDocument(call, named)).id;
  if (named === undefined || entries.some(({ request }) => (request.params as { documentId?: unknown } | undefined)?.documentId === undefined)) {
    const active = named === undefined ? documentId : (await host.getDocument(call, undefined)).id;
    if (active !== documentId) {
      throw new BridgeError("BAD_REQUEST", `Every entry of an atomic batch must address the same document: ${documentId} is named, ${active} is active`, {
        details: { documentIds: [documentId, active] },
      });
    }
  }
  await host.history(call, { op: "begin", documentId });
  const outcomes: BatchOutcome[] = [];
  for (const { request, method } of entries) {
    const echo = request.id === undefined ? {} : { id: request.id };
    const entryCall: HostCallContext = { ...call, method: request.method };
    try {
      // A cancelled batch stops here, and what it did is undone.
      call.checkpoint?.();
      const params = checkedParams(request.method, method, request.params);
      const result = await method.run({ host, caller: run.caller, bridge: run.bridge, call: entryCall, binaryParts: [] }, params);
      outcomes.push({ ...echo, ok: true, result: result === undefined ? null : result });
    } catch (error) {
      const { rolledBack } = await host.history(call, { op: "rollback", documentId });
      const wire = run.toWireError(error, { requestId: request.id ?? run.batchId, method: request.method });
      const undone = outcomes.map((outcome): BatchOutcome => ({
        ...(outcome.id === undefined ? {} : { id: outcome.id }),
        ok: false,
        error: {
          code: ROLLED_BACK_CODE,
          message: `Undone: entry ${outcomes.length + 1} of the atomic batch (${request.method}) failed`,
          retryable: false,
          source: "bridge",
          method: entries[outcomes.indexOf(outcome)]!.request.method,
        },
      }));
      return [...undone, { ...echo, ok: false, error: { ...wire, details: { ...wire.details, rolledBack: rolledBack ?? 0 } } }];
    }
  }
  await host.history(call, { op: "commit", documentId, name: ATOMIC_STEP_NAME });
  return outcomes;
}
