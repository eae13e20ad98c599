// Build step: writes dist/cli/catalog.json, what `image-editor-bridge help`, `version`, `methods` and `events` print
// from (the usage, the published method schema, the event types), so those commands answer without loading zod,
// the editor libraries or the bridge. Made by the same function the CLI falls back to when the file is missing.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cliCatalog } from "../dist/cli/usage.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
writeFileSync(join(root, "dist", "cli", "catalog.json"), JSON.stringify(cliCatalog()));
