import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The folder this project keeps its per-user caches in: `$XDG_CACHE_HOME/image-editor-bridge` (`~/.cache` without
 * `XDG_CACHE_HOME`), or undefined when there is no home to keep them in. Each cache takes a folder of its own
 * under it (GIMP's start files, the Python client checks' mypy cache).
 */
export function projectCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const home = env["HOME"] || homedir();
  const base = env["XDG_CACHE_HOME"] || (home ? join(home, ".cache") : undefined);
  return base === undefined ? undefined : join(base, "image-editor-bridge");
}
