/*
 * What `/health` and `/status` show: liveness in a small body cheap to poll,
 * and the operator's detailed view. Composed from the parts the bridge wires together.
 */
import type { ClientRegistry } from "./actors/client-registry.js";
import type { EditorPool } from "./actors/editor-pool.js";
import type { FileAccess } from "./files/index.js";
import type { PluginHost } from "./plugins/index.js";
import { PACKAGE } from "./version.js";

export interface StatusSources {
  readonly pool: EditorPool;
  readonly clients: ClientRegistry;
  readonly plugins: PluginHost;
  readonly files: FileAccess;
  readonly startedAt: number;
}

/** `GET /health`: the bridge answers, the editor's state, counts. */
export function healthView({ pool, clients, plugins, startedAt }: StatusSources): Record<string, unknown> {
  return {
    status: "ok",
    uptimeMs: Date.now() - startedAt,
    clients: clients.size,
    host: pool.first.session.status(),
    editors: { total: pool.editors.length, ready: pool.editors.filter((editor) => editor.session.isReady).length },
    plugins: { loaded: plugins.list().length, failed: plugins.failures().length },
  };
}

/** `GET /status`: the editors, clients by id prefix and name, plugins with their failures, the file rules. */
export function statusView({ pool, clients, plugins, files, startedAt }: StatusSources): Record<string, unknown> {
  const session = pool.first.session;
  return {
    status: "ok",
    name: PACKAGE.name,
    version: PACKAGE.version,
    uptimeMs: Date.now() - startedAt,
    editor: { ...session.status(), ...(session.hostVersion !== undefined ? { hostVersion: session.hostVersion } : {}) },
    editors: pool.summaries(),
    clients: clients.list().map((client) => client.summary()),
    plugins: { loaded: plugins.list(), failed: plugins.failures() },
    files: {
      roots: files.policy.roots,
      backupOnOverwrite: files.backupOnOverwrite,
      allowEditorScripts: files.allowEditorScripts,
      maxOpenFileBytes: files.maxOpenFileBytes,
    },
  };
}
