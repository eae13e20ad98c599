import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { createBridge, type Bridge } from "../bridge/bridge.js";
import type { BridgeOptions } from "../bridge/options.js";
import { parseServeArgs, startupWarnings, type ServeOptions } from "./args.js";
import { formatHostPort } from "./addresses.js";
import { StartupError, UsageError } from "./errors.js";
import { parseMcpArgs } from "./mcp-args.js";
import { loadMcpSdk, remoteBackend, serveMcpStdio, type McpBackend } from "../mcp/index.js";
import { pino } from "pino";
import { isBridgeError } from "../protocol/index.js";
import { isClientCommand, runClientCommand } from "../client/cli.js";
import { createEditorHosts } from "../hosts/factory.js";
import { isOfflineCommand, offlineText } from "./offline.js";
import { cliCatalog, USAGE } from "./usage.js";
import { createLogger, type Logger } from "../logger.js";
import { DEFAULT_LIMITS } from "../limits.js";
import { PACKAGE } from "../version.js";

export { StartupError, UsageError };

/** The usage, the version, `methods` and `events` (from the catalog); `serve` gives its options. */
function parseCommand(argv: string[], env: NodeJS.ProcessEnv): { text: string } | ServeOptions {
  if (isOfflineCommand(argv)) return { text: offlineText(argv, cliCatalog()) };
  const options = parseServeArgs(argv, env);
  if (options === "help") return { text: USAGE };
  if (options === "version") return { text: `${PACKAGE.version}\n` };
  return options;
}

/** Where GIMP comes from, said when its binary is missing. */
const GIMP_INSTALL_HINT = "install GIMP 2.10 (Debian/Ubuntu: apt install gimp) or point --gimp-binary (BRIDGE_GIMP_BINARY) at it";

const isKind = async (path: string, kind: "file" | "folder"): Promise<boolean> => {
  const info = await stat(path).catch(() => undefined);
  return info !== undefined && (kind === "file" ? info.isFile() : info.isDirectory());
};

/** The binary a command name runs: itself when it has a folder, else the first match on PATH. */
async function findBinary(binary: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const path = env["PATH"] ?? process.env["PATH"] ?? "";
  const candidates = binary.includes("/") ? [resolve(binary)] : path.split(delimiter).filter(isAbsolute).map((dir) => join(dir, binary));
  for (const candidate of candidates) {
    if (!(await isKind(candidate, "file"))) continue;
    if (await access(candidate, constants.X_OK).then(() => true, () => false)) return candidate;
  }
  return undefined;
}

/**
 * What must exist before anything starts, checked up front so a typo ends in one clear line instead of an editor
 * retrying in the background. Missing folders follow one rule: a files root, or a plugin folder named with
 * `--plugin` or `--plugins-dir`, that does not exist stops the bridge (`cannot start`, exit 1); a folder that exists
 * but holds a broken plugin does not (that plugin is reported failed in its health and the rest carries on).
 */
async function preflight(options: ServeOptions, env: NodeJS.ProcessEnv): Promise<void> {
  // A relative --open resolves against the first files root when there is one: the editor checks that case itself.
  const open = options.open;
  const openHere = open !== undefined && options.editor === "embedded" && (isAbsolute(open) || options.filesRoots.length === 0);
  if (openHere && !(await isKind(resolve(open), "file"))) throw new StartupError(`--open ${open}: no such file`);
  const folders = [
    ...options.filesRoots.map((root) => ["--files-root", root] as const),
    ...options.plugins.map((p) => ["--plugin", p] as const),
    ["--plugins-dir", options.pluginsDir] as const,
  ];
  for (const [flag, dir] of folders) {
    if (dir !== undefined && !(await isKind(resolve(dir), "folder"))) throw new StartupError(`${flag} ${dir}: no such folder`);
  }
  if (options.editor === "gimp" && options.gimp.attach.length === 0 && (await findBinary(options.gimp.binary, env)) === undefined) {
    throw new StartupError(`the GIMP binary "${options.gimp.binary}" was not found; ${GIMP_INSTALL_HINT}`);
  }
}

