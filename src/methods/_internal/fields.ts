import { z } from "zod";

/** What a top-level param accepts besides strings, for turning query and path text into values. */
export type FieldKind = "number" | "boolean";

/** Each top-level param of a method and the non-string kinds it accepts (e.g. `layerSpec`: number). */
export type FieldKinds = ReadonlyMap<string, ReadonlySet<FieldKind>>;

interface JsonSchemaNode {
  readonly type?: string | readonly string[];
  readonly anyOf?: readonly JsonSchemaNode[];
  readonly oneOf?: readonly JsonSchemaNode[];
  readonly properties?: Readonly<Record<string, JsonSchemaNode>>;
}

function kindsOf(node: JsonSchemaNode, out: Set<FieldKind>): Set<FieldKind> {
  const types = node.type === undefined ? [] : Array.isArray(node.type) ? node.type : [node.type as string];
  for (const type of types) {
    if (type === "integer" || type === "number") out.add("number");
    if (type === "boolean") out.add("boolean");
  }
  for (const option of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) kindsOf(option, out);
  return out;
}

/**
 * The params an object schema takes and what each accepts, read through zod's public `toJSONSchema` (never its
 * internals, which change between versions). Refinements do not matter here: the schema still validates.
 */
export function fieldKinds(schema: z.ZodType): FieldKinds {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchemaNode;
  const out = new Map<string, ReadonlySet<FieldKind>>();
  for (const [name, node] of Object.entries(json.properties ?? {})) out.set(name, kindsOf(node, new Set()));
  return out;
}
