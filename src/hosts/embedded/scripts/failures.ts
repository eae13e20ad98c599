import { BridgeError } from "../../../protocol/errors.js";

/*
 * How a script's failure is reported: `JSX_FAILED` with `details.kind` and, when the guest's stack says, the line.
 * A guest that spends its heap cannot always even build its error; that is still reported as memory, naming the cap.
 */

/** Why a script failed, in `details.kind` of `JSX_FAILED`. */
export type ScriptFailureKind = "syntax" | "error" | "memory" | "stack" | "output";

export interface GuestFailure {
  name?: string;
  message?: string;
  stack?: string;
  code?: string;
  details?: unknown;
}

export function failure(kind: ScriptFailureKind, message: string, extra: Record<string, unknown> = {}): BridgeError {
  return new BridgeError("JSX_FAILED", message, { details: { kind, message, ...extra } });
}

/** A byte count as MiB for messages: `64 MiB`, `24.5 MiB`. */
function mib(bytes: number): string {
  const value = bytes / (1024 * 1024);
  return `${Number.isInteger(value) ? value : value.toFixed(1)} MiB`;
}

/** What a guest failure is checked against: the run's heap cap, and whether the heap is spent. */
interface MemoryState {
  readonly memoryBytes: number;
  /**
   * True when the guest exception could not even be read: a guest that fills its heap leaves no room to build the
   * error's name and message (QuickJS then hands over an error that dumps as nothing).
   */
  readonly undumpable: boolean;
}

/** `JSX_FAILED` kind memory: the message names the cap, whatever the guest managed to say. */
function memoryFailure(memoryBytes: number, said: string | undefined, extra: Record<string, unknown> = {}): BridgeError {
  const message = `Script ran out of its ${mib(memoryBytes)} memory limit${said ? ` (${said})` : ""}`;
  return failure("memory", message, { ...extra, memoryBytes });
}

/** Turns a guest exception (already dumped to host values) into `JSX_FAILED`, with a line when the stack has one. */
export function guestFailure(dumped: unknown, filename: string, memory: MemoryState): BridgeError {
  if (memory.undumpable) return memoryFailure(memory.memoryBytes, undefined);
  const error: GuestFailure = typeof dumped === "object" && dumped !== null ? (dumped as GuestFailure) : { message: String(dumped) };
  const name = typeof error.name === "string" ? error.name : "Error";
  const message = typeof error.message === "string" ? error.message : JSON.stringify(dumped) ?? String(dumped);
  const kind: ScriptFailureKind =
    name === "SyntaxError" ? "syntax" : /out of memory/i.test(message) ? "memory" : /stack overflow/i.test(message) ? "stack" : "error";
  const extra: Record<string, unknown> = { name };
  const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const at = typeof error.stack === "string" ? new RegExp(`${escaped}:(\\d+)(?::(\\d+))?`).exec(error.stack) : null;
  if (at) {
    extra["line"] = Number(at[1]);
    if (at[2] !== undefined) extra["column"] = Number(at[2]);
  }
  if (typeof error.code === "string") extra["code"] = error.code;
  if (kind === "memory") return memoryFailure(memory.memoryBytes, `${name}: ${message}`, extra);
  return failure(kind, `${name}: ${message}`, extra);
}

/** A host-side failure of the wasm machine itself (trap, host stack): the module is discarded. */
export function machineFailure(error: unknown, memoryBytes: number): BridgeError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError && /call stack/i.test(message)) return failure("stack", "Script exhausted the stack");
  if (/memory|abort/i.test(message)) return memoryFailure(memoryBytes, message);
  return failure("error", `Script engine failed: ${message}`);
}
