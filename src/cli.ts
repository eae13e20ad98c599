import { parseArgs } from "node:util";
import { createBridge, DEFAULT_LISTEN, type Bridge } from "./bridge.js";
import { createLogger } from "./logger.js";
import { PACKAGE } from "./version.js";

const USAGE = `Usage: image-editor-bridge serve [options]

Options (environment variable in brackets):
  --listen <host:port>     address to listen on            [BRIDGE_LISTEN]      default ${DEFAULT_LISTEN.host}:${DEFAULT_LISTEN.port}
  --editor <name>          embedded | photoshop | gimp     [BRIDGE_EDITOR]      default embedded
  --open <file>            open this PSD/PNG/JPEG/WebP instead of the sample document   [BRIDGE_OPEN]
  --no-sample              start with no document
  --token <token>          require this access token (required off loopback)          [BRIDGE_TOKEN]
  --allow-origin <origin>  also allow this browser Origin (repeatable, or "*")        [BRIDGE_ALLOW_ORIGIN, comma-separated]
  --allow-host <name>      also allow this Host name (repeatable)                     [BRIDGE_ALLOW_HOST, comma-separated]
  --plugins-dir <dir>      load plugins from this folder                              [BRIDGE_PLUGINS_DIR]
  --plugin <dir>           load this plugin folder (repeatable)
  --log-level <level>      trace | debug | info | warn | error | silent               [BRIDGE_LOG_LEVEL]   default info
  -h, --help               show this help
  -v, --version            print the version
`;

/** Thrown for bad command lines; the CLI prints the message and exits with status 2. */
export class UsageError extends Error {}

export interface ServeOptions {
  listen: { host: string; port: number };
  editor: string;
  open: string | undefined;
  sample: boolean;
  token: string | undefined;
  allowOrigins: string[];
  allowHosts: string[];
  plugins: string[];
  pluginsDir: string | undefined;
  logLevel: string;
}

/** Parses `host:port`, `[v6]:port`, `:port` or `port`. */
export function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*))?:?(\d+)$/.exec(value.trim());
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--listen expects host:port (e.g. 127.0.0.1:7700), got "${value}"`);
  }
  return { host: match[1] ?? (match[2] || DEFAULT_LISTEN.host), port };
}

const list = (value: string | undefined): string[] => (value ? value.split(",").map((s) => s.trim()).filter(Boolean) : []);

function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      listen: { type: "string" },
      editor: { type: "string" },
      open: { type: "string" },
      "no-sample": { type: "boolean" },
      token: { type: "string" },
      "allow-origin": { type: "string", multiple: true },
      "allow-host": { type: "string", multiple: true },
      "plugins-dir": { type: "string" },
      plugin: { type: "string", multiple: true },
      "log-level": { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
}

/** Flags > environment (`BRIDGE_*`) > defaults (DESIGN §6). */
export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ServeOptions | "help" | "version" {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return "help";
  if (values.version) return "version";
  const command = positionals[0] ?? "serve";
  if (command !== "serve" || positionals.length > 1) throw new UsageError(`Unknown command "${positionals.join(" ")}"`);
  const listenText = values.listen ?? env["BRIDGE_LISTEN"];
  return {
    listen: listenText ? parseListen(listenText) : { ...DEFAULT_LISTEN },
    editor: values.editor ?? env["BRIDGE_EDITOR"] ?? "embedded",
    open: values.open ?? env["BRIDGE_OPEN"],
    sample: !values["no-sample"],
    token: values.token ?? (env["BRIDGE_TOKEN"] || undefined),
    allowOrigins: values["allow-origin"] ?? list(env["BRIDGE_ALLOW_ORIGIN"]),
    allowHosts: values["allow-host"] ?? list(env["BRIDGE_ALLOW_HOST"]),
    plugins: values.plugin ?? [],
    pluginsDir: values["plugins-dir"] ?? env["BRIDGE_PLUGINS_DIR"],
    logLevel: values["log-level"] ?? env["BRIDGE_LOG_LEVEL"] ?? "info",
  };
}

export interface MainIo {
  /** Where the startup line, help and version go. @default process.stdout */
  stdout?: { write(text: string): unknown };
  /** Close gracefully on SIGINT/SIGTERM and exit. @default true */
  handleSignals?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** Runs the CLI; resolves with the running bridge (or undefined for --help/--version). */
export async function main(argv: string[], io: MainIo = {}): Promise<Bridge | undefined> {
  const stdout = io.stdout ?? process.stdout;
  const options = parseServeArgs(argv, io.env ?? process.env);
  if (options === "help") {
    stdout.write(USAGE);
    return undefined;
  }
  if (options === "version") {
    stdout.write(`${PACKAGE.version}\n`);
    return undefined;
  }
  if (options.editor !== "embedded") {
    throw new UsageError(
      `--editor ${options.editor} is not available in this version; the embedded editor is (photoshop and gimp hosts are on the roadmap)`,
    );
  }
  const log = createLogger({ level: options.logLevel });
  if (options.plugins.length > 0 || options.pluginsDir !== undefined) {
    log.warn({ actor: "bridge" }, "plugin loading is not available in this version; --plugin/--plugins-dir are ignored");
  }
  const bridge = createBridge({
    listen: options.listen,
    embedded: { sample: options.sample, ...(options.open ? { open: options.open } : {}) },
    ...(options.token ? { token: options.token } : {}),
    allowOrigins: options.allowOrigins,
    allowHosts: options.allowHosts,
    logger: log,
  });
  await bridge.start();
  const status = bridge.hostStatus();
  if (status.state !== "ready" && status.state !== "busy") {
    // The embedded editor only fails to start on bad input (e.g. --open of a missing file): say so and stop.
    await bridge.close();
    throw new UsageError(`the ${options.editor} editor could not start: ${status.lastError ?? "unknown reason"}`);
  }
  const doc = await bridge.host
    .currentDocument({ signal: new AbortController().signal, clientId: "cli" })
    .then((d) => `${d.name} (${d.width}×${d.height})`)
    .catch(() => "none");
  stdout.write(
    `image-editor-bridge ${PACKAGE.version} · ${bridge.url} · WebSocket ${bridge.wsUrl} · editor: ${bridge.host.kind} · document: ${doc}\n`,
  );
  if (io.handleSignals === false) return bridge;
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      log.warn({ actor: "bridge", signal }, "second signal: exiting now");
      process.exit(1);
    }
    stopping = true;
    log.info({ actor: "bridge", signal }, "shutting down");
    bridge.close("process-exit").then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ actor: "bridge", err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
  return bridge;
}
