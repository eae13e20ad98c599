import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { WebSocket } from "ws";
import { Connection } from "./connection.js";
import type { ConnectionOptions } from "./options.js";
import { BridgeError, CLIENT_ERROR_CODES, isBridgeError } from "./errors.js";
import { pluginHealth, plugins, status } from "./http.js";
import { checkClientName } from "./_internal/url.js";

/*
 * The client half of the command line (Node only): `call`, `subscribe`, `health`, `plugins`, `export-document`,
 * each a thin layer over the SDK so the CLI and programs behave alike.
 */

/** Commands `image-editor-bridge` hands to {@link runClientCommand}. */
export const CLIENT_COMMANDS = ["call", "subscribe", "health", "plugins", "export-document"] as const;
export type ClientCommand = (typeof CLIENT_COMMANDS)[number];

/** Where the client commands look for the bridge without `--url` or `BRIDGE_URL`. */
export const DEFAULT_BRIDGE_URL = "http://127.0.0.1:7700";

/** Exit statuses of the client commands. */
export const EXIT_CODES = {
  OK: 0,
  /** The bridge answered with an error. */
  FAILED: 1,
  /** The command line was wrong. */
  USAGE: 2,
  /** The bridge could not be reached, or the connection ended. */
  UNAVAILABLE: 3,
} as const;

export const CLIENT_USAGE = `Client commands (talk to a running bridge):
  call <method> [json] [--param k=v ...]   call a method; --param values are JSON or strings, keys may be dotted (rect.x=1)
  subscribe <event...> [--count n]         print events as JSON lines until interrupted, or after n events
  health                                   GET /health
  plugins [id]                             loaded plugins, or one plugin's health
  export-document -o <file> [--format png|jpeg|webp] [--quality n] [--max-size n] [--scale f]
                                           write the composite image of the active document
Client options:
  --url <url>          the bridge                                    [BRIDGE_URL]   default ${DEFAULT_BRIDGE_URL}
  --token <token>      access token                                  [BRIDGE_TOKEN]
  --name <name>        this client's name in server:clients and the bridge's logs
  --timeout <ms>       per-request deadline
  --json               machine-readable output (one JSON value per line; errors as JSON on stderr)
`;

export interface ClientCommandIo {
  /** @default process.stdout */
  stdout?: { write(text: string): unknown };
  /** @default process.stderr */
  stderr?: { write(text: string): unknown };
  /** @default process.env */
  env?: Record<string, string | undefined>;
  /** Stops `subscribe`. @default SIGINT/SIGTERM of this process */
  signal?: AbortSignal;
}

export function isClientCommand(name: string | undefined): name is ClientCommand {
  return (CLIENT_COMMANDS as readonly string[]).includes(name ?? "");
}

class UsageError extends Error {}

interface Context {
  readonly out: { write(text: string): unknown };
  readonly err: { write(text: string): unknown };
  readonly url: string;
  readonly token: string | undefined;
  readonly name: string | undefined;
  readonly json: boolean;
  readonly timeoutMs: number | undefined;
  readonly signal: AbortSignal;
  readonly values: ReturnType<typeof parseFlags>["values"];
  readonly args: string[];
}

function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: "string" },
      token: { type: "string" },
      name: { type: "string" },
      json: { type: "boolean" },
      timeout: { type: "string" },
      param: { type: "string", multiple: true },
      count: { type: "string" },
      output: { type: "string", short: "o" },
      format: { type: "string" },
      quality: { type: "string" },
      "max-size": { type: "string" },
      scale: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/**
 * Runs one client command and resolves with its exit status; never throws for bad input or a failing bridge.
 *
 * @example
 * const code = await runClientCommand(["call", "document:current", "--json"], { stdout, stderr, env: {} });
 */
