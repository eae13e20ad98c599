import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "./package-root.js";

/** Name and version of this package, read once from its package.json as the modules load (before any client). */
export const PACKAGE: { readonly name: string; readonly version: string } = (() => {
  // Synchronous: once, as this module loads, before the bridge serves anyone.
  const pkg = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
})();
