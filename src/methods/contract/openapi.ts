import { ERROR_RULES, type ErrorCode } from "../../protocol/index.js";
import { contractMethods, operationIdOf, type ContractInput, type ContractMethod, type PluginContract } from "./catalog.js";
import { SchemaBank, type JsonSchema } from "./schemas.js";

/** An OpenAPI 3.1 document, as plain JSON. */
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };
type Operation = Record<string, unknown>;

/** Media types image routes answer besides JSON when the `Accept` header asks for them. */
export const IMAGE_MEDIA_TYPES = ["image/png", "image/jpeg", "image/webp"] as const;

/** The error statuses of the table, each with the codes that answer it. */
function errorStatuses(): Map<number, ErrorCode[]> {
  const out = new Map<number, ErrorCode[]>();
  for (const [code, rule] of Object.entries(ERROR_RULES) as Array<[ErrorCode, { status: number }]>) {
    out.set(rule.status, [...(out.get(rule.status) ?? []), code]);
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}

/**
 * Statuses a method route may answer: every status of the error table but 405 (a route asked with a verb it does
 * not answer is not one of its operations) and 422 (script failures; scripts have no HTTP route). Methods the bridge
 * answers itself never see the editor's 409.
 */
function methodErrorStatuses(method: ContractMethod): number[] {
  return [...errorStatuses().keys()].filter((status) => status !== 405 && status !== 422 && (method.host || status !== 409));
}

/** Statuses every route may answer: the token, Host and Origin checks, and an internal failure. */
const ACCESS_STATUSES = [401, 403, 500];

const errorRef = (status: number): Record<string, string> => ({ $ref: `#/components/responses/Error${status}` });

const json = (schema: JsonSchema, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  content: { "application/json": { schema, ...extra } },
});

/** h3 route (`/layer/by-id/:layerId`) to OpenAPI path (`/layer/by-id/{layerId}`). */
export const openApiPath = (path: string): string => path.replace(/:(\w+)/g, "{$1}");

const pathParamsOf = (path: string): string[] => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

