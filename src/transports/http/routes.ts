import { BridgeError } from "../../protocol/index.js";

/** An h3 route path (`/layer/by-id/:layerId`) as a pattern matching one concrete path. */
function patternOf(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}$`);
}

/**
 * The verbs each fixed route answers, so a request that found no handler can be told apart: an unknown path
 * (404 `NOT_FOUND`) or a known path asked with the wrong verb (405 `METHOD_NOT_ALLOWED` with `Allow`).
 */
export class RouteVerbs {
  private readonly routes = new Map<string, { pattern: RegExp; verbs: string[] }>();

  add(verb: string, path: string): void {
    const route = this.routes.get(path);
    if (route === undefined) this.routes.set(path, { pattern: patternOf(path), verbs: [verb] });
    else if (!route.verbs.includes(verb)) route.verbs.push(verb);
  }

  /** The verbs a concrete path answers, or an empty list when no route has it. */
  verbsFor(pathname: string): string[] {
    const exact = this.routes.get(pathname);
    if (exact !== undefined) return exact.verbs;
    for (const route of this.routes.values()) if (route.pattern.test(pathname)) return route.verbs;
    return [];
  }
}

/** The error for a request no handler took: 404 for an unknown path, 405 naming the verbs of a known one. */
export function noRouteError(verb: string, path: string, verbs: readonly string[], pluginId?: string): BridgeError {
  const options = pluginId === undefined ? {} : { pluginId };
  if (verbs.length === 0) return new BridgeError("NOT_FOUND", `No route ${verb} ${path}`, { details: { path }, ...options });
  return new BridgeError("METHOD_NOT_ALLOWED", `${path} answers ${verbs.join(", ")}, not ${verb}`, {
    details: { path, allow: [...verbs] },
    ...options,
  });
}

/** The `Allow` header of a 405 answer (RFC 9110 requires it), read back from the error's details. */
export function allowHeader(error: BridgeError): Record<string, string> {
  const allow = error.details?.["allow"];
  return error.code === "METHOD_NOT_ALLOWED" && Array.isArray(allow) ? { allow: allow.join(", ") } : {};
}
