/*
 * The plugins as the HTTP transport sees them: whether an endpoint takes connections, a plugin's own routes, and the
 * views of `/plugins`, `/plugins/{id}/health` and the published contract.
 */
import type { BridgeError, PluginHealth, PluginInfo } from "../protocol/index.js";
import type { PluginContract } from "../methods/contract/index.js";
import type { PluginRouteRun } from "./plugin-host.js";

export interface PluginsPort {
  /** Null when the endpoint (`"root"` or a plugin id) accepts connections and event streams, else why not. */
  endpointError(endpoint: string): BridgeError | null;
  /**
   * The plugin route for `verb /plugins/{id}/{segments…}`: a function running its handler, or the verbs the path
   * answers to (empty when the plugin or path is unknown).
   */
  route(id: string, verb: string, segments: readonly string[]): PluginRouteRun | { verbs: string[] };
  /** `GET /plugins`: loaded plugins, plus the failures so a broken plugin can be diagnosed over HTTP. */
  list(): { plugins: PluginInfo[]; failed: PluginHealth[] };
  /** What each loaded plugin serves (methods, routes, event types), for the published contract. */
  contracts(): PluginContract[];
  /** Throws `PLUGIN_NOT_FOUND` for an unknown id. */
  health(id: string): PluginHealth;
}
