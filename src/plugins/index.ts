export { createEmptyPluginRegistry, type PluginRegistry } from "./registry.js";
