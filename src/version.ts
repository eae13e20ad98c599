import { readFileSync } from "node:fs";

/** Name and version of this package, read once from package.json (one level above both `src/` and `dist/`). */
export const PACKAGE: { readonly name: string; readonly version: string } = (() => {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
})();
