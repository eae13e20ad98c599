import { BridgeError, type PluginHealth, type PluginInfo } from "../protocol/index.js";

/**
 * What the bridge asks of its plugins: which are loaded, how each is doing, and whether a plugin endpoint
 * (`/ws/{id}`) may be connected to. This is the seam the plugin host (discovery, lifecycle actors, methods,
 * routes) plugs into; until it exists the registry is empty and every plugin id is unknown.
 */
export interface PluginRegistry {
  /** Loaded plugins, in load order (`GET /plugins`, `getServerInfo.plugins`, `#ready.plugins`). */
  list(): PluginInfo[];
  /** Health of a loaded or failed plugin; throws `PLUGIN_NOT_FOUND` for an id never seen. */
  health(id: string): PluginHealth;
  /** Null when `/ws/{id}` accepts connections, else the error to refuse them with. */
  endpointError(id: string): BridgeError | null;
}

function notFound(id: string): BridgeError {
  return new BridgeError("PLUGIN_NOT_FOUND", `No plugin "${id}" is loaded`, { details: { pluginId: id } });
}

/** The registry of a bridge without plugins. */
export function createEmptyPluginRegistry(): PluginRegistry {
  return {
    list: () => [],
    health: (id) => {
      throw notFound(id);
    },
    endpointError: (id) => notFound(id),
  };
}
