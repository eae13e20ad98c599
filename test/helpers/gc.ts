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

/** Resolves once `condition()` holds, checking on every turn of the event loop (no fixed sleeps). */
export async function eventually(condition: () => boolean | Promise<boolean>, what = "condition"): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    // A bound so a broken invariant fails the test with a message instead of hanging it.
    if (Date.now() - started > 15_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
