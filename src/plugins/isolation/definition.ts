import type { PluginDefinition } from "../api.js";

export function isDefinition(value: unknown): value is PluginDefinition {
  return typeof value === "object" && value !== null && typeof (value as { setup?: unknown }).setup === "function";
}

/** The plugin definition in an imported module: ESM default, CommonJS `module.exports`, or transpiled `exports.default`. */
export function definitionOf(mod: Record<string, unknown>): unknown {
  const first = mod["default"] ?? mod;
  if (isDefinition(first)) return first;
  const nested = (first as { default?: unknown } | null)?.default;
  return nested ?? first;
}

type Issues = ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined }>;

/** Standard Schema issues as `details.issues` entries: a dotted path and a message. */
export function issuesToDetails(issues: Issues): Array<{ path: string; message: string }> {
  return issues.map((issue) => ({
    path: (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join("."),
    message: issue.message,
  }));
}
