import type { IncomingMessage, ServerResponse } from "node:http";
import { H3, type H3Event } from "h3";
import { type AccessScope, BridgeError, isBridgeError } from "../../protocol/index.js";
import type { CallsPort, DispatchCaller } from "../../calls/port.js";
import { publishSchema, type MethodDefinition } from "../../methods/index.js";
import { publishContract } from "../../methods/contract/index.js";
import type { Limits } from "../../limits.js";
import type { PluginsPort } from "../../plugins/port.js";
import { accessOf, checkOrigin, isPublicDashboardPath, PUBLIC_HEALTH_PATHS, readScopeRefusal, type SecurityOptions } from "../security.js";
import type { BridgeViews } from "../views.js";
import { MCP_PATH, type McpHttp } from "../../mcp/http.js";
import { BATCH_PATH, runBatchRoute } from "./batch.js";
import { readJsonBody, readRouteBody } from "./body.js";
import { coerceStrings } from "./coerce.js";
import { registerDashboard } from "./dashboard.js";
import { answerResponse, errorResponse, HttpResponse, jsonResponse } from "./respond.js";
import { allowHeader, noRouteError, RouteVerbs } from "./routes.js";
import { EVENTS_PATH, EVENTS_TICKET_PATH, isEventStreamPath, requestedTypes, serveEventStream, TICKET_QUERY_KEY, type EventStreams } from "./sse.js";

/** What the HTTP app serves: the calls, the plugins' routes and views, the bridge's views, and the checks it makes itself. */
export interface HttpPorts {
  readonly calls: CallsPort;
  readonly plugins: PluginsPort;
  readonly views: BridgeViews;
  readonly limits: Limits;
  readonly security: SecurityOptions;
}

/** How long a browser may cache a CORS preflight answer, in seconds: ten minutes of no extra round trips. */
const PREFLIGHT_MAX_AGE_S = 600;

