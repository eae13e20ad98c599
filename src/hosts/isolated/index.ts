export { createIsolatedEmbeddedHost } from "./proxy.js";
export type { IsolatedEmbeddedHostOptions, IsolatedHost } from "./options.js";
export { EDITOR_RESTARTED_EVENT, type EditorRestartedEvent } from "./protocol.js";
export {
  EDITOR_CLOSE_GRACE_MS,
  EDITOR_HEAP_SHARE,
  EDITOR_MEMORY_SAMPLE_MS,
  EDITOR_MIN_HEAP_BYTES,
  EDITOR_START_TIMEOUT_MS,
  EDITOR_STDERR_TAIL_BYTES,
} from "./limits.js";
