import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { DispatchCaller, HttpAnswer } from "../../calls/port.js";
import type { MethodDefinition } from "../../methods/index.js";
import type { AccessScope } from "../../protocol/index.js";
import { accessOf, PUBLIC_HEALTH_PATHS } from "../security.js";
import { EDITOR_HEADER, type HttpPorts } from "./app.js";

/*
 * The plainest requests skip the router: a GET (or HEAD) of `/health` or of a method route with a fixed path and no
 * query, without an `Origin` and passing the access check. The router's request and response objects (web `Request`,
 * `Headers`, `URL`, an `AbortController` per request) cost about as much as the work itself on such requests; here
 * the same checks run on Node's own objects and the answer is the one the router gives: same status, body and
 * `content-type`. Anything else (a query, an `Origin` and its CORS headers, a refusal, an editor named, an image
 * route, a path with parameters) goes to the router, which answers it as before.
 */

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" } as const;

/**
 * A request header's first value (`name` lower-case), read from the raw list: `req.headers` is built on first use,
 * an object of every header, which the plainest requests need not pay for. The headers read here (Host,
 * Authorization, Origin, the editor's) keep their first value in `req.headers` too; an Origin at all sends the request
 * to the router.
 */
function rawHeader(req: IncomingMessage, name: string): string | undefined {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i]!;
    if (key.length === name.length && key.toLowerCase() === name) return raw[i + 1];
  }
  return undefined;
}

/** Writes one answer as the router's `answerResponse` does (HEAD: Node leaves the body out). */
function write(res: ServerResponse, answer: HttpAnswer): void {
  const body = answer.body ?? "";
  res.writeHead(answer.status, { ...answer.headers, "content-length": typeof body === "string" ? Buffer.byteLength(body) : body.byteLength });
  res.end(body);
}

/** Aborts the call when the client goes away before its answer, as the router's signal does; watched on first need. */
function whenGone(res: ServerResponse): (abort: () => void) => void {
  return (abort) => {
    if (res.destroyed) abort();
    else res.on("close", () => res.writableEnded || abort());
  };
}

async function runMethod(ports: Pick<HttpPorts, "calls">, method: MethodDefinition, scope: AccessScope, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const socket = req.socket;
  const caller: DispatchCaller = { lane: `http:${socket.remoteAddress ?? "?"}:${socket.remotePort ?? 0}`, client: null, endpoint: "root", editorId: undefined, scope };
  write(res, await ports.calls.answer({ caller, method, params: {}, accept: null, cancel: whenGone(res) }));
}

/**
 * `fallback` (the router) with the plainest GET and HEAD requests answered before it: `/health` and method routes
 * with a fixed path. Give it what the connection gate hands requests to, so refusals still come first.
 */
export function withFastPath(ports: Pick<HttpPorts, "calls" | "views" | "security">, fallback: RequestListener): RequestListener {
  const methods = new Map<string, MethodDefinition>();
  for (const method of ports.calls.table.values()) {
    const http = method.http;
    if (http?.verb === "GET" && http.image !== true && !http.path.includes(":")) methods.set(http.path, method);
  }
  return (req, res) => {
    const path = req.url;
    if ((req.method !== "GET" && req.method !== "HEAD") || path === undefined || rawHeader(req, "origin") !== undefined) return fallback(req, res);
    const health = path === "/health";
    const method = health ? undefined : methods.get(path);
    if (!health && method === undefined) return fallback(req, res);
    const open = ports.security.publicHealth === true && PUBLIC_HEALTH_PATHS.includes(path);
    const access = open ? "full" : accessOf((name) => rawHeader(req, name), ports.security);
    if (typeof access !== "string") return fallback(req, res);
    if (health) return write(res, { status: 200, headers: JSON_HEADERS, body: JSON.stringify(ports.views.health()) });
    if (rawHeader(req, EDITOR_HEADER) !== undefined) return fallback(req, res);
    void runMethod(ports, method!, access, req, res);
  };
}
