/**
 * One script run in QuickJS (WebAssembly). Nothing of the host is reachable from the guest except the two
 * functions given here, and only JSON text crosses in either direction. Every run instantiates its own module
 * over its own capped `WebAssembly.Memory`: the memory cap holds for large buffers too, and whatever the script
 * did (even a wasm trap) is thrown away with the module. The memory of a run that ended cleanly is zeroed and
 * serves a later run (see `takeMemory`).
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import * as releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSSyncVariant } from "quickjs-emscripten-core";
import { BridgeError, isBridgeError } from "../../../protocol/errors.js";
import {
  SCRIPT_INITIAL_MEMORY_BYTES,
  SCRIPT_MAX_CALL_BYTES,
  SCRIPT_MAX_OUTPUT_BYTES,
  SCRIPT_MAX_REPLY_BYTES,
  SCRIPT_MAX_STACK_BYTES,
  SCRIPT_MEMORY_LIMIT_BYTES,
} from "./limits.js";
import { failure, type GuestFailure, guestFailure, machineFailure } from "./failures.js";


/** What the guest sees of a host error: `code` and `details` of a `BridgeError`, never a stack. */
export interface GuestError {
  readonly code: string;
  readonly message: string;
  readonly details?: Record<string, unknown> | undefined;
}

export interface SandboxOptions {
  /** Script text; its completion value (awaited when it is a promise) is the result. */
  readonly source: string;
  /** File name errors and line numbers refer to. */
  readonly filename: string;
  readonly timeoutMs: number;
  /**
   * Aborts the run (cancelled, bridge deadline, shutdown): its `reason` is the error the run fails with when it
   * is a `BridgeError`, else a `TIMEOUT`. Also ends a wait on a host operation.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Throws the abort reason once the run is cancelled; called with every deadline check, so it stops a script
   * busy in a loop even when `signal` cannot fire (this thread is the one running the script).
   */
  readonly checkpoint?: (() => void) | undefined;
  /** Script run before `source` (same realm), e.g. the editor API. It sees `__host` and `__hostAsync`. */
  readonly prelude?: string | undefined;
  /** JSON values set as globals before the prelude runs (e.g. `params`). */
  readonly globals?: Readonly<Record<string, unknown>> | undefined;
  /** A synchronous host operation; a thrown `BridgeError` becomes a catchable guest exception. */
  readonly call?: ((op: string, args: unknown) => unknown) | undefined;
  /** An asynchronous host operation: the guest receives a promise. */
  readonly callAsync?: ((op: string, args: unknown) => Promise<unknown>) | undefined;
  /** Heap cap; at least SCRIPT_INITIAL_MEMORY_BYTES (the engine's own minimum). @default SCRIPT_MEMORY_LIMIT_BYTES */
  readonly memoryBytes?: number | undefined;
  /** @default SCRIPT_MAX_OUTPUT_BYTES */
  readonly maxOutputBytes?: number | undefined;
  /** Largest answer of one host call handed to the guest. @default SCRIPT_MAX_REPLY_BYTES */
  readonly maxReplyBytes?: number | undefined;
}

/** The slice of the WebAssembly API used here (this project's `lib` setting has no WebAssembly types). */
declare namespace WebAssembly {
  class Module {
    private readonly brand: "Module";
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
  }
  function compile(bytes: Uint8Array): Promise<Module>;
}

/** The sync release build; its typings are CommonJS, so the ESM default export is `.default` on the namespace. */
const RELEASE_SYNC = pickVariant(releaseSync);

function pickVariant(namespace: unknown): QuickJSSyncVariant {
  const first = (namespace as { default?: unknown }).default;
  const nested = (first as { default?: unknown } | undefined)?.default;
  return ((first as { type?: unknown } | undefined)?.type === "sync" ? first : nested) as QuickJSSyncVariant;
}

const WASM_PAGE = 64 * 1024;
const PRELUDE_FILENAME = "editor-api.js";

let compiled: Promise<WebAssembly.Module> | undefined;

/** The QuickJS wasm binary, compiled once per process; each run only instantiates it. */
function quickjsWasm(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const path = createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
    return WebAssembly.compile(await readFile(path));
  })();
  return compiled;
}

/** Loads and compiles QuickJS ahead of the first script (optional; the first run does it otherwise). */
export async function warmUpSandbox(): Promise<void> {
  await quickjsWasm();
}

