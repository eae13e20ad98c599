import { parseArgs } from "node:util";
import { DEFAULT_LISTEN } from "../bridge/options.js";
import { LOG_LEVELS, switched } from "./args.js";
import { UsageError } from "./errors.js";
import { parseArgsMessage } from "../client/cli-params.js";

/* The command line of `image-editor-bridge mcp`: an MCP server on stdin/stdout, driving a bridge. */

/** The options of `image-editor-bridge mcp`. */
export interface McpCommandOptions {
  /** The running bridge to drive; undefined with `embedded`. */
  url: string | undefined;
  token: string | undefined;
  /** Start a bridge in this process instead of connecting to one. */
  embedded: boolean;
  /** Files roots of the embedded bridge: the folder it was started in unless `--files-root` names others. */
  filesRoots: string[];
  allowScripts: boolean;
  logLevel: string;
}

/** The bridge `mcp` connects to when neither `--url`, `BRIDGE_URL` nor `--embedded` says otherwise. */
export const DEFAULT_MCP_URL = `http://${DEFAULT_LISTEN.host}:${DEFAULT_LISTEN.port}`;

/** `image-editor-bridge mcp [--url <url>] [--token <t>] [--embedded [--files-root <dir>]] [--mcp-allow-scripts]`. */
export function parseMcpArgs(argv: string[], env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): McpCommandOptions {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof MCP_FLAGS; args: string[] }>>;
  try {
    parsed = parseArgs({ args: argv, options: MCP_FLAGS });
  } catch (error) {
    throw new UsageError(parseArgsMessage(error, "mcp", "help"));
  }
  const { values } = parsed;
  const embedded = values.embedded === true;
  if (embedded && values.url !== undefined) throw new UsageError("mcp takes either --url (a running bridge) or --embedded (one started here), not both");
  if (!embedded && values["files-root"] !== undefined) throw new UsageError("--files-root applies to --embedded; a running bridge has its own");
  const logLevel = values["log-level"] ?? env["BRIDGE_LOG_LEVEL"] ?? "warn";
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new UsageError(`--log-level expects one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"`);
  return {
    url: embedded ? undefined : (values.url ?? (env["BRIDGE_URL"] || DEFAULT_MCP_URL)),
    token: values.token ?? (env["BRIDGE_TOKEN"] || undefined),
    embedded,
    filesRoots: values["files-root"] ?? [cwd],
    allowScripts: switched(values["mcp-allow-scripts"], env, "BRIDGE_MCP_ALLOW_SCRIPTS"),
    logLevel,
  };
}

const MCP_FLAGS = {
  url: { type: "string" },
  token: { type: "string" },
  embedded: { type: "boolean" },
  "files-root": { type: "string", multiple: true },
  "mcp-allow-scripts": { type: "boolean" },
  "log-level": { type: "string" },
} as const;
