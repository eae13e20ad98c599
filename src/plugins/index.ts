export { PluginHost, type PluginFailure, type PluginHostOptions, type PluginRouteRun } from "./plugin-host.js";
export type { PluginEnvironment } from "./plugin.js";