/**
 * A finished run's memory, zeroed, for the next run with the same cap. Zeroed and at its initial size, it is what a
 * new memory is; but V8 counts each new one as 16 MiB of outside memory and runs a full garbage collection every
 * few runs for it: with a test worker's large heap that cost 110–180 ms of CPU a run, against 6 ms reusing one.
 * One is kept: runs at the same time take a new one.
 */
let spare: { readonly memory: WebAssembly.Memory; readonly maximum: number } | undefined;

function takeMemory(initial: number, maximum: number): WebAssembly.Memory {
  const kept = spare;
  spare = undefined;
  if (kept !== undefined && kept.maximum === maximum && kept.memory.buffer.byteLength === initial * WASM_PAGE) return kept.memory;
  return new WebAssembly.Memory({ initial, maximum });
}

/** Keeps a cleanly ended run's memory, zeroed; one that grew is no longer like a new one and is dropped. */
function giveBack(memory: WebAssembly.Memory, initial: number, maximum: number): void {
  if (memory.buffer.byteLength !== initial * WASM_PAGE) return;
  new Uint8Array(memory.buffer).fill(0);
  spare = { memory, maximum };
}

function toGuestError(error: unknown): GuestError {
  if (isBridgeError(error)) return { code: error.code, message: error.message, details: error.details };
  return { code: "INTERNAL", message: "Internal error" };
}

/**
 * Runs a script and resolves with its completion value as a JSON value (`undefined` → `null`).
 *
 * @throws BridgeError `TIMEOUT` (deadline), the abort reason (`CANCELLED`, `TIMEOUT`, …) when `signal` or
 * `checkpoint` stopped the run, `JSX_FAILED` with `details.kind` (syntax, error, memory, stack, output) and
 * `details.line` when known.
 *
 * @example
 * await runInSandbox({ source: "params.a + 1", filename: "inline.js", timeoutMs: 1000, globals: { params: { a: 1 } } }); // 2
 */
