import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { PACKAGE } from "../version.js";
import type { McpBackend, McpMethodInfo, McpProgress } from "./backend.js";
import { callTool } from "./call-tool.js";
import { PROMPTS } from "./prompts.js";
import { listResources, readResource, RESOURCE_EVENTS, RESOURCE_TEMPLATES } from "./resources.js";
import type { McpSdk } from "./sdk.js";
import { toolTable } from "./tools.js";

export interface McpServerOptions {
  /** Offer `jsx_run` and `jsx_execute` (`--mcp-allow-scripts`). @default false */
  readonly allowScripts?: boolean;
  /** Largest image content of a tool result, in bytes (`mcpMaxImageBytes`). */
  readonly maxImageBytes: number;
}

/** The JSON-RPC code MCP gives a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;
const NOT_FOUND_CODES: ReadonlySet<string> = new Set(["NOT_FOUND", "DOCUMENT_NOT_FOUND", "LAYER_NOT_FOUND"]);

/** An MCP server and the function that releases its subscriptions. */
export interface BridgeMcpServer {
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * One MCP server over a backend: tools derived from the method table, document resources with live updates, and
 * prompts. One per MCP session (each session has its own subscriptions); the backend decides where calls run.
 */
export function createMcpServer(sdk: McpSdk, backend: McpBackend, options: McpServerOptions): BridgeMcpServer {
  const { types } = sdk;
  const server = new sdk.server.Server(
    { name: PACKAGE.name, version: PACKAGE.version, title: "Image editor bridge" },
    {
      capabilities: { tools: { listChanged: false }, resources: { subscribe: true, listChanged: false }, prompts: { listChanged: false } },
      instructions:
        "Drives a running image editor (documents, layers, selections, exports). Start with document_current or document_list; " +
        "documents are also resources (image-editor-bridge://documents/{id}) with layer previews.",
    },
  );
  // Derived once per method list: deriving JSON Schemas per call would cost more than the call itself.
  let derived: { from: readonly McpMethodInfo[]; table: ReturnType<typeof toolTable> } | undefined;
  const tools = (): ReturnType<typeof toolTable> => {
    const methods = backend.methods();
    if (derived?.from !== methods) derived = { from: methods, table: toolTable(methods, { allowScripts: options.allowScripts === true }) };
    return derived.table;
  };

  /** A bridge failure outside a tool call (resources, prompts) as a JSON-RPC error carrying the bridge's error. */
  const rpcError = (error: unknown, method: string): Error => {
    const wire = backend.toWireError(error, method);
    const code = NOT_FOUND_CODES.has(wire.code) ? RESOURCE_NOT_FOUND : types.ErrorCode.InvalidParams;
    return new types.McpError(code, `${wire.code}: ${wire.message}`, { error: wire });
  };

  server.setRequestHandler(types.ListToolsRequestSchema, () => ({ tools: [...tools().values()].map(({ tool }) => tool) }));
  server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
    const entry = tools().get(request.params.name);
    if (entry === undefined) throw new types.McpError(types.ErrorCode.InvalidParams, `Unknown tool "${request.params.name}"`);
    const progressToken = request.params._meta?.progressToken;
    // Progress goes out before the result: a report sent after it would be dropped by the client.
    const sent: Array<Promise<void>> = [];
    const onProgress =
      progressToken === undefined
        ? undefined
        : (report: McpProgress): void => {
            const params = { progressToken, progress: report.progress, ...(report.total !== undefined ? { total: report.total } : {}), ...(report.message !== undefined ? { message: report.message } : {}) };
            // A notification that cannot be sent (the client left) changes nothing about the call.
            sent.push(extra.sendNotification({ method: "notifications/progress", params }).catch(() => {}));
          };
    const result = await callTool(backend, entry.method, request.params.arguments, { signal: extra.signal, onProgress, maxImageBytes: options.maxImageBytes });
    await Promise.all(sent);
    return result;
  });

  server.setRequestHandler(types.ListResourcesRequestSchema, async () => {
    try {
      return { resources: await listResources(backend) };
    } catch (error) {
      throw rpcError(error, "resources/list");
    }
  });
  server.setRequestHandler(types.ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES.map((t) => ({ ...t })) }));
  server.setRequestHandler(types.ReadResourceRequestSchema, async (request) => {
    try {
      return { contents: [await readResource(backend, request.params.uri)] };
    } catch (error) {
      throw rpcError(error, "resources/read");
    }
  });

  // Subscriptions: the editor's change events are listened to only while some resource is subscribed.
  const subscribed = new Set<string>();
  let stopListening: Array<() => void> = [];
  const changed = (): void => {
    for (const uri of subscribed) server.sendResourceUpdated({ uri }).catch(() => {});
  };
  server.setRequestHandler(types.SubscribeRequestSchema, (request) => {
    subscribed.add(request.params.uri);
    if (stopListening.length === 0) stopListening = RESOURCE_EVENTS.map((type) => backend.on(type, changed));
    return {};
  });
  server.setRequestHandler(types.UnsubscribeRequestSchema, (request) => {
    subscribed.delete(request.params.uri);
    if (subscribed.size === 0) for (const stop of stopListening.splice(0)) stop();
    return {};
  });

  server.setRequestHandler(types.ListPromptsRequestSchema, () => ({
    prompts: PROMPTS.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args.map((a) => ({ ...a })) })),
  }));
  server.setRequestHandler(types.GetPromptRequestSchema, (request) => {
    const prompt = PROMPTS.find((p) => p.name === request.params.name);
    if (prompt === undefined) throw new types.McpError(types.ErrorCode.InvalidParams, `Unknown prompt "${request.params.name}"`);
    const args = request.params.arguments ?? {};
    const missing = prompt.arguments.find((a) => a.required && !args[a.name]);
    if (missing !== undefined) throw new types.McpError(types.ErrorCode.InvalidParams, `Prompt "${prompt.name}" needs the argument "${missing.name}"`);
    return { description: prompt.description, messages: [{ role: "user" as const, content: { type: "text" as const, text: prompt.text(args) } }] };
  });

  return {
    server,
    async close() {
      for (const stop of stopListening.splice(0)) stop();
      subscribed.clear();
      await server.close();
    },
  };
}
