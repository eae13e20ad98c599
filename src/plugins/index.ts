export type { PluginRegistry } from "./registry.js";
export { PluginHost, type PluginFailure, type PluginHostOptions } from "./plugin-host.js";
export type { PluginEnvironment } from "./plugin.js";
