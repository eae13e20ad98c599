import type { BridgeError, PluginHealth, PluginInfo } from "../protocol/index.js";

/**
 * What the transports ask of the plugins: which are loaded, how each is doing, and whether a plugin endpoint
 * (`/ws/{id}`) may be connected to. `PluginHost` implements it.
 */
export interface PluginRegistry {
  /** Loaded plugins, in load order (`GET /plugins`, `getServerInfo.plugins`, `#ready.plugins`). */
  list(): PluginInfo[];
  /** Health of a loaded or failed plugin; throws `PLUGIN_NOT_FOUND` for an id never seen. */
  health(id: string): PluginHealth;
  /** Null when `/ws/{id}` accepts connections, else the error to refuse them with. */
  endpointError(id: string): BridgeError | null;
}
