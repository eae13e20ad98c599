/**
 * Hard limits of the script sandbox (`jsx:run` / `jsx:execute`). Each run gets its own QuickJS module over its own
 * capped `WebAssembly.Memory`, so a script can never grow the bridge's memory past these numbers
 * (QuickJS's own memory limit does not bound large buffers).
 */

/** Longest deadline a run may have; longer ones are clamped (scripts 120 s). @default 120_000 */
export const SCRIPT_MAX_TIMEOUT_MS = 120_000;

/** Hard cap of a script's heap (the wasm memory maximum): a runaway allocation fails inside the guest. @default 64 MiB */
export const SCRIPT_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Memory a run starts with; it grows on demand up to {@link SCRIPT_MEMORY_LIMIT_BYTES}. This is the QuickJS build's
 * declared minimum (256 pages), so it is also the smallest possible cap. @default 16 MiB
 */
export const SCRIPT_INITIAL_MEMORY_BYTES = 16 * 1024 * 1024;

/**
 * Guest stack: deep recursion fails as a catchable `InternalError` long before it could exhaust the host's own
 * stack (which would otherwise surface as a host `RangeError`). @default 512 KiB
 */
export const SCRIPT_MAX_STACK_BYTES = 512 * 1024;

/** Largest completion value, as JSON text, a script may return (bounds the response frame). @default 8 MiB */
export const SCRIPT_MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

/** Largest script source, in UTF-8 bytes (the editor's `scriptLanguage.maxBytes`). @default 1 MiB */
export const SCRIPT_MAX_SOURCE_BYTES = 1024 * 1024;

/** Longest message of the script API's `progress(p, message)`, in characters (it is sent to the client as is). @default 200 */
export const SCRIPT_MAX_PROGRESS_MESSAGE_CHARS = 200;

/** Largest JSON text of one editor-API call's arguments (a script cannot push huge payloads into the host). @default 1 MiB */
export const SCRIPT_MAX_CALL_BYTES = 1024 * 1024;

/**
 * Largest JSON text one editor-API call may hand back to the guest (e.g. `exportImage` data URIs): it has to fit
 * in the guest heap. Larger answers fail as a catchable `PAYLOAD_TOO_LARGE`. @default 16 MiB
 */
export const SCRIPT_MAX_REPLY_BYTES = 16 * 1024 * 1024;
