import { parseArgs } from "node:util";
import { DEFAULT_LISTEN } from "./bridge-options.js";
import type { GimpConnectOptions, PhotoshopConnectOptions } from "./hosts/factory.js";

/*
 * The command line of `image-editor-bridge serve`, parsed into options: flags win over environment variables
 * (`BRIDGE_*`), which win over defaults (DESIGN §6).
 */

export const DEFAULT_PHOTOSHOP_PORT = 49494;
export const DEFAULT_GIMP_BINARY = "gimp-console-2.10";

/** Thrown for bad command lines; the CLI prints the message and exits with status 2. */
export class UsageError extends Error {}

export const EDITORS = ["embedded", "photoshop", "gimp"] as const;
export type EditorName = (typeof EDITORS)[number];

export interface ServeOptions {
  listen: { host: string; port: number };
  editor: EditorName;
  open: string | undefined;
  sample: boolean;
  token: string | undefined;
  allowOrigins: string[];
  allowHosts: string[];
  plugins: string[];
  pluginsDir: string | undefined;
  logLevel: string;
  scriptDirs: string[];
  allowFileImport: boolean;
  allowPrivateUrlImport: boolean;
  filesRoots: string[];
  allowAnyPath: boolean;
  allowEditorScripts: boolean;
  backupOnOverwrite: boolean;
  photoshop: PhotoshopConnectOptions;
  gimp: GimpConnectOptions;
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
      "scripts-dir": { type: "string", multiple: true },
      "no-file-import": { type: "boolean" },
      "files-root": { type: "string", multiple: true },
      "allow-any-path": { type: "boolean" },
      "allow-editor-scripts": { type: "boolean" },
      "no-backup": { type: "boolean" },
      "allow-private-import": { type: "boolean" },
      "photoshop-host": { type: "string" },
      "photoshop-port": { type: "string" },
      "photoshop-password": { type: "string" },
      "gimp-binary": { type: "string" },
      "gimp-attach": { type: "string" },
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
  const editor = values.editor ?? env["BRIDGE_EDITOR"] ?? "embedded";
  if (!(EDITORS as readonly string[]).includes(editor)) {
    throw new UsageError(`--editor expects one of ${EDITORS.join(", ")}, got "${editor}"`);
  }
  const portText = values["photoshop-port"] ?? env["BRIDGE_PHOTOSHOP_PORT"] ?? String(DEFAULT_PHOTOSHOP_PORT);
  const photoshopPort = Number(portText);
  if (!/^\d+$/.test(portText) || photoshopPort < 1 || photoshopPort > 65535) {
    throw new UsageError(`--photoshop-port expects a port number, got "${portText}"`);
  }
  return {
    listen: listenText ? parseListen(listenText) : { ...DEFAULT_LISTEN },
    editor: editor as EditorName,
    open: values.open ?? env["BRIDGE_OPEN"],
    sample: !values["no-sample"],
    token: values.token ?? (env["BRIDGE_TOKEN"] || undefined),
    allowOrigins: values["allow-origin"] ?? list(env["BRIDGE_ALLOW_ORIGIN"]),
    allowHosts: values["allow-host"] ?? list(env["BRIDGE_ALLOW_HOST"]),
    plugins: values.plugin ?? [],
    pluginsDir: values["plugins-dir"] ?? env["BRIDGE_PLUGINS_DIR"],
    logLevel: values["log-level"] ?? env["BRIDGE_LOG_LEVEL"] ?? "info",
    scriptDirs: values["scripts-dir"] ?? list(env["BRIDGE_SCRIPTS_DIRS"]),
    allowFileImport: !values["no-file-import"],
    allowPrivateUrlImport: values["allow-private-import"] ?? false,
    filesRoots: values["files-root"] ?? list(env["BRIDGE_FILES_ROOT"]),
    allowAnyPath: values["allow-any-path"] ?? false,
    allowEditorScripts: values["allow-editor-scripts"] ?? false,
    backupOnOverwrite: !values["no-backup"],
    photoshop: {
      host: values["photoshop-host"] ?? env["BRIDGE_PHOTOSHOP_HOST"] ?? "127.0.0.1",
      port: photoshopPort,
      password: values["photoshop-password"] ?? env["BRIDGE_PHOTOSHOP_PASSWORD"] ?? "",
    },
    gimp: {
      binary: values["gimp-binary"] ?? env["BRIDGE_GIMP_BINARY"] ?? DEFAULT_GIMP_BINARY,
      attach: values["gimp-attach"] ?? (env["BRIDGE_GIMP_ATTACH"] || undefined),
    },
  };
}