/** `bridge.start()`, with a port in use said in one line with what to do about it; nothing is left running. */
async function startBridge(bridge: Bridge, listen: ServeOptions["listen"]): Promise<void> {
  try {
    await bridge.start();
  } catch (error) {
    await bridge.close().catch(() => {});
    // A webhook the bridge refuses is a bad command line, like any other flag (a private target without
    // --allow-private-webhooks, an unknown event type).
    if (isBridgeError(error) && (error.code === "BAD_REQUEST" || error.code === "FORBIDDEN")) throw new UsageError(error.message);
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      const where = formatHostPort(listen);
      throw new StartupError(
        `${where} is already in use: another bridge may be running there (image-editor-bridge health --url http://${where}); choose another port with --listen <port>`,
      );
    }
    throw error;
  }
}

/** The editor kind, and how many when the bridge runs a pool: `gimp`, `gimp ×2`. */
function editorLine(bridge: Bridge): string {
  const count = bridge.editors().length;
  return count > 1 ? `${bridge.host.kind} ×${count}` : bridge.host.kind;
}

/**
 * The embedded editors' memory budget and cap in force, in the startup line: by default they follow the machine's
 * memory, and an operator sharing the machine should see what the bridge may take before it takes it.
 */
function memoryLine(bridge: Bridge, options: ServeOptions): string {
  if (options.editor !== "embedded" || options.editors === 0) return "";
  const gib = (bytes: number): string => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  const each = bridge.editors().length > 1 ? " each" : "";
  return ` · memory: ${gib(bridge.limits.editorMemoryBudgetBytes)} budget, ${gib(bridge.limits.editorMaxMemoryBytes)} cap${each} (--limit editorMaxMemoryBytes=4GiB lowers both)`;
}

