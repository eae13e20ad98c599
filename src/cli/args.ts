import { isIP } from "node:net";
import { parseArgs } from "node:util";
import { DEFAULT_LISTEN } from "../bridge/options.js";
import { MAX_EDITORS } from "../actors/editors/pool.js";
import { CLUSTER_FLAGS, clusterOf } from "./cluster.js";
import { parseLimits } from "./limits.js";
import type { ClusterOptions } from "../cluster/options.js";
import type { PhotoshopAddress } from "../hosts/factory.js";
import type { Limits } from "../limits.js";
import { WEBHOOK_SECRET_MIN_CHARS } from "../protocol/methods.js";
import { formatHostPort, parseHostPort, parseListen } from "./addresses.js";
import { UsageError } from "./errors.js";
import { parseArgsMessage } from "../client/cli-params.js";

/*
 * The command line of `image-editor-bridge serve`, parsed into options: flags win over environment variables
 * (`BRIDGE_*`), which win over defaults.
 */

export const DEFAULT_PHOTOSHOP_PORT = 49494;
export const DEFAULT_GIMP_BINARY = "gimp-console-2.10";
export const DEFAULT_PHOTOSHOP_HOST = "127.0.0.1";


export const EDITORS = ["embedded", "photoshop", "gimp"] as const;
export type EditorName = (typeof EDITORS)[number];

export interface ServeOptions {
  listen: { host: string; port: number };
  editor: EditorName;
  /**
   * How many editors: embedded threads or supervised GIMPs (`--editors`), else one per `--gimp-attach` server or
   * `--photoshop-host`.
   */
  editors: number;
  open: string | undefined;
  sample: boolean;
  /** `--fonts-dir`: folders of fonts the embedded editor's text layers may use besides the machine's. */
  fontsDirs: string[];
  token: string | undefined;
  /** `--read-token`: the read scope (methods that change nothing, events, `/status`, `/metrics`); needs `token`. */
  readToken: string | undefined;
  allowOrigins: string[];
  allowHosts: string[];
  plugins: string[];
  pluginsDir: string | undefined;
  /** `--plugin-isolation`: where every plugin runs, over its manifest. */
  pluginIsolation: "worker" | "process" | "none" | undefined;
  /** `--watch-plugins`: reload a plugin when its folder changes. */
  watchPlugins: boolean;
  logLevel: string;
  scriptDirs: string[];
  allowFileImport: boolean;
  allowPrivateUrlImport: boolean;
  filesRoots: string[];
  allowAnyPath: boolean;
  allowEditorScripts: boolean;
  backupOnOverwrite: boolean;
  /** One editor per Photoshop machine, all with one password. */
  photoshop: { hosts: PhotoshopAddress[]; password: string };
  /** `attach`: one editor per Script-Fu server already running; empty: the bridge starts its own GIMPs. */
  gimp: { binary: string; attach: string[] };
  /** `/health` and `/ready` answer without a token (`--public-health`); never `/status`. */
  publicHealth: boolean;
  /** Overrides of the named limits (`--limit name=value`, `BRIDGE_LIMITS`). */
  limits: Partial<Limits>;
  /** Proxies whose `X-Forwarded-For` is believed (`--trust-proxy`, `BRIDGE_TRUST_PROXY`): `loopback` or IP addresses. */
  trustProxy: string[];
  /** Offer the script tools (`jsx_run`, `jsx_execute`) on `/mcp` (`--mcp-allow-scripts`). */
  mcpAllowScripts: boolean;
  /** Static webhooks (`--webhook`, `BRIDGE_WEBHOOKS`), the file keeping clients' (`--webhooks-file`), private targets. */
  webhooks: { hooks: WebhookFlag[]; file: string | undefined; allowPrivate: boolean; secret: string | undefined };
  /** `--cluster` (and its credentials): join a cluster of bridges over NATS; undefined without one. */
  cluster: ClusterOptions | undefined;
}

/** One `--webhook URL[#type,type]`: no types means every event but previews. */
export interface WebhookFlag {
  url: string;
  types?: string[];
}

const PLUGIN_ISOLATIONS = ["worker", "process", "none"] as const;

