import type { HostAdapter, ScriptLanguage } from "../host.js";
import { eitherSignal } from "./_internal/signal.js";
import type { PhotoshopLimits } from "./limits.js";
import type { PhotoshopLink } from "./link.js";
import { paramsPrefix } from "./operations.js";

/** What `runScript` needs from the adapter. */
export interface ScriptDeps {
  readonly link: PhotoshopLink;
  readonly limits: PhotoshopLimits;
}

/** The scripts Photoshop runs: ExtendScript (`javascript` is accepted as a synonym, as Photoshop calls it). */
export function photoshopScriptLanguage(limits: PhotoshopLimits): ScriptLanguage {
  return { names: ["extendscript", "javascript"], extension: ".jsx", label: "ExtendScript", maxBytes: limits.maxScriptChars };
}

/**
 * `jsx:run` / `jsx:execute` in Photoshop. `params` (for `jsx:execute`) become a `params` variable, declared the way
 * the bridge's own operations receive theirs. The answer is the completion value as Photoshop's text (reference
 * B.7): ExtendScript has no JSON, so nothing is guessed.
 */
export function scriptOps({ link, limits }: ScriptDeps): Required<Pick<HostAdapter, "scriptLanguage" | "runScript">> {
  return {
    scriptLanguage: photoshopScriptLanguage(limits),

    runScript: (ctx, { source, params, timeoutMs }) =>
      link.evaluate(params === undefined ? source : `${paramsPrefix(params)}${source}`, eitherSignal(ctx.signal, AbortSignal.timeout(timeoutMs))),
  };
}
