/** Route patterns of plugin routes: literal segments, `:name` segments and a final `**` (the rest of the path). */
export type RoutePattern = ReadonlyArray<{ literal: string } | { param: string } | { rest: true }>;

const LITERAL = /^[A-Za-z0-9._~-]+$/;
const PARAM = /^:([A-Za-z_][A-Za-z0-9_]*)$/;

/** Parses a route path such as `/stats/:layerId` or `/files/**`; throws a plain message on a bad path. */
export function parseRoutePattern(path: string): RoutePattern {
  if (!path.startsWith("/")) throw new Error(`route path "${path}" must start with "/"`);
  const parts = path === "/" ? [] : path.slice(1).split("/");
  const names = new Set<string>();
  return parts.map((part, i) => {
    if (part === "**") {
      if (i !== parts.length - 1) throw new Error(`"**" must be the last segment of "${path}"`);
      return { rest: true as const };
    }
    const param = PARAM.exec(part)?.[1];
    if (param !== undefined) {
      if (names.has(param)) throw new Error(`route path "${path}" names ":${param}" twice`);
      names.add(param);
      return { param };
    }
    if (!LITERAL.test(part)) throw new Error(`route path "${path}" has an invalid segment "${part}"`);
    return { literal: part };
  });
}

/** Canonical text of a pattern, so `/a/:x` and `/a/:y` are seen as the same route. */
export function patternKey(pattern: RoutePattern): string {
  return pattern.map((s) => ("literal" in s ? s.literal : "param" in s ? ":" : "**")).join("/");
}

/** Path params when `segments` (already split and decoded) match, else null. */
export function matchRoute(pattern: RoutePattern, segments: readonly string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const part = pattern[i]!;
    if ("rest" in part) {
      params["**"] = segments.slice(i).join("/");
      return params;
    }
    const segment = segments[i];
    if (segment === undefined || segment === "") return null;
    if ("literal" in part) {
      if (part.literal !== segment) return null;
    } else {
      params[part.param] = segment;
    }
  }
  return segments.length === pattern.length ? params : null;
}

/** A pattern as a path again: `/items/:id/**`. */
export function routePath(pattern: RoutePattern): string {
  return `/${pattern.map((s) => ("literal" in s ? s.literal : "param" in s ? `:${s.param}` : "**")).join("/")}`;
}
