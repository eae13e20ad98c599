/*
 * The calls as a transport sees them: a WebSocket request frame answered with its response frame, an HTTP method call
 * answered with its status, headers and body, a batch, and the one way a failure reaches the wire. The dispatcher
 * (`./dispatcher.ts`) is the one implementation.
 */
import type { BridgeError, ProtocolError, RequestId } from "../protocol/index.js";
import type { Caller, MethodDefinition } from "../methods/index.js";
import type { ClientHandle, OutboundFrame } from "../actors/clients/port.js";
import type { BatchOutcome } from "./batch.js";

/** A caller as the transports hand it over: the methods see a `Caller`; its logical client counts its calls in flight. */
export interface DispatchCaller extends Caller {
  readonly client: ClientHandle | null;
  /** The caller's WebSocket negotiated `binary`: image results are answered as a binary message. */
  readonly binary?: boolean;
}

/** What aborts a call: an `AbortSignal`, or a watch set up on first need that calls `abort` once the client is gone. */
export type CallCancel =
  | { readonly aborted: boolean; addEventListener(type: "abort", listener: () => void): void; removeEventListener(type: "abort", listener: () => void): void }
  | ((abort: () => void) => void);

/** One HTTP method call, its params already read from the path, query or body. */
export interface HttpCall {
  readonly caller: DispatchCaller;
  readonly method: MethodDefinition;
  readonly params: Record<string, unknown>;
  /** The request's `Accept` header: on an image route, `image/…` asks for the image's bytes (and maybe its format). */
  readonly accept: string | null;
  /** A client that goes away before its answer cancels the call: queued, it never runs; running, it is stopped. */
  readonly cancel: CallCancel | undefined;
}

/** An HTTP call's answer: bare JSON (errors with the error table's status), or an image's bytes, or 204 for no image. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array | null;
}

/** Something logged about a client's own mistakes, sampled per kind so a flooding client cannot flood the log. */
export interface MistakeLog {
  write(kind: string, level: "info" | "warn", fields: Record<string, unknown>, msg: string): void;
}

/** The calls' one door for a transport. */
export interface CallsPort {
  /** The method table served: HTTP routes, the published schema and contract are derived from it. */
  readonly table: ReadonlyMap<string, MethodDefinition>;
  /**
   * Answers one WebSocket request frame with its response frame: at once for a method the bridge answers itself
   * without waiting, else a promise of it. Never throws or rejects.
   */
  respond(
    caller: DispatchCaller,
    id: RequestId,
    name: string,
    params: unknown,
    binaryParts?: readonly Uint8Array[],
    options?: { readonly progress?: boolean },
  ): OutboundFrame | Promise<OutboundFrame>;
  /** Answers one HTTP method call (the router's and the fast path's alike). Never rejects. */
  answer(call: HttpCall): Promise<HttpAnswer>;
  /** Runs a `batch`'s calls for HTTP's `POST /batch`; rejects with BAD_REQUEST for an invalid batch. */
  batch(caller: DispatchCaller, params: unknown): Promise<BatchOutcome[]>;
  /** `null` when the bridge has an editor with this id, else the `BAD_REQUEST` to answer (`?editor=`, `X-Bridge-Editor`). */
  checkEditor(editorId: string): BridgeError | null;
  /** Converts a failure to the wire and logs it once. */
  toWireError(error: unknown, context: { requestId?: RequestId; method?: string; caller?: DispatchCaller }): ProtocolError;
  readonly mistakes: MistakeLog;
}
