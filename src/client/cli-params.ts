/* Reading the values of a client command line: params for `call`, numbers for the other options. */
import { isAbsolute, resolve } from "node:path";

/** Thrown for bad command lines; the CLI prints the message and the usage and exits with status 2. */
export class UsageError extends Error {}

/**
 * A failure of `node:util`'s `parseArgs` as one line: an unknown option names itself, the command and where that
 * command's options are listed (`unknown option --bogus for call; see call --help`), rather than parseArgs's
 * advice about `--` and positionals.
 */
export function parseArgsMessage(error: unknown, command: string | undefined, help = command === undefined ? "help" : `${command} --help`): string {
  const { code, message } = error as { code?: string; message?: string };
  const text = String(message ?? error).split("\n")[0]!;
  if (code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `${text}; see ${help}`;
  const option = /'([^']+)'/.exec(text)?.[1] ?? text;
  return `unknown option ${option}${command === undefined ? "" : ` for ${command}`}; see ${help}`;
}

export function positiveInt(flag: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1) throw new UsageError(`${flag} expects a positive integer, got "${text}"`);
  return value;
}

export function nonNegativeInt(flag: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} expects an integer of 0 or more, got "${text}"`);
  return Number(text);
}

/** `[json] --param a=1 --param rect.x=2` → params; values parse as JSON when they can, else stay strings. */
export function buildParams(body: string | undefined, pairs: string[]): unknown {
  let params: unknown;
  if (body !== undefined) {
    try {
      params = JSON.parse(body);
    } catch {
      throw new UsageError(`The params argument is not valid JSON: ${body}`);
    }
  }
  if (pairs.length === 0) return params;
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
    throw new UsageError("--param needs the JSON argument, when given, to be an object");
  }
  const out = (params ?? {}) as Record<string, unknown>;
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--param expects key=value, got "${pair}"`);
    const keys = pair.slice(0, eq).split(".");
    const text = pair.slice(eq + 1);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
    let target = out;
    for (const key of keys.slice(0, -1)) {
      const next = target[key];
      if (typeof next !== "object" || next === null || Array.isArray(next)) target[key] = {};
      target = target[key] as Record<string, unknown>;
    }
    target[keys[keys.length - 1]!] = value;
  }
  return out;
}

/** Params holding a path on the bridge's side, which the CLI may make absolute for a local, unconfined bridge. */
const PATH_PARAMS = ["path", "savePath", "filePath"] as const;

/** Loopback host names of a bridge URL (`127.0.0.0/8`, `::1`, `localhost`). */
function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Relative `path`/`savePath`/`filePath` params made absolute against this shell's folder, as a user typing
 * `-p path=out.png` means, but only when the bridge is on this machine (loopback) and not confined to files
 * roots. Otherwise paths are sent as given: a confined bridge resolves them against its first root, and a remote
 * one against its own folders, not this machine's.
 */
export function localPaths(params: unknown, bridge: { url: string; filesRoots: readonly string[] | null | undefined }, cwd: string): unknown {
  if (params === null || typeof params !== "object" || Array.isArray(params)) return params;
  if ((bridge.filesRoots ?? null) !== null || !isLoopbackUrl(bridge.url)) return params;
  const out: Record<string, unknown> = { ...(params as Record<string, unknown>) };
  for (const key of PATH_PARAMS) {
    const value = out[key];
    if (typeof value === "string" && value !== "" && !isAbsolute(value)) out[key] = resolve(cwd, value);
  }
  return out;
}