function methodOperation(bank: SchemaBank, method: ContractMethod): Operation {
  const binding = method.http!;
  const params = bank.of(method.params, "input");
  const properties = (params["properties"] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((params["required"] ?? []) as string[]);
  const inPath = pathParamsOf(binding.path);
  const parameters: unknown[] = inPath.map((name) => ({ name, in: "path", required: true, schema: properties[name] ?? { type: "string" } }));
  if (binding.verb === "GET") {
    for (const [name, schema] of Object.entries(properties)) {
      if (!inPath.includes(name)) parameters.push({ name, in: "query", required: required.has(name), schema });
    }
  }
  parameters.push({ $ref: "#/components/parameters/editorQuery" }, { $ref: "#/components/parameters/editorHeader" });
  const operation: Operation = {
    operationId: operationIdOf(method.name),
    summary: method.name,
    description: method.description,
    tags: [method.name.includes(":") ? method.name.split(":")[0]! : method.name === "batch" ? "batch" : "server"],
    "x-method": method.name,
    parameters,
  };
  const example = method.examples?.[0];
  if (binding.verb === "POST") {
    const body: JsonSchema = { ...params };
    if (inPath.length > 0) body["properties"] = Object.fromEntries(Object.entries(properties).filter(([name]) => !inPath.includes(name)));
    operation["requestBody"] = { required: required.size > 0, ...json(body, example === undefined ? {} : { example }) };
  } else if (example !== undefined) {
    operation["x-example-params"] = example;
  }
  const ok: Record<string, unknown> = { description: "The method's result, as bare JSON.", ...json(bank.of(method.result, "output")) };
  const responses: Record<string, unknown> = { "200": ok };
  if (binding.image === true) {
    ok["description"] =
      "The method's result as bare JSON; with `Accept: image/png`, `image/jpeg`, `image/webp` or `image/*`, the image's raw bytes instead (a `format` param wins over `Accept`; previews are always PNG).";
    const content = ok["content"] as Record<string, unknown>;
    for (const type of IMAGE_MEDIA_TYPES) content[type] = { schema: { type: "string", contentMediaType: type } };
    ok["headers"] = {
      "X-Image-Width": { description: "Width of the image in pixels (image answers only).", schema: { type: "integer" } },
      "X-Image-Height": { description: "Height of the image in pixels (image answers only).", schema: { type: "integer" } },
    };
    responses["204"] = { description: "An image was asked for (`Accept: image/*`) and there is none to send (no active layer)." };
  }
  for (const status of methodErrorStatuses(method)) responses[String(status)] = errorRef(status);
  operation["responses"] = responses;
  return operation;
}

function fixedOperation(operationId: string, description: string, ok: Record<string, unknown>, extra: Record<string, unknown> = {}): Operation {
  const responses: Record<string, unknown> = { "200": ok, ...extra };
  for (const status of ACCESS_STATUSES) responses[String(status)] ??= errorRef(status);
  return { operationId, summary: description.split(/[.:]/)[0], description, tags: ["bridge"], responses };
}

const text = (type: string, description: string): Record<string, unknown> => ({
  description,
  content: { [type]: { schema: { type: "string" } } },
});

/** The routes the bridge answers besides the methods: views, contract, plugins. */
function fixedPaths(bank: SchemaBank): Record<string, Record<string, Operation>> {
  const anyObject = { type: "object", additionalProperties: true };
  return {
    "/": { get: fixedOperation("getIndex", "The bridge's HTML front page, for people in a browser.", text("text/html", "The page.")) },
    "/health": { get: fixedOperation("getHealth", "Liveness for a process supervisor: a small fixed body, answered while the process lives.", { description: "Alive.", ...json(bank.ref("Health")) }) },
    "/ready": {
      get: fixedOperation(
        "getReady",
        "Readiness for a load balancer: `ok`, `degraded` (some part missing; still 200) or `down` (no editor ready, or shutting down; 503), with reasons.",
        { description: "`ok` or `degraded`.", ...json(bank.ref("Readiness")) },
        { "503": { description: "`down`.", ...json(bank.ref("Readiness")) } },
      ),
    },
    "/status": { get: fixedOperation("getStatus", "The operator's view: the readiness verdict, editors with their last error and memory use against their budget, clients by id prefix and name, plugins, files roots, and `scope`: what the token that asked may do (`full` or `read`).", { description: "The view.", ...json(anyObject) }) },
    "/metrics": { get: fixedOperation("getMetrics", "Prometheus counters and gauges of the bridge, in the text exposition format.", text("text/plain", "The metrics.")) },
    "/schema": { get: fixedOperation("getSchema", "JSON Schema of every method's params and result and of every main event.", { description: "The schemas.", ...json(anyObject) }) },
    "/openapi.json": { get: fixedOperation("getOpenApi", "The HTTP side of the contract, OpenAPI 3.1.", { description: "The document.", ...json(anyObject) }) },
    "/asyncapi.json": { get: fixedOperation("getAsyncApi", "The WebSocket side of the contract, AsyncAPI 3.0.", { description: "The document.", ...json(anyObject) }) },
    "/docs": { get: fixedOperation("getDocs", "The API reference: this contract rendered as one HTML page.", text("text/html", "The page.")) },
    "/plugins": {
      get: fixedOperation("listPlugins", "Loaded plugins, and the ones that failed with why, so a broken plugin can be diagnosed over HTTP.", {
        description: "The plugins.",
        ...json({ type: "object", properties: { plugins: { type: "array", items: bank.ref("PluginInfo") }, failed: { type: "array", items: bank.ref("PluginHealth") } }, required: ["plugins", "failed"] }),
      }),
    },
    "/events": {
      get: {
        ...fixedOperation(
          "getEvents",
          "Server-Sent Events: the bridge's events of the `type`s asked for, as `text/event-stream` (`event:` the type, `data:` its JSON, `id:` a resumable id). `Last-Event-ID` (or `lastEventId`) replays what was missed from a bounded log, or sends `event: lost` with the count. A browser `EventSource` passes a `ticket` from `POST /events/ticket` instead of the token.",
          text("text/event-stream", "The stream, open until the client leaves."),
          { "400": errorRef(400) },
        ),
        parameters: [
          { name: "type", in: "query", required: true, schema: { type: "array", items: { type: "string" } }, style: "form", explode: true, description: "An event type; repeat it for several." },
          { name: "lastEventId", in: "query", required: false, schema: { type: "string" }, description: "Resume after this id (or the `Last-Event-ID` header)." },
          { name: "ticket", in: "query", required: false, schema: { type: "string" }, description: "A single-use ticket from `POST /events/ticket`, in place of the token." },
          { name: "documentId", in: "query", required: false, schema: { type: "integer" }, description: "Only events about this document (preview events)." },
          { name: "layerId", in: "query", required: false, schema: { type: "integer" }, description: "Only events about this layer (preview events)." },
        ],
      },
    },
    "/events/ticket": {
      post: fixedOperation("createEventsTicket", "A single-use, short-lived ticket for `GET /events?ticket=…`, for an `EventSource` that cannot send the token.", {
        description: "The ticket.",
        ...json({ type: "object", properties: { ticket: { type: "string" }, expiresInMs: { type: "integer" } }, required: ["ticket"], additionalProperties: true }),
      }),
    },
    "/plugins/{id}/events": {
      get: {
        ...fixedOperation("getPluginEvents", "Server-Sent Events of one plugin's own event types, as `GET /events` streams the bridge's.", text("text/event-stream", "The stream."), { "404": errorRef(404) }),
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "string" } },
          { name: "type", in: "query", required: true, schema: { type: "array", items: { type: "string" } }, style: "form", explode: true },
        ],
      },
    },
    "/dashboard": { get: fixedOperation("getDashboard", "The dashboard: editors, clients, plugins and the open documents, live, for people in a browser.", text("text/html", "The page.")) },
    "/dashboard/assets/{path}": {
      get: {
        ...fixedOperation("getDashboardAsset", "A script, style sheet or image of the dashboard page.", { description: "The file.", content: { "*/*": { schema: { type: "string" } } } }, { "404": errorRef(404) }),
        parameters: [{ name: "path", in: "path", required: true, schema: { type: "string" } }],
      },
    },
    "/mcp": Object.fromEntries(
      (["get", "post", "delete"] as const).map((verb) => [
        verb,
        {
          ...fixedOperation(
          `${verb}Mcp`,
          `MCP's Streamable HTTP endpoint for AI agents (${verb === "post" ? "a JSON-RPC message; the answer is JSON or an event stream" : verb === "get" ? "the session's stream of server messages" : "ends the session named by `Mcp-Session-Id`"}); the bridge's methods as MCP tools. Answered unless the bridge was started with MCP off (then 404).`,
            verb === "get" ? text("text/event-stream", "The stream.") : { description: "The answer.", content: { "application/json": { schema: {} }, "text/event-stream": { schema: { type: "string" } } } },
            { "400": errorRef(400), "404": errorRef(404) },
          ),
          // Only an `initialize` POST starts a session; everything else names the one it belongs to.
          parameters: [{ name: "Mcp-Session-Id", in: "header", required: verb !== "post", schema: { type: "string" }, description: "The session, from the answer to `initialize`." }],
        },
      ]),
    ),
    "/plugins/{id}/reload": {
      post: {
        ...fixedOperation(
          "reloadPlugin",
          "Hot reload: loads and sets up the plugin's current code beside the running one, then swaps; on a failure the running code keeps serving and the health says why.",
          { description: "The plugin's health after the reload.", ...json(bank.ref("PluginHealth")) },
          { "404": errorRef(404) },
        ),
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      },
    },
    "/plugins/{id}/health": {
      get: {
        ...fixedOperation("getPluginHealth", "One plugin's health: loaded or failed, its clients, its last error and its checks.", { description: "The plugin's health.", ...json(bank.ref("PluginHealth")) }, { "404": errorRef(404) }),
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      },
    },
  };
}

