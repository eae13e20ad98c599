import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The `name` in this package's package.json: how its folder is told from the folders above and below it. */
const PACKAGE_NAME = "image-editor-bridge";

let found: string | undefined;

/**
 * This package's folder (where its package.json is), found by climbing from `from` (a module's URL) to the first
 * folder whose package.json is this package's. It holds wherever the module runs from: its TypeScript source under
 * `src/`, the compiled module under `dist/`, or a one-file bundle the build made of many modules (where a path
 * climbing a fixed number of levels from the module would land somewhere else for each module it holds).
 *
 * Synchronous on purpose: the first call, at startup (the package's version is read as the modules load), reads a
 * package.json or two; the folder is kept, so later calls (an editor process or a plugin worker started) read nothing.
 *
 * @throws Error when no folder above `from` holds this package's package.json (a broken install).
 */
export function packageRoot(from: string = import.meta.url): string {
  if (from === import.meta.url && found !== undefined) return found;
  const start = dirname(fileURLToPath(from));
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && isThisPackage(manifest)) {
      if (from === import.meta.url) found = dir;
      return dir;
    }
    if (dirname(dir) === dir) throw new Error(`no package.json of ${PACKAGE_NAME} in ${start} or any folder above it`);
  }
}

/** Synchronous: only `packageRoot`'s first climb reads, at startup (see there). */
function isThisPackage(manifest: string): boolean {
  try {
    return (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === PACKAGE_NAME;
  } catch {
    return false;
  }
}
