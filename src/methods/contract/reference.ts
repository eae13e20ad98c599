import { methodChannel, PLUGIN_CHANNEL, type AsyncApiDocument } from "./asyncapi.js";
import type { OpenApiDocument } from "./openapi.js";
import type { JsonSchema } from "./schemas.js";

/*
 * The API reference (`GET /docs` and docs/api.md): the OpenAPI and AsyncAPI documents read back and rendered as
 * one page, so the page says exactly what the documents say. Text in blocks uses two inline marks only,
 * `code` and [text](#anchor), which both renderers understand.
 */

type Block =
  | { readonly kind: "heading"; readonly level: 1 | 2 | 3; readonly text: string; readonly anchor?: string }
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "table"; readonly head: readonly string[]; readonly rows: readonly (readonly string[])[] }
  | { readonly kind: "code"; readonly text: string };

const anchorOf = (prefix: string, name: string): string => `${prefix}-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")}`;
const schemaLink = (name: string): string => `[${name}](#${anchorOf("schema", name)})`;
const code = (text: string): string => `\`${text}\``;

/** A short, readable type of a JSON Schema: `integer`, `string[]`, `"png" or "jpeg"`, a link to a named schema. */
export function typeText(schema: JsonSchema | undefined): string {
  if (schema === undefined || Object.keys(schema).length === 0) return "any";
  const ref = schema["$ref"];
  if (typeof ref === "string") return schemaLink(ref.slice(ref.lastIndexOf("/") + 1));
  if ("const" in schema) return code(JSON.stringify(schema["const"]));
  if (Array.isArray(schema["enum"])) return (schema["enum"] as unknown[]).map((v) => code(JSON.stringify(v))).join(" or ");
  const union = (schema["anyOf"] ?? schema["oneOf"]) as JsonSchema[] | undefined;
  if (Array.isArray(union)) return union.map(typeText).join(" or ");
  const type = schema["type"];
  if (Array.isArray(type)) return type.map((t) => code(String(t))).join(" or ");
  if (type === "array") {
    const items = typeText(schema["items"] as JsonSchema | undefined);
    return items.includes(" or ") ? `array of (${items})` : `array of ${items}`;
  }
  if (type === "object" && schema["properties"] === undefined && schema["additionalProperties"] !== undefined && schema["additionalProperties"] !== false) {
    return `map of ${typeText(schema["additionalProperties"] as JsonSchema)}`;
  }
  return type === undefined ? "any" : code(String(type));
}

/** Bounds and patterns of a schema, as a short note. */
function constraints(schema: JsonSchema): string {
  const notes: string[] = [];
  const bound = (key: string, label: string): void => {
    const value = schema[key];
    // The safe-integer range every integer carries says nothing to a reader.
    if (typeof value === "number" && Math.abs(value) !== Number.MAX_SAFE_INTEGER) notes.push(`${label} ${value}`);
  };
  bound("minimum", "≥");
  bound("exclusiveMinimum", ">");
  bound("maximum", "≤");
  bound("minLength", "length ≥");
  bound("maxLength", "length ≤");
  bound("minItems", "items ≥");
  bound("maxItems", "items ≤");
  if (typeof schema["pattern"] === "string") notes.push(`matches ${code(schema["pattern"])}`);
  if (typeof schema["description"] === "string") notes.push(schema["description"]);
  return notes.join("; ");
}

/** The fields of an object schema as table rows, or null when it is no object with fields. */
function fieldRows(schema: JsonSchema | undefined): string[][] | null {
  const properties = schema?.["properties"] as Record<string, JsonSchema> | undefined;
  if (properties === undefined || Object.keys(properties).length === 0) return null;
  const required = new Set((schema?.["required"] ?? []) as string[]);
  return Object.entries(properties).map(([name, field]) => [code(name), typeText(field), required.has(name) ? "yes" : "no", constraints(field)]);
}

const FIELD_HEAD = ["name", "type", "required", "notes"] as const;

/** Blocks describing a schema: its fields, or its type in a sentence. */
function schemaBlocks(label: string, schema: JsonSchema | undefined, empty: string): Block[] {
  const rows = fieldRows(schema);
  if (rows !== null) return [{ kind: "text", text: `${label}:` }, { kind: "table", head: FIELD_HEAD, rows }];
  if (schema?.["type"] === "object") return [{ kind: "text", text: empty }];
  return [{ kind: "text", text: `${label}: ${typeText(schema)}.` }];
}

interface HttpRoute {
  readonly verb: string;
  readonly path: string;
  readonly operation: Record<string, unknown>;
}

