#!/usr/bin/env node
import { isClientCommand, runClientCommand } from "../dist/client/cli.js";

const argv = process.argv.slice(2);
if (isClientCommand(argv[0])) {
  // Client commands (call, subscribe, health, …) load only the client, not the bridge and its editor.
  process.exitCode = await runClientCommand(argv);
} else {
  const { main, UsageError } = await import("../dist/cli.js");
  main(argv).catch((error) => {
    if (error instanceof UsageError) {
      process.stderr.write(`image-editor-bridge: ${error.message}\nRun with --help for usage.\n`);
      process.exit(2);
    }
    process.stderr.write(`image-editor-bridge: ${error && error.message ? error.message : error}\n`);
    process.exit(1);
  });
}
