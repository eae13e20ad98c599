import type { BridgeError, PluginHealth, PluginInfo } from "../protocol/index.js";
import type { ClientRegistry } from "../actors/client-registry.js";
import type { Dispatcher } from "../actors/dispatcher.js";
import type { Limits } from "../limits.js";
import type { Logger } from "../logger.js";
import type { SecurityOptions } from "./security.js";

/** What the transports need from the bridge: they translate, the bridge decides. */
export interface TransportTarget {
  readonly dispatcher: Dispatcher;
  readonly clients: ClientRegistry;
  readonly limits: Limits;
  readonly security: SecurityOptions;
  readonly log: Logger;
  readonly server: { readonly name: string; readonly version: string };
  /** Whether new connections and requests are still accepted (false once shutdown began). */
  accepting(): boolean;
  /** Null when the endpoint (`"root"` or a plugin id) accepts connections, else why not. */
  endpointError(endpoint: string): BridgeError | null;
  health(): Record<string, unknown>;
  plugins(): PluginInfo[];
  /** Throws `PLUGIN_NOT_FOUND` for an unknown id. */
  pluginHealth(id: string): PluginHealth;
  /** Prometheus text exposition of the bridge's counters. */
  metrics(): string;
}
