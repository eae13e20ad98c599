import { BATCH_METHOD, BridgeError, CANCEL_METHOD, isBridgeError, issuesOf, toProtocolError, type BatchRequest, type ProtocolError, type RequestId } from "../protocol/index.js";
import { allowedFor, BinaryImageResponse, type CallOthers, imageResultJson, outsideScope, isWireImage, LARGE_IMAGE_BYTES, withDataUris, keptAnswerFrame, type BridgeServices, type MethodContext, type MethodDefinition } from "../methods/index.js";
import type { Limits } from "../limits.js";
import type { Logger } from "../logger.js";
import { laneLogName } from "../actors/clients/names.js";
import { NameHints, unknownMethodError } from "./method-hints.js";
import { isBatch, respondBatch, runBatch, type BatchOutcome } from "./batch.js";
import { atomicEntries, runAtomic } from "./atomic-batch.js";
import { cancelTarget, progressEvents, type CancelSignal, type RequestControl } from "../actors/clients/requests.js";

import { answerHttpCall } from "./answer.js";
import { OtherCalls } from "./other-calls.js";
import { checkedParams } from "./params.js";
import type { CallsPort, DispatchCaller, HttpAnswer, HttpCall } from "./port.js";
import type { OutboundFrame } from "../actors/clients/port.js";
import { NOT_AT_HAND, type ProgressReporter } from "../hosts/host.js";
import { noEditorHere } from "../hosts/none.js";
import type { EditorPool, PoolEditor } from "../actors/editors/pool.js";
import { routeHere, type ForwardedCall, type Router } from "../actors/editors/route.js";
import { Metrics, type CallTransport } from "../observability/metrics.js";
import { SampledLog } from "../observability/sampled-log.js";

/** A call's own control, on which `onEditor` notes the editor it was sent to (the `editor` label of its metrics). */
type RoutedControl = RequestControl & { editor?: string };

/** The `transport` label: a logical client is a WebSocket; other callers are told apart by their mailbox lane. */
function transportOf(caller: DispatchCaller): CallTransport {
  if (caller.client !== null) return "ws";
  if (caller.lane.startsWith("http")) return "http";
  return caller.lane.startsWith("plugin:") ? "plugin" : "internal";
}

/** A call that never reaches the editor still gets a context; its signal never aborts. */
const IDLE_SIGNAL = new AbortController().signal;

/** Whether a method's outcome is a promise still to settle rather than its result. */
function isPromise(value: unknown): value is Promise<unknown> {
  return value instanceof Promise;
}

/** The control of a call nobody can cancel or follow. */
const NO_CONTROL: RequestControl = {};

export interface DispatcherOptions {
  readonly methods: ReadonlyMap<string, MethodDefinition>;
  readonly pool: EditorPool;
  readonly services: BridgeServices;
  readonly log: Logger;
  /** Whether the bridge still takes new calls; false once shutdown began. @default always */
  readonly accepting?: () => boolean;
  /** A plugin's own method on its endpoint; found before the built-ins there. @default none */
  readonly pluginMethod?: (endpoint: string, name: string) => MethodDefinition | undefined;
  /**
   * Validate every result against its method's published schema and fail the call (`INTERNAL`, logged) when it
   * does not match, so a method cannot answer a shape its schema does not describe. Costs a parse per call.
   * @default false
   */
  readonly checkResults?: boolean;
  /**
   * Decides where each host-bound call goes (`actors/editors/route.ts`); the dispatcher runs the route it is
   * handed. @default every call on this bridge's editors
   */
  readonly route?: Router | undefined;
  /**
   * Runs a `remote` route: sends the call to that bridge of the cluster. @default none: a router that hands out
   * remote routes needs it
   */
  readonly remote?: ((bridge: string, call: ForwardedCall, cancel?: CancelSignal, progress?: ProgressReporter) => Promise<unknown>) | undefined;
}

/**
 * Decides what happens to a request: finds the method, enforces the per-client in-flight limit, validates
 * params against the method's schema, asks the router where a host-bound call goes and runs that route (directly,
 * through an editor's mailbox, on another bridge or on every one). Transports only translate bytes to and from this.
 */
