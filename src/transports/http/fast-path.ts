import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { statusForError } from "../../protocol/index.js";
import { Cancellation } from "../../actors/clients/requests.js";
import type { DispatchCaller } from "../../calls/dispatcher.js";
import { imageResultJson, isWireImage, LARGE_IMAGE_BYTES, type MethodDefinition } from "../../methods/index.js";
import { checkAccess, PUBLIC_HEALTH_PATHS } from "../security.js";
import type { TransportTarget } from "../target.js";
import { EDITOR_HEADER } from "./app.js";

/*
 * The plainest requests skip the router: a GET (or HEAD) of `/health` or of a method route with a fixed path and no
 * query, without an `Origin` and passing the access check. The router's request and response objects (web `Request`,
 * `Headers`, `URL`, an `AbortController` per request) cost about as much as the work itself on such requests; here
 * the same checks run on Node's own objects and the answer is the one the router gives: same status, body and
 * `content-type`. Anything else (a query, an `Origin` and its CORS headers, a refusal, an editor named, an image
 * route, a path with parameters) goes to the router, which answers it as before.
 */

const JSON_TYPE = "application/json; charset=utf-8";

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

/** Writes one JSON answer as the router's `jsonResponse` does (HEAD: Node leaves the body out). */
function answer(res: ServerResponse, status: number, body: string | Buffer): void {
  res.writeHead(status, { "content-type": JSON_TYPE, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** The request's cancellation: aborts when the client goes away before its answer, as the router's signal does. */
class ClientGone extends Cancellation {
  private watching = false;

  constructor(private readonly res: ServerResponse) {
    super();
  }

  override addEventListener(type: "abort", listener: () => void): void {
    if (!this.watching) {
      this.watching = true;
      if (this.res.destroyed) this.abort();
      else this.res.on("close", () => this.res.writableEnded || this.abort());
    }
    super.addEventListener(type, listener);
  }
}

async function runMethod(target: TransportTarget, method: MethodDefinition, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const socket = req.socket;
  const caller: DispatchCaller = { lane: `http:${socket.remoteAddress ?? "?"}:${socket.remotePort ?? 0}`, client: null, endpoint: "root", editorId: undefined };
  try {
    const result = await target.dispatcher.call(caller, method.name, {}, [], { cancel: new ClientGone(res) });
    if (isWireImage(result) && result.image.bytes.byteLength > LARGE_IMAGE_BYTES) answer(res, 200, await imageResultJson(result, "", ""));
    else answer(res, 200, JSON.stringify(result === undefined ? null : result));
  } catch (error) {
    const wire = target.dispatcher.toWireError(error, { method: method.name });
    answer(res, statusForError(wire), JSON.stringify(wire));
  }
}

/**
 * `fallback` (the router) with the plainest GET and HEAD requests answered before it: `/health` and method routes
 * with a fixed path. Give it what the connection gate hands requests to, so refusals still come first.
 */
export function withFastPath(target: TransportTarget, fallback: RequestListener): RequestListener {
  const methods = new Map<string, MethodDefinition>();
  for (const method of target.dispatcher.table.values()) {
    const http = method.http;
    if (http?.verb === "GET" && http.image !== true && !http.path.includes(":")) methods.set(http.path, method);
  }
  return (req, res) => {
    const path = req.url;
    if ((req.method !== "GET" && req.method !== "HEAD") || path === undefined || rawHeader(req, "origin") !== undefined) return fallback(req, res);
    const health = path === "/health";
    const method = health ? undefined : methods.get(path);
    if (!health && method === undefined) return fallback(req, res);
    const open = target.security.publicHealth === true && PUBLIC_HEALTH_PATHS.includes(path);
    if (!open && checkAccess((name) => rawHeader(req, name), target.security) !== null) return fallback(req, res);
    if (health) return answer(res, 200, JSON.stringify(target.health()));
    if (rawHeader(req, EDITOR_HEADER) !== undefined) return fallback(req, res);
    void runMethod(target, method!, req, res);
  };
}