/** The Node request under an h3 event (absent when the app runs outside a Node server). */
function nodeRequestOf(event: H3Event): IncomingMessage | undefined {
  return (event.req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
}

function laneOf(event: H3Event): string {
  const socket = nodeRequestOf(event)?.socket;
  return socket ? `http:${socket.remoteAddress ?? "?"}:${socket.remotePort ?? 0}` : "http";
}

/** The query's `editor` key chooses the editor; it is never a method param. */
const EDITOR_QUERY_KEY = "editor";
/** Header naming the editor a request without a document should go to (the query's `editor` wins). */
export const EDITOR_HEADER = "x-bridge-editor";

function queryOf(event: H3Event): Record<string, string> {
  const search = new URL(event.req.url).searchParams;
  search.delete(EDITOR_QUERY_KEY);
  // fromEntries, not assignment: a `__proto__` key must stay a plain entry (the last value of a key wins).
  return Object.fromEntries(search);
}

/** The editor a request names (`?editor=` or the header), checked; undefined lets the call find its editor. */
function editorOf(ports: HttpPorts, event: H3Event): string | undefined {
  const named = new URL(event.req.url).searchParams.get(EDITOR_QUERY_KEY) ?? event.req.headers.get(EDITOR_HEADER) ?? undefined;
  if (named === undefined) return undefined;
  const refusal = ports.calls.checkEditor(named);
  if (refusal !== null) throw refusal;
  return named;
}

/** A GET or HEAD of `/health` or `/ready` while the operator opened them (`--public-health`). */
function publicProbe(ports: HttpPorts, event: H3Event): boolean {
  if (ports.security.publicHealth !== true || (event.req.method !== "GET" && event.req.method !== "HEAD")) return false;
  return PUBLIC_HEALTH_PATHS.includes(new URL(event.req.url).pathname);
}

/** A GET or HEAD of one of the dashboard's static files, which carry no data and need no token. */
function publicStatic(event: H3Event): boolean {
  return (event.req.method === "GET" || event.req.method === "HEAD") && isPublicDashboardPath(new URL(event.req.url).pathname);
}

/**
 * An event stream's `?ticket=` stands in for the token, once: a valid ticket is read as the token presented (Origin
 * and the rest are checked as usual), an invalid one as no token. Undefined when the request carries no ticket.
 */
function ticketHeaders(event: H3Event, ports: HttpPorts, events: EventStreams | undefined): ((name: string) => string | undefined) | undefined {
  if (events === undefined || event.req.method !== "GET") return undefined;
  const url = new URL(event.req.url);
  const ticket = url.searchParams.get(TICKET_QUERY_KEY);
  if (ticket === null || !isEventStreamPath(url.pathname)) return undefined;
  // A ticket stands for the token it was issued under: one a read token fetched opens a read-scoped stream.
  const scope = events.tickets.consume(ticket);
  const token = scope === "read" ? ports.security.readToken : scope === "full" ? ports.security.token : undefined;
  return (name) => {
    if (name === "authorization") return token !== undefined && token !== "" ? `Bearer ${token}` : undefined;
    return event.req.headers.get(name) ?? undefined;
  };
}

/** Where the guard leaves the scope of the request's token on the h3 event's context. */
const SCOPE_KEY = "bridgeScope";

/** The scope the guard found for this request (`full` when it did not run: an app outside a bridge's server). */
function scopeOf(event: H3Event): AccessScope {
  return (event.context[SCOPE_KEY] as AccessScope | undefined) ?? "full";
}

/**
 * Runs before every route: the Origin, Host and token checks (and the read scope's refusal of plugin routes), the
 * CORS headers for an allowed Origin, and the preflight's answer. Leaves the token's scope for the routes.
 */
async function guard(ports: HttpPorts, event: H3Event, next: () => unknown, events?: EventStreams): Promise<unknown> {
  const header = ticketHeaders(event, ports, events) ?? ((name: string): string | undefined => event.req.headers.get(name) ?? undefined);
  const origin = header("origin");
  const preflight = event.req.method === "OPTIONS" && origin !== undefined;
  // A preflight carries no credentials: only its Origin can be judged; neither does a probe of a public health route
  // or a request for one of the dashboard's static files.
  const open = preflight || publicProbe(ports, event) || publicStatic(event);
  const access = open ? ((origin === undefined ? null : checkOrigin(origin, ports.security)) ?? "full") : accessOf(header, ports.security);
  const refusal = typeof access === "string" ? (access === "read" ? readScopeRefusal(event.req.method, new URL(event.req.url).pathname) : null) : access;
  if (refusal !== null) return errorResponse(ports.calls.toWireError(refusal, {}));
  event.context[SCOPE_KEY] = access;
  if (origin !== undefined) {
    event.res.headers.set("access-control-allow-origin", origin);
    event.res.headers.set("access-control-expose-headers", "mcp-session-id");
    event.res.headers.set("vary", "origin");
  }
  if (preflight) {
    return new HttpResponse(null, {
      status: 204,
      headers: {
        "access-control-allow-origin": origin,
        // DELETE and the MCP headers: a browser MCP client ends its session and names it (`/mcp`).
        "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
        "access-control-allow-headers": `authorization, content-type, accept, ${EDITOR_HEADER}, mcp-session-id, mcp-protocol-version, last-event-id`,
        "access-control-max-age": String(PREFLIGHT_MAX_AGE_S),
        vary: "origin",
      },
    });
  }
  return next();
}

/**
 * The HTTP mirror as an h3 app. Method routes are derived from the method table, so HTTP and WS run
 * the same validation and code; results are bare JSON, errors bare ProtocolErrors with the table's status.
 */
export function createHttpApp(ports: HttpPorts, mcp?: McpHttp, events?: EventStreams): H3 {
  const app = new H3({
    // Errors h3 raises itself (before a route runs): a malformed URL is the client's fault, anything else ours.
    onError: (error) => {
      const refusal = error.status === 400 ? new BridgeError("BAD_REQUEST", "Malformed request URL") : error;
      return errorResponse(ports.calls.toWireError(refusal, {}));
    },
  });

  app.use((event, next) => guard(ports, event, next, events));

  const routes = new RouteVerbs();
  // Every route is registered here, so a wrong verb can be told from an unknown path. A GET route answers HEAD
  // too, as HTTP asks of every GET resource; Node's response drops the body of a HEAD answer.
  const on = (verb: "GET" | "POST", path: string, handler: (event: H3Event) => Response | Promise<Response>): void => {
    for (const each of verb === "GET" ? (["GET", "HEAD"] as const) : [verb]) {
      app.on(each, path, handler);
      routes.add(each, path);
    }
  };
  const get = (path: string, handler: (event: H3Event) => Response | Promise<Response>): void => on("GET", path, handler);
  registerDashboard(get, (error) => errorResponse(ports.calls.toWireError(error, {})));
  get("/health", () => jsonResponse(ports.views.health()));
  // With the scope of the token that asked: a dashboard shows what it may do.
  get("/status", (event) => jsonResponse({ ...ports.views.status(), scope: scopeOf(event) }));
  get("/ready", () => {
    const readiness = ports.views.readiness();
    return jsonResponse(readiness, readiness.status === "down" ? 503 : 200);
  });
  get("/plugins", () => jsonResponse(ports.plugins.list()));
  get("/plugins/:id/health", (event) => {
    try {
      return jsonResponse(ports.plugins.health(event.context.params?.["id"] ?? ""));
    } catch (error) {
      return errorResponse(ports.calls.toWireError(error, {}));
    }
  });
  let schema: string | undefined;
  get("/schema", () => {
    schema ??= JSON.stringify(publishSchema(ports.calls.table.values()));
    return new HttpResponse(schema, { headers: { "content-type": "application/json; charset=utf-8" } });
  });
  // The contract describes the API and holds no instance data beyond plugin ids: the same access rules as `/schema`.
  const contract = publishContract(() => ({ methods: [...ports.calls.table.values()], server: ports.views.server, plugins: ports.plugins.contracts() }));
  const jsonText = (body: string): Response => new HttpResponse(body, { headers: { "content-type": "application/json; charset=utf-8" } });
  get("/openapi.json", () => jsonText(contract.openapi()));
  get("/asyncapi.json", (event) => jsonText(contract.asyncapi(event.req.headers.get("host") ?? undefined)));
  get("/docs", () => new HttpResponse(contract.html(), { headers: { "content-type": "text/html; charset=utf-8" } }));
  get("/metrics", async () => new HttpResponse(await ports.views.metrics(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } }));

  for (const method of ports.calls.table.values()) {
    if (method.http === undefined) continue;
    on(method.http.verb, method.http.path, (event) => runMethod(ports, method, event));
  }

  on("POST", BATCH_PATH, (event) => runBatchRoute(ports, event, () => ({ lane: laneOf(event), client: null, endpoint: "root", editorId: editorOf(ports, event), scope: scopeOf(event) })));
  if (events !== undefined) {
    on("POST", EVENTS_TICKET_PATH, (event) => jsonResponse(events.tickets.issue(scopeOf(event))));
    get(EVENTS_PATH, (event) => runEventStream(ports, events, "root", event));
    // Reserved under every plugin's prefix: a plugin's own events, with the same rules as the root stream.
    get("/plugins/:id/events", (event) => runEventStream(ports, events, event.context.params?.["id"] ?? "", event));
  }
  app.all("/plugins/:id/**", (event) => runPluginRoute(ports, event));
  // MCP's Streamable HTTP endpoint: behind the same guard as every route (MCP asks servers to check Origin).
  if (mcp !== undefined) {
    for (const verb of ["GET", "POST", "DELETE"] as const) {
      routes.add(verb, MCP_PATH);
      app.on(verb, MCP_PATH, async (event) => {
        try {
          const body = verb === "POST" ? await readRouteBody(event.req, ports.limits.maxHttpBodyBytes, ports.limits) : undefined;
          return await mcp.handle(event.req, body, nodeRequestOf(event), scopeOf(event));
        } catch (error) {
          return errorResponse(ports.calls.toWireError(error, {}));
        }
      });
    }
  }

  // No handler took the request: a known path asked with another verb is 405 with `Allow`, anything else 404.
  app.all("/**", (event) => {
    const path = new URL(event.req.url).pathname;
    const error = noRouteError(event.req.method, path, routes.verbsFor(path));
    return errorResponse(ports.calls.toWireError(error, {}), allowHeader(error));
  });
  return app;
}

