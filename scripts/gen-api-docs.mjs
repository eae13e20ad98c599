// Build step: writes docs/api.md, the API reference, from the built method table (dist), so the Markdown says what
// GET /docs, /openapi.json and /asyncapi.json say. A test regenerates it and fails when the committed file is stale.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { referenceMarkdown } from "../dist/methods/contract/index.js";
import { BUILTIN_METHODS } from "../dist/methods/index.js";
import { PACKAGE } from "../dist/version.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
writeFileSync(join(root, "docs", "api.md"), referenceMarkdown({ methods: BUILTIN_METHODS, server: PACKAGE }));
