#!/usr/bin/env node
import { existsSync, readFileSync } from "node:fs";

// Each kind of command loads only what it needs: the commands that print (help, version, methods, events) read the
// catalog the build wrote, the client commands the client, and only serve and mcp the bridge and its editor
// libraries, whose imports take seconds on a busy machine.

/** The editor libraries, optional so that a client-only install (`npm install --omit=optional`) stays small. */
const EDITOR_LIBRARIES = ["sharp", "ag-psd", "@techstark/opencv-js", "quickjs-emscripten-core", "@jitl/quickjs-wasmfile-release-sync", "bidi-js", "linebreak"];

/** A client-only install cannot serve: say which library is missing and how to get it, in one line. */
async function editorLibrariesMissing(error) {
  const missing = error && error.code === "ERR_MODULE_NOT_FOUND" && EDITOR_LIBRARIES.find((name) => String(error.message).includes(`'${name}'`));
  if (!missing) throw error;
  if (argv.length === 0 || ["help", "--help", "-h"].includes(argv[0])) await clientOnlyHelp();
  process.stderr.write(
    `image-editor-bridge: cannot start: ${missing} is not installed. This install left out the editor libraries ` +
      `(optional dependencies, e.g. npm install --omit=optional): client commands work; to serve, run ` +
      `npm install --include=optional in the project that installed it\n`,
  );
  process.exit(1);
}

/** The usage of an install without the editor libraries: the client's, and why serve is missing. */
async function clientOnlyHelp() {
  const { CLIENT_USAGE } = await import("../dist/client/cli-usage.js");
  process.stdout.write(`${CLIENT_USAGE}\nThis install has the client only (serve needs the optional editor libraries).\n`);
  process.exit(0);
}

const hasEditorLibraries = () => {
  try {
    for (const name of EDITOR_LIBRARIES) import.meta.resolve(name);
    return true;
  } catch {
    return false;
  }
};

/** dist/cli/catalog.json, or undefined when the build has not written it (the full CLI then answers). */
function readCatalog() {
  try {
    return JSON.parse(readFileSync(new URL("../dist/cli/catalog.json", import.meta.url), "utf8"));
  } catch {
    return undefined;
  }
}

const argv = process.argv.slice(2);
const offline = await import("../dist/cli/offline.js");
const catalog = offline.isOfflineCommand(argv) ? readCatalog() : undefined;
const client = catalog === undefined && argv[0] !== "serve" && argv[0] !== "mcp" ? await import("../dist/client/cli.js") : undefined;
if (catalog !== undefined) {
  if ((argv.length === 0 || ["help", "--help", "-h"].includes(argv[0])) && !hasEditorLibraries()) await clientOnlyHelp();
  const { UsageError } = await import("../dist/cli/errors.js");
  try {
    process.stdout.write(offline.offlineText(argv, catalog));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`image-editor-bridge: ${error.message}\n`);
    process.exitCode = 2;
  }
} else if (client?.isClientCommand(argv[0])) {
  // Client commands (call, subscribe, health, …) load only the client, not the bridge and its editor.
  process.exitCode = await client.runClientCommand(argv);
} else {
  // The bridge as one file when the build made it (it loads in about 0.6 of the CPU time), else its modules.
  const bundled = existsSync(new URL("../dist/cli/serve-bundle.js", import.meta.url));
  const { main, StartupError, UsageError } = await import(bundled ? "../dist/cli/serve-bundle.js" : "../dist/cli/serve.js").catch(editorLibrariesMissing);
  main(argv).catch((error) => {
    if (error instanceof UsageError) {
      process.stderr.write(`image-editor-bridge: ${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof StartupError) {
      // One line, then nothing: the bridge (if any) is already closed.
      process.stderr.write(`image-editor-bridge: cannot start: ${error.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`image-editor-bridge: ${error && error.message ? error.message : error}\n`);
    process.exit(1);
  });
}
