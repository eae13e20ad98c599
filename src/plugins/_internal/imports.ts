import { existsSync } from "node:fs";
import { register } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../../package-root.js";

/** The names a plugin may import without installing them next to itself. */
const SHARED_SPECIFIERS = ["image-editor-bridge", "image-editor-bridge/plugin", "image-editor-bridge/protocol", "image-editor-bridge/client", "zod"];

let registered = false;

/**
 * Lets plugins anywhere import `image-editor-bridge/plugin` (and the bridge's `zod`) without a `node_modules` of
 * their own: registers a resolution hook, once per process, that answers those names with the bridge's own modules
 * where a plugin's own resolution fails. Runs from the built package only (the hook runs in Node's hooks thread,
 * which loads JavaScript); from TypeScript sources it looks for the build beside them.
 */
export function shareBridgeModules(): void {
  if (registered) return;
  registered = true;
  const hook = join(packageRoot(), "dist", "plugins", "_internal", "resolve-hook.js");
  if (!existsSync(hook)) return;
  const fallbacks: Record<string, string> = {};
  for (const specifier of SHARED_SPECIFIERS) {
    try {
      fallbacks[specifier] = import.meta.resolve(specifier);
    } catch {
      // Not resolvable from the bridge either (e.g. run from sources without a build): plugins resolve it themselves.
    }
  }
  register(pathToFileURL(hook), { data: { fallbacks } });
}