export async function runInSandbox(options: SandboxOptions): Promise<unknown> {
  const { source, filename, timeoutMs, signal } = options;
  const memoryBytes = options.memoryBytes ?? SCRIPT_MEMORY_LIMIT_BYTES;
  const maxOutput = options.maxOutputBytes ?? SCRIPT_MAX_OUTPUT_BYTES;
  // The QuickJS build declares SCRIPT_INITIAL_MEMORY_BYTES as its minimum; a smaller cap cannot instantiate.
  const initial = SCRIPT_INITIAL_MEMORY_BYTES / WASM_PAGE;
  const maximum = Math.max(initial, Math.floor(memoryBytes / WASM_PAGE));
  const memory = takeMemory(initial, maximum);
  const quiet = (): void => {};
  const variant = newVariant(RELEASE_SYNC, {
    wasmModule: await quickjsWasm(),
    wasmMemory: memory,
    // An aborted module prints its assertion to stderr; the failure is reported as a JSX_FAILED instead.
    emscriptenModule: { print: quiet, printErr: quiet } as never,
  });
  const module = await newQuickJSWASMModuleFromVariant(variant);
  const started = Date.now();
  const deadline = started + timeoutMs;
  const timeoutDetails = (): Record<string, unknown> => ({ timeoutMs, elapsedMs: Date.now() - started, outcome: "unknown" });
  // The first abort seen, kept: every later check and the run's error agree on it.
  let abortReason: BridgeError | undefined;
  const aborted = (): boolean => {
    if (abortReason) return true;
    try {
      options.checkpoint?.();
    } catch (error) {
      abortReason = isBridgeError(error) ? error : new BridgeError("TIMEOUT", "Script was aborted", { details: timeoutDetails() });
      return true;
    }
    if (signal?.aborted !== true) return false;
    const reason: unknown = signal.reason;
    abortReason = isBridgeError(reason) ? reason : new BridgeError("TIMEOUT", "Script was aborted", { details: timeoutDetails() });
    return true;
  };
  // Also QuickJS's interrupt handler: returning true interrupts the guest.
  const timedOut = (): boolean => aborted() || Date.now() >= deadline;
  const timeoutError = (): BridgeError =>
    aborted() && abortReason ? abortReason : new BridgeError("TIMEOUT", `Script exceeded its ${timeoutMs} ms deadline`, { details: timeoutDetails() });

  if (timedOut()) throw timeoutError();
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(memoryBytes);
  memoryLimits.set(runtime, memoryBytes);
  runtime.setMaxStackSize(SCRIPT_MAX_STACK_BYTES);
  runtime.setInterruptHandler(timedOut);
  const vm = runtime.newContext();
  const handles: QuickJSHandle[] = [];
  const deferreds = new Set<QuickJSDeferredPromise>();
  const pending = new Set<Promise<void>>();
  let alive = true;
  let broken = false;
  try {
    installGlobals(vm, options, handles, deferreds, pending, () => alive);
    const toJson = vm.unwrapResult(vm.evalCode("(v) => { const s = JSON.stringify(v); return s === undefined ? 'null' : s; }", "json.js"));
    handles.push(toJson);
    if (options.prelude !== undefined) {
      const prelude = vm.evalCode(options.prelude, PRELUDE_FILENAME);
      if (prelude.error) {
        const error = guestError(vm, prelude.error, PRELUDE_FILENAME, timedOut, timeoutError);
        throw error.code === "TIMEOUT" ? error : new BridgeError("INTERNAL", "Editor API failed to load", { cause: error });
      }
      prelude.value.dispose();
    }
    const evaluated = vm.evalCode(source, filename);
    if (evaluated.error) throw guestError(vm, evaluated.error, filename, timedOut, timeoutError);
    handles.push(evaluated.value);
    const settled = await settle(vm, evaluated.value, pending, deadline, signal, filename, timedOut, timeoutError);
    handles.push(settled);
    const json = vm.callFunction(toJson, vm.undefined, settled);
    if (json.error) {
      const error = guestError(vm, json.error, filename, timedOut, timeoutError);
      throw isBridgeError(error) && error.code === "JSX_FAILED" ? failure("output", `Result is not JSON: ${error.message}`) : error;
    }
    handles.push(json.value);
    const lengthHandle = vm.getProp(json.value, "length");
    const length = vm.getNumber(lengthHandle);
    lengthHandle.dispose();
    if (length > maxOutput) {
      throw failure("output", `Result of ${length} characters exceeds ${maxOutput}`, { length, maxOutputBytes: maxOutput });
    }
    return JSON.parse(vm.getString(json.value)) as unknown;
  } catch (error) {
    // A cancelled run answers the abort reason, whatever the guest made of it (a host call it awaited rejects with
    // the reason; the guest may catch that, and is then interrupted).
    if (aborted() && abortReason) {
      broken = !isBridgeError(error);
      throw abortReason;
    }
    if (isBridgeError(error)) throw error;
    broken = true;
    throw timedOut() ? timeoutError() : machineFailure(error, memoryBytes);
  } finally {
    alive = false;
    if (!broken) {
      // A leak check failing inside QuickJS must not turn a finished run into an error: the module is dropped anyway.
      try {
        for (const deferred of deferreds) if (deferred.alive) deferred.dispose();
        for (const handle of handles) if (handle.alive) handle.dispose();
        vm.dispose();
        runtime.dispose();
        giveBack(memory, initial, maximum);
      } catch {
        // The module and its memory are garbage after this run either way.
      }
    }
  }
}

function guestError(
  vm: QuickJSContext,
  handle: QuickJSHandle,
  filename: string,
  timedOut: () => boolean,
  timeoutError: () => BridgeError,
): BridgeError {
  const dumped: unknown = vm.dump(handle);
  // An object that dumps as something else: its properties could not be read (the heap is spent).
  const undumpable = (typeof dumped !== "object" || dumped === null) && vm.typeof(handle) === "object";
  handle.dispose();
  const interrupted = typeof dumped === "object" && dumped !== null && (dumped as GuestFailure).message === "interrupted";
  if (interrupted && timedOut()) return timeoutError();
  return guestFailure(dumped, filename, { memoryBytes: memoryLimitOf(vm), undumpable });
}

/** The heap cap of each run's runtime, set once in {@link runInSandbox}. */
const memoryLimits = new WeakMap<object, number>();

function memoryLimitOf(vm: QuickJSContext): number {
  return memoryLimits.get(vm.runtime) ?? SCRIPT_MEMORY_LIMIT_BYTES;
}

