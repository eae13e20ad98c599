import type { Observable } from "rxjs";
import type { z } from "zod";
import {
  type AccessScope,
  BridgeError,
  METHOD_SCHEMAS,
  type BuiltinMethodName,
  type ClientSummarySchema,
  type ServerInfo,
  type WebhookDelivery,
  type WebhookView,
} from "../protocol/index.js";
import type { FileAccess } from "../files/index.js";
import type { HostAdapter, HostCallContext, PeekableOp } from "../hosts/host.js";
import type { ImportPolicy } from "../imports/index.js";
import type { Limits } from "../limits.js";
import { withAliases } from "./_internal/aliases.js";
import { fieldKinds, type FieldKinds } from "./_internal/fields.js";

/*
 * The dispatch types, in one home: the methods are written against these, and the actors (the dispatcher, the
 * logical clients) implement them. Nothing here imports the actors.
 */

/** An event serialized once for every subscriber; each client only adds its own `seq`. */
export interface SerializedEvent {
  readonly type: string;
  readonly json: string;
  /** In a cluster: which event of its editor's stream this is, so a session can say how far it was delivered. */
  readonly cursor?: EventCursor;
}

/**
 * An editor's event's place in its stream (`key`: `<editor> <type>`): the `n`th event since the publishing bridge
 * started (`epoch`, its start time). Counted for every event, published or not, so gaps are known.
 */
export interface EventCursor {
  readonly key: string;
  readonly epoch: number;
  readonly n: number;
}

/** What the event methods need of a logical client (the actors' `LogicalClient` is one). */
export interface SubscribingClient {
  readonly endpoint: string;
  /** Subscribes to a stream; idempotent. */
  subscribe(type: string, stream: Observable<SerializedEvent>): void;
  /** Drops a subscription; returns whether there was one. */
  unsubscribe(type: string): boolean;
  /** Keeps a stream's producer running on the client's behalf without delivering it; returns whether it is on. */
  watch(key: string, stream: Observable<unknown>, enabled: boolean): boolean;
}

/**
 * How a host-bound method finds its editor when the bridge runs several: `document` (the default) goes to the
 * owner of the named `documentId`, else the caller's editor, else the editor of the most recently active
 * document; `place` (a new document) goes to the caller's editor, else the least loaded; `all` runs on every
 * editor and concatenates the arrays they answer.
 */
export type MethodRoute = "document" | "place" | "all";

/** Who is calling: a logical client on a WS endpoint, or an HTTP request's lane. */
export interface Caller {
  /** Mailbox lane: the client id, or `http:<address>:<port>` for HTTP. */
  readonly lane: string;
  readonly client: SubscribingClient | null;
  /** `"root"` or a plugin id. */
  readonly endpoint: string;
  /** What the caller's token lets it call (see `allowedFor`). @default "full": the bridge's own callers, plugins */
  readonly scope?: AccessScope | undefined;
  /**
   * The editor the caller works with: a logical client's assigned one, or the one an HTTP request or a plugin
   * named. Undefined lets each call find its editor (see {@link MethodRoute}).
   */
  readonly editorId?: string | undefined;
}

/** The bridge's webhooks, as the `webhook:*` methods drive them. */
export interface WebhookService {
  add(spec: { url: string; types: readonly string[]; secret?: string | undefined; documentId?: number | undefined }): Promise<WebhookView & { secret: string }>;
  list(): WebhookView[];
  remove(id: string): Promise<boolean>;
  enable(id: string): Promise<WebhookView>;
  deliveries(id: string): { webhook: WebhookView; deliveries: WebhookDelivery[] };
}

/** Services of the bridge a method may use; everything else it reaches through the host. */
export interface BridgeServices {
  readonly limits: Limits;
  /** Files roots, backups and read limits: every path a client sends is resolved through these. */
  readonly files: FileAccess;
  /** Where `layer:importImage` may read from, and how much. */
  readonly imports: ImportPolicy;
  /** Folders `jsx:execute` finds named scripts in (never outside them). */
  readonly scriptDirs: readonly string[];
  /** `getServerInfo`'s answer: frozen, and the same object while nothing in it changes. */
  serverInfo(): ServerInfo;
  clients(): Array<z.infer<typeof ClientSummarySchema>>;
  /**
   * Closes the socket of the client whose id starts with `prefix` (it stays resumable), or with `evict` disposes it
   * (`server:disconnectClient`).
   * @throws BridgeError `NOT_FOUND` for no such client, `BAD_REQUEST` when several ids start with `prefix`.
   */
  disconnectClient(prefix: string, evict: boolean): { client: z.infer<typeof ClientSummarySchema>; disconnected: boolean; evicted: boolean };
  /** The stream `selection:change` keeps running (the selection watcher) on an editor. */
  selectionWatch(editorId: string | undefined): Observable<unknown>;
  /** Event types an endpoint accepts: the main ones, plus a plugin endpoint's local ones. */
  acceptedEvents(endpoint: string): string[];
  /**
   * The stream of an event type on an endpoint for a caller working with `editorId` (its editor's events), or
   * undefined when that endpoint does not accept it.
   */
  eventStream(endpoint: string, type: string, editorId: string | undefined): Observable<SerializedEvent> | undefined;
  /** The webhooks (`webhook:*`); absent where the bridge has none (a plugin's test harness). */
  readonly webhooks?: WebhookService | undefined;
}

