import type { z } from "zod";
import type { EVENT_SCHEMAS, MainEventType } from "../protocol/events.js";
import type { BuiltinMethodName, METHOD_SCHEMAS } from "../protocol/methods.js";
import type { ConnectedEventData } from "../protocol/events.js";
import type { BridgeError } from "./errors.js";
import type { BinaryInput } from "./binary.js";
import type { BridgeImage, ImageMethodName } from "./image.js";

/*
 * Types only: everything here is inferred from the protocol's zod schemas and erased at build time, so the
 * client bundle carries no schema code.
 */

/**
 * What a built-in method accepts (before the server's defaults and coercions). `layer:importImage` also takes its
 * `image` as bytes (`Uint8Array`, `ArrayBuffer`, `Blob`): sent as a binary message, or a data URI without binary.
 */
export type InvokeParams<M extends string> = M extends "layer:importImage"
  ? Omit<z.input<(typeof METHOD_SCHEMAS)[M]["params"]>, "image"> & { image: string | BinaryInput }
  : M extends BuiltinMethodName
    ? z.input<(typeof METHOD_SCHEMAS)[M]["params"]>
    : unknown;

/** What a built-in method answers (an image method: a {@link BridgeImage}); plugin methods answer `unknown`. */
export type InvokeResult<M extends string> = M extends ImageMethodName
  ? BridgeImage
  : M extends "template:render"
    ? TemplateRenderResult
    : M extends BuiltinMethodName
    ? z.output<(typeof METHOD_SCHEMAS)[M]["result"]>
    : unknown;

/** `template:render`'s answer: each variant answered inline carries its image as a {@link BridgeImage}. */
export type TemplateRenderResult = {
  variants: Array<Omit<z.output<(typeof METHOD_SCHEMAS)["template:render"]["result"]>["variants"][number], "image"> & { image?: BridgeImage }>;
};

/** Built-in names for autocompletion, plus any plugin method name. */
export type MethodName = BuiltinMethodName | (string & {});

export interface InvokeOptions {
  /** Rejects with `TIMEOUT` when no answer came in time. @default the connection's `requestTimeoutMs` */
  timeoutMs?: number;
  /**
   * Rejects with `ABORTED` when it fires. A request already sent is cancelled on the bridge too (`request:cancel`,
   * when the bridge announces the `cancel` feature): a queued call never runs, a running one is told to stop.
   */
  signal?: AbortSignal;
  /**
   * Called with the bridge's progress reports about this request (`progress` is a fraction of 1 when `total` is
   * absent). Asks the bridge for them; never called after the request settles.
   */
  onProgress?: (progress: RequestProgress) => void;
}

/** One progress report about a request. */
export interface RequestProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** Params are optional exactly when the method accepts no params or only optional ones. */
export type InvokeArgs<M extends string> = M extends BuiltinMethodName
  ? Record<string, never> extends InvokeParams<M>
    ? [params?: InvokeParams<M>, options?: InvokeOptions]
    : [params: InvokeParams<M>, options?: InvokeOptions]
  : [params?: unknown, options?: InvokeOptions];

/** The payload of a main event; other events (plugin, host-specific) are `unknown`. */
export type EventData<T extends string> = T extends MainEventType ? z.output<(typeof EVENT_SCHEMAS)[T]> : unknown;

/** Main event names for autocompletion, plus any other event type. */
export type EventName = MainEventType | (string & {});

/** What the listener of a wire event receives beside the data. */
export interface EventMeta {
  readonly type: string;
  /** The per-client sequence number: consecutive for one logical client, across reconnects. */
  readonly seq: number;
}

/** Why the application should re-read state: events it will never receive. */
export interface LostNotice {
  /**
   * `gap`: the event stream skipped `seq` numbers; `replay-overflow`: the bridge's replay buffer overflowed while
   * the socket was away; `new-client`: the bridge no longer knew this client (expired or restarted) — the
   * subscriptions were renewed before this notice.
   */
  readonly reason: "gap" | "replay-overflow" | "new-client";
  /** Events known missing from `seq` gaps; undefined when unknowable (`new-client`). */
  readonly events: number | undefined;
  /** Frames (events and answers) the bridge dropped from its replay buffer, for `replay-overflow`. */
  readonly frames?: number;
}

/**
 * Local notifications; they never touch the wire. Their names start with `$` so they cannot clash with event
 * types.
 */
export interface LocalEvents {
  /** Every completed handshake: the first, and each reconnect (`resumed` says whether the client was kept). */
  $open: ConnectedEventData;
  /** The socket closed; `willReconnect` says whether the client will try again. */
  $close: { code: number; reason: string; willReconnect: boolean };
  /** A reconnect attempt is scheduled. */
  $reconnecting: { attempt: number; delayMs: number };
  /** Events were missed: re-read whatever state you mirror. */
  $lost: LostNotice;
  /** An `error` event from the bridge, a failed (re)subscription, or a throwing listener. */
  $error: BridgeError;
}
export type LocalEventName = keyof LocalEvents;

export type Listener<T extends string> = T extends LocalEventName
  ? (data: LocalEvents[T]) => void
  : (data: EventData<T>, meta: EventMeta) => void;

/** The part of the standard `WebSocket` API the client uses; both browsers' and `ws`'s sockets have it. */
export interface WebSocketLike {
  readonly readyState: number;
  readonly protocol: string;
  /** Set to `"arraybuffer"`, so binary messages arrive the same way in browsers and in Node. */
  binaryType: string;
  send(data: string | Uint8Array): void;
  close(code?: number, reason?: string): void;
  onopen: EventHandler<unknown> | null;
  onmessage: EventHandler<{ data: unknown }> | null;
  onclose: EventHandler<{ code: number; reason: string }> | null;
  onerror: EventHandler<unknown> | null;
}

/**
 * A socket's event handler. Declared through a method so its parameter is checked both ways: the `ws` package's
 * and the browser's classes type their handlers with their own event classes, and both must be accepted as they are.
 */
type EventHandler<E> = { handle(event: E): void }["handle"];

export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

/** `fetch` as the HTTP helpers use it. */
export type FetchLike = (input: string, init?: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal }) => Promise<{
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}>;
