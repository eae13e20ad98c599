#!/usr/bin/env node
import { isClientCommand, runClientCommand } from "../dist/client/cli.js";
import { CLIENT_USAGE } from "../dist/client/cli-usage.js";

/** The editor libraries, optional so that a client-only install (`npm install --omit=optional`) stays small. */
const EDITOR_LIBRARIES = ["sharp", "ag-psd", "@techstark/opencv-js", "quickjs-emscripten-core", "@jitl/quickjs-wasmfile-release-sync"];

/** A client-only install cannot serve: say which library is missing and how to get it, in one line. */
function editorLibrariesMissing(error) {
  const missing = error && error.code === "ERR_MODULE_NOT_FOUND" && EDITOR_LIBRARIES.find((name) => String(error.message).includes(`'${name}'`));
  if (!missing) throw error;
  if (argv.length === 0 || ["help", "--help", "-h"].includes(argv[0])) {
    process.stdout.write(`${CLIENT_USAGE}\nThis install has the client only (serve needs the optional editor libraries).\n`);
    process.exit(0);
  }
  process.stderr.write(
    `image-editor-bridge: cannot start: ${missing} is not installed. This install left out the editor libraries ` +
      `(optional dependencies, e.g. npm install --omit=optional): client commands work; to serve, run ` +
      `npm install --include=optional image-editor-bridge\n`,
  );
  process.exit(1);
}

const argv = process.argv.slice(2);
if (isClientCommand(argv[0])) {
  // Client commands (call, subscribe, health, …) load only the client, not the bridge and its editor.
  process.exitCode = await runClientCommand(argv);
} else {
  const { main, StartupError, UsageError } = await import("../dist/cli/serve.js").catch(editorLibrariesMissing);
  main(argv).catch((error) => {
    if (error instanceof UsageError) {
      process.stderr.write(`image-editor-bridge: ${error.message}\nRun with --help for usage.\n`);
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
