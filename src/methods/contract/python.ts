import { createAsyncApi } from "./asyncapi.js";
import type { ContractInput } from "./catalog.js";
import { COMPONENT_SCHEMAS, type JsonSchema } from "./schemas.js";

/*
 * The Python client's typed layer (clients/python/image_editor_bridge/_generated.py), written at build time by
 * scripts/gen-python-client.mjs from the same AsyncAPI document `GET /asyncapi.json` serves: a TypedDict per
 * object schema, a typed method per built-in (async and sync), the event names as literals. A test regenerates it
 * and fails when the committed file is stale, so a method added to the table appears in Python without hand edits.
 */

/** Methods the client implements itself: `batch` and `request:cancel` have their own API, `event:*` is `on()`. */
const HAND_WRITTEN = (method: string): boolean => method === "batch" || method === "request:cancel" || method.startsWith("event:");

/** Results the client turns into a `BridgeImage` (bytes, `save(path)`) instead of a dict. */
const IMAGE_RESULT_REF = `${COMPONENT_SCHEMAS}ImageResult`;

const PYTHON_KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(
    " ",
  ),
);

/** `getInfoById` → `get_info_by_id`; a Python keyword gets a trailing underscore (`from_`). */
export function snakeCase(name: string): string {
  const snake = name
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase()
    .replace(/^_+|_+$/g, "");
  return PYTHON_KEYWORDS.has(snake) || /^\d/.test(snake) ? `${snake}_` : snake;
}

/** `layer:getInfoById` → `LayerGetInfoById`, `#ready` → `Ready`. */
function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
}

/** A Python string literal (double quotes, escapes as JSON's, which Python reads the same way). */
const pyString = (text: string): string => JSON.stringify(text);

