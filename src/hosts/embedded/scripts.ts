import type { HostAdapter, ScriptLanguage } from "../host.js";
import { checkpoint } from "./work.js";
import { createScriptApi, EDITOR_API_PRELUDE, runInSandbox, type ScriptEnv, type ScriptLimits } from "./scripts/index.js";

/** File name errors and line numbers of a run refer to. */
const SCRIPT_FILENAME = "script.js";

/** The scripts of the embedded editor: JavaScript, `.js` in the script folders, sources up to `maxSourceBytes`. */
export function embeddedScriptLanguage(limits: Pick<ScriptLimits, "maxSourceBytes">): ScriptLanguage {
  return { names: ["javascript"], extension: ".js", label: "JavaScript", maxBytes: limits.maxSourceBytes };
}

/**
 * The embedded editor's `runScript`: JavaScript in a fresh QuickJS sandbox per run with the editor API of
 * `scripts/prelude.ts` (`app`, `params`). Edits emit the live events when the run ends, whether it succeeded or
 * not. The methods chose the language, checked the source size and set the deadline; the deadline is clamped
 * to the editor's own `maxTimeoutMs`. A cancelled call stops the script even inside a busy loop (the sandbox's
 * interrupt checks `ctx.checkpoint`) and fails with the abort reason; progress is what the script reports.
 *
 * @example
 * const scripts = scriptOps({ store, events, host, files, maxDocumentPixels, limits: DEFAULT_SCRIPT_LIMITS });
 * await scripts.runScript(ctx, { source: "app.activeDocument.layers.length", language: "javascript", params: undefined, timeoutMs: 5000 });
 */
export function scriptOps(env: ScriptEnv & { readonly limits: ScriptLimits }): Required<Pick<HostAdapter, "runScript">> {
  const { limits } = env;
  return {
    async runScript(ctx, { source, params, timeoutMs }) {
      const api = createScriptApi(env, ctx);
      try {
        return await runInSandbox({
          source,
          filename: SCRIPT_FILENAME,
          timeoutMs: Math.min(timeoutMs, limits.maxTimeoutMs),
          memoryBytes: limits.memoryBytes,
          maxOutputBytes: limits.maxOutputBytes,
          maxReplyBytes: limits.maxReplyBytes,
          signal: ctx.signal,
          checkpoint: () => checkpoint(ctx),
          prelude: EDITOR_API_PRELUDE,
          // `jsx:execute`'s params; the prelude gives `jsx:run` scripts an empty object.
          globals: params === undefined ? {} : { params },
          call: (op, args) => api.call(op, args),
          callAsync: (op, args) => api.callAsync(op, args),
        });
      } finally {
        api.flush();
      }
    },
  };
}
