import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { WebSocket } from "ws";
import { Connection } from "./connection.js";
import type { ConnectionOptions } from "./options.js";
import type { InvokeOptions, RequestProgress } from "./types.js";
import { BridgeError } from "./errors.js";
import { pluginHealth, plugins, readiness, status } from "./http.js";
import { checkClientName, endpointsOf } from "./_internal/url.js";
import { CALL_USAGE, CLIENT_USAGE, DEFAULT_BRIDGE_URL, EXIT_CODES } from "./cli-usage.js";
import { buildParams, localPaths, nonNegativeInt, parseArgsMessage, positiveInt, UsageError } from "./cli-params.js";

/** Methods whose params may hold a file path on the bridge's side. */
const PATH_METHOD = /^document:(open|save|export)$/;
import { describeWritten, exportParams, imageOf, localFileError, type WrittenImage } from "./cli-images.js";
import { processSignal, report } from "./cli-exit.js";
import { renderTemplate, type RenderTemplateIo } from "./cli-template.js";

/*
 * The client half of the command line (Node only): `call`, `subscribe`, `health`, `plugins`, `export-document`,
 * `export-layer`, each a thin layer over the SDK so the CLI and programs behave alike.
 */

export { buildParams, CLIENT_USAGE, DEFAULT_BRIDGE_URL, EXIT_CODES };

/** Commands `image-editor-bridge` hands to {@link runClientCommand}. */
export const CLIENT_COMMANDS = ["call", "subscribe", "health", "plugins", "export-document", "export-layer", "undo", "redo", "history", "render-template"] as const;
export type ClientCommand = (typeof CLIENT_COMMANDS)[number];




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

interface Context {
  readonly out: { write(text: string): unknown };
  readonly err: { write(text: string): unknown };
  readonly url: string;
  readonly token: string | undefined;
  readonly name: string | undefined;
  readonly json: boolean;
  readonly timeoutMs: number | undefined;
  readonly signal: AbortSignal;
  readonly values: Flags;
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
      "layer-id": { type: "string" },
      "layer-index": { type: "string" },
      progress: { type: "boolean" },
      steps: { type: "string" },
      "document-id": { type: "string" },
      data: { type: "string" },
      comp: { type: "string" },
      concurrency: { type: "string" },
      trim: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}

type Flags = ReturnType<typeof parseFlags>["values"];
type Flag = keyof Flags;

/** Options every command takes. */
const COMMON_OPTIONS: readonly Flag[] = ["url", "token", "json", "timeout", "help"];
const EXPORT_OPTIONS: readonly Flag[] = ["name", "output", "format", "quality", "max-size", "scale", "progress"];

/** The options each command uses beyond the common ones; any other is refused as a usage error. */
const COMMAND_OPTIONS: Readonly<Record<ClientCommand, readonly Flag[]>> = {
  call: ["name", "param", "output", "progress"],
  subscribe: ["name", "count"],
  health: [],
  plugins: [],
  "export-document": EXPORT_OPTIONS,
  "export-layer": [...EXPORT_OPTIONS, "layer-id", "layer-index"],
  undo: ["name", "steps", "document-id"],
  redo: ["name", "steps", "document-id"],
  history: ["name", "document-id"],
  "render-template": ["name", "output", "data", "comp", "concurrency", "trim"],
};

/** Refuses an option the command does not use, rather than ignoring it silently. */
function checkOptions(command: ClientCommand, values: Flags): void {
  const allowed = new Set<string>([...COMMON_OPTIONS, ...COMMAND_OPTIONS[command]]);
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || allowed.has(key)) continue;
    const flag = key === "output" ? "-o/--output" : `--${key}`;
    throw new UsageError(`${command} does not take ${flag}`);
  }
}

