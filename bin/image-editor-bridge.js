#!/usr/bin/env node
import { isClientCommand, runClientCommand } from "../dist/client/cli.js";

const argv = process.argv.slice(2);
if (isClientCommand(argv[0])) {
  // Client commands (call, subscribe, health, …) load only the client, not the bridge and its editor.
  process.exitCode = await runClientCommand(argv);
} else {
  const { main, StartupError, UsageError } = await import("../dist/cli.js");
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
