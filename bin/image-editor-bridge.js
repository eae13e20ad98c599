#!/usr/bin/env node
import { main, UsageError } from "../dist/cli.js";

main(process.argv.slice(2)).catch((error) => {
  if (error instanceof UsageError) {
    process.stderr.write(`image-editor-bridge: ${error.message}\nRun with --help for usage.\n`);
    process.exit(2);
  }
  process.stderr.write(`image-editor-bridge: ${error && error.message ? error.message : error}\n`);
  process.exit(1);
});
