import { BridgeError } from "../../protocol/index.js";
import type { HostAdapter, ScriptLanguage } from "../host.js";
import type { GimpSession } from "./connection.js";
import { MAX_SCRIPT_BYTES } from "./limits.js";
import { lit, num, sexpToJson } from "./scheme.js";

/** Deepest nesting of `jsx:execute` params turned into Scheme (bounds recursion on hostile input). */
export const MAX_PARAMS_DEPTH = 32;

/** GIMP runs Script-Fu; named scripts are `name.scm`. */
export const GIMP_SCRIPT_LANGUAGE: ScriptLanguage = {
  names: ["script-fu"],
  extension: ".scm",
  label: "Script-Fu",
  maxBytes: MAX_SCRIPT_BYTES,
};

/**
 * JSON as a Scheme expression: strings as literals, arrays as `(list …)`, objects as association lists
 * `(list (cons "key" value) …)` (read with `assoc`), null as `'()`.
 */
export function toScheme(value: unknown, depth = 0): string {
  if (depth > MAX_PARAMS_DEPTH) throw new BridgeError("BAD_REQUEST", `Script params nest deeper than ${MAX_PARAMS_DEPTH} levels`);
  if (value === null || value === undefined) return "'()";
  if (typeof value === "string") return lit(value);
  if (typeof value === "number") return num(value);
  if (typeof value === "boolean") return value ? "#t" : "#f";
  if (Array.isArray(value)) return `(list ${value.map((v) => toScheme(v, depth + 1)).join(" ")})`;
  if (typeof value === "object") {
    const pairs = Object.entries(value as Record<string, unknown>).map(([k, v]) => `(cons ${lit(k)} ${toScheme(v, depth + 1)})`);
    return `(list ${pairs.join(" ")})`;
  }
  throw new BridgeError("BAD_REQUEST", `Script params cannot hold a ${typeof value}`);
}

/**
 * `jsx:run` and `jsx:execute`: Script-Fu evaluated in GIMP, answering its value as JSON. Params (`jsx:execute`)
 * are bound as `params`, an association list: `(cdr (assoc "key" params))`.
 */
export function scriptOps(session: GimpSession): Required<Pick<HostAdapter, "runScript">> {
  return {
    async runScript(ctx, { source, params, timeoutMs }): Promise<unknown> {
      // A newline before the closing paren keeps a trailing `;` comment from swallowing it.
      const form = params === undefined ? `(begin ${source}\n)` : `(let ((params ${toScheme(params)})) ${source}\n)`;
      return sexpToJson((await session.run(ctx, form, timeoutMs)).value);
    },
  };
}