/** `--url` or `BRIDGE_URL`, checked here so a typo is a usage error rather than an unreachable bridge. */
function bridgeUrl(text: string, from: string): string {
  try {
    endpointsOf(text);
  } catch (error) {
    throw new UsageError(`${from}: ${(error as Error).message}`);
  }
  return text;
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
  /** No `--url` nor `BRIDGE_URL`: a bridge that cannot be reached may simply be elsewhere. */
  let defaultUrl = false;
  try {
    let parsed: ReturnType<typeof parseFlags>;
    try {
      parsed = parseFlags(argv);
    } catch (error) {
      throw new UsageError(parseArgsMessage(error, argv.find((arg) => !arg.startsWith("-"))));
    }
    const { values, positionals } = parsed;
    json = values.json ?? false;
    const [command, ...args] = positionals;
    if (values.help) {
      out.write(command === "call" ? CALL_USAGE : CLIENT_USAGE);
      return EXIT_CODES.OK;
    }
    if (!isClientCommand(command)) throw new UsageError(`Unknown client command "${command ?? ""}"`);
    checkOptions(command, values);
    defaultUrl = values.url === undefined && env["BRIDGE_URL"] === undefined;
    const ctx: Context = {
      out,
      err,
      url: bridgeUrl(values.url ?? env["BRIDGE_URL"] ?? DEFAULT_BRIDGE_URL, values.url !== undefined ? "--url" : "BRIDGE_URL"),
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
    return report(error, err, json, defaultUrl ? DEFAULT_URL_HINT : undefined);
  } finally {
    stop.dispose();
  }
}

const COMMANDS: Record<ClientCommand, (ctx: Context) => Promise<number>> = {
  call: runCall,
  subscribe: runSubscribe,
  health: runHealth,
  plugins: async (ctx) => {
    const http = { url: ctx.url, token: ctx.token, timeoutMs: ctx.timeoutMs, signal: ctx.signal };
    const id = ctx.args[0];
    if (id !== undefined) {
      const health = await pluginHealth(http, id);
      print(ctx, health);
      return health.status === "failed" ? EXIT_CODES.DEGRADED : EXIT_CODES.OK;
    }
    const list = await plugins(http);
    if (ctx.json) print(ctx, list);
    else {
      const lines = [
        ...list.plugins.map((p) => p.id),
        ...list.failed.map((p) => `${p.id} FAILED: ${p.lastError?.message ?? "unknown reason"}${p.dir !== undefined ? ` (${p.dir})` : ""}`),
      ];
      ctx.out.write(lines.length === 0 ? "no plugins loaded\n" : `${lines.join("\n")}\n`);
    }
    return list.failed.length > 0 ? EXIT_CODES.DEGRADED : EXIT_CODES.OK;
  },
  "export-document": (ctx) => runExport(ctx, "image:exportDocument", {}),
  "export-layer": (ctx) => runExport(ctx, "image:exportLayer", layerParams(ctx.values)),
  undo: (ctx) => runHistoryMove(ctx, "history:undo"),
  redo: (ctx) => runHistoryMove(ctx, "history:redo"),
  history: runHistory,
  "render-template": runRenderTemplate,
};

/** `render-template <template> --data rows.csv -o 'out/{id}.png'`: exit status 1 when any variant failed. */
async function runRenderTemplate(ctx: Context): Promise<number> {
  const [template, ...extra] = ctx.args;
  if (template === undefined) throw new UsageError("render-template needs the template file, e.g. render-template card.psd --data rows.csv -o 'out/{id}.png'");
  if (extra.length > 0) throw new UsageError(`render-template takes one template, got also "${extra.join(" ")}"`);
  const { data, output, comp } = ctx.values;
  if (data === undefined) throw new UsageError("render-template needs --data rows.csv or rows.json");
  if (output === undefined) throw new UsageError("render-template needs -o with a file name pattern, e.g. -o 'out/{id}.png'");
  const concurrency = ctx.values.concurrency === undefined ? undefined : positiveInt("--concurrency", ctx.values.concurrency);
  return withConnection(ctx, { reconnect: false }, async (connection) => {
    const io = { out: ctx.out, err: ctx.err as RenderTemplateIo["err"], json: ctx.json };
    const options = { template, data, output, comp, concurrency, trim: ctx.values.trim === true, invoke: invokeOptions(ctx) };
    const allDone = await renderTemplate(io, (method, params, invoke) => connection.invoke(method, params, invoke), options);
    return allDone ? EXIT_CODES.OK : EXIT_CODES.FAILED;
  });
}

/** `--document-id` as params (none: the active document). */
function documentParams(ctx: Context): Record<string, unknown> {
  const id = ctx.values["document-id"];
  return id === undefined ? {} : { documentId: nonNegativeInt("--document-id", id) };
}

/** `undo` and `redo`: moves the document's history by `--steps` (default 1) and says where it stands. */
async function runHistoryMove(ctx: Context, method: "history:undo" | "history:redo"): Promise<number> {
  if (ctx.args.length > 0) throw new UsageError(`${method === "history:undo" ? "undo" : "redo"} takes no arguments, got "${ctx.args.join(" ")}"`);
  const steps = ctx.values.steps === undefined ? {} : { steps: positiveInt("--steps", ctx.values.steps) };
  return withConnection(ctx, { reconnect: false }, async (connection) => {
    const moved = (await connection.invoke(method, { ...documentParams(ctx), ...steps }, invokeOptions(ctx))) as { documentId: number; current: number; length: number; revision: number };
    if (ctx.json) print(ctx, moved);
    else ctx.out.write(`document ${moved.documentId} at step ${moved.current} of ${moved.length} (revision ${moved.revision})\n`);
    return EXIT_CODES.OK;
  });
}

/** `history`: the document's steps, oldest first, the current one marked. */
async function runHistory(ctx: Context): Promise<number> {
  if (ctx.args.length > 0) throw new UsageError(`history takes no arguments, got "${ctx.args.join(" ")}"`);
  return withConnection(ctx, { reconnect: false }, async (connection) => {
    type Listed = { documentId: number; current: number; length: number; dropped: number; steps: Array<{ index: number; name: string; clientIdPrefix: string | null }> };
    const listed = (await connection.invoke("history:list", documentParams(ctx), invokeOptions(ctx))) as Listed;
    if (ctx.json) {
      print(ctx, listed);
      return EXIT_CODES.OK;
    }
    const dropped = listed.dropped > 0 ? `, ${listed.dropped} older dropped` : "";
    ctx.out.write(`document ${listed.documentId}: at step ${listed.current} of ${listed.length}${dropped}\n`);
    if (listed.current === 0 && listed.length > 0) ctx.out.write("> 0 (before every step)\n");
    for (const step of listed.steps) {
      const by = step.clientIdPrefix === null ? "" : `  client ${step.clientIdPrefix}`;
      ctx.out.write(`${step.index === listed.current ? ">" : " "} ${step.index} ${step.name}${by}${step.index > listed.current ? "  (undone)" : ""}\n`);
    }
    return EXIT_CODES.OK;
  });
}

/**
 * `health`: the bridge's readiness (`GET /ready`) and, when it is not `ok`, what failed by name from `GET /status`
 * (when the token allows it). Exit status 0 only for `ok`.
 */
async function runHealth(ctx: Context): Promise<number> {
  const http = { url: ctx.url, token: ctx.token, timeoutMs: ctx.timeoutMs, signal: ctx.signal };
  const ready = await readiness(http);
  const code = ready.status === "ok" ? EXIT_CODES.OK : ready.status === "degraded" ? EXIT_CODES.DEGRADED : EXIT_CODES.UNAVAILABLE;
  const details = ready.status === "ok" ? [] : await failedParts(http);
  if (ctx.json) {
    print(ctx, details.length > 0 ? { ...ready, details } : ready);
    return code;
  }
  const counts = `editors ${ready.editors.ready}/${ready.editors.total} ready · plugins ${ready.plugins.loaded} loaded, ${ready.plugins.failed} failed`;
  ctx.out.write(`${ready.status} · ${counts}\n`);
  for (const reason of ready.reasons) ctx.out.write(`  ${reason.status}: ${reason.message}\n`);
  for (const line of details) ctx.out.write(`  - ${line}\n`);
  return code;
}

/** Names what is not ready from `GET /status`: editors with their last error, failed plugins with theirs. */
async function failedParts(http: Parameters<typeof status>[0]): Promise<string[]> {
  try {
    const view = await status(http);
    const failed = (view["plugins"] as { failed?: { id: string; lastError?: { message: string } }[] } | undefined)?.failed ?? [];
    return [
      ...view.editors
        .filter((e) => e.state !== "ready" && e.state !== "busy")
        .map((e) => `editor ${e.id} (${e.kind}) ${e.state}${e.lastError !== undefined ? `: ${e.lastError}` : ""}`),
      ...failed.map((p) => `plugin ${p.id} failed: ${p.lastError?.message ?? "unknown reason"}`),
    ];
  } catch {
    // `/status` needs the token even when `/ready` is public: the reasons above are then all there is.
    return [];
  }
}

async function runCall(ctx: Context): Promise<number> {
  const [method, body, ...extra] = ctx.args;
  if (method === undefined) throw new UsageError("call needs a method name, e.g. call document:current");
  if (extra.length > 0) throw new UsageError(`call takes one JSON argument, got also "${extra.join(" ")}"`);
  const params = buildParams(body, ctx.values.param ?? []);
  const output = ctx.values.output;
  return withConnection(ctx, { reconnect: false }, async (connection) => {
    const sent = PATH_METHOD.test(method) ? localPaths(params, { url: ctx.url, filesRoots: (await connection.getServerInfo()).filesRoots }, process.cwd()) : params;
    const result = await connection.invoke(method, sent, invokeOptions(ctx));
    if (output === undefined) {
      print(ctx, result);
      return EXIT_CODES.OK;
    }
    const written = await writeImage(output, result);
    if (written === undefined) throw new UsageError(`-o writes a returned image, but ${method} returned no image (no data URI)`);
    if (ctx.json) print(ctx, written);
    else ctx.out.write(describeWritten(written));
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

/** Writes the image a method returned to `output`; undefined when the result holds no image. */
async function writeImage(output: string, result: unknown): Promise<WrittenImage | undefined> {
  const image = imageOf(result);
  if (image === undefined) return undefined;
  const path = resolve(output);
  try {
    await writeFile(path, image.bytes);
  } catch (error) {
    throw localFileError(path, error);
  }
  return { path, size: image.bytes.byteLength, ...image.details };
}

/** `--layer-id` or `--layer-index` (not both) for `export-layer`; neither exports the active layer. */
function layerParams(values: Flags): Record<string, unknown> {
  const id = values["layer-id"];
  const index = values["layer-index"];
  if (id !== undefined && index !== undefined) throw new UsageError("export-layer takes --layer-id or --layer-index, not both");
  if (id !== undefined) return { layerId: nonNegativeInt("--layer-id", id) };
  if (index !== undefined) return { layerIndex: nonNegativeInt("--layer-index", index) };
  return {};
}

/** `export-document` and `export-layer`: export with the format options, write the image to `-o`. */
async function runExport(ctx: Context, method: "image:exportDocument" | "image:exportLayer", target: Record<string, unknown>): Promise<number> {
  const output = ctx.values.output;
  if (output === undefined) throw new UsageError(`${method === "image:exportLayer" ? "export-layer" : "export-document"} needs -o <file>`);
  const params = { ...target, ...exportParams(output, ctx.values) };
  return withConnection(ctx, { reconnect: false }, async (connection) => {
    const image = await connection.invoke(method, params, invokeOptions(ctx));
    const written = await writeImage(output, image);
    if (written === undefined) throw new BridgeError("INTERNAL", `${method} returned no image`);
    if (ctx.json) print(ctx, written);
    else ctx.out.write(describeWritten(written));
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

/**
 * The deadline, the interrupt (Ctrl-C aborts the call, and the SDK cancels it on the bridge) and, with
 * `--progress`, the bridge's progress reports on stderr (JSON lines with `--json`).
 */
function invokeOptions(ctx: Context): InvokeOptions {
  return {
    signal: ctx.signal,
    ...(ctx.timeoutMs === undefined ? {} : { timeoutMs: ctx.timeoutMs }),
    ...(ctx.values.progress === true ? { onProgress: (report: RequestProgress) => ctx.err.write(progressLine(report, ctx.json)) } : {}),
  };
}

/** One progress report as a line: `progress 42% compositing`, or its JSON. */
function progressLine(report: RequestProgress, json: boolean): string {
  if (json) return `${JSON.stringify({ progress: report })}\n`;
  const fraction = report.total === undefined ? report.progress : report.progress / report.total;
  return `progress ${Math.round(fraction * 100)}%${report.message === undefined ? "" : ` ${report.message}`}\n`;
}

/** Said when no bridge answers at the default address. */
const DEFAULT_URL_HINT = `no bridge answers at ${DEFAULT_BRIDGE_URL}, the default: start one (image-editor-bridge serve), or give yours with --url or BRIDGE_URL`;

function clientName(text: string): string {
  try {
    checkClientName(text);
  } catch (error) {
    throw new UsageError(`--name: ${(error as Error).message}`);
  }
  return text;
}

function print(ctx: Context, value: unknown): void {
  ctx.out.write(`${ctx.json ? JSON.stringify(value) : JSON.stringify(value, null, 2)}\n`);
}