function pluginIsolationOf(value: string | undefined): (typeof PLUGIN_ISOLATIONS)[number] | undefined {
  if (value === undefined) return undefined;
  if (!(PLUGIN_ISOLATIONS as readonly string[]).includes(value)) {
    throw new UsageError(`--plugin-isolation expects one of ${PLUGIN_ISOLATIONS.join(", ")}, got "${value}"`);
  }
  return value as (typeof PLUGIN_ISOLATIONS)[number];
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
      "fonts-dir": { type: "string", multiple: true },
      "no-sample": { type: "boolean" },
      token: { type: "string" },
      "read-token": { type: "string" },
      "allow-origin": { type: "string", multiple: true },
      "allow-host": { type: "string", multiple: true },
      "plugins-dir": { type: "string" },
      plugin: { type: "string", multiple: true },
      "plugin-isolation": { type: "string" },
      "watch-plugins": { type: "boolean" },
      "log-level": { type: "string" },
      "scripts-dir": { type: "string", multiple: true },
      "no-file-import": { type: "boolean" },
      "files-root": { type: "string", multiple: true },
      "allow-any-path": { type: "boolean" },
      "allow-editor-scripts": { type: "boolean" },
      "no-backup": { type: "boolean" },
      "public-health": { type: "boolean" },
      "trust-proxy": { type: "string", multiple: true },
      limit: { type: "string", multiple: true },
      "allow-private-import": { type: "boolean" },
      editors: { type: "string" },
      "photoshop-host": { type: "string", multiple: true },
      "photoshop-port": { type: "string" },
      "photoshop-password": { type: "string" },
      "gimp-binary": { type: "string" },
      "gimp-attach": { type: "string", multiple: true },
      "mcp-allow-scripts": { type: "boolean" },
      webhook: { type: "string", multiple: true },
      "webhooks-file": { type: "string" },
      "allow-private-webhooks": { type: "boolean" },
      ...CLUSTER_FLAGS,
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
}

/** Log levels `--log-level` accepts. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** What the command line asks for besides serving: the usage (also for no arguments at all) or the version. */
export type InfoRequest = "help" | "version";

/**
 * Flags > environment (`BRIDGE_*`) > defaults. No arguments, `help`, `--help` ask for the usage; `version`,
 * `--version` for the version; serving needs the explicit `serve` command.
 */
