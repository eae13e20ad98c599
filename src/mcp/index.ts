export * from "./backend.js";
export * from "./http.js";
export * from "./in-process.js";
export * from "./server.js";
export * from "./sdk.js";
export * from "./tools.js";
export { PROMPTS, type McpPrompt } from "./prompts.js";
export { RESOURCE_SCHEME, RESOURCE_TEMPLATES } from "./resources.js";
