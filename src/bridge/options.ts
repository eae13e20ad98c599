import type { HostAdapter } from "../hosts/host.js";
import type { EmbeddedHostOptions } from "../hosts/embedded/index.js";
import type { ConfiguredWebhook } from "../events/webhooks.js";
import type { ClusterOptions } from "../cluster/options.js";
import type { Limits } from "../limits.js";
import type { Logger } from "../logger.js";
import type { MethodDefinition } from "../methods/index.js";


/** Where the bridge listens unless told otherwise. */
export const DEFAULT_LISTEN = { host: "127.0.0.1", port: 7700 } as const;

export interface BridgeOptions {
  /** The editor. @default the embedded editor with its sample document */
  host?: HostAdapter;
  /**
   * A pool of editors, each behind its own mailbox (ids `<kind>-<n>`, n from 1 in this order). Replaces `host`.
   * Documents live on one editor each and calls are routed to their owner (see `docs/editors.md`).
   */
  hosts?: HostAdapter[];
  /**
   * How many embedded editors to run when neither `host` nor `hosts` is given; about one per core minus one. The
   * sample document and `embedded.open` go to the first. @default 1
   */
  editors?: number;
  /**
   * Join a cluster of bridges over NATS (`--cluster`): this bridge's editors and documents get ids unique
   * cluster-wide, and it announces its editors and their load to the others (see `docs/cluster.md`).
   * Without it nothing NATS is loaded. @default none
   */
  cluster?: ClusterOptions;
  /** Options of the embedded editor when `host` is not given. */
  embedded?: EmbeddedHostOptions & {
    /**
     * Where the embedded editor runs: `process`, its own child process (heavy work never blocks the bridge's
     * clients; a crash, a stuck script or running out of memory restarts the editor, never the bridge), or
     * `inline`, the bridge's own thread (embedders that drive the editor directly; tests of the editor itself).
     * @default "process"
     */
    isolation?: "process" | "inline";
  };
  /** Folders `jsx:execute` runs named scripts from, on every editor (never outside them). @default [] */
  scriptDirs?: string[];
  /** Where `layer:importImage` may read images from. */
  imports?: ImportOptions;
  /** @default { host: "127.0.0.1", port: 7700 }; port 0 picks a free port */
  listen?: { host?: string; port?: number };
  /** Access token; required when `listen.host` is not a loopback address. */
  token?: string;
  /**
   * Read-only access token, for dashboards, monitors and event-stream readers: the methods that change nothing,
   * subscriptions, `/events`, `/status` and `/metrics`; everything else answers `FORBIDDEN` (SECURITY.md has the
   * table). Needs `token` (without one every caller has full access), and must differ from it.
   */
  readToken?: string;
  /** Extra allowed Origins (see `SecurityOptions.allowOrigins`). */
  allowOrigins?: string[];
  /** Extra allowed Host names (see `SecurityOptions.allowHosts`). */
  allowHosts?: string[];
  /**
   * Let `GET /health` and `GET /ready` answer without the token (for probes that cannot carry one). They show no
   * paths, ids or secrets; `GET /status` and every other route keep the token. @default false
   */
  publicHealth?: boolean;
  /** Overrides of the named limits in `limits.ts`. */
  limits?: Partial<Limits>;
  /**
   * Reverse proxies whose `X-Forwarded-For` the bridge believes (`--trust-proxy`): `true` or `"loopback"` for any
   * loopback peer, or exact IP addresses. From such a peer, `maxConnectionsPerAddress` counts the address the proxy
   * added (the header's last entry), not the proxy's own. @default none: the header is ignored
   */
  trustProxy?: boolean | readonly string[];
  /** Count loopback clients against `maxConnectionsPerAddress` too (they are exempt by default). @default false */
  countLoopbackPerAddress?: boolean;
  /** @default a silent logger */
  logger?: Logger;
  /** Extra methods served beside the built-ins (tests, embedders). */
  methods?: MethodDefinition[];
  /** Plugin folders to load first, in order (`--plugin`). */
  plugins?: string[];
  /** A folder whose child folders are plugins, loaded after `plugins`, sorted by name (`--plugins-dir`). */
  pluginsDir?: string;
  /** Per-plugin configuration (`ctx.config`), overlaid on each manifest's `imageEditorBridge.config`. */
  pluginConfig?: Record<string, Record<string, unknown>>;
  /**
   * Where every plugin's code runs, whatever its manifest's `imageEditorBridge.isolation` asks (`--plugin-isolation`):
   * `worker` (a thread with a memory cap, restarted when it crashes), `process` (a child process, the same, for
   * native modules), `none` (in the bridge's thread, e.g. to debug with breakpoints). Unset: each manifest decides, a worker by default.
   */
  pluginIsolation?: "worker" | "process" | "none";
  /** Reload a plugin when its folder changes (`--watch-plugins`, for development). @default false */
  watchPlugins?: boolean;
  /** Where clients may read and write files, and how saves treat the files they replace. */
  files?: FilesOptions;
  /**
   * Check every method result against its published schema and fail the call (`INTERNAL`) when it does not match.
   * @default on when `NODE_ENV` is `development` or `test`, off otherwise (it costs a parse per call)
   */
  checkResults?: boolean;
  /**
   * The Model Context Protocol server at `/mcp` (tools from the method table, document resources, prompts; see
   * `docs/mcp.md`), or `false` for none. Needs the optional `@modelcontextprotocol/sdk`; without it `/mcp` answers
   * NOT_SUPPORTED. `allowScripts` offers `jsx_run`/`jsx_execute` as tools (`--mcp-allow-scripts`): off, because a
   * model reading untrusted text could be talked into running code in the editor.
   * @default { allowScripts: false }
   */
  mcp?: { allowScripts?: boolean } | false;
  /**
   * Webhooks the bridge delivers events to (see `docs/integrations.md`). Those clients add live as long as the
   * bridge unless `webhooks.file` keeps them.
   */
  webhooks?: WebhookOptions;
}