export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ServeOptions | InfoRequest {
  if (argv.length === 0) return "help";
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (error) {
    throw new UsageError(parseArgsMessage(error, argv.find((arg) => !arg.startsWith("-"))));
  }
  const { values, positionals } = parsed;
  const command = positionals[0];
  if (values.help || command === "help") return "help";
  if (values.version || command === "version") return "version";
  if (command === undefined) throw new UsageError(`a command comes first: image-editor-bridge serve ${argv.join(" ")}`);
  if (command !== "serve" || positionals.length > 1) throw new UsageError(`Unknown command "${positionals.join(" ")}"`);
  const listenFrom = values.listen !== undefined ? "--listen" : "BRIDGE_LISTEN";
  const listenText = values.listen ?? env["BRIDGE_LISTEN"];
  const editor = values.editor ?? env["BRIDGE_EDITOR"] ?? "embedded";
  if (!(EDITORS as readonly string[]).includes(editor)) {
    throw new UsageError(`--editor expects one of ${EDITORS.join(", ")}, got "${editor}"`);
  }
  const logLevel = values["log-level"] ?? env["BRIDGE_LOG_LEVEL"] ?? "info";
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new UsageError(`--log-level expects one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"`);
  }
  return checkFrontDoor({
    listen: listenText ? parseListen(listenText, listenFrom) : { ...DEFAULT_LISTEN },
    editor: editor as EditorName,
    ...parsePool(values, env, editor as EditorName),
    open: values.open ?? env["BRIDGE_OPEN"],
    sample: !switched(values["no-sample"], env, "BRIDGE_NO_SAMPLE"),
    fontsDirs: added(values["fonts-dir"], env, "BRIDGE_FONTS_DIRS"),
    token: values.token ?? (env["BRIDGE_TOKEN"] || undefined),
    readToken: values["read-token"] ?? (env["BRIDGE_READ_TOKEN"] || undefined),
    allowOrigins: added(values["allow-origin"], env, "BRIDGE_ALLOW_ORIGIN"),
    allowHosts: added(values["allow-host"], env, "BRIDGE_ALLOW_HOST"),
    plugins: added(values.plugin, env, "BRIDGE_PLUGINS"),
    pluginsDir: values["plugins-dir"] ?? env["BRIDGE_PLUGINS_DIR"],
    pluginIsolation: pluginIsolationOf(values["plugin-isolation"] ?? (env["BRIDGE_PLUGIN_ISOLATION"] || undefined)),
    watchPlugins: switched(values["watch-plugins"], env, "BRIDGE_WATCH_PLUGINS"),
    logLevel,
    scriptDirs: added(values["scripts-dir"], env, "BRIDGE_SCRIPTS_DIRS"),
    allowFileImport: !switched(values["no-file-import"], env, "BRIDGE_NO_FILE_IMPORT"),
    allowPrivateUrlImport: switched(values["allow-private-import"], env, "BRIDGE_ALLOW_PRIVATE_IMPORT"),
    filesRoots: added(values["files-root"], env, "BRIDGE_FILES_ROOT"),
    allowAnyPath: switched(values["allow-any-path"], env, "BRIDGE_ALLOW_ANY_PATH"),
    allowEditorScripts: switched(values["allow-editor-scripts"], env, "BRIDGE_ALLOW_EDITOR_SCRIPTS"),
    backupOnOverwrite: !switched(values["no-backup"], env, "BRIDGE_NO_BACKUP"),
    publicHealth: switched(values["public-health"], env, "BRIDGE_PUBLIC_HEALTH"),
    limits: limitsOf(values, env),
    trustProxy: trustProxyOf(values, env),
    mcpAllowScripts: switched(values["mcp-allow-scripts"], env, "BRIDGE_MCP_ALLOW_SCRIPTS"),
    webhooks: {
      hooks: webhooksOf(values, env),
      file: values["webhooks-file"] ?? (env["BRIDGE_WEBHOOKS_FILE"] || undefined),
      allowPrivate: switched(values["allow-private-webhooks"], env, "BRIDGE_ALLOW_PRIVATE_WEBHOOKS"),
      secret: webhookSecret(env),
    },
    cluster: clusterOf(
      values,
      env,
      (message) => {
        throw new UsageError(message);
      },
      switched(values["cluster-allow-anonymous"], env, "BRIDGE_CLUSTER_ALLOW_ANONYMOUS"),
    ),
  });
}

/**
 * `--editors 0` is a cluster's front door: it needs a cluster to send its calls to. A read token needs the full
 * token beside it (without one every caller has full access) and must differ from it.
 */
function checkFrontDoor(options: ServeOptions): ServeOptions {
  if (options.readToken !== undefined && options.token === undefined) {
    throw new UsageError("--read-token needs --token beside it: without the full access token every caller has full access");
  }
  if (options.readToken !== undefined && options.readToken === options.token) throw new UsageError("--read-token must differ from --token");
  if (options.editors === 0 && options.cluster === undefined) {
    throw new UsageError("--editors 0 (a front door with no editor of its own) needs --cluster: its calls go to other bridges' editors");
  }
  return options;
}

/**
 * `BRIDGE_WEBHOOKS` (entries separated by spaces: a URL has none, while its types are separated by commas) then
 * every `--webhook`, each `URL[#type,type]`.
 */
function webhooksOf(values: Flags, env: NodeJS.ProcessEnv): WebhookFlag[] {
  const fromEnv = (env["BRIDGE_WEBHOOKS"] ?? "").split(/\s+/).filter(Boolean);
  return [...fromEnv.map((item) => ({ item, from: "BRIDGE_WEBHOOKS" })), ...(values.webhook ?? []).map((item) => ({ item, from: "--webhook" }))].map(({ item, from }) => {
    const hash = item.indexOf("#");
    const url = hash === -1 ? item : item.slice(0, hash);
    const types = hash === -1 ? [] : list(item.slice(hash + 1));
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new UsageError(`${from} expects an http: or https: URL, optionally #type,type; got "${item}"`);
    if (hash !== -1 && types.length === 0) throw new UsageError(`${from} "${item}" names no event type after #`);
    return types.length > 0 ? { url, types } : { url };
  });
}

