/*
 * What `/health`, `/ready` and `/status` show: liveness in a small fixed body cheap to poll, readiness with its
 * reasons for a load balancer, and the operator's detailed view. Composed from the parts the bridge wires together.
 */
import type { ClientRegistry } from "../actors/clients/registry.js";
import type { EditorPool } from "../actors/editors/pool.js";
import type { ClusterNode } from "../cluster/node.js";
import type { FileAccess } from "../files/index.js";
import type { PluginHost } from "../plugins/index.js";
import type { Health, Readiness, ReadinessReason, RecentCalls } from "../protocol/index.js";
import type { BridgeViews } from "../transports/views.js";
import { PACKAGE } from "../version.js";

export interface StatusSources {
  readonly pool: EditorPool;
  readonly clients: ClientRegistry;
  readonly plugins: PluginHost;
  readonly files: FileAccess;
  readonly startedAt: number;
  /** The calls of the last minutes in time buckets (`calls`). */
  readonly calls: () => RecentCalls;
  /** How many webhooks are disabled after a run of failed deliveries. @default none */
  readonly disabledWebhooks?: () => number;
  /** The bridge's membership of a cluster, when it runs in one. */
  readonly cluster?: Pick<ClusterNode, "status" | "readiness" | "info"> | undefined;
}

/** `GET /health`: liveness only, a small fixed body (no lists) cheap enough to poll hard. */
export function healthView({ startedAt }: Pick<StatusSources, "startedAt">): Health {
  return { status: "ok", name: PACKAGE.name, version: PACKAGE.version, uptimeMs: Math.max(0, Math.round(Date.now() - startedAt)) };
}

/** Editors grouped by kind and state, e.g. `gimp backoff ×2`: what a reason may say without naming ids or paths. */
function describeEditors(editors: readonly { kind: string; state: string }[]): string {
  const counts = new Map<string, number>();
  for (const { kind, state } of editors) counts.set(`${kind} ${state}`, (counts.get(`${kind} ${state}`) ?? 0) + 1);
  return [...counts].map(([what, n]) => (n === 1 ? what : `${what} ×${n}`)).join(", ");
}

/**
 * `GET /ready`: whether the bridge takes work. `down` when it is shutting down or no editor is ready; `degraded`
 * when some editor is not ready or slow, a plugin failed to load or fails a health check, a webhook was disabled,
 * or the bridge's cluster is not reachable; `ok` otherwise.
 */
export function readinessView(
  { pool, plugins, disabledWebhooks, cluster }: Pick<StatusSources, "pool" | "plugins" | "disabledWebhooks" | "cluster">,
  accepting: boolean,
): Readiness {
  const reasons: ReadinessReason[] = [];
  const editors = pool.editors.map((editor) => ({ ...editor.session.status(), isReady: editor.session.isReady }));
  const ready = editors.filter((editor) => editor.isReady);
  if (!accepting) reasons.push({ component: "bridge", status: "down", message: "the bridge is shutting down" });
  const waiting = editors.filter((editor) => !editor.isReady);
  if (pool.frontDoor) {
    // No editor of its own (`--editors 0`): it takes work while another bridge's editor does.
    if ((cluster?.info().editors.length ?? 0) === 0) {
      reasons.push({ component: "editors", status: "down", message: "this bridge runs no editor (--editors 0), and no other bridge's editor takes calls now" });
    }
  } else if (ready.length === 0) {
    reasons.push({ component: "editors", status: "down", message: `no editor is ready (${describeEditors(waiting)})` });
  } else if (waiting.length > 0) {
    reasons.push({ component: "editors", status: "degraded", message: `${waiting.length} of ${editors.length} editors not ready (${describeEditors(waiting)})` });
  }
  const slow = ready.filter((editor) => editor.degraded).length;
  if (slow > 0) reasons.push({ component: "editors", status: "degraded", message: `${slow} of ${editors.length} editors answer slowly` });
  const loaded = plugins.list();
  const failed = plugins.failures().length;
  if (failed > 0) reasons.push({ component: "plugins", status: "degraded", message: `${failed} plugin${failed === 1 ? "" : "s"} failed to load` });
  const failing = loaded.filter(({ id }) => Object.values(plugins.health(id).checks ?? {}).includes("failed")).length;
  if (failing > 0) reasons.push({ component: "plugins", status: "degraded", message: `${failing} plugin${failing === 1 ? "" : "s"} failing a health check` });
  // A disabled webhook is the bridge not doing part of its job: degraded, never down.
  const disabled = disabledWebhooks?.() ?? 0;
  if (disabled > 0) reasons.push({ component: "webhooks", status: "degraded", message: `${disabled} webhook${disabled === 1 ? "" : "s"} disabled after failed deliveries` });
  // NATS unreachable or the cluster not joined: the bridge still serves its own editors and clients.
  const clusterReason = cluster?.readiness();
  if (clusterReason !== undefined) reasons.push(clusterReason);
  const status = reasons.some((reason) => reason.status === "down") ? "down" : reasons.length > 0 ? "degraded" : "ok";
  return { status, reasons, editors: { total: editors.length, ready: ready.length }, plugins: { loaded: loaded.length, failed } };
}

/**
 * `GET /status`: readiness with its reasons, the editors (with their memory budget and use, where they keep one), clients by id prefix and name, plugins with their failures,
 * the file rules, and the recent calls (count, errors and latency percentiles per time bucket, oldest first).
 */
export function statusView(sources: StatusSources, accepting: boolean): Record<string, unknown> {
  const { pool, clients, plugins, files, startedAt, calls } = sources;
  const session = pool.first.session;
  const { status, reasons } = readinessView(sources, accepting);
  return {
    status,
    reasons,
    name: PACKAGE.name,
    version: PACKAGE.version,
    uptimeMs: Date.now() - startedAt,
    editor: { ...session.status(), ...(session.hostVersion !== undefined ? { hostVersion: session.hostVersion } : {}) },
    // The summaries every client may read, plus what only the operator sees: why an editor is not ready.
    editors: pool.summaries().map((summary, i) => {
      const editor = pool.editors[i]!;
      const { lastError, degraded } = editor.session.status();
      const memory = editor.host.memoryUse();
      return { ...summary, degraded, ...(lastError !== undefined ? { lastError } : {}), ...(memory !== undefined ? { memory } : {}) };
    }),
    clients: clients.list().map((client) => client.summary()),
    plugins: { loaded: plugins.list(), failed: plugins.failures() },
    files: {
      roots: files.policy.roots,
      backupOnOverwrite: files.backupOnOverwrite,
      allowEditorScripts: files.allowEditorScripts,
      maxOpenFileBytes: files.maxOpenFileBytes,
    },
    calls: calls(),
    ...(sources.cluster !== undefined ? { cluster: sources.cluster.status() } : {}),
  };
}

/**
 * The views the HTTP transport serves: `/status` is the detailed view plus what only the transports count (event
 * streams, connections, bytes being received, MCP sessions) and the webhooks.
 */
export function bridgeViews(
  sources: StatusSources,
  accepting: () => boolean,
  extra: () => Record<string, unknown>,
  metrics: () => Promise<string>,
): BridgeViews {
  return {
    server: { name: PACKAGE.name, version: PACKAGE.version },
    health: () => healthView(sources),
    readiness: () => readinessView(sources, accepting()),
    status: () => ({ ...statusView(sources, accepting()), ...extra() }),
    metrics,
  };
}