export class Dispatcher implements CallsPort {
  readonly metrics = new Metrics();
  /**
   * Log lines about client mistakes (failed calls, bad frames), sampled per kind so a flooding client cannot flood
   * the log; internal errors are always written.
   */
  readonly mistakes: SampledLog;
  private readonly methods: ReadonlyMap<string, MethodDefinition>;
  /** "Did you mean" for unknown names, among this dispatcher's methods. */
  private readonly hints: NameHints;
  private readonly pool: EditorPool;
  private readonly services: BridgeServices;
  private readonly limits: Limits;
  private readonly log: Logger;
  private readonly accepting: () => boolean;
  private readonly pluginMethod: (endpoint: string, name: string) => MethodDefinition | undefined;
  private readonly checkResults: boolean;
  private readonly route: Router;
  private readonly remote: DispatcherOptions["remote"];

  constructor(options: DispatcherOptions) {
    this.methods = options.methods;
    this.hints = new NameHints([...options.methods.keys()]);
    this.pool = options.pool;
    this.services = options.services;
    this.limits = options.services.limits;
    this.log = options.log;
    this.mistakes = new SampledLog(options.log, this.limits);
    this.accepting = options.accepting ?? (() => true);
    this.pluginMethod = options.pluginMethod ?? (() => undefined);
    this.checkResults = options.checkResults ?? false;
    this.route = options.route ?? routeHere;
    this.remote = options.remote;
  }

  /** The method table this dispatcher serves. */
  get table(): ReadonlyMap<string, MethodDefinition> {
    return this.methods;
  }

  /** Answers one HTTP method call: the router's routes and its fast path both come here. */
  answer(call: HttpCall): Promise<HttpAnswer> {
    return answerHttpCall(this, call);
  }

  /** `null` when the bridge has an editor with this id, else the `BAD_REQUEST` to answer. */
  checkEditor(editorId: string): BridgeError | null {
    return this.pool.refusal(editorId);
  }

  /** Runs one call and resolves with its result; rejects with a `BridgeError` (or anything a host threw). */
  async call(
    caller: DispatchCaller,
    name: string,
    rawParams: unknown,
    binaryParts: readonly Uint8Array[] = [],
    control: RequestControl = {},
  ): Promise<unknown> {
    return this.callNow(caller, name, rawParams, binaryParts, control);
  }

  /**
   * Runs one call: its result at once when the method answers without waiting (a method the bridge answers itself
   * whose `run` returns a value), else a promise of it. Throws, or rejects, with a `BridgeError` (or anything a host
   * threw). Counted in the metrics either way, once it is done.
   */
  private callNow(caller: DispatchCaller, name: string, rawParams: unknown, binaryParts: readonly Uint8Array[], control: RequestControl): unknown {
    const started = performance.now();
    const method = (caller.endpoint === "root" ? undefined : this.pluginMethod(caller.endpoint, name)) ?? this.methods.get(name);
    // One shape for every call (`editor` is noted later): adding the property to a copy made a new shape per call.
    const routed: RoutedControl = { cancel: control.cancel, progress: control.progress, started: control.started, editor: undefined };
    const failed = (error: unknown): never => {
      const code = (error as { code?: unknown }).code;
      this.record(caller, name, method, routed, started, typeof code === "string" ? code : "INTERNAL");
      throw error;
    };
    const done = (result: unknown): unknown => {
      if (this.checkResults && method !== undefined) this.checkResult(method, result);
      this.record(caller, name, method, routed, started, undefined);
      return result;
    };
    let outcome: unknown;
    try {
      outcome = this.invoke(caller, name, method, rawParams, binaryParts, routed);
      if (!isPromise(outcome)) return done(outcome);
    } catch (error) {
      return failed(error);
    }
    return outcome.then((result) => {
      try {
        return done(result);
      } catch (error) {
        return failed(error);
      }
    }, failed);
  }

  /**
   * A plugin's call of a method (`ctx.invoke`), on the plugin's own lane: answered exactly as a WS client sees it
   * (images as data URIs). An unknown `editor` is the plugin's `BAD_REQUEST`.
   */
  async callForPlugin(pluginId: string, name: string, params: unknown, editorId?: string): Promise<unknown> {
    if (editorId !== undefined) this.pool.get(editorId);
    const result = await this.call({ lane: `plugin:${pluginId}`, client: null, endpoint: "root", editorId }, name, params);
    return withDataUris(result);
  }

  /** Counts a finished call under its method, transport and editor (`all`: run on every editor; `none`: on no editor). */
  private record(caller: DispatchCaller, name: string, method: MethodDefinition | undefined, routed: RoutedControl, started: number, code: string | undefined): void {
    const editor = routed.editor ?? (method?.host === true && method.route === "all" && this.pool.editors.length > 1 ? "all" : "none");
    this.metrics.recordCall(this.label(caller, name, method), transportOf(caller), editor, performance.now() - started, code);
  }