/** The secret static webhooks sign with: from the environment only (a flag would show in the process list). */
function webhookSecret(env: NodeJS.ProcessEnv): string | undefined {
  const secret = env["BRIDGE_WEBHOOK_SECRET"] || undefined;
  if (secret !== undefined && secret.length < WEBHOOK_SECRET_MIN_CHARS) {
    throw new UsageError(`BRIDGE_WEBHOOK_SECRET must have at least ${WEBHOOK_SECRET_MIN_CHARS} characters`);
  }
  return secret;
}

type Flags = ReturnType<typeof parseFlags>["values"];

/** `BRIDGE_TRUST_PROXY` then every `--trust-proxy`: each `loopback` or an IP address. */
function trustProxyOf(values: Flags, env: NodeJS.ProcessEnv): string[] {
  const { items, sources } = listed(values["trust-proxy"], env, "--trust-proxy", "BRIDGE_TRUST_PROXY");
  return items.map((item, i) => {
    const address = item.replace(/^\[|\]$/g, "");
    if (item.toLowerCase() === "loopback") return "loopback";
    if (isIP(address) === 0) throw new UsageError(`${sources[i]} expects "loopback" or a proxy's IP address, got "${item}"`);
    return address;
  });
}

/** `BRIDGE_LIMITS` then every `--limit`, as overrides of the named limits. */
function limitsOf(values: Flags, env: NodeJS.ProcessEnv): Partial<Limits> {
  const { items, sources } = listed(values.limit, env, "--limit", "BRIDGE_LIMITS");
  try {
    return parseLimits(items.map((item, i) => ({ item, from: sources[i]! })));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Values a boolean variable takes: `BRIDGE_NO_SAMPLE=1` is on, `BRIDGE_NO_SAMPLE=0` (or empty) is off. */
const ENV_TRUE = ["1", "true", "yes", "on"];
const ENV_FALSE = ["", "0", "false", "no", "off"];

/** A switch: on when the flag is given, else as its variable says. */
export function switched(flag: boolean | undefined, env: NodeJS.ProcessEnv, variable: string): boolean {
  if (flag === true) return true;
  const text = env[variable]?.trim().toLowerCase();
  if (text === undefined || ENV_FALSE.includes(text)) return false;
  if (ENV_TRUE.includes(text)) return true;
  throw new UsageError(`${variable} expects one of ${[...ENV_TRUE, ...ENV_FALSE.filter(Boolean)].join(", ")}, got "${env[variable]}"`);
}

/** A repeatable flag adds to its variable's comma-separated list. */
const added = (values: string[] | undefined, env: NodeJS.ProcessEnv, variable: string): string[] => [...list(env[variable]), ...(values ?? [])];

/** A repeatable flag's items after its variable's, each with where it came from (for messages). */
function listed(values: string[] | undefined, env: NodeJS.ProcessEnv, flag: string, variable: string): { items: string[]; sources: string[]; from: string } {
  const fromEnv = list(env[variable]);
  const items = [...fromEnv, ...(values ?? [])];
  const sources = items.map((_, i) => (i < fromEnv.length ? variable : flag));
  const from = [...new Set(sources)].join(" and ") || flag;
  return { items, sources, from };
}

/** `--editors` (or `BRIDGE_EDITORS`): an integer from 0 (a cluster's front door) to MAX_EDITORS, or undefined when not given. */
function parseEditorCount(values: Flags, env: NodeJS.ProcessEnv): { count: number; from: string } | undefined {
  const text = values.editors ?? (env["BRIDGE_EDITORS"] || undefined);
  if (text === undefined) return undefined;
  const from = values.editors !== undefined ? `--editors ${text}` : `BRIDGE_EDITORS=${text}`;
  const count = Number(text);
  if (!/^\d+$/.test(text.trim()) || count > MAX_EDITORS) {
    throw new UsageError(`--editors expects an integer from 1 to ${MAX_EDITORS} (or 0 in a cluster: a front door), got "${text}"`);
  }
  return { count, from };
}

/** One editor per server given: `--editors`, when given too, must say the same number. */
function perServer(editors: { count: number; from: string } | undefined, servers: string[], from: string, what: string): number {
  const seen = new Set<string>();
  for (const server of servers) {
    const key = server.toLowerCase();
    if (seen.has(key)) throw new UsageError(`${from} names ${server} twice: each ${what} is one editor`);
    seen.add(key);
  }
  if (editors !== undefined && editors.count !== servers.length) {
    throw new UsageError(
      `${editors.from} does not match the ${servers.length} ${what}${servers.length === 1 ? "" : "s"} given with ${from}: ` +
        `the bridge runs one editor per ${what}, so leave --editors out or make it ${servers.length}`,
    );
  }
  return servers.length;
}

/** `--editors`, the Photoshop hosts and the GIMP servers, checked against each other for the chosen editor. */
function parsePool(values: Flags, env: NodeJS.ProcessEnv, editor: EditorName): Pick<ServeOptions, "editors" | "photoshop" | "gimp"> {
  const editors = parseEditorCount(values, env);
  const portText = values["photoshop-port"] ?? env["BRIDGE_PHOTOSHOP_PORT"] ?? String(DEFAULT_PHOTOSHOP_PORT);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
    throw new UsageError(`--photoshop-port expects a port number, got "${portText}"`);
  }
  const ps = listed(values["photoshop-host"], env, "--photoshop-host", "BRIDGE_PHOTOSHOP_HOST");
  const psFrom = ps.items.length > 0 ? ps.from : `--photoshop-host (default ${DEFAULT_PHOTOSHOP_HOST})`;
  const hosts = (ps.items.length > 0 ? ps.items : [DEFAULT_PHOTOSHOP_HOST]).map((h, i) => parseHostPort(h, ps.sources[i] ?? ps.from, port));
  const gimp = listed(values["gimp-attach"], env, "--gimp-attach", "BRIDGE_GIMP_ATTACH");
  const attach = gimp.items.map((a, i) => formatHostPort(parseHostPort(a, gimp.sources[i] ?? gimp.from)));
  let count = editors?.count ?? 1;
  // A front door runs no editor of any kind: no servers to count.
  if (count === 0) return { editors: 0, photoshop: { hosts: [], password: "" }, gimp: { binary: DEFAULT_GIMP_BINARY, attach: [] } };
  if (editor === "photoshop") count = perServer(editors, hosts.map(formatHostPort), psFrom, "Photoshop host");
  if (editor === "gimp" && attach.length > 0) count = perServer(editors, attach, gimp.from, "attached GIMP server");
  return {
    editors: count,
    photoshop: { hosts, password: values["photoshop-password"] ?? env["BRIDGE_PHOTOSHOP_PASSWORD"] ?? "" },
    gimp: { binary: values["gimp-binary"] ?? env["BRIDGE_GIMP_BINARY"] ?? DEFAULT_GIMP_BINARY, attach },
  };
}

/**
 * What a WebSocket subprotocol may carry (the HTTP token grammar, RFC 9110 `tchar`): browsers send the access token
 * as the subprotocol `bearer.<token>`, and refuse to open a socket whose subprotocol has any other character.
 */
const SUBPROTOCOL_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Settings that start but will not work as the user probably expects, said once at startup. */
export function startupWarnings(options: ServeOptions): string[] {
  const warnings: string[] = [];
  for (const [flag, token] of [
    ["--token", options.token],
    ["--read-token", options.readToken],
  ] as const) {
    if (token === undefined || SUBPROTOCOL_TOKEN.test(token)) continue;
    warnings.push(
      `the ${flag === "--token" ? "token" : "read token"} has characters a WebSocket subprotocol cannot carry, so browsers cannot send it as bearer.<token> ` +
        "(Authorization: Bearer still works); use letters, digits and -._~ only",
    );
  }
  if (options.editor === "photoshop" && options.photoshop.password === "") {
    warnings.push(
      "the Photoshop password is empty: Remote Connections needs the password set in Photoshop " +
        "(Edit > Remote Connections); give it with BRIDGE_PHOTOSHOP_PASSWORD",
    );
  }
  return warnings;
}
