import { renderMethod, renderMethodList, type MethodSchemas } from "../client/cli-schema.js";
import { UsageError } from "./errors.js";

/*
 * The commands that need no bridge: the usage, the version, `methods` and `events`. They read a catalog (the
 * usage text, the published method schema and the event types) rather than the modules it comes from, so the
 * command line can answer from the catalog the build writes (dist/cli/catalog.json) without loading zod, the
 * editor libraries or the bridge: `methods` answers in about the time Node takes to start.
 */

/** What the offline commands print from: made by `cliCatalog()` (src/cli/catalog.ts), or read from the build's copy. */
export interface CliCatalog {
  /** `image-editor-bridge help`. */
  usage: string;
  version: string;
  /** The built-in methods' published schema, as `GET /schema` serves it. */
  schema: MethodSchemas;
  /** Event types by who offers them, for `events`. */
  events: ReadonlyArray<readonly [source: string, types: readonly string[]]>;
}

const HELP = new Set(["help", "--help", "-h"]);
const VERSION = new Set(["version", "--version", "-v"]);

/** True when `argv` asks for one of the commands answered from the catalog alone. */
export function isOfflineCommand(argv: readonly string[]): boolean {
  const [command] = argv;
  return command === undefined || HELP.has(command) || VERSION.has(command) || command === "methods" || command === "events";
}

/** The text an offline command prints; a {@link UsageError} for a bad one. */
export function offlineText(argv: readonly string[], catalog: CliCatalog): string {
  const [command, ...rest] = argv;
  if (command === undefined || HELP.has(command)) return catalog.usage;
  if (VERSION.has(command)) return `${catalog.version}\n`;
  const option = rest.find((arg) => arg.startsWith("-"));
  if (option !== undefined) throw new UsageError(`${command} takes no options, got "${option}"`);
  if (command === "events") {
    if (rest.length > 0) throw new UsageError(`events takes no arguments, got "${rest.join(" ")}"`);
    const sections = catalog.events.map(([source, types]) => `${source}:\n${types.map((t) => `  ${t}\n`).join("")}`);
    return `${sections.join("")}Plugins add their own events on their endpoint (/ws/<id>); GET /status lists the loaded plugins.\n`;
  }
  if (command !== "methods") throw new UsageError(`Unknown command "${command}"`);
  if (rest.length > 1) throw new UsageError(`methods takes at most one method name, got "${rest.join(" ")}"`);
  if (rest[0] === undefined) {
    return `${renderMethodList(catalog.schema)}Run "image-editor-bridge methods <name>" for a method's params and result.\n`;
  }
  const text = renderMethod(catalog.schema, rest[0]);
  if (text === undefined) throw new UsageError(`No built-in method "${rest[0]}"; run "image-editor-bridge methods" for the list`);
  return text;
}