  /** Fails loudly when a result does not match the method's published schema (development and tests). */
  private checkResult(method: MethodDefinition, result: unknown): void {
    const checked = method.result.safeParse(withDataUris(result) ?? null);
    if (checked.success) return;
    const issues = issuesOf(checked.error);
    this.log.error({ actor: "bridge", method: method.name, issues }, "result does not match its published schema");
    throw new BridgeError("INTERNAL", `The result of ${method.name} does not match its published schema`, { details: { issues } });
  }

  /** Metric label: unknown names collapse into one so callers cannot grow the metrics without bound. */
  private label(caller: DispatchCaller, name: string, method: MethodDefinition | undefined): string {
    if (method === undefined) return "(unknown)";
    return this.methods.get(name) === method ? name : `${caller.endpoint}/${name}`;
  }

  /**
   * Checks a call and runs it: what a method the bridge answers itself returns, as it returns it (a value or a
   * promise); a host-bound call's promise. Throws the refusals (unknown method, scope, params) at once.
   */
  private invoke(
    caller: DispatchCaller,
    name: string,
    method: MethodDefinition | undefined,
    rawParams: unknown,
    binaryParts: readonly Uint8Array[],
    control: RequestControl,
  ): unknown {
    if (!this.accepting()) throw new BridgeError("SHUTTING_DOWN", "The bridge is shutting down");
    if (method === undefined) throw this.unknownMethod(caller.endpoint, name);
    if (!allowedFor(caller.scope, method)) throw outsideScope(caller.scope!, name);
    const params = checkedParams(name, method, rawParams);
    if (!method.host) {
      control.started?.();
      // Another bridge's editor (a cluster): what the bridge itself answers comes from here.
      const local = caller.editorId === undefined || (this.remote !== undefined && !this.pool.has(caller.editorId));
      const editor = local ? this.pool.first : this.pool.get(caller.editorId!);
      const ctx: MethodContext = {
        host: editor.host,
        caller,
        bridge: this.services,
        call: { signal: IDLE_SIGNAL, caller: caller.client?.logName ?? laneLogName(caller.lane) },
        binaryParts,
        dispatch: this.callOthers(caller, control),
      };
      return method.run(ctx, params);
    }
    return this.invokeOnEditors(caller, name, method, params, rawParams, binaryParts, control);
  }

  /** Runs a checked host-bound call where the router sends it: an editor here, another bridge, or every one. */
  private async invokeOnEditors(
    caller: DispatchCaller,
    name: string,
    method: MethodDefinition,
    params: unknown,
    rawParams: unknown,
    binaryParts: readonly Uint8Array[],
    control: RequestControl,
  ): Promise<unknown> {
    const route = method.route ?? "document";
    const documentId = (params as { documentId?: unknown }).documentId;
    const named = typeof documentId === "number" ? documentId : undefined;
    const to = this.route(route, named, caller);
    if (to.to === "every-bridge") return this.onEveryBridge(caller, name, method, params, rawParams, control);
    if (to.to === "remote") {
      control.started?.();
      (control as RoutedControl).editor = to.editor ?? `@${to.bridge}`;
      const timeoutMs = method.long ? this.limits.longCallTimeoutMs : this.limits.callTimeoutMs;
      const call = { method: name, params: rawParams, editor: to.editor, lane: caller.lane, timeoutMs, parts: binaryParts };
      return this.remoteRunner()(to.bridge, call, control.cancel, control.progress);
    }
    // A front door runs nothing itself: what no other bridge can take is refused here.
    if (to.to === "front-door") {
      if (named !== undefined) throw new BridgeError("DOCUMENT_NOT_FOUND", `No open document with id ${named} in the cluster`, { details: { documentId: named } });
      throw noEditorHere();
    }
    if (route === "all" && this.pool.editors.length > 1) return this.onEveryEditor(caller, name, method, params, control);
    // A document the pool has not seen yet (a script's new one): look on every editor once before refusing.
    if (named !== undefined && route !== "place" && !this.pool.knows(named) && this.pool.editors.length > 1) {
      await this.onEveryEditor(caller, "document:list", this.methods.get("document:list")!, {});
    }
    const editor = this.pool.route(route, named, caller.editorId);
    if (method.peek !== undefined) {
      // A read the editor's adapter already holds, with nothing queued ahead of it: answered without a call.
      const read = method.peek(params);
      const held = editor.session.peek(read.op, read.args);
      if (held !== NOT_AT_HAND) {
        control.started?.();
        (control as RoutedControl).editor = editor.id;
        return held;
      }
    }
    return this.onEditor(editor, caller, name, method, params, binaryParts, control);
  }