function httpRoutes(openapi: OpenApiDocument): HttpRoute[] {
  return Object.entries(openapi.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([verb, operation]) => ({ verb: verb.toUpperCase(), path, operation: operation as Record<string, unknown> })),
  );
}

/** Error statuses an operation answers (from its responses), as a line of codes. */
function statusesOf(operation: Record<string, unknown>): string {
  return Object.keys(operation["responses"] as object)
    .filter((status) => /^[45]\d\d$/.test(status))
    .map(code)
    .join(" ");
}

function methodBlocks(openapi: OpenApiDocument, asyncapi: AsyncApiDocument): Block[] {
  const routes = httpRoutes(openapi);
  const blocks: Block[] = [{ kind: "heading", level: 2, text: "Methods", anchor: "methods" }];
  const index: string[][] = [];
  const detail: Block[] = [];
  for (const operation of Object.values(asyncapi.operations)) {
    if (operation["action"] !== "receive" || operation["x-plugin"] !== undefined) continue;
    const messageRef = (operation["messages"] as Array<{ $ref: string }>)[0]!.$ref;
    const key = messageRef.slice(messageRef.lastIndexOf("/") + 1);
    const message = asyncapi.components.messages[key]!;
    if (message["contentType"] === "application/octet-stream") continue;
    const name = String(operation["title"]);
    const anchor = anchorOf("method", name);
    const payload = message["payload"] as JsonSchema;
    const params = (payload["properties"] as Record<string, JsonSchema>)["params"];
    const replyRef = ((operation["reply"] as { messages: Array<{ $ref: string }> }).messages[0]!.$ref);
    const reply = asyncapi.components.messages[replyRef.slice(replyRef.lastIndexOf("/") + 1)]!;
    const result = ((reply["payload"] as JsonSchema)["properties"] as Record<string, JsonSchema>)["result"];
    const route = routes.find((r) => r.operation["x-method"] === name);
    const http = route === undefined ? "–" : code(`${route.verb} ${route.path}`);
    index.push([`[${code(name)}](#${anchor})`, http, String(operation["summary"] ?? "")]);
    detail.push({ kind: "heading", level: 3, text: name, anchor });
    detail.push({ kind: "text", text: String(operation["summary"] ?? "") });
    const ways = [`WebSocket: a request with ${code(`"method": "${name}"`)}`];
    if (route !== undefined) {
      ways.push(`HTTP: ${code(`${route.verb} ${route.path}`)} (operation ${code(String(route.operation["operationId"]))}, params ${route.verb === "GET" ? "in the path and query" : "as a JSON body"})`);
      const ok = (route.operation["responses"] as Record<string, { content?: Record<string, unknown> }>)["200"];
      const images = Object.keys(ok?.content ?? {}).filter((type) => type.startsWith("image/"));
      if (images.length > 0) ways.push(`raw image bytes with ${code("Accept")}: ${images.map(code).join(", ")}`);
    } else {
      ways.push("no HTTP route");
    }
    detail.push({ kind: "text", text: `${ways.join("; ")}.` });
    detail.push(...schemaBlocks("Params", params, "No params."));
    detail.push(...schemaBlocks("Result", result, "Result: an object."));
    if (route !== undefined) detail.push({ kind: "text", text: `HTTP errors: ${statusesOf(route.operation)} (see [Errors](#errors)).` });
    const example = (message["examples"] as Array<{ payload: unknown }> | undefined)?.[0];
    if (example !== undefined) detail.push({ kind: "code", text: JSON.stringify(example.payload) });
  }
  blocks.push({ kind: "table", head: ["method", "HTTP", "what it does"], rows: index }, ...detail);
  return blocks;
}

function routeBlocks(openapi: OpenApiDocument): Block[] {
  const rows = httpRoutes(openapi)
    .filter((route) => route.operation["x-method"] === undefined)
    .map((route) => [code(route.verb), code(route.path), code(String(route.operation["operationId"])), String(route.operation["description"] ?? "")]);
  return [
    { kind: "heading", level: 2, text: "Other HTTP routes", anchor: "routes" },
    { kind: "text", text: String((openapi["info"] as { description: string }).description) },
    { kind: "table", head: ["verb", "path", "operation", "what it answers"], rows },
  ];
}

