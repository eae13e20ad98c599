/*
 * The messages between the bridge and a plugin running in a worker thread. Everything here crosses by structured
 * clone: plain data only (no functions, no class instances beyond Error-like objects flattened by `toWireError`).
 */
import type { PluginRouteVerb } from "../api.js";
import type { PluginMemory } from "./memory.js";

/** Isolation modes: where a plugin's code runs. */
export const ISOLATION_MODES = ["worker", "process", "none"] as const;
export type IsolationMode = (typeof ISOLATION_MODES)[number];

export function isIsolationMode(value: unknown): value is IsolationMode {
  return typeof value === "string" && (ISOLATION_MODES as readonly string[]).includes(value);
}

/** The variable a plugin process reads its `WorkerInit` from (a worker gets it as `workerData`). */
export const PLUGIN_INIT_ENV = "IMAGE_EDITOR_BRIDGE_PLUGIN_INIT";

/** What the worker is started with (`workerData`). */
export interface WorkerInit {
  /** Absolute path of the plugin's entry module. */
  readonly entry: string;
  /** Main event types, so `ctx.bridge.on` can refuse an unknown one synchronously, as in-process. */
  readonly mainTypes: readonly string[];
  /** Where it runs, which says what counts against the memory cap (see `heldBytes`). */
  readonly mode: "worker" | "process";
  /** `limits.pluginMaxMemoryBytes`: the plugin checks itself against it between pings and says when it is past. */
  readonly maxMemoryBytes: number;
  /** `limits.pluginMemorySampleMs`: how often it checks. */
  readonly memorySampleMs: number;
}

/** An error as it crosses: enough for the bridge to rebuild what the plugin threw. */
export interface WireError {
  readonly message: string;
  readonly code?: string | undefined;
  readonly details?: Record<string, unknown> | undefined;
  readonly retryable?: boolean | undefined;
  readonly status?: number | undefined;
}

/** A route request as data (`Headers` as entries). */
export interface WireRouteRequest {
  readonly method: PluginRouteVerb;
  readonly path: string;
  readonly params: Record<string, string>;
  readonly query: Record<string, string>;
  readonly headers: Array<[string, string]>;
  readonly body: unknown;
}

/** A route answer: a `Response` flattened, or any other value. */
export type WireRouteResult =
  | { readonly response: { status: number; headers: Array<[string, string]>; body: ArrayBuffer | null } }
  | { readonly value: unknown };

export type CallKind =
  | { readonly kind: "method"; readonly name: string; readonly params: unknown; readonly call: { clientId: string; endpoint: string } }
  | { readonly kind: "route"; readonly index: number; readonly request: WireRouteRequest }
  | { readonly kind: "hook"; readonly name: "onConnect" | "onDisconnect" | "onDispose"; readonly info: Record<string, unknown> };

/** Bridge → worker. */
export type ToWorker =
  | { readonly t: "setup"; readonly config: Readonly<Record<string, unknown>> }
  | ({ readonly t: "call"; readonly cid: number } & CallKind)
  | { readonly t: "abort"; readonly cid: number }
  | { readonly t: "ping"; readonly n: number }
  | { readonly t: "event"; readonly sub: number; readonly data: unknown }
  | { readonly t: "invoked"; readonly iid: number; readonly ok: true; readonly value: unknown }
  | { readonly t: "invoked"; readonly iid: number; readonly ok: false; readonly error: WireError };

/** What `setup` registered inside the worker. */
export interface WireRegistration {
  readonly methods: string[];
  readonly routes: Array<{ verb: PluginRouteVerb; path: string }>;
  readonly hooks: Array<"onConnect" | "onDisconnect" | "onDispose">;
}

/** Worker → bridge. */
export type FromWorker =
  | { readonly t: "loaded"; readonly id: unknown; readonly events: unknown }
  | { readonly t: "load-failed"; readonly phase: "import" | "definition"; readonly reason: string }
  | { readonly t: "registered"; readonly registration: WireRegistration }
  | { readonly t: "setup-failed"; readonly error: WireError }
  | { readonly t: "result"; readonly cid: number; readonly ok: true; readonly value: unknown }
  | { readonly t: "result"; readonly cid: number; readonly ok: false; readonly error: WireError }
  | { readonly t: "pong"; readonly n: number; readonly memory: PluginMemory }
  /** Sent by the plugin's own sampler when what it holds passed the cap; the bridge then ends it. */
  | { readonly t: "memory"; readonly memory: PluginMemory }
  | { readonly t: "emit"; readonly type: string; readonly data: unknown }
  | { readonly t: "log"; readonly level: "debug" | "info" | "warn" | "error"; readonly obj: unknown; readonly msg: string | undefined }
  | { readonly t: "invoke"; readonly iid: number; readonly method: string; readonly params: unknown; readonly options: unknown }
  | { readonly t: "on"; readonly sub: number; readonly type: string }
  | { readonly t: "off"; readonly sub: number }
  | { readonly t: "hook-failed"; readonly phase: string; readonly reason: string };

/** Flattens anything thrown into what crosses; a coded error keeps its code, details, status and retryability. */
export function toWireError(error: unknown): WireError {
  const shaped = (typeof error === "object" && error !== null ? error : {}) as Record<string, unknown>;
  const message = error instanceof Error ? error.message : typeof shaped["message"] === "string" ? shaped["message"] : String(error);
  const details = typeof shaped["details"] === "object" && shaped["details"] !== null ? cloneable(shaped["details"]) : undefined;
  return {
    message,
    ...(typeof shaped["code"] === "string" ? { code: shaped["code"] } : {}),
    ...(details !== undefined ? { details: details as Record<string, unknown> } : {}),
    ...(typeof shaped["retryable"] === "boolean" ? { retryable: shaped["retryable"] } : {}),
    ...(typeof shaped["status"] === "number" ? { status: shaped["status"] } : {}),
  };
}

/** Rebuilds a crossed error as the plain coded object `toPluginError` understands, or an Error when uncoded. */
export function fromWireError(wire: WireError): unknown {
  if (wire.code === undefined) return new Error(wire.message);
  return { code: wire.code, message: wire.message, details: wire.details, retryable: wire.retryable, status: wire.status };
}

/** A value as JSON would carry it, so details with functions or cycles cannot break a postMessage. */
function cloneable(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return undefined;
  }
}