/** A plugin's own routes, with generic bodies: plugins validate their routes themselves. */
function pluginPaths(plugin: PluginContract, paths: Record<string, Record<string, Operation>>): void {
  for (const route of plugin.routes ?? []) {
    const path = `/plugins/${plugin.id}${openApiPath(route.path)}`;
    const verb = route.verb.toLowerCase();
    const parameters = pathParamsOf(route.path).map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }));
    const operation: Operation = {
      operationId: operationIdOf(`plugin-${plugin.id}-${verb}-${route.path}`),
      summary: `${route.verb} ${route.path} of plugin ${plugin.id}`,
      description: route.description ?? `A route of the plugin \`${plugin.id}\`; it validates its own input.`,
      tags: [`plugin:${plugin.id}`],
      responses: { "200": { description: "The handler's answer.", content: { "application/json": { schema: {} } } }, "204": { description: "The handler answered nothing." }, default: errorRef(500) },
    };
    if (parameters.length > 0) operation["parameters"] = parameters;
    if (verb !== "get" && verb !== "delete") operation["requestBody"] = { required: false, content: { "application/json": { schema: {} } } };
    paths[path] = { ...paths[path], [verb]: operation };
  }
}

/**
 * The HTTP side of the contract as OpenAPI 3.1 (`GET /openapi.json`): every route of the method table with its
 * params (path, query or JSON body), its result and the errors it may answer, image negotiation on image routes,
 * `/batch`, the bridge's own routes and the loaded plugins' routes.
 */
