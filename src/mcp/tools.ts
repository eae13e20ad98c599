import { z } from "zod";
import { BUILTIN_METHOD_NAMES, ProtocolErrorSchema } from "../protocol/index.js";
import type { McpMethodInfo } from "./backend.js";

/**
 * Methods that are not tools: event delivery is the MCP server's own business (resource subscriptions),
 * `server:clients` and `server:disconnectClient` are about the bridge's other clients, not the editor, `server:ping` is a
 * WebSocket client's keep-alive (MCP has its own `ping`), and webhooks make the bridge send data to URLs, which a model
 * talked into it by untrusted text must not do. Documented in docs/mcp.md.
 */
export const EXCLUDED_METHODS: readonly string[] = [
  "event:subscribe",
  "event:unsubscribe",
  "selection:change",
  "server:clients",
  "server:ping",
  "server:disconnectClient",
  ...BUILTIN_METHOD_NAMES.filter((name) => name.startsWith("webhook:")),
];

/**
 * Methods that run code in the editor: off unless the operator allows them (`--mcp-allow-scripts`), because a
 * model that reads untrusted text (a web page, a file's name) could be talked into running anything it writes.
 */
export const SCRIPT_METHODS: readonly string[] = ["jsx:run", "jsx:execute"];

/** Methods that lose or overwrite work: a client should ask before calling them. */
export const DESTRUCTIVE_METHODS: readonly string[] = [
  "document:save",
  "document:close",
  "document:export",
  "layer:delete",
  "layer:merge",
  "layer:clear",
  "document:flatten",
  "document:crop",
];

/** What a tool name may hold, as MCP clients accept it. */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The one naming rule: a method's `:` becomes `_` (`document:current` → `document_current`), a plugin's method is
 * prefixed by its plugin id and two underscores (`watermark:apply` of plugin `wm` → `wm__watermark_apply`), any
 * other character outside `[A-Za-z0-9_-]` becomes `_`, and the name is cut at 64 characters.
 */
export function toolName(method: { readonly name: string; readonly pluginId?: string | undefined }): string {
  const base = method.name.replace(/:/g, "_");
  const full = method.pluginId === undefined ? base : `${method.pluginId}__${base}`;
  return full.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

/** A title for people: `document:current` → `Document current`, a plugin's prefixed with its id. */
function titleOf(method: McpMethodInfo): string {
  const words = method.name.replace(/[:_]/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  const title = words.charAt(0).toUpperCase() + words.slice(1);
  return method.pluginId === undefined ? title : `${method.pluginId}: ${title}`;
}

type JsonObject = Record<string, unknown>;

/**
 * JSON Schema (draft-07: the dialect MCP clients' validators read by default) of a zod schema, as a client sends
 * it (`io: "input"`) or receives it.
 */
export function jsonSchemaOf(schema: z.ZodType<unknown>, io: "input" | "output"): JsonObject {
  const json = z.toJSONSchema(schema, { io, target: "draft-7", unrepresentable: "any" }) as JsonObject;
  delete json["$schema"];
  return json;
}

const ERROR_RESULT_SCHEMA: JsonObject = {
  type: "object",
  properties: { error: jsonSchemaOf(ProtocolErrorSchema, "output") },
  required: ["error"],
};

/** Whether a method answers an image (its result schema has the image result's `data` URI and size). */
export function answersImage(method: McpMethodInfo): boolean {
  const json = jsonSchemaOf(method.result, "output");
  const properties = json["properties"] as JsonObject | undefined;
  return json["type"] === "object" && properties !== undefined && "data" in properties && "width" in properties && "format" in properties;
}

/**
 * A result schema that also admits `{ error }`; the definitions a recursive schema refers to (`#/definitions/…`,
 * a layer's children) stay at the root, where the references look for them.
 */
function withErrorResult(output: JsonObject): JsonObject & { type: "object" } {
  const { definitions, ...result } = output;
  return { type: "object", ...(definitions !== undefined ? { definitions } : {}), anyOf: [result, ERROR_RESULT_SCHEMA] };
}

/** One tool as `tools/list` answers it. */
export interface McpTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonObject & { type: "object" };
  readonly outputSchema?: JsonObject & { type: "object" };
  readonly annotations: { readonly title: string; readonly readOnlyHint: boolean; readonly destructiveHint: boolean; readonly idempotentHint: boolean; readonly openWorldHint: boolean };
}

/** A method's tool, or undefined when its params are not an object (a tool's arguments always are). */
export function toolOf(method: McpMethodInfo): McpTool | undefined {
  // A plugin validates its params with its own schema, which the bridge cannot read: any object goes.
  const input = method.pluginId === undefined ? jsonSchemaOf(method.params, "input") : { type: "object" };
  if (input["type"] !== "object") return undefined;
  const output = method.pluginId !== undefined || answersImage(method) ? undefined : jsonSchemaOf(method.result, "output");
  const title = titleOf(method);
  const base = method.description ?? `The ${method.name} method${method.pluginId === undefined ? "" : ` of plugin ${method.pluginId}`}.`;
  const description = answersImage(method) ? `${base} The image comes back as image content; its size and bounds as structured content.` : base;
  return {
    name: toolName(method),
    title,
    description,
    inputSchema: input as JsonObject & { type: "object" },
    // A failed call answers `{ error }` as its structured content, so the schema admits that shape as well.
    ...(output?.["type"] === "object" ? { outputSchema: withErrorResult(output) } : {}),
    annotations: {
      title,
      readOnlyHint: !method.mutates && !DESTRUCTIVE_METHODS.includes(method.name),
      destructiveHint: DESTRUCTIVE_METHODS.includes(method.name),
      idempotentHint: !method.mutates,
      openWorldHint: false,
    },
  };
}

/**
 * Each method's tool, derived once: every MCP session builds its tool table, and deriving the JSON Schemas of some
 * seventy methods costs a tenth of a second or more; a method definition does not change once made (a reloaded
 * plugin's methods are new ones).
 */
const derivedTools = new WeakMap<McpMethodInfo, McpTool | undefined>();

function derivedToolOf(method: McpMethodInfo): McpTool | undefined {
  if (!derivedTools.has(method)) derivedTools.set(method, toolOf(method));
  return derivedTools.get(method);
}

/** The tools of a method table, with the methods they call, by tool name. */
export function toolTable(methods: readonly McpMethodInfo[], options: { readonly allowScripts: boolean }): Map<string, { tool: McpTool; method: McpMethodInfo }> {
  const table = new Map<string, { tool: McpTool; method: McpMethodInfo }>();
  for (const method of methods) {
    if (method.pluginId === undefined && EXCLUDED_METHODS.includes(method.name)) continue;
    if (!options.allowScripts && SCRIPT_METHODS.includes(method.name)) continue;
    const tool = derivedToolOf(method);
    // Two methods may not share a tool name: the first (built-ins come first) keeps it.
    if (tool === undefined || table.has(tool.name) || !TOOL_NAME.test(tool.name)) continue;
    table.set(tool.name, { tool, method });
  }
  return table;
}
