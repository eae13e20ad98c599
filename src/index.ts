export { createBridge, DEFAULT_LISTEN, type Bridge, type BridgeOptions } from "./bridge.js";
export { DEFAULT_LIMITS, type Limits } from "./limits.js";
export { createLogger, silentLogger, type Logger } from "./logger.js";
export type { EncodedImage, ExportOptions, HostAdapter, HostCallContext, HostInfo, LayerRef } from "./hosts/host.js";
export { createEmbeddedHost } from "./hosts/embedded/index.js";
export { defineMethod, type MethodDefinition, type MethodContext } from "./methods/index.js";
export { CLOSE_CODES } from "./actors/client.js";
export * from "./protocol/index.js";