/** Webhooks set up by the operator, and whether they may target private addresses. */
export interface WebhookOptions {
  /**
   * Added at start, in this order; never written to `file` (they come from the configuration each time). A hook
   * without `types` gets every event type the editors offer, but previews (`layer:previewChange`). @default none
   */
  hooks?: readonly ConfiguredWebhook[];
  /**
   * Where the webhooks clients add (`webhook:add`) are kept, with their ids and secrets, so they survive a restart
   * (`--webhooks-file`). Written whole after each change, atomically, mode 0600 when new. Queued deliveries are
   * not kept. @default none: they live as long as the bridge
   */
  file?: string;
  /**
   * Deliver to loopback, private, link-local or otherwise non-public addresses (`--allow-private-webhooks`). Off
   * guards the network behind the bridge against request forgery by whoever may add webhooks. @default false
   */
  allowPrivate?: boolean;
}

/** File access of a bridge (`--files-root`, `--allow-any-path`, `--allow-editor-scripts`, `--no-backup`). */
export interface FilesOptions {
  /**
   * Folders every path a client sends (open, save, export, imports, scripts' file access) must lie inside, after
   * symlinks are followed; relative paths resolve against the first. Without roots, any path the bridge user can
   * reach is allowed, which is only accepted on loopback unless `allowAnyPath` says so.
   * @default none (unconfined)
   */
  roots?: string[];
  /**
   * Start off loopback without `roots`: every token holder can then read and write any file the bridge user can.
   * @default false
   */
  allowAnyPath?: boolean;
  /**
   * Let `jsx:run`/`jsx:execute` run while confined on editors whose scripts reach any file (Photoshop, GIMP).
   * @default false
   */
  allowEditorScripts?: boolean;
  /** Keep the file a save replaces as `<name>.bak` (one backup, replaced each time). @default true */
  backupOnOverwrite?: boolean;
}

/** Import sources (`--no-file-import`, `--allow-private-import`); sizes and deadlines are in `limits`. */
export interface ImportOptions {
  /** Read `file:` URIs and local paths (inside the files roots). Off guards a bridge whose clients may not read files. @default true */
  allowFile?: boolean;
  /**
   * Fetch URLs whose host resolves to loopback, private, link-local or otherwise non-public addresses. Off guards
   * the network behind the bridge against request forgery. @default false
   */
  allowPrivateUrl?: boolean;
}

