/*
 * The messages between the bridge (parent) and the embedded editor running in its own process (child). Each is one
 * frame of `framing.ts`; `kind` tells them apart (`type` is the event type of `subscribe`/`event`, as on the wire).
 */
import { BridgeError, isBridgeError, type ErrorSource } from "../../protocol/errors.js";
import type { FileAccess } from "../../files/index.js";
import type { EmbeddedCutoutOptions } from "../embedded/cutout/index.js";
import type { RecoveredDocument, RecoveryOptions, RecoveryState } from "../embedded/recovery.js";
import type { ScriptLimits } from "../embedded/scripts/index.js";
import { OPTIONAL_HOST_OPS, REQUIRED_HOST_OPS, type EditorMemoryUse, type EditorRecovery } from "../host.js";

/** Data of the `editor:restarted` event: the editor process was lost and a fresh one took its place. */
export interface EditorRestartedEvent {
  /** Why the previous process ended ("editor ran out of memory (JavaScript heap)", …). */
  readonly reason: string;
  /** Restarts so far, this one included. */
  readonly restarts: number;
  /** Documents of the lost process that are gone, each also reported by a `closedDocument` event. */
  readonly lostDocumentIds: number[];
  /** Documents of the lost process reopened from their recovery copies, under the same ids. */
  readonly recoveredDocumentIds: number[];
  /** Per document of the lost process: recovered or not, and what was lost. */
  readonly documents: EditorRecovery["documents"];
}

/** The event announcing a restart; the isolated editor adds it to its `eventTypes`. */
export const EDITOR_RESTARTED_EVENT = "editor:restarted";

/**
 * The editor's options as the child receives them: plain data only (the files policy is a snapshot whose roots are
 * already real paths; the logger is replaced by `log` messages at `logLevel`).
 */
export interface EditorInit {
  readonly sample: boolean;
  readonly open: string | undefined;
  readonly firstDocumentId: number;
  readonly maxDocumentPixels: number | undefined;
  readonly maxPsdGroupDepth: number | undefined;
  readonly memoryBudgetBytes: number | undefined;
  readonly historySteps: number | undefined;
  readonly historyBudgetPercent: number | undefined;
  readonly fontsDirs: readonly string[] | undefined;
  readonly systemFonts: boolean | undefined;
  readonly scriptLimits: Partial<ScriptLimits> | undefined;
  readonly cutout: Partial<Omit<EmbeddedCutoutOptions, "checkpoint">> | undefined;
  readonly files: FileAccess | undefined;
  /** Lowest level worth sending to the parent (`silent` sends nothing). */
  readonly logLevel: string;
  /** How often the editor's main thread sends `heartbeat` (see `EDITOR_HEARTBEAT_MS`). */
  readonly heartbeatMs: number;
  /** Where and how often to keep recovery copies of the open documents; none when absent. */
  readonly recovery: RecoveryOptions | undefined;
  /** After a loss: the lost process's documents, reopened from the recovery copies. */
  readonly recover: number[] | undefined;
}

/** An error as it crosses the hop, rebuilt as a `BridgeError` on the other side. */
export interface WireError {
  readonly code: string;
  readonly message: string;
  readonly details?: Record<string, unknown> | undefined;
  readonly retryable?: boolean | undefined;
  readonly source?: ErrorSource | undefined;
  /** Set when the editor threw something other than a `BridgeError` (it answers as a generic `INTERNAL`). */
  readonly unexpected?: boolean | undefined;
}

/** Parent → child. */
export type ParentMessage =
  | { readonly kind: "init"; readonly options: EditorInit }
  | {
      readonly kind: "call";
      readonly id: number;
      readonly op: string;
      readonly args: unknown[];
      readonly caller: string;
      /** The method the call runs for, where the bridge knows it. */
      readonly method?: string | undefined;
      /** The caller asked for progress: the editor sends `progress` messages for this call. */
      readonly progress?: boolean;
    }
  | { readonly kind: "cancel"; readonly id: number }
  | { readonly kind: "subscribe"; readonly type: string }
  | { readonly kind: "unsubscribe"; readonly type: string }
  | { readonly kind: "close" };

/** Child → parent. */
export type ChildMessage =
  | { readonly kind: "ready"; readonly hostVersion: string | undefined; readonly recovered?: RecoveredDocument[] | undefined }
  /** Whether each open document's recovery copy holds its latest change, and whether it has a selection. */
  | { readonly kind: "recovery"; readonly state: RecoveryState }
  | { readonly kind: "failed"; readonly error: WireError }
  | { readonly kind: "result"; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly kind: "result"; readonly id: number; readonly ok: false; readonly error: WireError }
  | { readonly kind: "event"; readonly type: string; readonly data: unknown }
  | { readonly kind: "progress"; readonly id: number; readonly progress: number; readonly total?: number; readonly message?: string }
  | { readonly kind: "log"; readonly level: string; readonly obj: Record<string, unknown>; readonly msg: string | undefined }
  | { readonly kind: "documents"; readonly ids: number[]; readonly nextId: number }
  /**
   * Sent by the editor's main thread on a timer: it stops coming only when that thread is stuck (a loop no
   * checkpoint reaches), never while the editor waits on native work (an encode in sharp's threads).
   */
  | { readonly kind: "heartbeat" }
  /** The editor's memory budget and use, sent when ready and after each call that changed it. */
  | { readonly kind: "memory"; readonly use: EditorMemoryUse };

/**
 * The `HostAdapter` operations a `call` may name: every one the embedded editor has. The proxy exposes exactly these,
 * so a call to an operation the child lacks never happens.
 */
export const HOST_OPS = [...REQUIRED_HOST_OPS, ...OPTIONAL_HOST_OPS] as const;

export type HostOp = (typeof HOST_OPS)[number];

/**
 * Set in the editor's environment when the kernel kills it with the bridge (`setpriv --pdeathsig`, see `spawn.ts`);
 * without it, the editor watches its parent from a thread of its own (`child.ts`).
 */
export const PDEATHSIG_ENV = "IMAGE_EDITOR_BRIDGE_PDEATHSIG";

/** Prefix of the test-only operations (`test-hooks.ts`), served only when the child's environment allows them. */
export const TEST_OP_PREFIX = "test:";

/** Whether a decoded frame looks like a message (the peer is our own code; this guards against a corrupt stream). */
export function isMessage<M extends { readonly kind: string }>(value: unknown): value is M {
  return typeof value === "object" && value !== null && typeof (value as { kind?: unknown }).kind === "string";
}

/** An error thrown in the child, for the hop. */
export function toWireError(error: unknown): WireError {
  if (isBridgeError(error)) {
    return { code: error.code, message: error.message, details: error.details, retryable: error.retryable, source: error.source };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: "INTERNAL", message, unexpected: true };
}

/**
 * The error a wire error stands for. A `BridgeError` comes back as one (same code, message, details, retryable,
 * source); anything else comes back as a plain `Error` with its message, so the wire answer is the same generic
 * `INTERNAL` an in-process editor's exception gives (host internals never leak), while logs keep the message.
 */
export function fromWireError(error: WireError): Error {
  if (error.unexpected === true) return new Error(error.message);
  return new BridgeError(error.code, error.message, {
    ...(error.details === undefined ? {} : { details: error.details }),
    ...(error.retryable === undefined ? {} : { retryable: error.retryable }),
    ...(error.source === undefined ? {} : { source: error.source }),
  });
}