  /** What a method that runs others calls them through: this dispatcher, as the same caller, on its lane. */
  private callOthers(caller: DispatchCaller, control: RequestControl): CallOthers {
    return new OtherCalls(this, caller, control);
  }

  /** The ids of the editors that take calls now (all of them when none does yet): where a method's calls may go. */
  readyEditorIds(): readonly string[] {
    const ready = this.pool.editors.filter((editor) => editor.session.isReady);
    return (ready.length > 0 ? ready : this.pool.editors).map((editor) => editor.id);
  }

  /** What runs `remote` routes. @throws BridgeError `INTERNAL` when the router hands one out and nothing runs it. */
  private remoteRunner(): NonNullable<DispatcherOptions["remote"]> {
    if (this.remote === undefined) throw new BridgeError("INTERNAL", "A call was routed to another bridge, but this bridge has no cluster to send it through");
    return this.remote;
  }

  /** The error for a method no table has: which plugin endpoints serve it, or the nearest built-in name. */
  private unknownMethod(endpoint: string, name: string): BridgeError {
    const pluginIds = endpoint === "root" ? (this.services.serverInfo().plugins ?? []).map((plugin) => plugin.id) : [];
    const servedBy = pluginIds.filter((id) => this.pluginMethod(id, name) !== undefined);
    return unknownMethodError(name, endpoint, servedBy, this.hints);
  }

  /** Runs a host-bound call through one editor's mailbox. */
  private onEditor(
    editor: PoolEditor,
    caller: DispatchCaller,
    name: string,
    method: MethodDefinition,
    params: unknown,
    binaryParts: readonly Uint8Array[] = [],
    control: RequestControl = {},
  ): Promise<unknown> {
    (control as RoutedControl).editor = editor.id;
    return editor.session.call(
      {
        lane: caller.lane,
        callerName: caller.client?.logName,
        method: name,
        mutates: method.mutates,
        timeoutMs: method.long ? this.limits.longCallTimeoutMs : this.limits.callTimeoutMs,
        cancel: control.cancel,
        progress: control.progress,
        started: control.started,
      },
      (call) => Promise.resolve(method.run({ host: editor.host, caller, bridge: this.services, call, binaryParts }, params)),
    );
  }

  /**
   * Runs a call on this bridge's editors and on every other bridge of the cluster, and concatenates what they
   * answer (in document id order); a bridge that does not answer is left out (its documents went with it).
   */
  private async onEveryBridge(
    caller: DispatchCaller,
    name: string,
    method: MethodDefinition,
    params: unknown,
    rawParams: unknown,
    control: RequestControl,
  ): Promise<unknown[]> {
    const remote = this.remoteRunner();
    const here = this.pool.frontDoor
      ? Promise.resolve([])
      : this.pool.editors.length > 1
        ? this.onEveryEditor(caller, name, method, params, control)
        : (this.onEditor(this.pool.first, caller, name, method, params, [], { cancel: control.cancel, started: control.started }) as Promise<unknown[]>);
    const bridges = [...new Set((this.pool.remoteEditors?.() ?? []).map((editor) => editor.bridge))];
    const timeoutMs = method.long ? this.limits.longCallTimeoutMs : this.limits.callTimeoutMs;
    const there = bridges.map((bridge) => remote(bridge, { method: name, params: rawParams, lane: caller.lane, timeoutMs, parts: [] }, control.cancel) as Promise<unknown[]>);
    const [own, ...others] = await Promise.allSettled([here, ...there]);
    if (own!.status === "rejected") throw own!.reason;
    const items = [...own!.value, ...others.flatMap((answer) => (answer.status === "fulfilled" && Array.isArray(answer.value) ? answer.value : []))];
    return items.every((item) => typeof (item as { id?: unknown }).id === "number") ? items.sort((a, b) => (a as { id: number }).id - (b as { id: number }).id) : items;
  }

