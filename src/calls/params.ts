import { issuesOf } from "../protocol/index.js";
import type { MethodDefinition } from "../methods/index.js";
import { invalidParamsError } from "./method-hints.js";

/**
 * Per method: whether its params schema takes `{}` and answers an object with nothing in it (no defaults filled
 * in). Such a method called without params gets a new `{}` without running the schema: most calls of
 * `getServerInfo`, `document:list` and the other readers send none, and validating nothing took 3 % of the
 * bridge's CPU answering `getServerInfo` over WebSocket.
 */
const TAKES_NOTHING = new WeakMap<MethodDefinition, boolean>();

function takesNothing(method: MethodDefinition): boolean {
  let known = TAKES_NOTHING.get(method);
  if (known === undefined) {
    const parsed = method.params.safeParse({});
    known = parsed.success && isEmptyObject(parsed.data);
    TAKES_NOTHING.set(method, known);
  }
  return known;
}

/** A plain object with no own enumerable property (what `JSON.parse("{}")` gives). */
function isEmptyObject(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/**
 * A call's params, checked against `method`'s schema (absent params are `{}`).
 *
 * @throws BridgeError `BAD_REQUEST` naming the schema's issues.
 */
export function checkedParams(name: string, method: MethodDefinition, raw: unknown): unknown {
  const absent = raw === undefined || raw === null;
  if ((absent || isEmptyObject(raw)) && takesNothing(method)) return {};
  const parsed = method.params.safeParse(absent ? {} : raw);
  if (!parsed.success) throw invalidParamsError(name, issuesOf(parsed.error));
  return parsed.data;
}
