/*
 * A module resolution hook (Node's `module.register`), loaded in Node's hooks thread. A plugin folder lives
 * anywhere, usually without a `node_modules` of its own, yet its code imports `image-editor-bridge/plugin` and
 * `zod`. When the normal resolution of one of those names fails, this hook answers with the bridge's own copy.
 * A plugin that installed its own `zod` keeps it: the hook only steps in where resolution failed.
 */

/** Bare specifier → URL of the bridge's own module, given at registration. */
let fallbacks: Readonly<Record<string, string>> = {};

export function initialize(data: { fallbacks: Record<string, string> }): void {
  fallbacks = data.fallbacks;
}

type Resolved = { url: string; shortCircuit?: boolean; format?: string | null };
type NextResolve = (specifier: string, context: unknown) => Promise<Resolved>;

export async function resolve(specifier: string, context: unknown, next: NextResolve): Promise<Resolved> {
  try {
    return await next(specifier, context);
  } catch (error) {
    const fallback = fallbacks[specifier];
    if (fallback === undefined || (error as { code?: unknown }).code !== "ERR_MODULE_NOT_FOUND") throw error;
    return { url: fallback, shortCircuit: true };
  }
}
