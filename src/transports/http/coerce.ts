import type { MethodDefinition } from "../../methods/index.js";

const NUMERIC = /^-?\d+(\.\d+)?$/;

/**
 * Turns query-string and path text into the values a method's params take: `"12"` → 12 where
 * a number is accepted, `"true"` → true where a boolean is. Anything else is passed through for the schema to
 * judge.
 */
export function coerceStrings(method: MethodDefinition, values: Record<string, string>): Record<string, unknown> {
  // Own fields only: a query key such as `constructor` must not find a prototype's member. Built with fromEntries
  // so a `__proto__` key stays an ordinary (refused) param instead of touching the prototype.
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => {
      const kinds = method.fields.get(key);
      if (kinds === undefined) return [key, value];
      if (kinds.has("number") && NUMERIC.test(value)) return [key, Number(value)];
      if (kinds.has("boolean")) {
        if (value === "true" || value === "1" || value === "") return [key, true];
        if (value === "false" || value === "0") return [key, false];
      }
      return [key, value];
    }),
  );
}
