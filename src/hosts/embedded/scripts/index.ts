import {
  SCRIPT_MAX_OUTPUT_BYTES,
  SCRIPT_MAX_REPLY_BYTES,
  SCRIPT_MAX_SOURCE_BYTES,
  SCRIPT_MAX_TIMEOUT_MS,
  SCRIPT_MEMORY_LIMIT_BYTES,
} from "./limits.js";

export { createScriptApi, type ScriptApi } from "./api.js";
export type { ScriptEnv } from "./env.js";
export * from "./limits.js";
export { EDITOR_API_PRELUDE } from "./prelude.js";
export { runInSandbox, warmUpSandbox } from "./sandbox.js";
export type { SandboxOptions } from "./sandbox.js";
export type { ScriptFailureKind } from "./failures.js";

/** The sandbox limits of the embedded editor's scripts; each defaults to the constant of the same name. */
export interface ScriptLimits {
  /** Longer deadlines are clamped to this. @default SCRIPT_MAX_TIMEOUT_MS */
  readonly maxTimeoutMs: number;
  /** Heap cap, at least SCRIPT_INITIAL_MEMORY_BYTES. @default SCRIPT_MEMORY_LIMIT_BYTES */
  readonly memoryBytes: number;
  /** @default SCRIPT_MAX_OUTPUT_BYTES */
  readonly maxOutputBytes: number;
  /** Declared as `scriptLanguage.maxBytes`; the methods refuse larger sources. @default SCRIPT_MAX_SOURCE_BYTES */
  readonly maxSourceBytes: number;
  /** @default SCRIPT_MAX_REPLY_BYTES */
  readonly maxReplyBytes: number;
}

/** The default {@link ScriptLimits}. */
export const DEFAULT_SCRIPT_LIMITS: ScriptLimits = Object.freeze({
  maxTimeoutMs: SCRIPT_MAX_TIMEOUT_MS,
  memoryBytes: SCRIPT_MEMORY_LIMIT_BYTES,
  maxOutputBytes: SCRIPT_MAX_OUTPUT_BYTES,
  maxSourceBytes: SCRIPT_MAX_SOURCE_BYTES,
  maxReplyBytes: SCRIPT_MAX_REPLY_BYTES,
});