function eventBlocks(asyncapi: AsyncApiDocument): Block[] {
  const blocks: Block[] = [{ kind: "heading", level: 2, text: "Events", anchor: "events" }];
  for (const operation of Object.values(asyncapi.operations)) {
    if (operation["action"] !== "send" || operation["x-plugin"] !== undefined) continue;
    const messageRef = (operation["messages"] as Array<{ $ref: string }>)[0]!.$ref;
    const message = asyncapi.components.messages[messageRef.slice(messageRef.lastIndexOf("/") + 1)]!;
    if (message["contentType"] === "application/octet-stream") continue;
    const type = String(operation["title"]);
    const properties = (message["payload"] as JsonSchema)["properties"] as Record<string, JsonSchema>;
    blocks.push({ kind: "heading", level: 3, text: type, anchor: anchorOf("event", type) });
    blocks.push({ kind: "text", text: `${String(operation["summary"] ?? "")}${properties["seq"] === undefined ? " Sent without a subscription." : ""}` });
    blocks.push(...schemaBlocks("Data", properties["data"], "Data: an object."));
  }
  return blocks;
}

function errorBlocks(openapi: OpenApiDocument): Block[] {
  const responses = (openapi["components"] as { responses: Record<string, { description: string }> }).responses;
  const rows = Object.entries(responses).map(([name, response]) => [code(name.replace(/^Error/, "")), response.description.replace(/^A ProtocolError with code /, "").replace(/\.$/, "")]);
  return [
    { kind: "heading", level: 2, text: "Errors", anchor: "errors" },
    { kind: "text", text: `A failure is a ${schemaLink("ProtocolError")}: bare over HTTP with the status of its code, the ${code("error")} of a response ${code("{id, ok: false, error}")} over WebSocket.` },
    { kind: "table", head: ["HTTP status", "codes"], rows },
  ];
}

function connectionBlocks(asyncapi: AsyncApiDocument): Block[] {
  const bindings = (asyncapi.components["channelBindings"] as Record<string, { ws: { query: JsonSchema } }>)["ws"]!;
  const query = (bindings.ws.query["properties"] ?? {}) as Record<string, JsonSchema>;
  const codes = asyncapi["x-close-codes"] as Array<{ code: number; name: string; description: string }>;
  const root = asyncapi.channels[methodChannel("document:current")]!;
  const binary = asyncapi.components.messages["binaryPart"]!;
  const security = (asyncapi.components["securitySchemes"] as Record<string, { description: string }>)["bearer"]!;
  return [
    { kind: "heading", level: 2, text: "WebSocket connection", anchor: "websocket" },
    { kind: "text", text: String((asyncapi["info"] as { description: string }).description) },
    { kind: "text", text: `Endpoints: ${code(root.address)} (the built-in methods) and ${code(asyncapi.channels[PLUGIN_CHANNEL]!.address)} (a plugin's methods besides). Access: ${security.description}` },
    { kind: "table", head: ["query parameter", "what it does"], rows: Object.entries(query).map(([name, schema]) => [code(name), String(schema["description"] ?? "")]) },
    { kind: "table", head: ["close code", "name", "why"], rows: codes.map((c) => [code(String(c.code)), code(c.name), c.description]) },
    { kind: "heading", level: 3, text: "Binary messages", anchor: "binary" },
    { kind: "text", text: String(binary["description"]) },
  ];
}

/** The loaded plugins (a served page only: docs/api.md is made without plugins), with what the documents know of them. */
function pluginBlocks(openapi: OpenApiDocument, asyncapi: AsyncApiDocument): Block[] {
  const ids = (openapi["x-plugins"] ?? []) as string[];
  if (ids.length === 0) return [];
  const rows = ids.map((id) => {
    const methods = Object.values(asyncapi.operations)
      .filter((operation) => operation["x-plugin"] === id && operation["action"] === "receive")
      .map((operation) => code(String(operation["title"])));
    const routes = httpRoutes(openapi)
      .filter((route) => route.path.startsWith(`/plugins/${id}/`))
      .map((route) => code(`${route.verb} ${route.path}`));
    return [code(id), code(`/ws/${id}`), methods.join(", ") || "–", routes.join(", ") || "–"];
  });
  return [
    { kind: "heading", level: 2, text: "Plugins", anchor: "plugins" },
    { kind: "text", text: "Each loaded plugin has a WebSocket endpoint serving its own methods besides the built-ins, and may answer HTTP routes below its prefix; plugins validate their own input." },
    { kind: "table", head: ["plugin", "endpoint", "methods", "routes"], rows },
  ];
}

function schemaSection(asyncapi: AsyncApiDocument): Block[] {
  const blocks: Block[] = [{ kind: "heading", level: 2, text: "Schemas", anchor: "schemas" }];
  for (const name of Object.keys(asyncapi.components.schemas).sort()) {
    const schema = asyncapi.components.schemas[name]!;
    blocks.push({ kind: "heading", level: 3, text: name, anchor: anchorOf("schema", name) });
    blocks.push(...schemaBlocks("Fields", schema, "An object."));
  }
  return blocks;
}