/** Text for a docstring: no closing triple quote, backslashes kept literal. */
function docText(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/"""/g, '\\"\\"\\"').trim();
}

/** A docstring block at `indent`, wrapped at about 110 columns. */
function docstring(text: string, indent: string): string[] {
  const body = docText(text);
  if (body.length === 0) return [];
  const lines: string[] = [];
  for (const paragraph of body.split(/\n+/)) {
    let line = "";
    for (const word of paragraph.split(/\s+/)) {
      if (line.length > 0 && indent.length + line.length + word.length + 1 > 110) {
        lines.push(line);
        line = word;
      } else line = line.length === 0 ? word : `${line} ${word}`;
    }
    if (line.length > 0) lines.push(line);
    lines.push("");
  }
  lines.pop();
  if (lines.length === 1 && indent.length + lines[0]!.length + 6 <= 118) return [`${indent}"""${lines[0]}"""`];
  return [`${indent}"""${lines[0]}`, ...lines.slice(1).map((line) => (line.length === 0 ? "" : `${indent}${line}`)), `${indent}"""`];
}

interface TypedDictDef {
  readonly name: string;
  readonly description: string;
  readonly fields: ReadonlyArray<{ readonly key: string; readonly type: string; readonly required: boolean; readonly description: string }>;
}

/** Turns JSON Schema into Python type expressions, collecting the TypedDicts the objects need. */
class PythonTypes {
  readonly dicts = new Map<string, TypedDictDef>();
  private readonly components: Record<string, JsonSchema>;

  constructor(components: Record<string, JsonSchema>) {
    this.components = components;
  }

  /** Every named component as a TypedDict or alias, so `$ref`s resolve to a name. */
  componentAliases(): string[] {
    const aliases: string[] = [];
    for (const [name, schema] of Object.entries(this.components)) {
      if (isObjectWithProperties(schema)) this.typedDict(name, schema);
      else aliases.push(`${name}: TypeAlias = ${pyString(this.type(schema, name))}`);
    }
    return aliases;
  }

  /** The type expression of `schema`; objects with properties become TypedDicts named from `hint`. */
  type(schema: JsonSchema | boolean | undefined, hint: string): string {
    if (schema === undefined || schema === true || schema === false) return "Any";
    const ref = schema["$ref"];
    // The client gives every image of an answer (an image method's result, `template:render`'s variants) as a `BridgeImage`.
    if (ref === IMAGE_RESULT_REF) return "BridgeImage";
    if (typeof ref === "string") return ref.startsWith(COMPONENT_SCHEMAS) ? ref.slice(COMPONENT_SCHEMAS.length) : "Any";
    if ("const" in schema) return `Literal[${pyLiteral(schema["const"])}]`;
    if (Array.isArray(schema["enum"])) return `Literal[${(schema["enum"] as unknown[]).map(pyLiteral).join(", ")}]`;
    for (const key of ["anyOf", "oneOf"] as const) {
      const variants = schema[key];
      if (Array.isArray(variants)) return union(variants.map((variant, n) => this.type(variant as JsonSchema, `${hint}${n + 1}`)));
    }
    const allOf = schema["allOf"];
    if (Array.isArray(allOf)) return allOf.length === 1 ? this.type(allOf[0] as JsonSchema, hint) : "dict[str, Any]";
    const type = schema["type"];
    if (Array.isArray(type)) return union(type.map((t) => this.type({ ...schema, type: t }, hint)));
    switch (type) {
      case "string":
        return "str";
      case "integer":
        return "int";
      case "number":
        return "float";
      case "boolean":
        return "bool";
      case "null":
        return "None";
      case "array":
        return `list[${this.type(schema["items"] as JsonSchema | undefined, `${hint}Item`)}]`;
      case "object":
        if (isObjectWithProperties(schema)) return this.typedDict(hint, schema);
        return `dict[str, ${this.type(schema["additionalProperties"] as JsonSchema | undefined, `${hint}Value`)}]`;
      default:
        return "Any";
    }
  }

  /** Registers the TypedDict for an object schema under `name` (or under a numbered name when taken by another). */
  typedDict(name: string, schema: JsonSchema): string {
    const properties = schema["properties"] as Record<string, JsonSchema>;
    const required = new Set((schema["required"] as string[] | undefined) ?? []);
    let unique = name;
    for (let n = 2; this.dicts.has(unique); n++) unique = `${name}${n}`;
    // Reserved first: a schema that contains itself refers to this name.
    this.dicts.set(unique, { name: unique, description: "", fields: [] });
    const fields = Object.entries(properties).map(([key, property]) => ({
      key,
      type: this.type(property, `${unique}${pascalCase(key)}`),
      required: required.has(key),
      description: typeof property["description"] === "string" ? property["description"] : "",
    }));
    this.dicts.set(unique, { name: unique, description: typeof schema["description"] === "string" ? schema["description"] : "", fields });
    return unique;
  }
}

/** Whether a schema (or one of its variants) is a binary part reference, an object with a `binary` index. */
function takesBinaryPart(schema: JsonSchema): boolean {
  const variants = (schema["anyOf"] ?? schema["oneOf"] ?? [schema]) as JsonSchema[];
  return variants.some((variant) => {
    const properties = variant["properties"] as Record<string, JsonSchema> | undefined;
    return variant["type"] === "object" && properties?.["binary"]?.["type"] === "integer";
  });
}

function isObjectWithProperties(schema: JsonSchema): boolean {
  return schema["type"] === "object" && typeof schema["properties"] === "object" && schema["properties"] !== null && Object.keys(schema["properties"]).length > 0;
}

function pyLiteral(value: unknown): string {
  if (value === null) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return String(value);
  return pyString(String(value));
}

/** `A | B`, with repeats dropped, `Any` absorbing the rest and `None` last. */
function union(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes("Any")) return "Any";
  const rest = unique.filter((t) => t !== "None");
  return rest.length === unique.length ? unique.join(" | ") : [...rest, "None"].join(" | ");
}

/** Whether a key can be a class-syntax field: an identifier that is not a keyword. */
const isFieldName = (key: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && !PYTHON_KEYWORDS.has(key);

/**
 * A TypedDict as Python. Required keys go in a base class and optional ones in the class itself (`total=False`),
 * which Python 3.10 understands without `Required`. A part with a key that cannot be a field name (`from`) is
 * written in the functional form instead.
 */
function renderTypedDict(def: TypedDictDef): string[] {
  const required = def.fields.filter((field) => field.required);
  const optional = def.fields.filter((field) => !field.required);
  const fieldDocs = def.fields.filter((field) => field.description.length > 0).map((field) => `${field.key}: ${field.description}`);
  const text = [def.description, ...fieldDocs].filter((t) => t.length > 0).join("\n");
  const doc = docstring(text.length > 0 ? text : `The \`${def.name}\` object of the bridge's schema.`, "    ");
  const functional = (name: string, fields: TypedDictDef["fields"], total: boolean): string[] => [
    `${name} = TypedDict(`,
    `    ${pyString(name)},`,
    `    {${fields.map((field) => `${pyString(field.key)}: ${pyString(field.type)}`).join(", ")}},`,
    ...(total ? [] : ["    total=False,"]),
    ")",
  ];
  const lines: string[] = [];
  let base = "TypedDict";
  if (required.length > 0 && optional.length > 0) {
    base = `_${def.name}Required`;
    if (required.every((field) => isFieldName(field.key))) {
      lines.push(`class ${base}(TypedDict):`, ...required.map((field) => `    ${field.key}: ${field.type}`), "", "");
    } else lines.push(...functional(base, required, true), "", "");
  }
  const own = optional.length > 0 ? optional : required;
  const total = optional.length === 0;
  if (own.every((field) => isFieldName(field.key))) {
    lines.push(`class ${def.name}(${base}${total ? "" : ", total=False"}):`, ...doc, ...own.map((field) => `    ${field.key}: ${field.type}`));
  } else {
    lines.push(...functional(`_${def.name}Fields`, own, total), "", "", `class ${def.name}(${base === "TypedDict" ? `_${def.name}Fields` : `${base}, _${def.name}Fields`}):`, ...doc);
  }
  return lines;
}

interface MethodDef {
  readonly method: string;
  readonly group: string | undefined;
  readonly pyName: string;
  readonly description: string;
  readonly params: ReadonlyArray<{ readonly key: string; readonly arg: string; readonly type: string; readonly required: boolean; readonly nullable: boolean }>;
  readonly paramsType: string;
  readonly result: string;
}

/** One method as a Python def: keyword arguments named in snake case, sent under their wire names. */
function renderMethod(def: MethodDef, sync: boolean): string[] {
  const args = [
    ...def.params.filter((p) => p.required).map((p) => `${p.arg}: ${p.type}`),
    ...def.params
      .filter((p) => !p.required)
      .map((p) => (p.nullable ? `${p.arg}: ${p.type} | Omitted = OMITTED` : `${p.arg}: ${p.type} | None = None`)),
    "timeout: float | None = None",
    "on_progress: ProgressCallback | None = None",
  ];
  const pairs = def.params.map((p) => `(${pyString(p.key)}, ${p.arg}, ${p.nullable ? "True" : "False"})`);
  // A method named `list` shadows the builtin inside the class: signatures name it through `builtins`.
  const builtin = (type: string): string => type.replace(/\blist\[/g, "builtins.list[");
  const lines = [
    `    ${sync ? "def" : "async def"} ${def.pyName}(`,
    "        self,",
    "        *,",
    ...args.map((arg) => `        ${builtin(arg)},`),
    `    ) -> ${builtin(def.result)}:`,
  ];
  const described = def.params.length > 0 ? `\n\nWire params: \`${def.paramsType}\`.` : "";
  lines.push(...docstring(`\`${def.method}\`: ${def.description}${described}`, "        "));
  const params = pairs.length === 0 ? "{}" : `_pick(${pairs.join(", ")})`;
  lines.push(`        answer = ${sync ? "" : "await "}self._invoke_method(${pyString(def.method)}, ${params}, timeout, on_progress)`);
  lines.push(`        return cast(${pyString(def.result)}, answer)`);
  return lines;
}

/** The whole generated module. */
export function pythonClientModule(input: ContractInput): string {
  const asyncapi = createAsyncApi(input);
  const components = asyncapi.components.schemas;
  const types = new PythonTypes(components);
  const aliases = types.componentAliases();
  const messages = asyncapi.components.messages as Record<string, { name: string; summary?: string; payload: { properties: Record<string, JsonSchema> } }>;

  const methods: MethodDef[] = [];
  const paramsDicts: string[] = [];
  for (const [key, message] of Object.entries(messages)) {
    if (!key.endsWith(".request")) continue;
    const method = message.name;
    const op = pascalCase(method);
    const schema = message.payload.properties["params"] ?? {};
    const paramsType = isObjectWithProperties(schema) ? types.typedDict(`${op}Params`, schema) : types.type(schema, `${op}Params`);
    paramsDicts.push(paramsType);
    if (HAND_WRITTEN(method)) continue;
    const resultSchema = messages[key.replace(/\.request$/, ".response")]?.payload.properties["result"] ?? {};
    const result = resultSchema["$ref"] === IMAGE_RESULT_REF ? "BridgeImage" : types.type(resultSchema, `${op}Result`);
    const properties = (schema["properties"] as Record<string, JsonSchema> | undefined) ?? {};
    const required = new Set((schema["required"] as string[] | undefined) ?? []);
    const colon = method.indexOf(":");
    methods.push({
      method,
      group: colon === -1 ? undefined : method.slice(0, colon),
      pyName: snakeCase(colon === -1 ? method : method.slice(colon + 1)),
      description: message.summary ?? "",
      params: Object.entries(properties).map(([name, property]) => {
        // A param that takes a binary part (`{binary: n}`) takes bytes too: the client sends them as that part.
        const type = takesBinaryPart(property)
          ? union(["bytes", "BridgeImage", types.type(property, `${op}${pascalCase(name)}`)])
          : types.type(property, `${op}${pascalCase(name)}`);
        return { key: name, arg: snakeCase(name), type, required: required.has(name), nullable: !required.has(name) && /(^| )None$/.test(type) };
      }),
      paramsType,
      result,
    });
  }

  const events: Array<{ type: string; alias: string; description: string; data: string }> = [];
  for (const [key, message] of Object.entries(messages)) {
    if (!key.startsWith("event.")) continue;
    const alias = `${pascalCase(message.name)}EventData`;
    const data = message.payload.properties["data"] ?? {};
    // An object's TypedDict takes the alias's name itself; anything else gets an alias line.
    const named = isObjectWithProperties(data) ? types.typedDict(alias, data) : undefined;
    events.push({ type: message.name, alias: named ?? alias, description: message.summary ?? "", data: named === undefined ? types.type(data, alias) : "" });
  }

  const out: string[] = [
    "# Generated by scripts/gen-python-client.mjs from the bridge's method table (the AsyncAPI document of",
    "# GET /asyncapi.json). Do not edit: `node scripts/build.mjs` writes it again, and a test fails when it is stale.",
    '"""Typed methods, params, results and events of the bridge, generated from its published schema."""',
    "",
    "from __future__ import annotations",
    "",
    "import builtins",
    "from typing import Any, Literal, TypeAlias, TypedDict, cast",
    "",
    "from ._base import OMITTED, AsyncCaller, Omitted, ProgressCallback, SyncCaller, _pick",
    "from .image import BridgeImage",
    "",
    `SERVER_VERSION = ${pyString(input.server.version)}`,
    '"""The bridge version this module was generated from."""',
    "",
  ];
  const dictNames = new Set<string>();
  for (const def of types.dicts.values()) {
    dictNames.add(def.name);
    out.push("", ...renderTypedDict(def), "");
  }
  out.push("", ...aliases);
  out.push("", "", "# ——— events ———", "");
  out.push(`EventName = Literal[${events.map((e) => pyString(e.type)).join(", ")}]`);
  out.push('"""Every event type of the bridge (plugins add their own, which `on()` takes as any string)."""', "");
  out.push(`EVENT_TYPES: tuple[EventName, ...] = (${events.map((e) => pyString(e.type)).join(", ")})`, "");
  for (const event of events.filter((e) => e.data !== "")) {
    out.push(`${event.alias}: TypeAlias = ${pyString(event.data)}`);
    out.push(...docstring(`\`${event.type}\`: ${event.description}`, ""));
  }
  out.push("", "", "# ——— methods ———", "");
  out.push(`IMAGE_METHODS: frozenset[str] = frozenset({${methods.filter((m) => m.result === "BridgeImage").map((m) => pyString(m.method)).join(", ")}})`);
  out.push('"""Methods that answer an image: their result is a `BridgeImage`."""', "");
  out.push(`METHOD_NAMES: tuple[str, ...] = (${methods.map((m) => pyString(m.method)).join(", ")})`);
  out.push('"""The built-in methods with a typed helper."""', "");

  const groups = [...new Set(methods.map((m) => m.group).filter((g): g is string => g !== undefined))];
  for (const sync of [false, true]) {
    const prefix = sync ? "Sync" : "";
    const caller = sync ? "SyncCaller" : "AsyncCaller";
    for (const group of groups) {
      out.push("", "", `class ${prefix}${pascalCase(group)}Methods:`);
      out.push(...docstring(`The \`${group}:*\` methods${sync ? ", blocking" : ""}.`, "    "));
      out.push("", `    def __init__(self, call: ${caller}) -> None:`, "        self._invoke_method = call");
      for (const def of methods.filter((m) => m.group === group)) out.push("", ...renderMethod(def, sync));
    }
    out.push("", "", `class ${prefix}MethodGroups:`);
    out.push(...docstring(`A typed helper per built-in method: \`client.<group>.<name>(...)\`${sync ? ", blocking" : ""}.`, "    "), "");
    for (const group of groups) out.push(`    ${snakeCase(group)}: ${prefix}${pascalCase(group)}Methods`);
    out.push("", `    def __init__(self, call: ${caller}) -> None:`, "        self._invoke_method = call");
    for (const group of groups) out.push(`        self.${snakeCase(group)} = ${prefix}${pascalCase(group)}Methods(call)`);
    for (const def of methods.filter((m) => m.group === undefined)) out.push("", ...renderMethod(def, sync));
  }
  out.push("");
  return out.filter((line, n, all) => !(line === "" && all[n - 1] === "" && all[n - 2] === "")).join("\n");
}