async function runMethod(ports: HttpPorts, method: MethodDefinition, event: H3Event): Promise<Response> {
  const binding = method.http!;
  let call: Parameters<CallsPort["answer"]>[0];
  try {
    const pathParams = coerceStrings(method, (event.context.params ?? {}) as Record<string, string>);
    let params: Record<string, unknown>;
    if (binding.verb === "GET") {
      params = { ...coerceStrings(method, queryOf(event)), ...pathParams };
    } else {
      const limit = binding.body === "import" ? ports.limits.maxImportBodyBytes : ports.limits.maxHttpBodyBytes;
      params = { ...(await readJsonBody(event.req, limit, ports.limits)), ...pathParams };
    }
    const caller: DispatchCaller = { lane: laneOf(event), client: null, endpoint: "root", editorId: editorOf(ports, event), scope: scopeOf(event) };
    call = { caller, method, params, accept: event.req.headers.get("accept"), cancel: event.req.signal };
  } catch (error) {
    return errorResponse(ports.calls.toWireError(error, { method: method.name }));
  }
  return answerResponse(await ports.calls.answer(call));
}

/** A plugin route (`/plugins/{id}/…`): the plugin host finds and runs it; this only translates HTTP. */
async function runPluginRoute(ports: HttpPorts, event: H3Event): Promise<Response> {
  try {
    const url = new URL(event.req.url);
    const id = event.context.params?.["id"] ?? "";
    let segments: string[];
    try {
      segments = url.pathname.split("/").slice(3).map(decodeURIComponent);
    } catch {
      throw new BridgeError("BAD_REQUEST", "Malformed request URL");
    }
    const found = ports.plugins.route(id, event.req.method, segments);
    if ("verbs" in found) throw noRouteError(event.req.method, url.pathname, found.verbs, id);
    const hasBody = event.req.method !== "GET" && event.req.method !== "HEAD" && event.req.method !== "DELETE";
    const body = hasBody ? await readRouteBody(event.req, ports.limits.maxHttpBodyBytes, ports.limits) : undefined;
    const result = await found.run({ path: `/${segments.join("/")}`, query: queryOf(event), headers: event.req.headers, body });
    if (result instanceof Response) return result;
    if (result === undefined) return new HttpResponse(null, { status: 204 });
    return jsonResponse(result);
  } catch (error) {
    return errorResponse(ports.calls.toWireError(error, {}), isBridgeError(error) ? allowHeader(error) : {});
  }
}

