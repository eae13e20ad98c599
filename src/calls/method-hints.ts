import { BridgeError, withoutStack } from "../protocol/index.js";

/**
 * Largest edit distance (insertions, deletions, substitutions; letter case ignored) at which an unknown method
 * name still gets a "did you mean" suggestion: three covers a typo or two and a wrong separator, while names that
 * merely share a prefix such as `layer:` stay unsuggested.
 */
export const MAX_SUGGESTION_DISTANCE = 3;

/** Names longer than this are never compared: the distance costs their product, and no method is this long. */
const MAX_COMPARED_NAME_LENGTH = 64;

/** The two rows `editDistance` works in, kept between calls: an unknown-method flood calls it for every name. */
let rowA = new Int32Array(MAX_COMPARED_NAME_LENGTH + 1);
let rowB = new Int32Array(MAX_COMPARED_NAME_LENGTH + 1);

/** Levenshtein distance, stopping early (returning `limit + 1`) once every path exceeds `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  if (rowA.length <= b.length) {
    rowA = new Int32Array(b.length + 1);
    rowB = new Int32Array(b.length + 1);
  }
  let previous = rowA;
  let current = rowB;
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let best = i;
    const letter = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cost = letter === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current[j] = value;
      if (value < best) best = value;
    }
    if (best > limit) return limit + 1;
    const swap = previous;
    previous = current;
    current = swap;
  }
  return previous[b.length]!;
}

/** The known name nearest to `name` within {@link MAX_SUGGESTION_DISTANCE}, or undefined (ties: the first). */
export function nearestName(name: string, known: Iterable<string>): string | undefined {
  if (name.length > MAX_COMPARED_NAME_LENGTH) return undefined;
  const wanted = name.toLowerCase();
  let nearest: string | undefined;
  let distance = MAX_SUGGESTION_DISTANCE + 1;
  for (const candidate of known) {
    const d = editDistance(wanted, candidate.toLowerCase(), Math.min(distance, MAX_SUGGESTION_DISTANCE));
    if (d < distance) {
      nearest = candidate;
      distance = d;
    }
  }
  return nearest;
}

/** Unknown names whose suggestion is kept; past it the kept ones are dropped and kept anew. */
const KEPT_SUGGESTIONS = 1_024;

/**
 * Suggestions for one fixed list of names, kept per unknown name: a client repeating a wrong name (or flooding
 * with one) costs one search, not one per frame. A flood of ever-new names still costs one search each.
 */
export class NameHints {
  private readonly kept = new Map<string, string | null>();

  constructor(private readonly known: readonly string[]) {}

  /** The known name nearest to `name`, as {@link nearestName} finds it. */
  nearest(name: string): string | undefined {
    const kept = this.kept.get(name);
    if (kept !== undefined) return kept ?? undefined;
    const found = nearestName(name, this.known);
    if (this.kept.size >= KEPT_SUGGESTIONS) this.kept.clear();
    this.kept.set(name, found ?? null);
    return found;
  }
}

/** The WS path of an endpoint: `/ws` for the root, `/ws/<pluginId>` for a plugin's. */
export function endpointPath(endpoint: string): string {
  return endpoint === "root" ? "/ws" : `/ws/${endpoint}`;
}

/**
 * The `UNKNOWN_METHOD` error for `name` on `endpoint`: it names the plugin endpoints that serve the method when
 * some do (`details.servedBy`), else the nearest known name (`details.suggestion`).
 */
export function unknownMethodError(name: string, endpoint: string, servedBy: readonly string[], hints: NameHints): BridgeError {
  const here = endpointPath(endpoint);
  if (servedBy.length > 0) {
    const paths = servedBy.map(endpointPath);
    return withoutStack(
      () =>
        new BridgeError("UNKNOWN_METHOD", `Method "${name}" is not served on ${here}: the plugin endpoint ${paths.join(" or ")} serves it`, {
          details: { method: name, endpoint: here, servedBy: paths },
        }),
    );
  }
  const suggestion = hints.nearest(name);
  const hint = suggestion === undefined ? "" : `; did you mean "${suggestion}"?`;
  // A client's mistake, answered by the thousand in a flood: the bridge's own stack at this point is never read.
  return withoutStack(
    () =>
      new BridgeError("UNKNOWN_METHOD", `Unknown method "${name}" on ${here}${hint}`, {
        details: { method: name, endpoint: here, ...(suggestion === undefined ? {} : { suggestion }) },
      }),
  );
}

/** One params issue, as `issuesOf` lists them. */
export interface ParamsIssue {
  readonly path: string;
  readonly message: string;
}

/** The `BAD_REQUEST` for invalid params: the first issue in the message, every issue in `details.issues`. */
export function invalidParamsError(name: string, issues: readonly ParamsIssue[]): BridgeError {
  const first = issues[0];
  const where = first === undefined ? "" : first.path === "" ? `: ${first.message}` : `: ${first.path}: ${first.message}`;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more in details.issues)` : "";
  return new BridgeError("BAD_REQUEST", `Invalid params for ${name}${where}${more}`, { details: { issues } });
}
