import type { BridgeError, Health, PluginHealth, PluginInfo, Readiness } from "../protocol/index.js";
import type { ClientRegistry } from "../actors/clients/registry.js";
import type { Dispatcher } from "../calls/dispatcher.js";
import type { Limits } from "../limits.js";
import type { Logger } from "../logger.js";
import type { PluginRouteRun } from "../plugins/index.js";
import type { SecurityOptions } from "./security.js";
import type { PluginContract } from "../methods/contract/index.js";


/** What the transports need from the bridge: they translate, the bridge decides. */
export interface TransportTarget {
  readonly dispatcher: Dispatcher;
  readonly clients: ClientRegistry;
  readonly limits: Limits;
  readonly security: SecurityOptions;
  readonly log: Logger;
  readonly server: { readonly name: string; readonly version: string };
  /**
   * In a cluster: makes a client another bridge holds or held resumable here (`?resume=` of an id this bridge does
   * not have). Resolves with a refusal to answer instead, or undefined to go on with the resume.
   */
  resumeElsewhere?(id: string, endpoint: string, takeover: boolean): Promise<BridgeError | undefined>;
  /** `null` when the bridge has an editor with this id, else the `BAD_REQUEST` to answer (`?editor=`, `X-Bridge-Editor`). */
  checkEditor(editorId: string): BridgeError | null;
  /** Whether new connections and requests are still accepted (false once shutdown began). */
  accepting(): boolean;
  /** Null when the endpoint (`"root"` or a plugin id) accepts connections, else why not. */
  endpointError(endpoint: string): BridgeError | null;
  /** Admits a new logical client of a plugin endpoint (its `onConnect`); rejects with the refusal. */
  admit(endpoint: string, clientId: string): Promise<void>;
  /**
   * The plugin route for `verb /plugins/{id}/{segments…}`: a function running its handler, or the verbs the
   * path answers to (empty when the plugin or path is unknown).
   */
  pluginRoute(id: string, verb: string, segments: readonly string[]): PluginRouteRun | { verbs: string[] };
  /** `GET /ready`: `ok`, `degraded` (some part missing) or `down` (no editor ready, or shutting down: 503), with reasons. */
  readiness(): Readiness;
  /** `GET /health`: liveness, a small fixed body. */
  health(): Health;
  /** `GET /status`: the operator's detailed view (editor, clients by short id, plugins, files roots). */
  status(): Record<string, unknown>;
  /** `GET /plugins`: loaded plugins, plus the failures so a broken plugin can be diagnosed over HTTP. */
  plugins(): { plugins: PluginInfo[]; failed: PluginHealth[] };
  /** What each loaded plugin serves (methods, routes, event types), for the published contract. */
  pluginContracts(): PluginContract[];
  /** Throws `PLUGIN_NOT_FOUND` for an unknown id. */
  pluginHealth(id: string): PluginHealth;
  /** `GET /metrics`: the Prometheus text exposition of the bridge's metrics. */
  metrics(): Promise<string>;
}
