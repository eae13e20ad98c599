import type { z } from "zod";

type Def = { type: string; innerType?: z.ZodType; options?: z.ZodType[]; shape?: Record<string, z.ZodType>; in?: z.ZodType };

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** Peels optional/nullable/default/pipe wrappers to find what a field really is. */
function coreOf(schema: z.ZodType): Def {
  let def = defOf(schema);
  for (let i = 0; i < 8; i++) {
    if (def.innerType !== undefined) def = defOf(def.innerType);
    else if (def.type === "pipe" && def.in !== undefined) def = defOf(def.in);
    else if (def.type === "lazy") break;
    else break;
  }
  return def;
}

const NUMERIC = /^-?\d+(\.\d+)?$/;

function accepts(def: Def, kind: "number" | "boolean"): boolean {
  if (def.type === kind) return true;
  return def.type === "union" && (def.options ?? []).some((option) => coreOf(option).type === kind);
}

function coerceValue(def: Def, value: string): unknown {
  if (accepts(def, "number") && NUMERIC.test(value)) return Number(value);
  if (accepts(def, "boolean")) {
    if (value === "true" || value === "1" || value === "") return true;
    if (value === "false" || value === "0") return false;
  }
  return value;
}

/**
 * Coerces query-string and path values by the method's params schema (DESIGN §2 "HTTP"): `"12"` → 12 where a
 * number is expected, `"true"` → true where a boolean is. Anything else is passed through for the schema to judge.
 */
export function coerceStrings(schema: z.ZodType, values: Record<string, string>): Record<string, unknown> {
  const shape = coreOf(schema).shape;
  // Own fields only: a query key such as `constructor` must not find Object.prototype's member. Built with
  // fromEntries so a `__proto__` key stays an ordinary (refused) param instead of touching the prototype.
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => {
      const field = shape !== undefined && Object.hasOwn(shape, key) ? shape[key] : undefined;
      return [key, field === undefined ? value : coerceValue(coreOf(field), value)];
    }),
  );
}