export interface MainIo {
  /** Where the startup line, help and version go. @default process.stdout */
  stdout?: { write(text: string): unknown };
  /** Close gracefully on SIGINT/SIGTERM and exit. @default true */
  handleSignals?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** `createBridge`, with its refusals of a listen address (token, files roots) reported as usage errors. */
function serveBridge(options: BridgeOptions): Bridge {
  try {
    return createBridge(options);
  } catch (error) {
    if (isBridgeError(error) && error.code === "FORBIDDEN") throw new UsageError(error.message);
    throw error;
  }
}

/**
 * The editors to serve: GIMPs or Photoshops from `createEditorHosts` (`hosts`), or a count of embedded editors
 * (`editors`). Nothing starts here; every GIMP starts when the bridge connects it.
 */
async function editorPool(options: ServeOptions, log: Logger): Promise<Pick<BridgeOptions, "hosts" | "editors">> {
  // Embedded editors, or none at all (`--editors 0`, a cluster's front door).
  if (options.editor === "embedded" || options.editors === 0) return { editors: options.editors };
  const hosts = await createEditorHosts({
    editor: options.editor,
    editors: options.editors,
    photoshop: options.photoshop,
    gimp: {
      ...options.gimp,
      // Edits past the bridge's document limit are refused, as the embedded editor refuses them.
      maxDocumentPixels: options.limits.maxDocumentPixels ?? DEFAULT_LIMITS.maxDocumentPixels,
      // A supervised GIMP's recovery copies follow the embedded editor's limits (`--limit editorRecovery…`).
      recovery: {
        intervalMs: options.limits.editorRecoveryIntervalMs ?? DEFAULT_LIMITS.editorRecoveryIntervalMs,
        settleMs: options.limits.editorRecoverySettleMs ?? DEFAULT_LIMITS.editorRecoverySettleMs,
        maxBytes: options.limits.editorRecoveryMaxBytes ?? DEFAULT_LIMITS.editorRecoveryMaxBytes,
      },
    },
    sample: options.sample,
    logger: log,
  });
  if (options.open !== undefined) {
    log.warn({ actor: "bridge", editor: options.editor }, "--open applies to the embedded editor only; use document:open instead");
  }
  return { hosts };
}

/** Runs the CLI; resolves with the running bridge (or undefined for --help/--version). */
export async function main(argv: string[], io: MainIo = {}): Promise<Bridge | undefined> {
  const stdout = io.stdout ?? process.stdout;
  if (isClientCommand(argv[0])) {
    // Client commands talk to a running bridge; their status becomes the process's exit code.
    process.exitCode = await runClientCommand(argv, { stdout, ...(io.env ? { env: io.env } : {}) });
    return undefined;
  }
  if (argv[0] === "mcp") return runMcp(argv.slice(1), io);
  const options = parseCommand(argv, io.env ?? process.env);
  if ("text" in options) {
    stdout.write(options.text);
    return undefined;
  }
  await preflight(options, io.env ?? process.env);
  const log = createLogger({ level: options.logLevel });
  for (const warning of startupWarnings(options)) log.warn({ actor: "bridge" }, warning);
  const pool = await editorPool(options, log);
  // Static webhooks sign with BRIDGE_WEBHOOK_SECRET, or with one made up here and printed once below.
  const webhookSecret = options.webhooks.secret ?? (options.webhooks.hooks.length > 0 ? randomBytes(24).toString("base64url") : undefined);
  const bridge = serveBridge({
    listen: options.listen,
    ...pool,
    embedded: { sample: options.sample, ...(options.open ? { open: options.open } : {}), ...(options.fontsDirs.length > 0 ? { fontsDirs: options.fontsDirs } : {}) },
    scriptDirs: options.scriptDirs,
    imports: { allowFile: options.allowFileImport, allowPrivateUrl: options.allowPrivateUrlImport },
    ...(options.token ? { token: options.token } : {}),
    ...(options.readToken ? { readToken: options.readToken } : {}),
    allowOrigins: options.allowOrigins,
    allowHosts: options.allowHosts,
    plugins: options.plugins,
    ...(options.pluginsDir !== undefined ? { pluginsDir: options.pluginsDir } : {}),
    ...(options.pluginIsolation !== undefined ? { pluginIsolation: options.pluginIsolation } : {}),
    watchPlugins: options.watchPlugins,
    logger: log,
    limits: options.limits,
    trustProxy: options.trustProxy,
    publicHealth: options.publicHealth,
    mcp: { allowScripts: options.mcpAllowScripts },
    webhooks: {
      hooks: options.webhooks.hooks.map((hook) => ({ ...hook, secret: webhookSecret })),
      allowPrivate: options.webhooks.allowPrivate,
      ...(options.webhooks.file !== undefined ? { file: options.webhooks.file } : {}),
    },
    ...(options.cluster !== undefined ? { cluster: options.cluster } : {}),
    files: {
      roots: options.filesRoots,
      allowAnyPath: options.allowAnyPath,
      allowEditorScripts: options.allowEditorScripts,
      backupOnOverwrite: options.backupOnOverwrite,
    },
  });
  // Signals are ours from the moment editor processes can exist: Node's default SIGTERM ends the process without its
  // exit hooks, which would leave a GIMP still starting (or one started before the banner) running behind it.
  if (io.handleSignals !== false) closeOnSignals(bridge, log);
  await startBridge(bridge, options.listen);
  const status = bridge.hostStatus();
  if (options.editor === "embedded" && options.editors !== 0 && status.state !== "ready" && status.state !== "busy") {
    // The embedded editor only fails to start on bad input (e.g. --open of a missing file): say so and stop.
    // A third-party editor that is not reachable yet is retried in the background instead.
    await bridge.close();
    throw new StartupError(`the ${options.editor} editor could not start: ${status.lastError ?? "unknown reason"}`);
  }
  const doc = await bridge.host
    .getDocument({ signal: new AbortController().signal, caller: "cli" }, undefined)
    .then((d) => `${d.name} (${d.width}×${d.height})`)
    .catch(() => "none");
  const roots = bridge.filesRoots;
  const files = roots === null ? "any path (unconfined; --files-root confines)" : roots.join(", ");
  stdout.write(
    `image-editor-bridge ${PACKAGE.version} · ${bridge.url} · WebSocket ${bridge.wsUrl} · editor: ${editorLine(bridge)} · document: ${doc} · files: ${files}${memoryLine(bridge, options)}\n`,
  );
  if (options.webhooks.hooks.length > 0 && options.webhooks.secret === undefined) {
    stdout.write(`webhooks (--webhook) sign with the secret ${webhookSecret}; set BRIDGE_WEBHOOK_SECRET to choose it\n`);
  }
  return bridge;
}

/**
 * SIGINT/SIGTERM close `bridge` gracefully and exit, also while it is still starting (closing waits for editors
 * being started and stops them). A second signal exits at once; the exit hooks still kill editor processes.
 */
function closeOnSignals(bridge: Bridge, log: Logger): void {
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
  // `on`, not `once`: a repeated signal must reach `stop` (exit at once, exit hooks killing editor processes run)
  // rather than Node's default handler, which would end the process without them.
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

/** What `mcp` drives: a running bridge, or one it starts here on loopback, reached with a token only it knows. */
async function mcpBackend(options: ReturnType<typeof parseMcpArgs>, log: Logger): Promise<{ backend: McpBackend; bridge?: Bridge }> {
  if (!options.embedded) {
    try {
      return { backend: await remoteBackend({ url: options.url!, token: options.token }) };
    } catch (error) {
      const reason = isBridgeError(error) || error instanceof Error ? error.message : String(error);
      throw new StartupError(`cannot reach the bridge at ${options.url}: ${reason}; start one (image-editor-bridge serve) or use --embedded`);
    }
  }
  const token = randomBytes(24).toString("base64url");
  const bridge = serveBridge({ listen: { host: "127.0.0.1", port: 0 }, token, files: { roots: options.filesRoots }, logger: log, mcp: false });
  await startBridge(bridge, { host: "127.0.0.1", port: 0 });
  try {
    return { backend: await remoteBackend({ url: bridge.url, token }), bridge };
  } catch (error) {
    await bridge.close();
    throw error;
  }
}

/**
 * `image-editor-bridge mcp`: one MCP session on stdin/stdout. Logs go to stderr (stdout carries the protocol); the
 * process ends when the client closes stdin.
 */
async function runMcp(args: string[], io: MainIo): Promise<Bridge | undefined> {
  const options = parseMcpArgs(args, io.env ?? process.env);
  await loadMcpSdk().catch((error: unknown) => {
    throw new StartupError(isBridgeError(error) ? error.message : String(error));
  });
  const log: Logger = pino({ level: options.logLevel, base: { name: "image-editor-bridge" } }, pino.destination(2));
  const { backend, bridge } = await mcpBackend(options, log);
  const stdio = await serveMcpStdio(backend, { allowScripts: options.allowScripts, maxImageBytes: bridge?.limits.mcpMaxImageBytes ?? DEFAULT_LIMITS.mcpMaxImageBytes });
  const stop = async (): Promise<void> => {
    await stdio.close();
    await backend.close().catch(() => {});
    await bridge?.close("process-exit");
  };
  void stdio.closed.then(stop).then(() => {
    if (io.handleSignals !== false) process.exit(0);
  });
  if (io.handleSignals !== false) {
    process.on("SIGINT", () => void stop().then(() => process.exit(0)));
    process.on("SIGTERM", () => void stop().then(() => process.exit(0)));
  }
  return bridge;
}
