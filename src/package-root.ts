import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The `name` in this package's package.json: how its folder is told from the folders above and below it. */
const PACKAGE_NAME = "image-editor-bridge";

/** What the package's package.json says that the bridge reads. */
export interface PackageManifest {
  readonly name: string;
  readonly version: string;
}

let found: { dir: string; manifest: PackageManifest } | undefined;

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
  return from === import.meta.url ? ownPackage().dir : climb(from).dir;
}

/** This package's name and version, from the package.json `packageRoot` found (read once, with the folder). */
export function packageManifest(): PackageManifest {
  return ownPackage().manifest;
}

/** The package this module belongs to, found on the first call and kept. */
function ownPackage(): { dir: string; manifest: PackageManifest } {
  found ??= climb(import.meta.url);
  return found;
}

function climb(from: string): { dir: string; manifest: PackageManifest } {
  const start = dirname(fileURLToPath(from));
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    const manifest = existsSync(file) ? thisPackage(file) : undefined;
    if (manifest !== undefined) return { dir, manifest };
    if (dirname(dir) === dir) throw new Error(`no package.json of ${PACKAGE_NAME} in ${start} or any folder above it`);
  }
}

/** The manifest at `file` when it is this package's. Synchronous: only the first climb reads, at startup (see `packageRoot`). */
function thisPackage(file: string): PackageManifest | undefined {
  try {
    // Synchronous, and safe: every caller in the bridge climbs from this module, once per process, as the modules load.
    const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
    return manifest.name === PACKAGE_NAME ? { name: PACKAGE_NAME, version: String(manifest.version) } : undefined;
  } catch {
    return undefined;
  }
}