export interface MethodContext {
  readonly host: HostAdapter;
  readonly caller: Caller;
  readonly bridge: BridgeServices;
  /** Deadline and caller of the host call; only meaningful for `host: true` methods. */
  readonly call: HostCallContext;
  /**
   * The binary parts that followed the request on a `?binary=1` WebSocket, by index: what a `{ "binary": n }`
   * param stands for. Empty on HTTP, on text connections and for requests that named none.
   */
  readonly binaryParts?: readonly Uint8Array[];
  /**
   * Methods that run others (`template:render`): calls a method by name exactly as a request of the same caller would
   * be (lookup, params, scope, routing, the editor's mailbox on the caller's lane), optionally on a named editor.
   * Given to methods that are not host-bound; absent in harnesses that run methods alone.
   */
  readonly dispatch?: CallOthers | undefined;
}

/** What `MethodContext.dispatch` offers: calls by name, and the editors they can be spread over. */
export interface CallOthers {
  call(name: string, params: unknown, options?: { readonly editorId?: string | undefined; readonly cancel?: CallCancelSignal | undefined }): Promise<unknown>;
  /** The ids of this bridge's editors that take calls now (all of them when none does yet). */
  editors(): readonly string[];
  /** Aborts when the caller cancels this call (`request:cancel`, an HTTP client gone). */
  readonly cancel?: CallCancelSignal | undefined;
  /** The caller's progress reports for this call, when it asked for them. */
  readonly progress?: ((progress: number, total?: number, message?: string) => void) | undefined;
}

/** A cancellation signal as the bridge's calls carry it. */
export interface CallCancelSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** How a method is exposed over HTTP. */
export interface HttpBinding {
  readonly verb: "GET" | "POST";
  /** h3 route, e.g. `/layer/by-id/:layerId`. */
  readonly path: string;
  /** Which body limit applies. @default "json" */
  readonly body?: "json" | "import";
  /** Answers `Accept: image/*` with the raw image bytes. */
  readonly image?: boolean;
}

export interface MethodDefinition<P = unknown, R = unknown> {
  readonly name: string;
  readonly params: z.ZodType<P>;
  readonly result: z.ZodType<unknown>;
  /** Runs through the host mailbox (one editor call at a time). */
  readonly host: boolean;
  /** Changes editor state; a timed-out mutation reports `outcome: "unknown"` and is not retryable. */
  readonly mutates: boolean;
  /**
   * Whether a read-scoped token (`--read-token`) may call it: a method that changes no editor state may, unless it
   * has other effects (it writes a file, runs a script). @default `!mutates`
   */
  readonly readable?: boolean;
  /** Uses the long deadline (scripts, exports). */
  readonly long?: boolean;
  /** How the call finds its editor in a pool. @default "document" */
  readonly route?: MethodRoute;
  readonly http?: HttpBinding;
  /**
   * What the method does and what it answers, in one or two sentences: the published contract (`GET /openapi.json`,
   * `GET /asyncapi.json`, `GET /docs`) shows it. Plugin methods have none.
   */
  readonly description?: string;
  /** Example params, published beside the params schema; each must be valid params. @default none */
  readonly examples?: readonly Record<string, unknown>[];
  /**
   * The top-level params and the non-string kinds each accepts, for transports that carry params as text (HTTP
   * query and path). Empty for methods without fixed params (plugin methods).
   */
  readonly fields: FieldKinds;
  /**
   * For a method whose `run` is one editor read answered as it is: that read, from the params. The bridge may then
   * answer from what the editor's adapter holds (`HostAdapter.peek`) when nothing waits in the editor's queue ahead
   * of it; otherwise `run` runs. What the read answers must be what `run` returns. @default none: always `run`
   */
  readonly peek?: (params: P) => { readonly op: PeekableOp; readonly args: readonly unknown[] };
  run(ctx: MethodContext, params: P): Promise<R> | R;
}

/** Whether a caller of `scope` may call `method`: every method for `full`, the method's own `readable` for `read`. */
export function allowedFor(scope: AccessScope | undefined, method: Pick<MethodDefinition, "readable" | "mutates">): boolean {
  return scope !== "read" || (method.readable ?? !method.mutates);
}

/** The refusal of a call outside the caller's scope. */
export function outsideScope(scope: AccessScope, method: string): BridgeError {
  return new BridgeError("FORBIDDEN", `${method} is outside this token's ${scope} scope: a read token may call only methods that change nothing`, {
    details: { scope, method },
  });
}

type Schemas<N extends BuiltinMethodName> = (typeof METHOD_SCHEMAS)[N];

/**
 * Declares a built-in method by name: its params and result schemas come from `METHOD_SCHEMAS`, so the name is
 * written once here and the types of `run` follow from the protocol. Its params also take the shapes clients of
 * the Generator bridge service send (`_internal/aliases.ts`), mapped before validation. Its `description` is
 * required: the published contract is written next to the code it describes.
 */
export function defineMethod<N extends BuiltinMethodName>(
  name: N,
  spec: Omit<MethodDefinition<z.infer<Schemas<N>["params"]>, z.infer<Schemas<N>["result"]> | unknown>, "name" | "params" | "result" | "fields" | "description"> & {
    readonly description: string;
  },
): MethodDefinition {
  const schemas = METHOD_SCHEMAS[name];
  const params = withAliases(name, schemas.params);
  let fields: FieldKinds | undefined;
  return {
    name,
    params,
    result: schemas.result,
    // Read from the schema once, on first use: most methods are never called over HTTP.
    get fields() {
      fields ??= fieldKinds(params);
      return fields;
    },
    ...spec,
  } as MethodDefinition;
}
