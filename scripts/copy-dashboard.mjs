// Build step: copies the dashboard's static files (HTML, CSS, images: everything in src/dashboard that is not
// TypeScript) next to its compiled JavaScript in dist/dashboard. Nothing to do before the dashboard exists.
import { cpSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const from = join(root, "src", "dashboard");
if (existsSync(from)) {
  cpSync(from, join(root, "dist", "dashboard"), { recursive: true, filter: (source) => !source.endsWith(".ts") });
}
