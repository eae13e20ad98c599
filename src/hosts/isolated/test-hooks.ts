/*
 * Test-only operations of the editor process, to make it fail the ways real editors fail (out of memory, a native
 * fault, a stuck native call) without waiting for a real one. The child serves them only when its environment has
 * `IMAGE_EDITOR_BRIDGE_TEST_HOOKS=1` (the tests set it); otherwise they answer `NOT_SUPPORTED` like any unknown op.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { BridgeError } from "../../protocol/errors.js";
import type { HostAdapter, HostCallContext } from "../host.js";
import { TEST_OP_PREFIX } from "./protocol.js";

/** Environment variable that enables the test hooks in the editor process. */
export const TEST_HOOKS_ENV = "IMAGE_EDITOR_BRIDGE_TEST_HOOKS";

/** Key of the proxy's test-hook entry point (see {@link runTestHook}). */
export const TEST_HOOK = Symbol.for("image-editor-bridge.isolated.testHook");

export type TestHook =
  /** Grows the V8 heap until V8's own limit (`--max-old-space-size`) ends the process. */
  | "heapOom"
  /** Allocates native memory (filled `Buffer`s, outside the V8 heap) without end, then JS objects. */
  | "nativeOom"
  /** Sends itself SIGSEGV, as a fault in native code would. */
  | "crash"
  /** Blocks its thread (a stuck native call), ignoring every cancel. */
  | "block"
  /**
   * Closes every document and makes the sample (or the `open` file) again, as a fresh editor process starts: lets a
   * test file reuse one editor process across cases where the process's own start is not what a case checks.
   */
  | "reset";

/** Bytes of native memory the `nativeOom` hook adds per turn of the event loop. */
const NATIVE_STEP_BYTES = 16 * 1024 * 1024;

/**
 * Runs a test hook in the editor process behind an isolated host (the tests' only way in).
 *
 * @example
 * process.env[TEST_HOOKS_ENV] = "1";
 * await runTestHook(host, "crash").catch(() => {});
 */
export function runTestHook(host: HostAdapter, hook: TestHook, ctx?: HostCallContext): Promise<unknown> {
  const entry = (host as unknown as Record<symbol, ((hook: TestHook, ctx?: HostCallContext) => Promise<unknown>) | undefined>)[TEST_HOOK];
  if (entry === undefined) return Promise.reject(new Error("Not an isolated editor"));
  return entry(hook, ctx);
}

/** Serves a test op in the child (on its editor, `host`); `undefined` when the op is not one (or the hooks are off). */
export function testOp(op: string, host: HostAdapter): (() => Promise<unknown>) | undefined {
  if (!op.startsWith(TEST_OP_PREFIX)) return undefined;
  if (process.env[TEST_HOOKS_ENV] !== "1") {
    return () => Promise.reject(new BridgeError("NOT_SUPPORTED", `${op} is a test hook; the editor process has them off`));
  }
  switch (op.slice(TEST_OP_PREFIX.length) as TestHook) {
    case "heapOom":
      return async () => growHeap();
    case "nativeOom":
      return nativeOom;
    case "crash":
      return async () => process.kill(process.pid, "SIGSEGV");
    case "block":
      return async () => {
        for (;;) {
          // A stuck native call never returns: neither does this.
        }
      };
    case "reset":
      return async () => {
        await host.close();
        await host.connect();
        return true;
      };
    default:
      return undefined;
  }
}

/** Allocates JS arrays until the process dies. */
function growHeap(): never {
  const kept: number[][] = [];
  for (;;) kept.push(new Array<number>(1 << 16).fill(kept.length + 0.5));
}

/**
 * Native memory without end, as a leaking native library: filled buffers (so they are resident, not just reserved),
 * one step per turn so the RSS sampler sees them grow. When the OS refuses more (`RLIMIT_DATA`), the V8 heap has no
 * room left to grow either, and the JS allocations after it end the process the way a native out-of-memory does.
 */
async function nativeOom(): Promise<never> {
  const kept: Buffer[] = [];
  for (;;) {
    try {
      kept.push(Buffer.alloc(NATIVE_STEP_BYTES, kept.length & 0xff));
    } catch {
      growHeap();
    }
    await nextTurn();
  }
}