export function createOpenApi(input: ContractInput): OpenApiDocument {
  const bank = new SchemaBank("draft-2020-12");
  const paths: Record<string, Record<string, Operation>> = {};
  const methods = contractMethods(input);
  for (const method of methods) {
    if (method.http === undefined) continue;
    const path = openApiPath(method.http.path);
    paths[path] = { ...paths[path], [method.http.verb.toLowerCase()]: methodOperation(bank, method) };
  }
  Object.assign(paths, fixedPaths(bank));
  for (const plugin of input.plugins ?? []) pluginPaths(plugin, paths);

  const responses: Record<string, unknown> = {};
  for (const [status, codes] of errorStatuses()) {
    responses[`Error${status}`] = {
      description: `A ProtocolError with code ${codes.map((c) => `\`${c}\``).join(", ")}.`,
      ...json(bank.ref("ProtocolError"), { example: { code: codes[0], message: "What went wrong, in a sentence.", retryable: ERROR_RULES[codes[0]!].retryable, source: ERROR_RULES[codes[0]!].source } }),
    };
  }
  const plugins = input.plugins ?? [];
  return {
    openapi: "3.1.0",
    info: {
      title: `${input.server.name} HTTP API`,
      version: input.server.version,
      description:
        `The HTTP mirror of the bridge's methods (protocol 1.1): results are bare JSON, errors a bare ProtocolError with the status of its code. ` +
        "Query and path values are coerced by the method's schema. A known route asked with another verb answers 405 `METHOD_NOT_ALLOWED` with an `Allow` header; an unknown path 404 `NOT_FOUND`. " +
        "Methods without a route (scripts, subscriptions, `request:cancel`) are WebSocket-only: see `/asyncapi.json`.",
    },
    security: [{ bearer: [] }, {}],
    tags: [
      ...["server", "document", "layer", "image", "selection", "action", "batch", "bridge"].map((name) => ({ name })),
      ...plugins.map((plugin) => ({ name: `plugin:${plugin.id}`, description: `Routes of the plugin \`${plugin.id}\`, below \`/plugins/${plugin.id}\`; its WebSocket endpoint is \`/ws/${plugin.id}\`.` })),
    ],
    paths,
    components: {
      schemas: bank.components,
      responses,
      parameters: {
        editorQuery: { name: "editor", in: "query", required: false, description: "The editor (`<kind>-<n>`) a call without a document goes to, on a bridge with several.", schema: { type: "string" } },
        editorHeader: { name: "X-Bridge-Editor", in: "header", required: false, description: "Same as the `editor` query parameter, which wins.", schema: { type: "string" } },
      },
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description:
            "The bridge's access token, `Authorization: Bearer <token>`: required when the bridge has one (always off loopback), and then on every route. A read token (`--read-token`) is accepted too; a call outside its scope (anything that changes something) answers 403 `FORBIDDEN` with `details.scope`.",
        },
      },
    },
    "x-plugins": plugins.map((plugin) => plugin.id),
  };
}
