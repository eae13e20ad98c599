// Build step: writes clients/python/image_editor_bridge/_generated.py, the Python client's typed methods, params,
// results and events, from the built method table (dist), through the AsyncAPI document GET /asyncapi.json serves.
// A test regenerates it and fails when the committed file is stale. Where the Python client's sources are not there
// (a container image's build stage copies only what the bridge needs) there is nothing to write into, and nothing is.
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { pythonClientModule } from "../dist/methods/contract/index.js";
import { BUILTIN_METHODS } from "../dist/methods/index.js";
import { PACKAGE } from "../dist/version.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = join(root, "clients", "python", "image_editor_bridge");
if (existsSync(pkg)) writeFileSync(join(pkg, "_generated.py"), pythonClientModule({ methods: BUILTIN_METHODS, server: PACKAGE }));
