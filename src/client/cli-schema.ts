/*
 * Renders the bridge's published JSON Schema (`GET /schema`, or the same document built offline) as short
 * TypeScript-like signatures for `image-editor-bridge methods`: `{layerId: integer, getChildren?: boolean}`.
 * Plain data in, text out: no zod, so it runs wherever the client does.
 */

/** The part of the published schema this renderer reads. */
export interface MethodSchemas {
  methods: Record<string, { params: unknown; result: unknown; http?: { verb: string; path: string } | undefined }>;
}

/** Nesting shown before a schema is abbreviated to `…`; layer trees are recursive. */
const MAX_RENDER_DEPTH = 4;

/** Integer bounds zod publishes for every safe integer; they say nothing to a reader. */
const SAFE_INTEGER_BOUND = Number.MAX_SAFE_INTEGER;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);


function renderObject(schema: Json, defs: Json, depth: number): string {
  const properties = isObject(schema["properties"]) ? schema["properties"] : {};
  const required = new Set(Array.isArray(schema["required"]) ? schema["required"] : []);
  const keys = Object.keys(properties);
  if (keys.length === 0) return isObject(schema["additionalProperties"]) ? `{[key]: ${render(schema["additionalProperties"], defs, depth + 1)}}` : "{}";
  if (depth >= MAX_RENDER_DEPTH) return "{…}";
  const fields = keys.map((key) => `${key}${required.has(key) ? "" : "?"}: ${render(properties[key], defs, depth + 1)}`);
  return `{${fields.join(", ")}}`;
}

function renderNumber(schema: Json, type: string): string {
  const min = schema["minimum"];
  const max = schema["maximum"];
  const shown = (bound: unknown): bound is number => typeof bound === "number" && Math.abs(bound) !== SAFE_INTEGER_BOUND;
  if (shown(min) && shown(max)) return `${type} ${min}..${max}`;
  if (shown(min)) return `${type} ≥ ${min}`;
  if (shown(max)) return `${type} ≤ ${max}`;
  return type;
}

/** One schema as a signature; `defs` resolves `$ref`s into the document's `$defs`. */
export function render(value: unknown, defs: Json, depth = 0): string {
  if (!isObject(value)) return "unknown";
  const ref = value["$ref"];
  if (typeof ref === "string") {
    // A recursive schema (a layer's children are layers) is shown once, then abbreviated.
    const name = ref.replace(/^#\/\$defs\//, "");
    const target = defs[name];
    if (!isObject(target)) return "…";
    const { [name]: _expanded, ...rest } = defs;
    return render(target, rest, depth);
  }
  const schema = value;
  const union = schema["anyOf"] ?? schema["oneOf"];
  if (Array.isArray(union)) return union.map((part) => render(part, defs, depth)).join(" | ");
  if ("const" in schema) return JSON.stringify(schema["const"]);
  if (Array.isArray(schema["enum"])) return schema["enum"].map((v) => JSON.stringify(v)).join(" | ");
  const type = schema["type"];
  if (Array.isArray(type)) return type.join(" | ");
  switch (type) {
    case "object":
      return renderObject(schema, defs, depth);
    case "array":
      return depth >= MAX_RENDER_DEPTH ? "[…]" : `${render(schema["items"], defs, depth + 1)}[]`.replace(/^(.* \| .*)\[\]$/, "($1)[]");
    case "integer":
    case "number":
      return renderNumber(schema, type);
    case "string":
      return typeof schema["pattern"] === "string" && schema["pattern"].startsWith("^data:") ? "string (data URI)" : "string";
    case undefined:
      return "unknown";
    default:
      return String(type);
  }
}

const defsOf = (schema: unknown): Json => (isObject(schema) && isObject(schema["$defs"]) ? schema["$defs"] : {});

/** The method names, one a line, each with its HTTP route when it has one. */
export function renderMethodList(schemas: MethodSchemas): string {
  const names = Object.keys(schemas.methods);
  const width = Math.max(...names.map((n) => n.length));
  const lines = names.map((name) => {
    const http = schemas.methods[name]?.http;
    return http === undefined ? name : `${name.padEnd(width)}  ${http.verb} ${http.path}`;
  });
  return `${lines.join("\n")}\n`;
}

/** One method: its params, its result and its HTTP route; undefined when the schema has no such method. */
export function renderMethod(schemas: MethodSchemas, name: string): string | undefined {
  const method = schemas.methods[name];
  if (method === undefined) return undefined;
  const http = method.http === undefined ? "WebSocket only" : `${method.http.verb} ${method.http.path}`;
  return `${name}\n  params: ${render(method.params, defsOf(method.params))}\n  result: ${render(method.result, defsOf(method.result))}\n  http:   ${http}\n`;
}