function referenceBlocks(openapi: OpenApiDocument, asyncapi: AsyncApiDocument): Block[] {
  const info = openapi["info"] as { title: string; version: string };
  return [
    { kind: "heading", level: 1, text: "API reference" },
    {
      kind: "text",
      text:
        `${info.title.replace(/ HTTP API$/, "")} ${info.version}. Generated from the bridge's method table, the same one that drives dispatch and routes; a running bridge serves it as ${code("GET /docs")}, ` +
        `and the machine-readable contract as ${code("GET /openapi.json")} (OpenAPI 3.1, HTTP) and ${code("GET /asyncapi.json")} (AsyncAPI 3.0, WebSocket), plugins included.`,
    },
    { kind: "text", text: "[Methods](#methods) · [Other HTTP routes](#routes) · [Events](#events) · [Errors](#errors) · [WebSocket connection](#websocket) · [Schemas](#schemas)" },
    ...methodBlocks(openapi, asyncapi),
    ...routeBlocks(openapi),
    ...eventBlocks(asyncapi),
    ...errorBlocks(openapi),
    ...connectionBlocks(asyncapi),
    ...pluginBlocks(openapi, asyncapi),
    ...schemaSection(asyncapi),
  ];
}

const cellMd = (text: string): string => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The API reference as Markdown (docs/api.md). */
export function renderReferenceMarkdown(openapi: OpenApiDocument, asyncapi: AsyncApiDocument): string {
  const out: string[] = ["<!-- Generated by scripts/gen-api-docs.mjs from the method table: do not edit. -->", ""];
  for (const block of referenceBlocks(openapi, asyncapi)) {
    if (block.kind === "heading") {
      if (block.anchor !== undefined) out.push(`<a id="${block.anchor}"></a>`, "");
      out.push(`${"#".repeat(block.level)} ${block.text}`);
    } else if (block.kind === "text") out.push(block.text);
    else if (block.kind === "code") out.push("```json", block.text, "```");
    else {
      out.push(`| ${block.head.join(" | ")} |`, `|${block.head.map(() => "---").join("|")}|`);
      for (const row of block.rows) out.push(`| ${row.map(cellMd).join(" | ")} |`);
    }
    out.push("");
  }
  return `${out.join("\n").trimEnd()}\n`;
}

const escapeHtml = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Inline marks to HTML: `code` and [text](#anchor) (only in-page anchors are links). */
function inlineHtml(text: string): string {
  return escapeHtml(text)
    .replace(/\[([^\]]+)\]\((#[a-z0-9-]+)\)/g, '<a href="$2">$1</a>')
    .replace(/`([^`]+)`/g, "<code>$1</code>");
}

const STYLE =
  "body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}" +
  "code,pre{font:13px ui-monospace,monospace;background:#f4f4f4;border-radius:3px}code{padding:0 .2em}pre{padding:.6em;overflow-x:auto}" +
  "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}" +
  "h2{border-bottom:1px solid #ddd;margin-top:2.5em}h3{margin-top:2em}a{color:#0550ae}";

/** The API reference as one self-contained HTML page (`GET /docs`): no script, no external resource. */
export function renderReferenceHtml(openapi: OpenApiDocument, asyncapi: AsyncApiDocument): string {
  const title = escapeHtml(String((openapi["info"] as { title: string }).title).replace(/ HTTP API$/, " API reference"));
  const out: string[] = [`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>${STYLE}</style></head><body>`];
  for (const block of referenceBlocks(openapi, asyncapi)) {
    if (block.kind === "heading") {
      const id = block.anchor === undefined ? "" : ` id="${block.anchor}"`;
      out.push(`<h${block.level}${id}>${escapeHtml(block.text)}</h${block.level}>`);
    } else if (block.kind === "text") out.push(`<p>${inlineHtml(block.text)}</p>`);
    else if (block.kind === "code") out.push(`<pre><code>${escapeHtml(block.text)}</code></pre>`);
    else {
      const head = block.head.map((cell) => `<th>${inlineHtml(cell)}</th>`).join("");
      const rows = block.rows.map((row) => `<tr>${row.map((cell) => `<td>${inlineHtml(cell)}</td>`).join("")}</tr>`).join("");
      out.push(`<table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`);
    }
  }
  out.push("</body></html>");
  return out.join("\n");
}
