import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import { createBridge, type Bridge } from "../bridge/bridge.js";
import { Connection } from "../client/index.js";
import type { Limits } from "../limits.js";
import { silentLogger, type Logger } from "../logger.js";
import { readManifest } from "../plugins/manifest.js";
import { BridgeError, type PluginHealth } from "../protocol/index.js";

export interface TestBridgeOptions {
  /** Plugin folders (paths or `file:` URLs such as `new URL(".", import.meta.url)`), loaded in this order as with `--plugin`. */
  plugins: ReadonlyArray<string | URL>;
  /**
   * The editor behind the bridge: `embedded`, the bridge's in-memory editor with its sample document open
   * (`Sample.psd`, 5 layers). @default "embedded"
   */
  editor?: "embedded";
  /**
   * Where the embedded editor runs. `inline` (the test's own thread) starts in milliseconds and needs nothing
   * spawned; `process` is the bridge's production default (a child process per editor), for tests of behaviour that
   * depends on it. @default "inline"
   */
  editorIsolation?: "inline" | "process";
  /** The plugin endpoint `client` connects to (`/ws/{id}`). @default the id of the first folder in `plugins` */
  endpoint?: string;
  /** `ctx.config` per plugin id, laid over each manifest's `imageEditorBridge.config`. */
  config?: Record<string, Record<string, unknown>>;
  /** Overrides of the bridge's named limits, e.g. `{ pluginCallTimeoutMs: 1_000 }`. */
  limits?: Partial<Limits>;
  /**
   * Resolve even when a plugin failed to load, for tests of a plugin's own failures (read them with
   * `client.plugins()` or `client.pluginHealth(id)`). Otherwise a failed plugin rejects with its `lastError`, so a
   * broken plugin fails its test with the reason. @default false
   */
  allowLoadFailures?: boolean;
  /** Where the bridge logs. @default silent */
  logger?: Logger;
}

export interface TestBridge {
  /** The running bridge (loopback, a free port). */
  readonly bridge: Bridge;
  /** A connected client of the plugin's endpoint (`/ws/{id}`): `invoke` its methods (and the built-ins), `on` its events. */
  readonly client: Connection;
  /** The bridge's HTTP base address, e.g. for `fetch(`${url}/plugins/{id}/…`)`. */
  readonly url: string;
  /** Opens another connected client, of a plugin's endpoint or (`null`) the root endpoint; `close()` closes it too. */
  connect(endpoint?: string | null): Promise<Connection>;
  /** Closes every client the kit opened, then the bridge (running `onDispose`). Safe to call twice. */
  close(): Promise<void>;
}

const folderOf = (plugin: string | URL): string => (plugin instanceof URL || plugin.startsWith("file:") ? fileURLToPath(plugin) : plugin);

/**
 * Starts a bridge for a plugin's tests: loopback, port 0, the embedded editor with its sample document, the given
 * plugin folders loaded; resolves once a client of the plugin's endpoint is connected.
 *
 * @example
 * import { createTestBridge } from "image-editor-bridge/testing";
 * const t = await createTestBridge({ plugins: [new URL(".", import.meta.url)], editor: "embedded" });
 * try {
 *   const summary = await t.client.invoke("layer-stats:summary");
 *   expect(summary).toMatchObject({ layers: 5 });
 * } finally {
 *   await t.close();
 * }
 */
export async function createTestBridge(options: TestBridgeOptions): Promise<TestBridge> {
  const folders = options.plugins.map(folderOf);
  if (folders.length === 0) throw new BridgeError("BAD_REQUEST", "createTestBridge needs at least one plugin folder in `plugins`");
  if ((options.editor ?? "embedded") !== "embedded") {
    throw new BridgeError("BAD_REQUEST", `createTestBridge runs the embedded editor only, not "${options.editor}"`, { details: { editor: options.editor } });
  }
  const bridge = createBridge({
    listen: { host: "127.0.0.1", port: 0 },
    embedded: { isolation: options.editorIsolation ?? "inline" },
    plugins: folders,
    logger: options.logger ?? silentLogger(),
    ...(options.config === undefined ? {} : { pluginConfig: options.config }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  const clients: Connection[] = [];
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await bridge.close();
    })();
    return closing;
  };
  try {
    await bridge.start();
    const connect = async (endpoint: string | null = null): Promise<Connection> => {
      const client = new Connection({ url: bridge.url, WebSocket, name: "test-kit", ...(endpoint === null ? {} : { pluginId: endpoint }) });
      clients.push(client);
      await client.ready();
      return client;
    };
    const listed = (await (await fetch(`${bridge.url}/plugins`)).json()) as { plugins: Array<{ id: string }>; failed: Array<PluginHealth & { dir: string }> };
    const failure = listed.failed[0];
    if (failure !== undefined && options.allowLoadFailures !== true) {
      const last = failure.lastError;
      throw new BridgeError(last?.code ?? "PLUGIN_LOAD_FAILED", `Plugin "${failure.id}" (${failure.dir}) did not load: ${last?.message ?? "unknown reason"}`, {
        details: { pluginId: failure.id, dir: failure.dir, ...(last?.details ?? {}) },
      });
    }
    const endpoint = options.endpoint ?? (await readManifest({ dir: folders[0]!, realDir: folders[0]!, fallbackId: "" }).catch(() => undefined))?.id;
    const loaded = listed.plugins.some((p) => p.id === endpoint) ? endpoint! : listed.plugins.length === 1 ? listed.plugins[0]!.id : undefined;
    const client = loaded === undefined ? await connect(null) : await connect(loaded);
    return { bridge, client, url: bridge.url, connect, close };
  } catch (error) {
    await close();
    throw error;
  }
}
