import { createHash, timingSafeEqual } from "node:crypto";
import { isLoopbackHost } from "../loopback.js";
import { type AccessScope, BEARER_PROTOCOL_PREFIX, BridgeError } from "../protocol/index.js";

/** Who may talk to the bridge. */
export interface SecurityOptions {
  /**
   * Access token. Optional on loopback, required to listen on any other address. Accepted as
   * `Authorization: Bearer <token>` or as the WebSocket subprotocol `bearer.<token>`.
   */
  readonly token?: string | undefined;
  /**
   * Read-only access token (`--read-token`), taken as `token` is: its holder gets the `read` scope (see
   * {@link readScopeRefusal} and the dispatcher's `allowedFor`). Only beside `token`.
   */
  readonly readToken?: string | undefined;
  /**
   * Extra allowed `Origin` values (exact, e.g. `https://tool.example`), or `"*"`. Loopback origins on any port are
   * always allowed. Guards against web pages driving the editor from a visitor's browser.
   */
  readonly allowOrigins: readonly string[];
  /**
   * Extra allowed `Host` names besides loopback names and the listen address. Guards against DNS rebinding when
   * no token is set; with a token any Host is accepted, because a rebinding page cannot know the token.
   */
  readonly allowHosts: readonly string[];
  /** The address the bridge listens on; always an allowed Host. */
  readonly listenHost: string;
  /** `GET /health` and `GET /ready` answer without token or Host check (`--public-health`); Origin is still checked. */
  readonly publicHealth?: boolean | undefined;
}

/** The routes `--public-health` opens: liveness and readiness, which carry no paths, ids or secrets. */
export const PUBLIC_HEALTH_PATHS: readonly string[] = ["/health", "/ready"];

/** The dashboard's page: static HTML with no data in it (every datum comes from the API, under the token). */
export const PUBLIC_DASHBOARD_PAGES: readonly string[] = ["/", "/dashboard"];

/**
 * The dashboard's static files, always answered without the token (`GET`/`HEAD` only, Origin still checked): its
 * compiled scripts and stylesheet, and the browser SDK files they import (the client and the zod-free protocol
 * files, as published in the package). Static code only: the page asks for the token before it reads anything.
 */
export const PUBLIC_DASHBOARD_ASSET =
  /^\/dashboard\/assets\/(dashboard\/[a-z][a-z0-9-]*\.(?:js|css)|client\/(?:_internal\/)?(?!cli|node-save)[a-z][a-z0-9-]*\.js|protocol\/(?:constants|method-names|binary-frames|control-names)\.js)$/;

/** Whether a path is one of the dashboard's static files, answered without the token. */
export function isPublicDashboardPath(path: string): boolean {
  return PUBLIC_DASHBOARD_PAGES.includes(path) || PUBLIC_DASHBOARD_ASSET.test(path);
}



/** A plugin's path the read scope reaches: its health and its event stream. */
const PLUGIN_READ_PATH = /^\/plugins\/[^/]+\/(health|events)$/;

/**
 * The refusal of a request a read token may not make, or null. The bridge's own views (`/status`, `/metrics`,
 * `/health`, `/ready`, the contract, `/plugins` and each plugin's health), its event streams and their tickets are
 * all reads; method routes, `POST /batch` and `/mcp` are judged call by call (the dispatcher, the MCP session). What
 * is left is a plugin's own routes and `reload`, refused: the bridge cannot tell what a plugin's route changes.
 */
export function readScopeRefusal(verb: string, path: string): BridgeError | null {
  if (!path.startsWith("/plugins/") || ((verb === "GET" || verb === "HEAD") && PLUGIN_READ_PATH.test(path))) return null;
  return new BridgeError("FORBIDDEN", `${verb} ${path} is outside this token's read scope: a read token may not use a plugin's own routes`, {
    details: { scope: "read" satisfies AccessScope, path },
  });
}

/** Hostname of a Host header value (`a.b:80`, `[::1]:7700`). */
function hostnameOf(host: string): string {
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1);
  const colon = host.lastIndexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** Constant-time comparison of the presented token with the configured one. */
export function tokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

function presentedToken(header: (name: string) => string | undefined): string | undefined {
  const auth = header("authorization");
  if (auth !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (match) return match[1];
  }
  const protocols = header("sec-websocket-protocol");
  if (protocols !== undefined) {
    for (const p of protocols.split(",")) {
      const name = p.trim();
      if (name.startsWith(BEARER_PROTOCOL_PREFIX)) return name.slice(BEARER_PROTOCOL_PREFIX.length);
    }
  }
  return undefined;
}

/** Whether an Origin header value may use the bridge. */
export function originAllowed(origin: string, options: SecurityOptions): boolean {
  if (options.allowOrigins.includes("*") || options.allowOrigins.includes(origin)) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/**
 * Checks Host, Origin and token of an HTTP request or WS upgrade: the scope the token gives (`full` without tokens),
 * or the error to answer with.
 */
export function accessOf(header: (name: string) => string | undefined, options: SecurityOptions): AccessScope | BridgeError {
  let scope: AccessScope = "full";
  if (options.token !== undefined && options.token !== "") {
    const presented = presentedToken(header);
    if (presented === undefined) {
      return new BridgeError("UNAUTHORIZED", "An access token is required (Authorization: Bearer <token>)");
    }
    // Both compared, always: which one matched does not show in the time taken.
    const full = tokenMatches(presented, options.token);
    const read = options.readToken !== undefined && options.readToken !== "" && tokenMatches(presented, options.readToken);
    if (!full && !read) return new BridgeError("UNAUTHORIZED", "The access token is not valid");
    scope = full ? "full" : "read";
  } else {
    const host = header("host");
    if (host !== undefined) {
      const name = hostnameOf(host);
      const allowed =
        isLoopbackHost(name) ||
        name === options.listenHost ||
        name.replace(/^\[|\]$/g, "") === options.listenHost ||
        options.allowHosts.includes(name);
      if (!allowed) {
        return new BridgeError("FORBIDDEN", `Host "${name}" is not allowed`, { details: { host: name } });
      }
    }
  }
  const origin = header("origin");
  return (origin === undefined ? null : checkOrigin(origin, options)) ?? scope;
}

/** The error for an Origin that may not use the bridge, or null (also used alone for CORS preflights). */
export function checkOrigin(origin: string, options: SecurityOptions): BridgeError | null {
  if (originAllowed(origin, options)) return null;
  return new BridgeError("FORBIDDEN", `Origin "${origin}" is not allowed`, { details: { origin } });
}