/** `GET /events` or `/plugins/{id}/events`: hands the Node response to the event stream until it ends. */
async function runEventStream(ports: HttpPorts, events: EventStreams, endpoint: string, event: H3Event): Promise<Response> {
  try {
    const refusal = ports.plugins.endpointError(endpoint);
    if (refusal !== null) throw refusal;
    const node = (event.req as { runtime?: { node?: { req?: IncomingMessage; res?: ServerResponse } } }).runtime?.node;
    if (node?.req === undefined || node.res === undefined) throw new BridgeError("BAD_REQUEST", "Event streams need the bridge's own HTTP server");
    const url = new URL(event.req.url);
    if (event.req.method === "HEAD") {
      requestedTypes(events.events, endpoint, url);
      return new HttpResponse(null, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" } });
    }
    const lastEventId = event.req.headers.get("last-event-id") ?? url.searchParams.get("lastEventId") ?? undefined;
    const request = { endpoint, editorId: editorOf(ports, event), url, lastEventId, headers: event.res.headers };
    await serveEventStream(events, request, node.req, node.res);
    // The stream wrote and ended its own answer; this one is never sent.
    return new HttpResponse(null, { status: 204 });
  } catch (error) {
    return errorResponse(ports.calls.toWireError(error, {}));
  }
}
