import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * A full garbage collection, available without starting the process with `--expose-gc`: the flag is set at run
 * time and a fresh context picks up the `gc` global it exposes. Used by the reliability suite to compare heaps.
 */
export function collectGarbage(): void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) {
    exposed();
    return;
  }
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
}

/** Heap in use after two full collections (the second picks up what finalizers freed). */
export function settledHeapBytes(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/**
 * How long `eventually` waits before failing with a message: a broken invariant's bound, not a speed verdict. 15 s
 * was passed by an editor process's recovery copy beside a whole test suite on two cores; it stays under the
 * suite's 60 s test timeout, so the message still comes first.
 */
const EVENTUALLY_BOUND_MS = 45_000;

/** Resolves once `condition()` holds, checking on every turn of the event loop (no fixed sleeps). */
export async function eventually(condition: () => boolean | Promise<boolean>, what = "condition"): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > EVENTUALLY_BOUND_MS) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