export async function runClientCommand(argv: string[], io: ClientCommandIo = {}): Promise<number> {
  const out = io.stdout ?? process.stdout;
  const err = io.stderr ?? process.stderr;
  const env = io.env ?? process.env;
  const stop = io.signal === undefined ? processSignal() : { signal: io.signal, dispose: () => {} };
  let json = argv.includes("--json");
  try {
    let parsed: ReturnType<typeof parseFlags>;
    try {
      parsed = parseFlags(argv);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const { values, positionals } = parsed;
    json = values.json ?? false;
    const [command, ...args] = positionals;
    if (values.help) {
      out.write(CLIENT_USAGE);
      return EXIT_CODES.OK;
    }
    if (!isClientCommand(command)) throw new UsageError(`Unknown client command "${command ?? ""}"`);
    const ctx: Context = {
      out,
      err,
      url: values.url ?? env["BRIDGE_URL"] ?? DEFAULT_BRIDGE_URL,
      token: values.token ?? (env["BRIDGE_TOKEN"] || undefined),
      name: values.name === undefined ? undefined : clientName(values.name),
      json,
      timeoutMs: values.timeout === undefined ? undefined : positiveInt("--timeout", values.timeout),
      signal: stop.signal,
      values,
      args,
    };
    return await COMMANDS[command](ctx);
  } catch (error) {
    return report(error, err, json);
  } finally {
    stop.dispose();
  }
}

const COMMANDS: Record<ClientCommand, (ctx: Context) => Promise<number>> = {
  call: runCall,
  subscribe: runSubscribe,
  health: async (ctx) => {
    const health = await status({ url: ctx.url, token: ctx.token, timeoutMs: ctx.timeoutMs, signal: ctx.signal });
    if (ctx.json) print(ctx, health);
    else {
      const host = (health.host ?? {}) as { state?: string };
      const uptime = health.uptimeMs === undefined ? "" : ` · up ${(health.uptimeMs / 1000).toFixed(1)} s`;
      ctx.out.write(`${health.status} · editor ${host.state ?? "unknown"} · ${health.clients ?? 0} clients${uptime}\n`);
    }
    return EXIT_CODES.OK;
  },
  plugins: async (ctx) => {
    const http = { url: ctx.url, token: ctx.token, timeoutMs: ctx.timeoutMs, signal: ctx.signal };
    const id = ctx.args[0];
    if (id !== undefined) print(ctx, await pluginHealth(http, id));
    else {
      const list = await plugins(http);
      if (ctx.json) print(ctx, list);
      else ctx.out.write(list.length === 0 ? "no plugins loaded\n" : `${list.map((p) => p.id).join("\n")}\n`);
    }
    return EXIT_CODES.OK;
  },
  "export-document": runExportDocument,
};

async function runCall(ctx: Context): Promise<number> {
  const [method, body, ...extra] = ctx.args;
  if (method === undefined) throw new UsageError("call needs a method name, e.g. call document:current");
  if (extra.length > 0) throw new UsageError(`call takes one JSON argument, got also "${extra.join(" ")}"`);
  const params = buildParams(body, ctx.values.param ?? []);
  return withConnection(ctx, { reconnect: false }, async (connection) => {
    const result = await connection.invoke(method, params, invokeOptions(ctx));
    print(ctx, result);
    return EXIT_CODES.OK;
  });
}

async function runSubscribe(ctx: Context): Promise<number> {
  if (ctx.args.length === 0) throw new UsageError("subscribe needs at least one event type, e.g. subscribe selection:changed");
  const count = ctx.values.count === undefined ? Number.POSITIVE_INFINITY : positiveInt("--count", ctx.values.count);
  return withConnection(ctx, {}, async (connection) => {
    let seen = 0;
    let finish: (code: number) => void = () => {};
    const done = new Promise<number>((resolve) => (finish = resolve));
    connection.on("$lost", (notice) => {
      ctx.err.write(ctx.json ? `${JSON.stringify({ lost: notice })}\n` : `events were lost (${notice.reason}); re-read state\n`);
    });
    connection.on("$close", ({ willReconnect, code }) => {
      if (!willReconnect) finish(code === 4000 ? EXIT_CODES.OK : EXIT_CODES.UNAVAILABLE);
    });
    const onAbort = (): void => finish(EXIT_CODES.OK);
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    for (const type of ctx.args) {
      await connection.subscribe(type, (data, meta) => {
        if (seen >= count) return;
        seen++;
        ctx.out.write(`${JSON.stringify({ type: meta.type, seq: meta.seq, data })}\n`);
        if (seen >= count) finish(EXIT_CODES.OK);
      });
    }
    if (ctx.signal.aborted) onAbort();
    const code = await done;
    ctx.signal.removeEventListener("abort", onAbort);
    return code;
  });
}

const EXTENSION_FORMATS: Record<string, "png" | "jpeg" | "webp"> = { png: "png", jpg: "jpeg", jpeg: "jpeg", webp: "webp" };

async function runExportDocument(ctx: Context): Promise<number> {
  const output = ctx.values.output;
  if (output === undefined) throw new UsageError("export-document needs -o <file>");
  const extension = output.split(".").pop()?.toLowerCase() ?? "";
  const format = ctx.values.format ?? EXTENSION_FORMATS[extension] ?? "png";
  if (!["png", "jpeg", "webp"].includes(format)) throw new UsageError(`--format expects png, jpeg or webp, got "${format}"`);
  const params: Record<string, unknown> = { format };
  if (ctx.values.quality !== undefined) params["quality"] = positiveInt("--quality", ctx.values.quality);
  if (ctx.values["max-size"] !== undefined) params["maxSize"] = positiveInt("--max-size", ctx.values["max-size"]);
  if (ctx.values.scale !== undefined) {
    const scale = Number(ctx.values.scale);
    if (!(scale > 0)) throw new UsageError(`--scale expects a positive number, got "${ctx.values.scale}"`);
    params["scale"] = scale;
  }
  return withConnection(ctx, { reconnect: false }, async (connection) => {
    const image = await connection.image.exportDocument(params, invokeOptions(ctx));
    const comma = image.data.indexOf(",");
    const bytes = Buffer.from(image.data.slice(comma + 1), "base64");
    const path = resolve(output);
    await writeFile(path, bytes);
    const summary = { path, format: image.format, width: image.width, height: image.height, size: bytes.length };
    if (ctx.json) print(ctx, summary);
    else ctx.out.write(`wrote ${path} (${image.width}×${image.height} ${image.format}, ${bytes.length} bytes)\n`);
    return EXIT_CODES.OK;
  });
}

async function withConnection(
  ctx: Context,
  options: Partial<ConnectionOptions>,
  run: (connection: Connection) => Promise<number>,
): Promise<number> {
  const connection = new Connection({
    url: ctx.url,
    WebSocket: WebSocket as unknown as ConnectionOptions["WebSocket"],
    ...(ctx.token ? { token: ctx.token } : {}),
    ...(ctx.name !== undefined ? { name: ctx.name } : {}),
    ...(ctx.timeoutMs !== undefined ? { requestTimeoutMs: ctx.timeoutMs, connectTimeoutMs: ctx.timeoutMs } : {}),
    ...options,
  });
  try {
    await connection.ready();
    return await run(connection);
  } finally {
    await connection.close();
  }
}

function invokeOptions(ctx: Context): { timeoutMs?: number; signal: AbortSignal } {
  return ctx.timeoutMs === undefined ? { signal: ctx.signal } : { timeoutMs: ctx.timeoutMs, signal: ctx.signal };
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

function clientName(text: string): string {
  try {
    checkClientName(text);
  } catch (error) {
    throw new UsageError(`--name: ${(error as Error).message}`);
  }
  return text;
}

function positiveInt(flag: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1) throw new UsageError(`${flag} expects a positive integer, got "${text}"`);
  return value;
}

function print(ctx: Context, value: unknown): void {
  ctx.out.write(`${ctx.json ? JSON.stringify(value) : JSON.stringify(value, null, 2)}\n`);
}

const CONNECTION_CODES: ReadonlySet<string> = new Set([
  CLIENT_ERROR_CODES.CONNECTION_FAILED,
  CLIENT_ERROR_CODES.CONNECTION_LOST,
  CLIENT_ERROR_CODES.CONNECTION_CLOSED,
]);

function report(error: unknown, err: { write(text: string): unknown }, json: boolean): number {
  if (error instanceof UsageError) {
    err.write(json ? `${JSON.stringify({ error: { code: "USAGE", message: error.message } })}\n` : `image-editor-bridge: ${error.message}\n${CLIENT_USAGE}`);
    return EXIT_CODES.USAGE;
  }
  // Errors of another copy of the package pass the brand check without being this class: read their fields.
  const failure: { code: string; message: string; details?: Record<string, unknown> | undefined } = isBridgeError(error)
    ? error
    : { code: "INTERNAL", message: (error as Error)?.message ?? String(error) };
  const wire = failure instanceof BridgeError ? failure.toJSON() : { code: failure.code, message: failure.message, details: failure.details };
  if (json) err.write(`${JSON.stringify({ error: wire })}\n`);
  else {
    const details = wire.details === undefined ? "" : `\n  details: ${JSON.stringify(wire.details)}`;
    err.write(`image-editor-bridge: ${wire.code}: ${wire.message}${details}\n`);
  }
  return CONNECTION_CODES.has(failure.code) ? EXIT_CODES.UNAVAILABLE : EXIT_CODES.FAILED;
}

/** An AbortSignal that fires on SIGINT/SIGTERM while a command runs. */
function processSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off("SIGINT", abort);
      process.off("SIGTERM", abort);
    },
  };
}