  /**
   * Runs a call on every editor taking calls and concatenates the arrays they answer (in document id order when
   * the items have ids). Fails only when no editor answers.
   */
  private async onEveryEditor(
    caller: DispatchCaller,
    name: string,
    method: MethodDefinition,
    params: unknown,
    control: RequestControl = {},
  ): Promise<unknown[]> {
    const live = this.pool.editors.filter((editor) => editor.session.isReady);
    // Progress from several editors would not add up to one request's: only cancellation is passed on.
    const each: RequestControl = { cancel: control.cancel, started: control.started };
    if (live.length === 0) return (await this.onEditor(this.pool.first, caller, name, method, params, [], each)) as unknown[];
    const settled = await Promise.allSettled(live.map((editor) => this.onEditor(editor, caller, name, method, params, [], each)));
    const answers = settled.filter((s): s is PromiseFulfilledResult<unknown> => s.status === "fulfilled").map((s) => s.value as unknown[]);
    if (answers.length === 0) throw (settled[0] as PromiseRejectedResult).reason;
    const items = answers.flat();
    return items.every((item) => typeof (item as { id?: unknown }).id === "number")
      ? items.sort((a, b) => (a as { id: number }).id - (b as { id: number }).id)
      : items;
  }

  /**
   * Answers one WS request frame with the response frame's text (UTF-8 bytes for a large image or a kept answer). Never throws: every failure becomes a
   * failure response carrying `requestId` and `method`. The response's `id` is the request's as sent (a number
   * stays a number); `error.requestId` is its text. On a `binary` connection an image result is a
   * {@link BinaryImageResponse} (JSON with a reference per image, then their bytes); `binaryParts` are the binary messages that
   * followed the request.
   */
  respond(
    caller: DispatchCaller,
    id: RequestId,
    name: string,
    params: unknown,
    binaryParts: readonly Uint8Array[] = [],
    options: { readonly progress?: boolean } = {},
  ): OutboundFrame | Promise<OutboundFrame> {
    const client = caller.client;
    // A batch is not itself in flight: each of its calls counts while it runs (./batch.ts). Cancelling its id stops it.
    if (isBatch(name)) return this.respondToBatch(caller, id, params, binaryParts);
    // Cancelling is not itself in flight either: a client at its limit must still be able to cancel.
    if (name === CANCEL_METHOD) return this.respondCancel(caller, id, params);
    const ticket = client?.beginCall(id);
    if (isBridgeError(ticket)) return this.failure(id, name, ticket, caller);
    const progress = options.progress === true && client !== null ? progressEvents(id, this.limits.progressIntervalMs, (frame) => client.deliverNotice(frame)) : undefined;
    const finish = (): void => {
      progress?.close();
      ticket?.end();
    };
    let outcome: unknown;
    try {
      const control = progress === undefined ? (ticket?.control ?? NO_CONTROL) : { ...ticket?.control, progress: progress.report };
      outcome = this.callNow(caller, name, params, binaryParts, control);
    } catch (error) {
      finish();
      return this.failure(id, name, error, caller);
    }
    // The call stays in flight until its frame is made (a large image's data URI is written out of the turn).
    const answered = (result: unknown): OutboundFrame | Promise<OutboundFrame> => {
      const frame = this.resultFrame(caller, id, name, result);
      if (isPromise(frame)) return frame.finally(finish);
      finish();
      return frame;
    };
    // A method the bridge answers itself is answered in the turn its request arrived: no promise, no later turn.
    if (!isPromise(outcome)) return answered(outcome);
    return outcome.then(answered, (error: unknown) => {
      finish();
      return this.failure(id, name, error, caller);
    });
  }

  /** A `batch` request's answer; the batch is registered for `request:cancel` under its id while it runs. */
  private async respondToBatch(caller: DispatchCaller, id: RequestId, params: unknown, binaryParts: readonly Uint8Array[]): Promise<OutboundFrame> {
    const registered = caller.client?.register(id);
    registered?.control.started?.();
    try {
      return await respondBatch(this, this.limits, caller, id, params, binaryParts, registered?.control.cancel);
    } finally {
      registered?.end();
    }
  }

