import type { z } from "zod";
import type { ClientSummarySchema, ServerInfo } from "../protocol/index.js";
import type { HostAdapter, HostCallContext } from "../hosts/host.js";
import type { LogicalClient } from "../actors/client.js";
import type { Observable } from "rxjs";
import type { EventBus, SerializedEvent } from "../actors/event-bus.js";
import type { Limits } from "../limits.js";
import type { FileAccess } from "../files/index.js";

/** Who is calling: a logical client on a WS endpoint, or an HTTP request's lane. */
export interface Caller {
  /** Mailbox lane: the client id, or `http:<address>:<port>` for HTTP. */
  readonly lane: string;
  readonly client: LogicalClient | null;
  /** `"root"` or a plugin id. */
  readonly endpoint: string;
}

/** Services of the bridge a method may use; everything else it reaches through the host. */
export interface BridgeServices {
  readonly limits: Limits;
  /** Files roots, backups and read limits: every path a client sends is resolved through these. */
  readonly files: FileAccess;
  readonly bus: EventBus;
  serverInfo(): ServerInfo;
  clients(): Array<z.infer<typeof ClientSummarySchema>>;
  /** Starts or stops the `selection:change` keep-alive of a client. */
  watchSelection(client: LogicalClient, enabled: boolean): boolean;
  /** Event types an endpoint accepts: the main ones, plus a plugin endpoint's local ones. */
  acceptedEvents(endpoint: string): string[];
  /** The stream of an event type on an endpoint, or undefined when that endpoint does not accept it. */
  eventStream(endpoint: string, type: string): Observable<SerializedEvent> | undefined;
}

export interface MethodContext {
  readonly host: HostAdapter;
  readonly caller: Caller;
  readonly bridge: BridgeServices;
  /** Deadline and lane of the host call; only meaningful for `host: true` methods. */
  readonly call: HostCallContext;
}

/** How a method is exposed over HTTP (spec §4.2). */
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
  /** Uses the long deadline (scripts, exports). */
  readonly long?: boolean;
  readonly http?: HttpBinding;
  run(ctx: MethodContext, params: P): Promise<R> | R;
}

/** Declares a built-in method from its protocol schemas; the types of `run` follow from them. */
export function defineMethod<S extends { params: z.ZodType; result: z.ZodType }>(
  name: string,
  schemas: S,
  spec: Omit<MethodDefinition<z.infer<S["params"]>, z.infer<S["result"]> | unknown>, "name" | "params" | "result">,
): MethodDefinition {
  return { name, params: schemas.params, result: schemas.result, ...spec } as MethodDefinition;
}