/** Waits for a promise completion value, running guest jobs whenever a host operation settles. */
async function settle(
  vm: QuickJSContext,
  value: QuickJSHandle,
  pending: Set<Promise<void>>,
  deadline: number,
  signal: AbortSignal | undefined,
  filename: string,
  timedOut: () => boolean,
  timeoutError: () => BridgeError,
): Promise<QuickJSHandle> {
  for (;;) {
    const jobs = vm.runtime.executePendingJobs();
    if (jobs.error) throw guestError(vm, jobs.error, filename, timedOut, timeoutError);
    const state = vm.getPromiseState(value);
    if (state.type === "fulfilled") return state.value;
    if (state.type === "rejected") throw guestError(vm, state.error, filename, timedOut, timeoutError);
    if (pending.size === 0) throw failure("error", "The script's promise can never settle (it waits on nothing)");
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const expired = new Promise<"expired">((resolve) => {
      timer = setTimeout(() => resolve("expired"), Math.max(0, deadline - Date.now()));
      onAbort = () => resolve("expired");
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    const outcome = await Promise.race([...pending, expired]);
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    if (outcome === "expired" || timedOut()) throw timeoutError();
  }
}

/** The JSON envelope of a successful host call; too large for the guest heap → a `PAYLOAD_TOO_LARGE` envelope. */
function replyText(value: unknown, maxReplyBytes: number): string {
  const text = JSON.stringify({ ok: true, value: value ?? null });
  if (text.length <= maxReplyBytes) return text;
  const error = new BridgeError("PAYLOAD_TOO_LARGE", `Answer of ${text.length} characters exceeds ${maxReplyBytes}`, {
    details: { length: text.length, maxReplyBytes },
  });
  return JSON.stringify({ ok: false, error: toGuestError(error) });
}

function installGlobals(
  vm: QuickJSContext,
  options: SandboxOptions,
  handles: QuickJSHandle[],
  deferreds: Set<QuickJSDeferredPromise>,
  pending: Set<Promise<void>>,
  isAlive: () => boolean,
): void {
  const maxReply = options.maxReplyBytes ?? SCRIPT_MAX_REPLY_BYTES;
  const readArgs = (opHandle: QuickJSHandle, argsHandle: QuickJSHandle): { op: string; args: unknown } => {
    const op = vm.getString(opHandle);
    const text = argsHandle === undefined ? "null" : vm.getString(argsHandle);
    if (text.length > SCRIPT_MAX_CALL_BYTES) {
      throw new BridgeError("PAYLOAD_TOO_LARGE", `Arguments of ${op} exceed ${SCRIPT_MAX_CALL_BYTES} characters`, {
        details: { op, length: text.length, maxCallBytes: SCRIPT_MAX_CALL_BYTES },
      });
    }
    return { op, args: JSON.parse(text) as unknown };
  };
  const envelope = (run: () => unknown): string => {
    try {
      return replyText(run(), maxReply);
    } catch (error) {
      return JSON.stringify({ ok: false, error: toGuestError(error) });
    }
  };
  const host = vm.newFunction("__host", (opHandle, argsHandle) =>
    vm.newString(
      envelope(() => {
        const { op, args } = readArgs(opHandle, argsHandle);
        if (!options.call) throw new BridgeError("NOT_SUPPORTED", `No host operation ${op}`, { details: { op } });
        return options.call(op, args);
      }),
    ),
  );
  const hostAsync = vm.newFunction("__hostAsync", (opHandle, argsHandle) => {
    const deferred = vm.newPromise();
    deferreds.add(deferred);
    let work: Promise<unknown>;
    try {
      const { op, args } = readArgs(opHandle, argsHandle);
      work = options.callAsync ? options.callAsync(op, args) : Promise.reject(new BridgeError("NOT_SUPPORTED", `No host operation ${op}`));
    } catch (error) {
      work = Promise.reject(error);
    }
    const done = work
      .then((value) => replyText(value, maxReply), (error: unknown) => JSON.stringify({ ok: false, error: toGuestError(error) }))
      .then((text) => {
        pending.delete(done);
        if (!isAlive() || !deferred.alive) return;
        const result = vm.newString(text);
        deferred.resolve(result);
        result.dispose();
        deferreds.delete(deferred);
      });
    pending.add(done);
    return deferred.handle;
  });
  vm.setProp(vm.global, "__host", host);
  vm.setProp(vm.global, "__hostAsync", hostAsync);
  handles.push(host, hostAsync);
  for (const [name, value] of Object.entries(options.globals ?? {})) {
    const parsed = vm.unwrapResult(vm.evalCode(`(${JSON.stringify(JSON.stringify(value ?? null))})`, "globals.js"));
    const json = vm.getProp(vm.global, "JSON");
    const parse = vm.getProp(json, "parse");
    const decoded = vm.unwrapResult(vm.callFunction(parse, json, parsed));
    vm.setProp(vm.global, name, decoded);
    for (const handle of [parsed, json, parse, decoded]) handle.dispose();
  }
}