  /**
   * The response frame of a call that succeeded: on a `binary` connection an image goes as binary parts; a large
   * image's data URI is written out of the turn (a promise); a kept answer is copied from its bytes.
   */
  private resultFrame(caller: DispatchCaller, id: RequestId, name: string, result: unknown): OutboundFrame | Promise<OutboundFrame> {
    try {
      const binary = caller.binary === true ? BinaryImageResponse.of(id, result) : undefined;
      if (binary !== undefined) return binary;
      if (isWireImage(result) && result.image.bytes.byteLength > LARGE_IMAGE_BYTES) {
        return imageResultJson(result, `{"id":${JSON.stringify(id)},"ok":true,"result":`, "}").catch((error: unknown) => this.failure(id, name, error, caller));
      }
      const kept = keptAnswerFrame(id, result);
      if (kept !== undefined) return kept;
      return JSON.stringify({ id, ok: true, result: result === undefined ? null : result });
    } catch (error) {
      return this.failure(id, name, error, caller);
    }
  }

  /** Answers `request:cancel`: cancels one of the caller's own unanswered requests, or says there is none. */
  private respondCancel(caller: DispatchCaller, id: RequestId, params: unknown): string {
    try {
      const target = cancelTarget(params);
      const result = caller.client?.cancel(target) ?? { id: target, cancelled: false, state: "unknown" };
      return JSON.stringify({ id, ok: true, result });
    } catch (error) {
      return this.failure(id, CANCEL_METHOD, error, caller);
    }
  }

  /**
   * Runs a `batch` request's calls in order for this caller and resolves with their outcomes; rejects with
   * BAD_REQUEST when the batch itself is invalid. HTTP's `POST /batch` comes here; WS frames through `respond`.
   */
  batch(caller: DispatchCaller, params: unknown): Promise<BatchOutcome[]> {
    return runBatch(this, this.limits, caller, params, []);
  }

  /**
   * Runs an atomic batch's calls as one job of their document's editor: nothing of another client's runs between
   * them, and a failure undoes what the earlier ones did (`./atomic-batch.ts`).
   * @throws BridgeError `BAD_REQUEST` before any call runs when the calls are not all of one document on this bridge
   */
  async atomic(caller: DispatchCaller, requests: readonly BatchRequest[], batchId: RequestId | undefined, cancel: CancelSignal | undefined): Promise<BatchOutcome[]> {
    if (!this.accepting()) throw new BridgeError("SHUTTING_DOWN", "The bridge is shutting down");
    const methodOf = (name: string): MethodDefinition | undefined => (caller.endpoint === "root" ? undefined : this.pluginMethod(caller.endpoint, name)) ?? this.methods.get(name);
    // The entries run on the host directly, not through `invoke`: the caller's scope is checked here, before any runs.
    for (const { method: name } of requests) {
      const method = methodOf(name);
      if (method !== undefined && !allowedFor(caller.scope, method)) throw outsideScope(caller.scope!, name);
    }
    const { entries, documentId } = atomicEntries(requests, methodOf);
    const to = this.route("document", documentId, caller);
    if (to.to !== "local") {
      throw new BridgeError("NOT_SUPPORTED", "An atomic batch runs on this bridge's own editors: send it to the bridge that holds the document", {
        details: { capability: "history", documentId },
      });
    }
    const editor = this.pool.route("document", documentId, caller.editorId);
    return editor.session.call(
      { lane: caller.lane, callerName: caller.client?.logName, method: BATCH_METHOD, mutates: true, timeoutMs: this.limits.longCallTimeoutMs, cancel },
      (call) => runAtomic({ host: editor.host, caller, bridge: this.services, batchId, toWireError: (error, context) => this.toWireError(error, { ...context, caller }) }, call, entries, documentId),
    );
  }

  /** Converts a failure to the wire and logs it once. */
  toWireError(error: unknown, context: { requestId?: RequestId; method?: string; caller?: DispatchCaller }): ProtocolError {
    const requestId = context.requestId === undefined ? undefined : String(context.requestId);
    const wire = toProtocolError(error, { requestId, method: context.method });
    // Logs name a client by its id's prefix: the full id is a bearer secret.
    const caller = context.caller;
    const actor = caller === undefined ? undefined : (caller.client?.logName ?? laneLogName(caller.lane));
    if (wire.code === "INTERNAL") {
      this.log.error({ actor, method: context.method, err: error }, "call failed with an internal error");
    } else {
      // Sampled by code: an unknown method sent 200,000 times writes a few dozen lines and a count.
      this.mistakes.write(wire.code, "info", { actor, method: context.method, code: wire.code }, "call failed");
    }
    return wire;
  }

  private failure(id: RequestId, method: string, error: unknown, caller: DispatchCaller): string {
    return JSON.stringify({ id, ok: false, error: this.toWireError(error, { requestId: id, method, caller }) });
  }
}
