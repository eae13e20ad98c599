import { BridgeError } from "../../../protocol/index.js";
import type { HostCallContext } from "../../host.js";
import { createScriptApi } from "./api.js";
import type { ScriptEnv } from "./api.js";
import {
  SCRIPT_DEFAULT_TIMEOUT_MS,
  SCRIPT_MAX_OUTPUT_BYTES,
  SCRIPT_MAX_REPLY_BYTES,
  SCRIPT_MAX_SOURCE_BYTES,
  SCRIPT_MAX_TIMEOUT_MS,
  SCRIPT_MEMORY_LIMIT_BYTES,
} from "./limits.js";
import { EDITOR_API_PRELUDE } from "./prelude.js";
import { readNamedScript } from "../../_internal/named-script.js";
import { runInSandbox } from "./sandbox.js";

export type { ScriptEnv } from "./api.js";
export * from "./limits.js";
export { runInSandbox, warmUpSandbox } from "./sandbox.js";
export type { SandboxOptions, ScriptFailureKind } from "./sandbox.js";

/** The sandbox limits of the embedded editor's scripts; each defaults to the constant of the same name. */
export interface ScriptLimits {
  /** @default SCRIPT_DEFAULT_TIMEOUT_MS */
  readonly defaultTimeoutMs: number;
  /** @default SCRIPT_MAX_TIMEOUT_MS */
  readonly maxTimeoutMs: number;
  /** Heap cap, at least SCRIPT_INITIAL_MEMORY_BYTES. @default SCRIPT_MEMORY_LIMIT_BYTES */
  readonly memoryBytes: number;
  /** @default SCRIPT_MAX_OUTPUT_BYTES */
  readonly maxOutputBytes: number;
  /** @default SCRIPT_MAX_SOURCE_BYTES */
  readonly maxSourceBytes: number;
  /** @default SCRIPT_MAX_REPLY_BYTES */
  readonly maxReplyBytes: number;
}

/** The default {@link ScriptLimits}. */
export const DEFAULT_SCRIPT_LIMITS: ScriptLimits = Object.freeze({
  defaultTimeoutMs: SCRIPT_DEFAULT_TIMEOUT_MS,
  maxTimeoutMs: SCRIPT_MAX_TIMEOUT_MS,
  memoryBytes: SCRIPT_MEMORY_LIMIT_BYTES,
  maxOutputBytes: SCRIPT_MAX_OUTPUT_BYTES,
  maxSourceBytes: SCRIPT_MAX_SOURCE_BYTES,
  maxReplyBytes: SCRIPT_MAX_REPLY_BYTES,
});

/** Script languages the embedded editor runs (spec's `language` values other than these are NOT_SUPPORTED). */
export const EMBEDDED_SCRIPT_LANGUAGES: readonly string[] = ["javascript"];

/** The `runScript` / `executeScript` operations of the embedded host. */
export interface ScriptRunner {
  runScript(ctx: HostCallContext, options: { script: string; language?: string | undefined; timeoutMs?: number | undefined }): Promise<unknown>;
  executeScript(
    ctx: HostCallContext,
    options: { name: string; params: Record<string, unknown>; timeoutMs?: number | undefined },
  ): Promise<unknown>;
}

/** Clamps a requested deadline to (0, maxTimeoutMs]; absent → defaultTimeoutMs. */
export function scriptTimeout(timeoutMs: number | undefined, limits: Pick<ScriptLimits, "defaultTimeoutMs" | "maxTimeoutMs"> = DEFAULT_SCRIPT_LIMITS): number {
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs) || timeoutMs <= 0) return limits.defaultTimeoutMs;
  return Math.min(Math.floor(timeoutMs), limits.maxTimeoutMs);
}

/**
 * Scripts for the embedded editor: JavaScript in a fresh QuickJS sandbox per run with the editor API of
 * `prelude.ts` (`app`, `params`). Edits emit the live events when the run ends, whether it succeeded or not.
 *
 * @example
 * const scripts = createScriptRunner({ store, events, host, maxDocumentPixels });
 * await scripts.runScript(ctx, { script: "app.activeDocument.layers.length", timeoutMs: 5000 });
 */
export function createScriptRunner(
  env: ScriptEnv & { readonly scriptDirs: readonly string[]; readonly limits?: Partial<ScriptLimits> | undefined },
): ScriptRunner {
  const limits: ScriptLimits = { ...DEFAULT_SCRIPT_LIMITS, ...env.limits };
  async function run(ctx: HostCallContext, source: string, filename: string, params: Record<string, unknown>, timeoutMs: number | undefined): Promise<unknown> {
    if (source.length > limits.maxSourceBytes) {
      throw new BridgeError("PAYLOAD_TOO_LARGE", `Script of ${source.length} characters exceeds ${limits.maxSourceBytes}`, {
        details: { length: source.length, maxSourceBytes: limits.maxSourceBytes },
      });
    }
    const api = createScriptApi(env, ctx);
    try {
      return await runInSandbox({
        source,
        filename,
        timeoutMs: scriptTimeout(timeoutMs, limits),
        memoryBytes: limits.memoryBytes,
        maxOutputBytes: limits.maxOutputBytes,
        maxReplyBytes: limits.maxReplyBytes,
        signal: ctx.signal,
        prelude: EDITOR_API_PRELUDE,
        globals: { params },
        call: (op, args) => api.call(op, args),
        callAsync: (op, args) => api.callAsync(op, args),
      });
    } finally {
      api.flush();
    }
  }

  return {
    async runScript(ctx, { script, language, timeoutMs }) {
      if (language !== undefined && !EMBEDDED_SCRIPT_LANGUAGES.includes(language)) {
        throw new BridgeError("NOT_SUPPORTED", `The embedded editor runs JavaScript scripts, not ${language}`, {
          details: { capability: "jsx:run", language, languages: EMBEDDED_SCRIPT_LANGUAGES },
        });
      }
      return run(ctx, script, "script.js", {}, timeoutMs);
    },
    async executeScript(ctx, { name, params, timeoutMs }) {
      const named = await readNamedScript(env.scriptDirs, name, { extension: ".js", language: "JavaScript", maxBytes: limits.maxSourceBytes });
      const filename = name.endsWith(".js") ? name : `${name}.js`;
      return run(ctx, named.source, filename, params, timeoutMs);
    },
  };
}
