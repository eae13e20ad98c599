export { createBridge, type Bridge } from "./bridge/bridge.js";
export { DEFAULT_LISTEN, type BridgeOptions, type FilesOptions, type ImportOptions } from "./bridge/options.js";
export { DEFAULT_LIMITS, type Limits } from "./limits.js";
export { createLogger, silentLogger, type Logger } from "./logger.js";
export type {
  DocumentTree,
  EncodedImage,
  HostAdapter,
  HostCallContext,
  HostInfo,
  ImportLayerOptions,
  OutlineStroke,
  PixelSize,
  PreviewEvent,
  Rgba,
  ScriptLanguage,
  SelectionOutline,
  SelectionShape,
} from "./hosts/host.js";
export { createEmbeddedHost } from "./hosts/embedded/index.js";
export { defineMethod, type MethodDefinition, type MethodContext } from "./methods/index.js";
export { saveTo } from "./client/node-save.js";
export * from "./protocol/index.js";
