import type { EditorSummary, Health, PluginHealth, PluginInfo, Readiness, ReadinessReason, ReadinessStatus } from "../protocol/resources.js";
import { BridgeError, CLIENT_ERROR_CODES, looksLikeProtocolError } from "./errors.js";
import { endpointsOf } from "./_internal/url.js";
import type { FetchLike } from "./types.js";

/** Deadline of the HTTP helpers; they read small status documents. */
export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;

export interface HttpClientOptions {
  /** Any address of the bridge: `http://127.0.0.1:7700` or its `ws://…/ws` URL. */
  url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string | undefined;
  /** @default globalThis.fetch */
  fetch?: FetchLike | undefined;
  /** @default DEFAULT_HTTP_TIMEOUT_MS */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** `GET /status`: the operator's detailed view (its shape may grow; read the fields you need). */
export interface BridgeStatus {
  status: ReadinessStatus;
  reasons: ReadinessReason[];
  name: string;
  version: string;
  uptimeMs: number;
  editors: (EditorSummary & { degraded: boolean; lastError?: string })[];
  [key: string]: unknown;
}

/** `GET /plugins`: the loaded plugins, and those that failed with why (and their folder). */
export interface BridgePlugins {
  plugins: PluginInfo[];
  failed: (PluginHealth & { dir?: string })[];
}

function defaultFetch(): FetchLike {
  const f = (globalThis as { fetch?: FetchLike }).fetch;
  if (f === undefined) throw new TypeError("No global fetch: pass the `fetch` option");
  return f;
}

/**
 * One HTTP call to the bridge. Success bodies are bare results (no envelope); failures are a bare
 * `ProtocolError`, thrown as a {@link BridgeError}.
 */
export async function httpCall<T>(
  options: HttpClientOptions,
  path: string,
  init: { method?: "GET" | "POST"; body?: unknown; accept?: (status: number) => boolean } = {},
): Promise<T> {
  const base = endpointsOf(options.url).http;
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.token) headers["authorization"] = `Bearer ${options.token}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onAbort = (): void => controller.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let status: number;
  let text: string;
  try {
    const request: Parameters<FetchLike>[1] = { method: init.method ?? "GET", headers, signal: controller.signal };
    if (init.body !== undefined) request.body = JSON.stringify(init.body);
    const response = await (options.fetch ?? defaultFetch())(`${base}${path}`, request);
    status = response.status;
    text = await response.text();
  } catch (error) {
    const reason = options.signal?.aborted
      ? CLIENT_ERROR_CODES.ABORTED
      : controller.signal.aborted
        ? CLIENT_ERROR_CODES.TIMEOUT
        : CLIENT_ERROR_CODES.CONNECTION_FAILED;
    // fetch hides the useful part (ECONNREFUSED, ENOTFOUND…) in `cause`.
    const why = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error)?.message ?? String(error);
    const what =
      reason === CLIENT_ERROR_CODES.TIMEOUT
        ? `no answer within ${timeoutMs} ms`
        : reason === CLIENT_ERROR_CODES.ABORTED
          ? "aborted"
          : `the bridge is not reachable (${why})`;
    throw new BridgeError(reason, `${init.method ?? "GET"} ${base}${path}: ${what}`, {
      retryable: reason !== CLIENT_ERROR_CODES.ABORTED,
      details: { url: `${base}${path}`, timeoutMs },
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  if ((status >= 200 && status < 300) || init.accept?.(status) === true) return body as T;
  if (looksLikeProtocolError(body)) throw BridgeError.fromProtocolError(body);
  throw new BridgeError("INTERNAL", `HTTP ${status} from ${base}${path}`, { details: { status, body: text.slice(0, 500) } });
}

/**
 * `GET /health`: liveness, whether the bridge process answers (a small fixed body).
 *
 * @example
 * const { version } = await health({ url: "http://127.0.0.1:7700" });
 */
export function health(options: HttpClientOptions): Promise<Health> {
  return httpCall<Health>(options, "/health");
}

/**
 * `GET /ready`: `ok`, `degraded` or `down` with the reasons. Resolves for `down` too (the route answers 503 then);
 * throws only when the bridge cannot be asked.
 *
 * @example
 * const ready = await readiness({ url: "http://127.0.0.1:7700" });
 * if (ready.status !== "ok") console.warn(ready.reasons.map((r) => r.message).join("; "));
 */
export function readiness(options: HttpClientOptions): Promise<Readiness> {
  return httpCall<Readiness>(options, "/ready", { accept: (code) => code === READY_DOWN_STATUS });
}

/** The HTTP status `GET /ready` answers while the bridge is `down`. */
const READY_DOWN_STATUS = 503;

/** `GET /status`: the operator's view: readiness, editors with their last error, clients, plugins, file rules. */
export function status(options: HttpClientOptions): Promise<BridgeStatus> {
  return httpCall<BridgeStatus>(options, "/status");
}

/** `GET /plugins`: the loaded plugins and the failed ones, with why they failed. */
export function plugins(options: HttpClientOptions): Promise<BridgePlugins> {
  return httpCall<BridgePlugins>(options, "/plugins");
}

/** `GET /plugins/{id}/health`: a plugin's state or why it failed to load. */
export function pluginHealth(options: HttpClientOptions, id: string): Promise<PluginHealth> {
  return httpCall<PluginHealth>(options, `/plugins/${encodeURIComponent(id)}/health`);
}

/** Where one bridge's HTTP resources are and how to reach them. */
export type BridgeHttpOptions = Pick<HttpClientOptions, "url" | "token" | "fetch">;

/**
 * One bridge's HTTP resources: `/health`, `/ready`, `/status`, `/plugins` and a plugin's health. A `Connection` is
 * one (of the bridge it talks to), so an app that holds a connection needs no address twice.
 */
export class BridgeResources {
  constructor(private readonly resourceOptions: BridgeHttpOptions) {}

  /** `GET /health` of this bridge: liveness. */
  health(options: { signal?: AbortSignal } = {}): Promise<Health> {
    return health({ ...this.resourceOptions, signal: options.signal });
  }

  /** `GET /ready` of this bridge: `ok`, `degraded` or `down` with the reasons. */
  readiness(options: { signal?: AbortSignal } = {}): Promise<Readiness> {
    return readiness({ ...this.resourceOptions, signal: options.signal });
  }

  /** `GET /status` of this bridge: the operator's detailed view. */
  status(options: { signal?: AbortSignal } = {}): Promise<BridgeStatus> {
    return status({ ...this.resourceOptions, signal: options.signal });
  }

  /** `GET /plugins` of this bridge: loaded plugins and failed ones. */
  plugins(options: { signal?: AbortSignal } = {}): Promise<BridgePlugins> {
    return plugins({ ...this.resourceOptions, signal: options.signal });
  }

  /** `GET /plugins/{id}/health` of this bridge. */
  pluginHealth(id: string, options: { signal?: AbortSignal } = {}): Promise<PluginHealth> {
    return pluginHealth({ ...this.resourceOptions, signal: options.signal }, id);
  }
}
