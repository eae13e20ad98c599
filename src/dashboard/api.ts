/*
 * The dashboard's reads of the bridge's HTTP views, under the same token as every other client. The token lives in
 * the tab's sessionStorage only: closing the tab forgets it, and other sites cannot read it.
 */
import { BridgeError, httpCall } from "../client/index.js";
import type { PluginHealth } from "../protocol/index.js";
import { browser } from "./dom.js";

const TOKEN_KEY = "image-editor-bridge.token";

/** The token this tab entered, if any. */
export function savedToken(): string | undefined {
  return browser.sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function saveToken(token: string | undefined): void {
  if (token === undefined || token === "") browser.sessionStorage.removeItem(TOKEN_KEY);
  else browser.sessionStorage.setItem(TOKEN_KEY, token);
}

/** One editor as `GET /status` shows it. */
export interface EditorStatus {
  id: string;
  kind: string;
  state: string;
  hostVersion?: string;
  queued: number;
  running: number;
  restarts: number;
  documents: number;
  clients: number;
  degraded: boolean;
  lastError?: string;
}

/** One logical client as `GET /status` shows it: an id prefix, never a full id. */
export interface ClientStatus {
  idPrefix: string;
  name?: string;
  endpoint: string;
  editorId?: string;
  state: "attached" | "detached";
  subscriptions: string[];
  inFlight: number;
  connectedAt: number;
}

/** One time bucket of the call statistics (`GET /status` `calls`, on bridges that report it). */
export interface CallBucket {
  at: number;
  count: number;
  errors: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

export interface CallStats {
  windowMs: number;
  bucketMs: number;
  buckets: CallBucket[];
}

/** One webhook as `GET /status` shows it (never its secret). Its URL comes from a user: show it as text only. */
export interface WebhookStatus {
  id: string;
  url: string;
  types: string[];
  documentId?: number | string;
  enabled: boolean;
  /** Why it was disabled (a run of failed attempts). */
  disabledReason?: string;
  queued: number;
  delivered: number;
  failedAttempts: number;
  dropped: number;
  consecutiveFailures: number;
}

/** The webhooks' totals and each webhook (`GET /status` `webhooks`). */
export interface WebhooksStatus {
  delivered: number;
  failed: number;
  dropped: number;
  hooks: WebhookStatus[];
}

/** One attempt of one delivery, as the webhook's delivery log keeps it. */
export interface DeliveryRecord {
  deliveryId: string;
  type: string;
  attempt: number;
  /** The receiver's HTTP status, or null when it did not answer (timeout, refused, DNS). */
  status: number | null;
  ok: boolean;
  durationMs: number;
  error?: string;
  /** ISO time of the attempt. */
  at: string;
}

/** `GET /webhooks/{id}/deliveries`: the webhook and its recent attempts, oldest first (bounded by the bridge). */
export interface DeliveryLog {
  webhook: WebhookStatus;
  deliveries: DeliveryRecord[];
}

/** What the dashboard reads of `GET /status` (the view may carry more). */
export interface StatusView {
  status: string;
  reasons: Array<{ component: string; status: string; message: string }>;
  name: string;
  version: string;
  uptimeMs: number;
  editors: EditorStatus[];
  clients: ClientStatus[];
  plugins: { loaded: Array<{ id: string }>; failed: Array<PluginHealth & { dir?: string }> };
  calls?: CallStats;
  webhooks?: WebhooksStatus;
  /** What the token that asked may do (absent from bridges before scoped tokens: full). */
  scope?: "full" | "read";
}

/** `GET /status`; throws a `BridgeError` (`UNAUTHORIZED` when the token is missing or wrong). */
export function readStatus(token: string | undefined): Promise<StatusView> {
  return httpCall<StatusView>({ url: browser.location.origin, token }, "/status");
}

/** `GET /plugins/{id}/health` of a loaded plugin. */
export function readPluginHealth(token: string | undefined, id: string): Promise<PluginHealth> {
  return httpCall<PluginHealth>({ url: browser.location.origin, token }, `/plugins/${encodeURIComponent(id)}/health`);
}

/** `GET /webhooks/{id}/deliveries`; throws a `BridgeError` (`NOT_FOUND` once the webhook is gone). */
export function readDeliveries(token: string | undefined, id: string): Promise<DeliveryLog> {
  return httpCall<DeliveryLog>({ url: browser.location.origin, token }, `/webhooks/${encodeURIComponent(id)}/deliveries`);
}

/** Whether an error says the token is missing or wrong. */
export function isUnauthorized(error: unknown): boolean {
  return error instanceof BridgeError && error.code === "UNAUTHORIZED";
}

/** One method as `GET /schema` publishes it: what the "try it" form is built from. */
export interface MethodSchema {
  params: JsonSchema;
  result: unknown;
  http?: { verb: string; path: string };
  /** Whether the method changes anything; absent for the dispatcher's own (`batch`, `request:cancel`). */
  mutates?: boolean;
  description?: string;
}

/** The part of JSON Schema the "try it" form reads. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  description?: string;
}

/** `GET /schema`: every built-in method's params and result schemas. */
export function readSchema(token: string | undefined): Promise<{ methods: Record<string, MethodSchema> }> {
  return httpCall({ url: browser.location.origin, token }, "/schema");
}

/** What `server:disconnectClient` answers. */
export interface DisconnectAnswer {
  client: ClientStatus;
  disconnected: boolean;
  evicted: boolean;
}

/** `POST /clients/{prefix}/disconnect` (`server:disconnectClient`): closes the client's socket, or evicts it. */
export function disconnectClient(token: string | undefined, idPrefix: string, evict: boolean): Promise<DisconnectAnswer> {
  return httpCall({ url: browser.location.origin, token }, `/clients/${encodeURIComponent(idPrefix)}/disconnect`, { method: "POST", body: { evict } });
}

/** `POST /plugins/{id}/reload`: loads the plugin's code again; answers its health once the new code serves. */
export function reloadPlugin(token: string | undefined, id: string): Promise<PluginHealth> {
  return httpCall({ url: browser.location.origin, token }, `/plugins/${encodeURIComponent(id)}/reload`, { method: "POST" });
}

/** `POST /webhooks/{id}/enable` (`webhook:enable`): a disabled webhook delivers again, what it queued first. */
export function enableWebhook(token: string | undefined, id: string): Promise<WebhookStatus> {
  return httpCall({ url: browser.location.origin, token }, `/webhooks/${encodeURIComponent(id)}/enable`, { method: "POST", body: {} });
}
